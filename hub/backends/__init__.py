"""The database and cache backends the settings name (DATABASES ENGINE, CACHES BACKEND):
configuration-level code that no app imports."""
