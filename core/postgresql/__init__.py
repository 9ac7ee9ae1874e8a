"""The hub's PostgreSQL backend (DATABASES ENGINE "core.postgresql"): see base.py."""
