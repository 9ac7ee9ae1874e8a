"""The hub's PostgreSQL backend (DATABASES ENGINE "hub.backends.postgresql"): see base.py."""
