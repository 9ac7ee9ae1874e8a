"""A scratch PostgreSQL database for the tests that run the commands in processes of their own."""

import os

import psycopg
import pytest

from core.testing import skip_unless_services


def postgresql_server() -> str:
    """The server the suite's PostgreSQL runs use (DATABASE_URL), or LTM_TEST_POSTGRESQL_URL."""
    for url in (os.environ.get("LTM_TEST_POSTGRESQL_URL", ""), os.environ.get("DATABASE_URL", "")):
        if url.startswith(("postgres://", "postgresql://")):
            return url.rsplit("/", 1)[0]
    skip_unless_services("this test needs PostgreSQL: DATABASE_URL=postgres://... (as CI)")
    return ""


@pytest.fixture
def fresh_postgresql():
    """The URL of an empty database, dropped at the end."""
    server = postgresql_server()
    name = f"ltm_ops_scratch_{os.getpid()}"
    with psycopg.connect(f"{server}/postgres", autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {name}")
        admin.execute(f"CREATE DATABASE {name}")
    yield f"{server}/{name}"
    with psycopg.connect(f"{server}/postgres", autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
