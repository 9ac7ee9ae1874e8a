"""The Python client (cli/) as a wheel the hub built itself, served at /client/<wheel file>.

`make run`, `make stack` and `make client` build it with `python -m connect.wheel` into
client_dist/ (gitignored) beside manage.py; the Docker image builds it in a stage of its own. The
folder holds one wheel, the newest build: its file name (ltm_hub_cli-0.1.0-py3-none-any.whl)
is the URL pip and pipx install from, since both refuse a URL whose last segment is not a valid
wheel file name; /client/ltm.whl redirects to it for a stable link. `LTM_CLIENT_WHEEL_DIR` (a
setting or the environment) points elsewhere, as the tests do.

The build copies cli/pyproject.toml and cli/ltm/ into a fresh folder and runs `pip wheel` there:
setuptools builds in the source tree, and a cli/build/ left by an earlier build would put
modules deleted since into the wheel."""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from django.conf import settings

REPOSITORY = Path(__file__).resolve().parents[1]
CLI_DIR = REPOSITORY / "cli"
DEFAULT_DIR = REPOSITORY / "client_dist"
WHEEL_PATTERN = "*-py3-none-any.whl"


def wheel_dir() -> Path:
    configured = getattr(settings, "LTM_CLIENT_WHEEL_DIR", None) or os.environ.get("LTM_CLIENT_WHEEL_DIR")
    return Path(configured) if configured else DEFAULT_DIR


def built_wheel(folder: Path | None = None) -> Path | None:
    """The wheel to serve: the newest one in the folder, or None when none is built."""
    wheels = sorted((folder or wheel_dir()).glob(WHEEL_PATTERN), key=lambda wheel: wheel.stat().st_mtime)
    return wheels[-1] if wheels else None


def build(folder: Path, cli_dir: Path = CLI_DIR) -> Path:
    """Build the client's wheel into `folder`, which then holds it alone; the wheel's path."""
    with tempfile.TemporaryDirectory(prefix="ltm-client-") as scratch:
        source, out = Path(scratch) / "cli", Path(scratch) / "out"
        source.mkdir()
        shutil.copy2(cli_dir / "pyproject.toml", source)
        shutil.copytree(cli_dir / "ltm", source / "ltm", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        command = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", str(source), "-w", str(out)]
        subprocess.run(command, check=True, stdin=subprocess.DEVNULL)
        (wheel,) = out.glob(WHEEL_PATTERN)
        folder.mkdir(parents=True, exist_ok=True)
        # Whole or not at all: a hub serving the folder never sees half a file.
        partial = folder / f".{wheel.name}.partial"
        shutil.copyfile(wheel, partial)
        os.replace(partial, folder / wheel.name)
    for old in folder.glob(WHEEL_PATTERN):
        if old.name != wheel.name:
            old.unlink()
    return folder / wheel.name


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m connect.wheel", description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, help=f"where to put the wheel (default: {DEFAULT_DIR})")
    folder = parser.parse_args(argv).folder or Path(os.environ.get("LTM_CLIENT_WHEEL_DIR") or DEFAULT_DIR)
    try:
        wheel = build(folder)
    except subprocess.CalledProcessError as failure:
        print(f"the client's wheel was not built: pip wheel exited with {failure.returncode}", file=sys.stderr)
        return 1
    print(f"built {wheel}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
