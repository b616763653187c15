"""One router per resource; ``service.api.create_app`` includes them all."""
