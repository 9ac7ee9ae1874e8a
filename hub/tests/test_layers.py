"""The layer contracts of `.importlinter` hold: Django apps import only downwards (the layers it
names, from hub down to core), and so do the CLI's modules."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hub.testing import ROOT, root_packages

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
    """The contract is not vacuous: the same configuration, over a copy of the hub's packages in
    which accounts imports an app above it, fails."""
    skip = shutil.ignore_patterns("__pycache__")
    for package in root_packages():
        shutil.copytree(ROOT / package, tmp_path / package, ignore=skip)
    shutil.copytree(ROOT / "cli" / "ltm", tmp_path / "ltm", ignore=skip)
    with (tmp_path / "accounts" / "services.py").open("a") as services:
        services.write(f"\nimport {upper}.models\n")

    result = lint_imports(cwd=tmp_path)

    assert result.returncode != 0
    assert f"accounts.services -> {upper}.models" in result.stdout
