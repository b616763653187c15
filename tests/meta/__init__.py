"""Tests of the repository itself: test tiers, packaging, the Dockerfile."""
