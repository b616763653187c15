"""Tests of service/api/: the HTTP routes, their contract, auth and request gathering."""
