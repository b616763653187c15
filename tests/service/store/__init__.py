"""Tests of service/store/: the store contract on SQLite and PostgreSQL, migrations, concurrency."""
