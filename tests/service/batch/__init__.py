"""Tests of service/batch/: samestory batch, its stages, and its equivalence with streaming."""
