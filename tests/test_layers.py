"""The layer contracts of `.importlinter` hold: Django apps import only downwards (hub > mcp_remote >
packets > teams > oauth > accounts > core), and so do the CLI's modules."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or "lint-imports"


def lint_imports(*, cwd: Path, pythonpath: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(pythonpath or cwd)}
    return subprocess.run(
        [LINT_IMPORTS, "--no-cache", "--no-logo", "--config", str(ROOT / ".importlinter")],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_project_keeps_its_layer_contracts():
    result = lint_imports(cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout
    # Tests live in the layers too: nothing, test code included, is exempt from the contract.
    assert "ignore_imports" not in (ROOT / ".importlinter").read_text()


@pytest.mark.parametrize("upper", ["packets", "oauth"])
def test_a_back_import_breaks_the_django_layers(tmp_path, upper):
    """The contract is not vacuous: the same configuration, over a copy of the layer packages in
    which accounts imports an app above it, fails."""
    for package in ("hub", "mcp_remote", "packets", "teams", "oauth", "accounts", "core"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / upper / "models.py").write_text("")
    for module in ("services.py", "tasks.py"):  # named by a contract of their own
        (tmp_path / "teams" / module).write_text("")
    (tmp_path / "accounts" / "services.py").write_text(f"import {upper}.models\n")
    ltm = tmp_path / "ltm"
    shutil.copytree(ROOT / "cli" / "ltm", ltm, ignore=shutil.ignore_patterns("__pycache__"))

    result = lint_imports(cwd=tmp_path)

    assert result.returncode != 0
    assert f"accounts.services -> {upper}.models" in result.stdout
