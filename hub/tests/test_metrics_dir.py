"""Each server counts its metrics in a folder of its own under PROMETHEUS_MULTIPROC_DIR, emptied
as it starts, never another server's (hub/metrics_dir.py, web.py, hub/celery.py)."""

from hub.metrics_dir import claim


def test_a_server_empties_its_own_folder_only(tmp_path):
    earlier_run, other_server = tmp_path / "web-8000", tmp_path / "worker-celery@host"
    earlier_run.mkdir()
    other_server.mkdir()
    (earlier_run / "counter_12.db").write_bytes(b"old counts")
    (other_server / "counter_34.db").write_bytes(b"a live worker's counts")
    environ = {"PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}

    folder = claim("web-8000", environ)

    assert folder == earlier_run and list(folder.iterdir()) == []
    assert (other_server / "counter_34.db").exists()
    assert environ == {"PROMETHEUS_MULTIPROC_DIR": str(earlier_run), "LTM_METRICS_ROOT": str(tmp_path)}


def test_the_root_is_kept_for_the_next_claim(tmp_path):
    environ = {"PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}
    claim("web-8000", environ)
    assert claim("worker-a", environ) == tmp_path / "worker-a"


def test_nothing_without_a_folder():
    assert claim("web-8000", {}) is None


def test_web_py_claims_a_folder_per_port(tmp_path):
    import web

    environ = {"PROMETHEUS_MULTIPROC_DIR": str(tmp_path), "PORT": "8123"}
    assert web.metrics_folder(environ) == tmp_path / "web-8123"
    json_config = web.logging_config({"LOG_FORMAT": "json"})
    assert {formatter["()"] for formatter in json_config["formatters"].values()} == {"core.logs.JsonLines"}
    assert web.server({"LOG_FORMAT": "json"}).log_access is False
