"""One version for the hub and its client: on /v1/healthz, in the footer, in `ltm --version`."""

import subprocess
import sys
import tomllib

import pytest
from django.conf import settings

import ltm


def test_the_hub_and_the_client_say_the_same_version():
    pyproject = tomllib.loads((settings.BASE_DIR / "cli" / "pyproject.toml").read_text())
    # settings.LTM_VERSION is hub/__init__.py's __version__
    assert settings.LTM_VERSION == ltm.__version__ == pyproject["project"]["version"]


def test_ltm_version_prints_it():
    printed = subprocess.run([sys.executable, "-m", "ltm", "--version"], capture_output=True, text=True, check=True)
    assert printed.stdout.strip().endswith(settings.LTM_VERSION)


def test_healthz_says_both_versions(client):
    assert client.get("/v1/healthz").json() == {"ok": True, "version": "0.2", "hub": settings.LTM_VERSION}


@pytest.mark.django_db
def test_the_footer_says_it(client):
    assert f"ltm hub {settings.LTM_VERSION} · speaks" in client.get("/accounts/login/").content.decode()
