"""Tests of research/: the laboratory's experiments, and that it stays apart from the product."""
