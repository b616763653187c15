"""Tests of bench/: the benchmark stream, harness and alternatives (never timings)."""
