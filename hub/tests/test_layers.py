"""The layer contracts of `.importlinter` hold: Django apps import only downwards (the layers it
names, from hub down to core), each app's modules too (a contract per app), and so do the CLI's
modules."""

import configparser
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


def test_every_app_has_a_layers_contract_of_its_own():
    config = configparser.ConfigParser()
    config.read(ROOT / ".importlinter")
    contained = {
        container
        for section in config.sections()
        if config[section].get("type") == "layers"
        for container in config[section].get("containers", "").split()
    }
    assert set(root_packages()) | {"ltm"} <= contained, "apps without a contract of their own"


def copy_with_a_line(tmp_path, module: str, line: str) -> Path:
    """A copy of the hub's packages and the CLI's `ltm`, with `line` added to `module`'s file."""
    skip = shutil.ignore_patterns("__pycache__")
    for package in root_packages():
        shutil.copytree(ROOT / package, tmp_path / package, ignore=skip)
    shutil.copytree(ROOT / "cli" / "ltm", tmp_path / "ltm", ignore=skip)
    with (tmp_path / (module.replace(".", "/") + ".py")).open("a") as file:
        file.write(f"\n{line}\n")
    return tmp_path


@pytest.mark.parametrize("upper", ["packets", "oauth"])
def test_a_back_import_breaks_the_django_layers(tmp_path, upper):
    """The contract is not vacuous: the same configuration, over a copy of the hub's packages in
    which accounts imports an app above it, fails."""
    result = lint_imports(cwd=copy_with_a_line(tmp_path, "accounts.services", f"import {upper}.models"))

    assert result.returncode != 0
    assert f"accounts.services -> {upper}.models" in result.stdout


def test_a_back_import_inside_an_app_breaks_its_contract(tmp_path):
    """An app's own contract is not vacuous either: teams' models importing its services fails."""
    result = lint_imports(cwd=copy_with_a_line(tmp_path, "teams.models", "import teams.services"))

    assert result.returncode != 0
    assert "teams.models -> teams.services" in result.stdout
