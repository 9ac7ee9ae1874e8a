"""/mcp names itself on `initialize` (serverInfo): the MCP SDK's Server answers `version` empty
unless told, so mcp_remote.server gives it the release of the tree the hub is built from, the
version of the `ltm` package the hub ships (cli/, ltm-hub-cli), as `ltm mcp` does."""

import importlib.metadata

import pytest

import ltm
from mcp_remote.testing import PROTOCOL, rpc


@pytest.fixture
def token(alice, make_token):
    return make_token(alice)


def initialize(token):
    return rpc(
        token,
        "initialize",
        {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}},
    )


def test_initialize_answers_the_hubs_name_and_version(token):
    response = initialize(token)
    assert response.status_code == 200, response.content
    server_info = response.json()["result"]["serverInfo"]
    assert server_info["name"] == "ltm"
    assert server_info["version"] == ltm.__version__
    assert server_info["version"], "serverInfo.version is empty"


def test_the_version_is_the_shipped_packages():
    """ltm.__version__ and the installed distribution's version say the same release."""
    assert ltm.__version__ == importlib.metadata.version("ltm-hub-cli")
