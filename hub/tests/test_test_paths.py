"""`make test` runs pytest with pytest.ini's testpaths: a folder of tests left off that list is
never run, in CI or anywhere."""

import configparser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_folder_of_tests_is_in_testpaths():
    config = configparser.ConfigParser()
    config.read(ROOT / "pytest.ini")
    listed = [ROOT / path for path in config["pytest"]["testpaths"].split()]
    folders = {
        path.parent
        for path in ROOT.rglob("test_*.py")
        if not {".venv", ".venv-vps", "node_modules", "site-packages"} & set(path.parts)
    }
    unlisted = sorted(
        str(folder.relative_to(ROOT)) for folder in folders if not any(folder.is_relative_to(top) for top in listed)
    )
    assert unlisted == [], f"tests that `make test` never runs: {unlisted} (add them to pytest.ini's testpaths)"
