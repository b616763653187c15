"""The laboratory: experiments that do not ship, kept apart from the product.

Nothing here is installed (``pyproject.toml`` lists only the product packages) and nothing in
``service/``, ``index/`` or ``models/`` imports it (``tests/research/test_research_apart.py``). Each
experiment is a module run from the repository root, ``python -m research.<topic>.<module>``,
and its write-up says which command produced which number.
"""
