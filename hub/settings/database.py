"""The database: SQLite in the project folder unless DATABASE_URL names another (PostgreSQL via
psycopg 3 in production and CI)."""

from django.core.exceptions import ImproperlyConfigured

from .environment import BASE_DIR, env

DATABASES = {
    "default": {
        **env.db_url("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
        "CONN_MAX_AGE": env.int("DB_CONN_MAX_AGE", default=60),
        # No `SELECT 1` before every request (a round trip each): a connection the database
        # dropped fails its next query instead, which answers 503 once, and Django then closes it.
        "CONN_HEALTH_CHECKS": False,
    }
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # A database that does not answer must cost a request seconds, not a worker: connecting
    # gives up after DB_CONNECT_TIMEOUT seconds, the server cancels a statement after
    # DB_STATEMENT_TIMEOUT milliseconds (0: no limit, e.g. for a long migration), and a server
    # that stopped answering is given up half a second after that (hub.backends.postgresql,
    # which then leaves the database alone for a few seconds). Each is a 503
    # (core.views.server_error).
    #
    # Parameters are bound on the server and a statement a connection has run 5 times is prepared
    # (psycopg's prepare_threshold): PostgreSQL then neither parses nor plans it again. Django
    # leaves both off for poolers that cannot keep prepared statements: DB_PREPARED_STATEMENTS=0
    # behind PgBouncer older than 1.21 in transaction mode (1.21 and newer keep them with
    # max_prepared_statements set).
    prepared = env.bool("DB_PREPARED_STATEMENTS", default=True)
    statement_timeout = env.int("DB_STATEMENT_TIMEOUT", default=4000)
    DATABASES["default"]["ENGINE"] = "hub.backends.postgresql"
    DATABASES["default"]["OPTIONS"] = {
        "connect_timeout": env.int("DB_CONNECT_TIMEOUT", default=3),
        "options": f"-c statement_timeout={statement_timeout}",
        "answer_timeout": statement_timeout / 1000 + 0.5 if statement_timeout > 0 else None,
        "server_side_binding": prepared,
        "prepare_threshold": 5 if prepared else None,
    }
# A commit the hub answered for survives a power cut: SQLite syncs the WAL at every commit
# (`full`). `normal` syncs only at checkpoints, faster, and a power loss or OS crash may then roll
# back transactions already answered 201 (SQLite's own words are in docs/production.md); an
# operator opts in knowingly, and `check --deploy` says so (core.checks).
LTM_SQLITE_SYNCHRONOUS = env("LTM_SQLITE_SYNCHRONOUS", default="full")
if LTM_SQLITE_SYNCHRONOUS not in ("full", "normal"):
    raise ImproperlyConfigured(f"LTM_SQLITE_SYNCHRONOUS is full or normal; got {LTM_SQLITE_SYNCHRONOUS!r}")
SQLITE_WAL_BACKSTOP = 10_000
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Several web processes on one SQLite file: WAL lets readers run beside a writer, IMMEDIATE
    # transactions queue writers (instead of failing with "database is locked" on upgrade). The
    # one place every connection is set up, the web's, the Celery worker's and the commands'.
    # A commit checkpoints the log only past SQLITE_WAL_BACKSTOP pages (SQLite's default: 1000):
    # the writers' processes checkpoint it off their requests (packets.sqlite_writers).
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": (
            f"PRAGMA journal_mode=WAL; PRAGMA synchronous={LTM_SQLITE_SYNCHRONOUS.upper()}; "
            f"PRAGMA wal_autocheckpoint={SQLITE_WAL_BACKSTOP};"
        ),
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
