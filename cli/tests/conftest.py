"""Shared fixtures of the CLI tests: a clean config folder and an in-process fake hub."""

import pytest

from .fake_hub import FakeHub


@pytest.fixture
def config_dir(tmp_path, monkeypatch):
    """An empty config folder that the client will create; no host from the environment."""
    folder = tmp_path / "ltm-config"
    monkeypatch.setenv("LTM_CONFIG_DIR", str(folder))
    for name in ("LTM_HUB_URL", "LTM_HOST", "LTM_USER", "LTM_OUTPUT"):
        monkeypatch.delenv(name, raising=False)
    return folder


@pytest.fixture
def hub(config_dir, monkeypatch):
    """A running fake hub; the client points at it and holds alice's token."""
    with FakeHub() as fake:
        monkeypatch.setenv("LTM_HUB_URL", fake.url)
        config_dir.mkdir(mode=0o700)
        (config_dir / "credentials").write_text("tok-alice\n")
        yield fake
