"""Tests of models/: embedding back-ends, their cache and registry, the pair verifier."""
