"""A backup reads one moment of the hub while it goes on serving: a write made on another
connection after the backup began is not in the file (ops.backup.snapshot), on either engine.
The backup runs in a process of its own, on a database file or server as a deployment has it."""

from ops.testing import steps


def test_a_backup_on_sqlite_holds_the_hub_as_it_began(tmp_path):
    steps(f"sqlite:///{tmp_path / 'hub.sqlite3'}", "migrate", f"snapshot:{tmp_path / 'hub.zip'}")


def test_a_backup_on_postgresql_holds_the_hub_as_it_began(tmp_path, fresh_postgresql):
    steps(fresh_postgresql, "migrate", f"snapshot:{tmp_path / 'hub.zip'}")
