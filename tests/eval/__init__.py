"""Tests of eval/: metrics, baselines, the evaluation CLIs and the report."""
