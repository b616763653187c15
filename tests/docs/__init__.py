"""Tests that keep the docs true: links, sizes, generated pages, and every command they show."""
