"""Tests of index/: candidate finders and text features."""
