"""The backup file: what it holds, and every way a file is refused with nothing written."""

import contextlib
import errno
import json
import resource
import signal
import zipfile

import pytest
from django.apps import apps
from django.core.management import call_command
from django.core.management.base import CommandError

from accounts.models import User
from ops import archive, backup
from ops.backup import dumped_models
from ops.restore import backup_restore, hub_models

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def written(tmp_path, alice, make_token):
    make_token(alice)
    path = tmp_path / "hub.zip"
    call_command("ltm_backup", output=str(path), verbosity=0)
    return path


def rewrite(source, target, change):
    """A copy of the backup at `source` with `change(name, data) -> data` applied to each entry."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for name in old.namelist():
            new.writestr(name, change(name, old.read(name)))
    return target


def refused(path) -> str:
    users = User.objects.count()
    with pytest.raises(CommandError) as raised:
        call_command("ltm_restore", str(path), verbosity=0)
    assert User.objects.count() == users  # nothing written
    return str(raised.value)


def test_every_model_is_in_the_backup(written):
    with zipfile.ZipFile(written) as file:
        manifest = json.loads(file.read("manifest.json"))
    every = {model._meta.label for model in apps.get_models(include_auto_created=True) if model._meta.managed}
    assert {table["model"] for table in manifest["tables"]} == every
    assert {model._meta.label for model in dumped_models()} == every
    users = next(table for table in manifest["tables"] if table["model"] == "accounts.User")
    assert users["rows"] == 1 and "password" in users["columns"]
    assert manifest["hub_version"] and manifest["migrations"]


def test_a_truncated_file_is_refused(written, tmp_path):
    cut = tmp_path / "cut.zip"
    cut.write_bytes(written.read_bytes()[: written.stat().st_size // 2])
    assert "not a whole ltm backup" in refused(cut)


def test_an_edited_part_is_refused(written, tmp_path):
    def edit(name, data):
        return data.replace(b"alice", b"mallory") if name == "tables/accounts.User.jsonl" else data

    assert "does not match its checksum" in refused(rewrite(written, tmp_path / "edited.zip", edit))


def with_manifest(change):
    """An edit for rewrite(): `change(manifest)` applied to manifest.json, the parts left alone."""

    def edit(name, data):
        if name != "manifest.json":
            return data
        manifest = json.loads(data)
        change(manifest)
        return json.dumps(manifest).encode()

    return edit


def test_a_manifest_that_lies_about_counts_is_refused(written, tmp_path):
    def two_users(manifest):
        next(table for table in manifest["tables"] if table["model"] == "accounts.User")["rows"] = 2

    assert "the manifest says 2" in refused(rewrite(written, tmp_path / "counts.zip", with_manifest(two_users)))


def test_a_backup_from_a_newer_hub_is_refused(written, tmp_path):
    newer = with_manifest(lambda manifest: manifest.update(hub_version="99.0.0"))
    assert "newer than this hub" in refused(rewrite(written, tmp_path / "newer.zip", newer))


def test_a_backup_with_unknown_migrations_is_refused(written, tmp_path):
    future = with_manifest(lambda manifest: manifest["migrations"].append(["packets", "9999_future"]))
    assert "packets.9999_future" in refused(rewrite(written, tmp_path / "future.zip", future))


def test_a_second_restore_into_the_same_database_is_refused(written):
    assert "not empty" in refused(written)


def test_another_kind_of_file_is_refused(tmp_path):
    other = tmp_path / "notes.zip"
    with zipfile.ZipFile(other, "w") as file:
        file.writestr("notes.txt", "hello")
    assert "no manifest.json" in refused(other)
    text = tmp_path / "notes.txt"
    text.write_text("not a zip")
    assert "not a whole ltm backup" in refused(text)


def test_a_full_disk_leaves_no_file_under_the_name(tmp_path, alice, monkeypatch):
    real = archive.PartWriter.write
    writes = []

    def fill_up(self, values):
        writes.append(values)
        if len(writes) > 3:
            raise OSError(errno.ENOSPC, "No space left on device")
        real(self, values)

    monkeypatch.setattr(archive.PartWriter, "write", fill_up)
    target = tmp_path / "hub.zip"
    with pytest.raises(CommandError, match="No space left on device"):
        call_command("ltm_backup", output=str(target), verbosity=0)
    assert list(tmp_path.iterdir()) == []


@contextlib.contextmanager
def files_limited_to(size: int):
    """The kernel refuses to let this process write a file past `size` bytes (EFBIG): a real
    failing write, as a full disk's, with no fake in the backup's code."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an error from write(), not a kill
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, handler)


def test_a_write_the_system_refuses_leaves_no_file_under_the_name(tmp_path, alice, make_token):
    make_token(alice)
    target = tmp_path / "hub.zip"
    with files_limited_to(2048), pytest.raises(CommandError, match="could not be written.*File too large"):
        call_command("ltm_backup", output=str(target), verbosity=0)
    assert list(tmp_path.iterdir()) == []


def test_a_failed_backup_keeps_the_previous_file(written, monkeypatch):
    before = written.read_bytes()
    monkeypatch.setattr(backup, "dumped_models", lambda: (_ for _ in ()).throw(OSError(errno.EIO, "I/O error")))
    with pytest.raises(CommandError):
        call_command("ltm_backup", output=str(written), verbosity=0)
    assert written.read_bytes() == before
    assert sorted(path.name for path in written.parent.iterdir()) == [written.name]


def test_the_hub_apps_are_known(written):
    labels = {model._meta.label for model in hub_models()}
    assert {"accounts.User", "packets.Packet", "teams.Team", "core.OutboxTask"} <= labels
    assert not any(label.startswith(("auth.", "oauth2_provider.", "django")) for label in labels)


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(archive.BackupError, match="missing.zip: no such file"):
        backup_restore(source=tmp_path / "missing.zip")
