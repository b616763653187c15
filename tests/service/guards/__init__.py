"""Tests of service/guards/: each guard, the slot layer and the guard set."""
