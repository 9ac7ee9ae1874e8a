"""The MCP SDK is an optional extra: without it `ltm mcp` says how to install it, and every other
command works. Each test runs a fresh interpreter in which the SDK cannot be imported."""

import os
import subprocess
import sys

import ltm

# None in sys.modules makes `import mcp` fail as if the package were not installed.
WITHOUT_SDK = "import sys; sys.modules['mcp'] = sys.modules['mcp_types'] = None; "


def run_without_sdk(code, config_dir):
    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": os.path.dirname(os.path.dirname(ltm.__file__)),
        "LTM_CONFIG_DIR": str(config_dir),
    }
    return subprocess.run(
        [sys.executable, "-c", WITHOUT_SDK + code], env=env, capture_output=True, text=True, timeout=60
    )


def test_ltm_mcp_without_the_sdk_names_the_extra_and_exits_1(config_dir):
    done = run_without_sdk("from ltm.main import main; sys.exit(main(['mcp']))", config_dir)
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.startswith("ltm: `ltm mcp` needs the MCP SDK")
    assert "pip install 'ltm-hub-cli[mcp]'" in done.stderr
    assert "pip install './cli[mcp]'" in done.stderr


def test_every_other_command_works_without_the_sdk(config_dir):
    code = (
        "from ltm.main import main; "
        "assert main(['example']) == 0; "
        "assert main(['config', 'path']) == 0; "
        "assert main(['--help']) == 0; "
        "assert 'ltm.mcp_server' not in sys.modules"
    )
    done = run_without_sdk(code, config_dir)
    assert done.returncode == 0, done.stderr
    assert '"ltm_version": "0.2"' in done.stdout
