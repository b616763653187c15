"""Tests of service/: the engine, its stages, stories, settling, corrections, CLI and pages."""
