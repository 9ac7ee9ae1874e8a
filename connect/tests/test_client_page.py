"""/client/: the page that says how to install the Python client from this hub, with this hub's URL
in every line, and the wheel the hub built from cli/ (connect/wheel.py), which pip installs
from its URL. The agent lines of connect/agents.py on the home page and in the manual's
docs/how-to/connect-an-agent.md."""

import atexit
import functools
import html
import io
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
import urllib.request
import zipfile
from pathlib import Path

import pytest
from django.test import Client

from connect import wheel as client_wheel
from connect.agents import AGENT_LINES, DOCS_HUB, HUB
from core.testing import signed_in
from ltm.protocol.packet import example_packet

ROOT = Path(__file__).resolve().parents[2]
VERSION = tomllib.loads((ROOT / "cli" / "pyproject.toml").read_text())["project"]["version"]
WHEEL_NAME = f"ltm_hub_cli-{VERSION}-py3-none-any.whl"
STALE_NAME = "ltm_hub_cli-0.0.1-py3-none-any.whl"


@functools.cache
def built_wheel_dir() -> Path:
    """The wheel built once per test run, as `make client` builds it, into a temporary folder that
    held the wheel of an older version."""
    folder = Path(tempfile.mkdtemp(prefix="ltm-client-wheel-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    (folder / STALE_NAME).write_bytes(b"an older build")
    client_wheel.build(folder)
    return folder


@pytest.fixture
def wheel(settings) -> Path:
    settings.LTM_CLIENT_WHEEL_DIR = str(built_wheel_dir())
    return built_wheel_dir() / WHEEL_NAME


@pytest.fixture
def no_wheel(settings, tmp_path):
    settings.LTM_CLIENT_WHEEL_DIR = str(tmp_path)


def _commands(body: str) -> list[str]:
    return [html.unescape(command) for command in re.findall(r'<pre class="cmd">(.*?)</pre>', body, re.S)]


def _body(response) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


def test_the_page_shows_the_install_lines_with_this_hubs_url(db, wheel):
    response = Client().get("/client/")
    assert response.status_code == 200
    commands = _commands(response.content.decode())
    url = f"http://testserver/client/{WHEEL_NAME}"
    assert f"pipx install {url}" in commands
    assert f"pip install {url}" in commands
    assert f'pipx install "ltm-hub-cli[mcp] @ {url}"' in commands
    assert "ltm auth http://testserver" in commands
    page = response.content.decode()
    assert "public Go client" in page and "works with this hub unchanged" in page
    assert f'href="{url}"' in page


def test_the_lines_name_the_configured_external_url(db, wheel, settings):
    settings.LTM_EXTERNAL_URL = "https://hub.example.org"
    commands = _commands(Client().get("/client/").content.decode())
    assert f"pipx install https://hub.example.org/client/{WHEEL_NAME}" in commands
    assert "claude mcp add --transport http ltm https://hub.example.org/mcp" in commands


def test_the_wheel_is_a_wheel_of_the_client(db, wheel):
    response = Client().get(f"/client/{WHEEL_NAME}")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    assert response["Content-Disposition"] == f'attachment; filename="{WHEEL_NAME}"'
    archive = zipfile.ZipFile(io.BytesIO(_body(response)))
    names = archive.namelist()
    assert "ltm/__init__.py" in names and "ltm/main.py" in names
    assert "ltm/protocol/schema/core-memory.v0.2.json" in names
    assert not [name for name in names if "__pycache__" in name or name.startswith("tests/")]
    info = f"ltm_hub_cli-{VERSION}.dist-info"
    metadata = archive.read(f"{info}/METADATA").decode()
    assert "\nName: ltm-hub-cli\n" in metadata and f"\nVersion: {VERSION}\n" in metadata
    assert "ltm = ltm.main:main" in archive.read(f"{info}/entry_points.txt").decode()
    assert archive.testzip() is None


def test_the_lasting_link_leads_to_the_wheel(db, wheel):
    response = Client().get("/client/ltm.whl")
    assert response.status_code == 302
    assert response["Location"] == f"/client/{WHEEL_NAME}"


@pytest.mark.parametrize("name", [".built", STALE_NAME, f"{WHEEL_NAME}.partial", "ltm.zip"])
def test_nothing_else_of_the_folder_is_served(db, wheel, name):
    (wheel.parent / ".built").touch()
    response = Client().get(f"/client/{name}")
    assert response.status_code == 404
    assert (
        f'This hub serves the client as <a href="http://testserver/client/{WHEEL_NAME}">' in response.content.decode()
    )


def test_without_a_wheel_the_page_says_how_to_build_it(db, no_wheel, tmp_path):
    response = Client().get("/client/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "has not built the client's wheel" in page and str(tmp_path) in page
    assert "make client" in _commands(page)
    assert "ltm auth http://testserver" in _commands(page)  # the Go client still has its line


@pytest.mark.parametrize("path", ["/client/ltm.whl", f"/client/{WHEEL_NAME}"])
def test_without_a_wheel_its_urls_are_a_404_that_says_why(db, no_wheel, path):
    response = Client().get(path)
    assert response.status_code == 404
    page = response.content.decode()
    assert f"There is no file at <code>{path}</code>" in page and "make client" in page


def test_the_build_leaves_its_wheel_alone_in_the_folder():
    """The older version's wheel is gone, and so is the partial copy the build renames."""
    folder = built_wheel_dir()
    assert sorted(path.name for path in folder.iterdir() if path.name != ".built") == [WHEEL_NAME]
    assert client_wheel.built_wheel(folder) == folder / WHEEL_NAME


def test_pip_installs_the_client_from_the_hubs_url(live_server, settings, tmp_path):
    """A real `pip install <the URL the page shows>` into a fresh virtualenv, as a person runs it;
    pip fetches the wheel's dependencies from the package index, as for that person."""
    settings.LTM_CLIENT_WHEEL_DIR = str(built_wheel_dir())
    with urllib.request.urlopen(f"{live_server.url}/client/") as answer:
        page = answer.read().decode()
    url = f"{live_server.url}/client/{WHEEL_NAME}"
    assert f"pip install {url}" in _commands(page)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    install = subprocess.run(
        [venv / "bin" / "python", "-m", "pip", "install", "--disable-pip-version-check", url],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert install.returncode == 0, install.stdout + install.stderr
    # Nothing of this checkout on the path: the ltm that runs is the one pip installed.
    version = subprocess.run([venv / "bin" / "ltm", "--version"], capture_output=True, text=True, cwd=tmp_path)
    assert version.returncode == 0, version.stderr
    assert VERSION in version.stdout
    where = subprocess.run(
        [venv / "bin" / "python", "-c", "import ltm; print(ltm.__file__)"], capture_output=True, text=True, cwd=tmp_path
    )
    assert where.stdout.startswith(str(venv)), where.stdout


# The pages that lead to /client/ and to the agent lines.


def test_the_home_page_shows_every_agent_line_with_this_hubs_url(db):
    commands = _commands(Client().get("/").content.decode())
    for agent in AGENT_LINES:
        assert agent.line.replace(HUB, "http://testserver") in commands, agent.agent
    assert "claude mcp add --transport http ltm http://testserver/mcp" in commands
    assert '{"mcpServers": {"ltm": {"url": "http://testserver/mcp"}}}' in commands


def test_the_home_page_leads_to_the_client_page_and_the_manual(db):
    page = Client().get("/").content.decode()
    assert 'href="/client/"' in page and 'href="/docs/how-to/connect-an-agent/"' in page
    assert "pip install ./cli" not in page


def test_the_manual_shows_the_same_agent_lines():
    """docs/how-to/connect-an-agent.md writes https://hub.example for the hub: each line of
    connect/agents.py is there, character for character, so the manual and the pages say the same."""
    manual = (ROOT / "docs" / "how-to" / "connect-an-agent.md").read_text()
    for agent in AGENT_LINES:
        assert agent.line.replace(HUB, DOCS_HUB) in manual, agent.agent


def test_the_client_manual_installs_from_the_hubs_url():
    manual = (ROOT / "docs" / "how-to" / "install-the-client.md").read_text()
    assert f"pipx install {DOCS_HUB}/client/ltm_hub_cli-" in manual
    assert f"pip install {DOCS_HUB}/client/ltm_hub_cli-" in manual


def test_a_public_packet_page_leads_to_the_client_page(alice, api_as):
    """Pushed and published through the wire API, as a client does."""
    client = api_as(alice)
    packet = example_packet()
    assert client.post("/v1/packets", packet).status_code == 201
    public_url = client.post(f"/v1/packets/{packet['id']}/publish").json()["public_url"]
    page = Client().get(public_url.removeprefix("http://testserver")).content.decode()
    assert '<a href="http://testserver/client/" class="get-client">Get the client</a>' in page


def test_no_connected_app_points_to_the_manuals_agent_page(alice):
    page = signed_in(alice).get("/tokens").content.decode()
    assert (
        'No app is connected. See <a href="/docs/how-to/connect-an-agent/">Connect your agent</a> in the manual.'
        in page
    )
