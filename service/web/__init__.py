"""The editors' pages: the view-model (``stories``), Jinja2 templates and static assets (``/ui``)."""
