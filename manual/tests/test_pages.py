"""The manual's pages as a reader meets them: each opens by saying what the reader will be able to
do, the tutorials and how-to guides stay free of the hub's internals, and the settings reference,
which cannot be generated, still names every variable the code reads."""

import functools
import posixpath
import re

import pytest
import yaml

from manual.testing import ROOT, nav_pages

DOCS = ROOT / "docs"
NAV = yaml.safe_load((ROOT / "mkdocs.yml").read_text())["nav"]


def _part(title: str) -> list[str]:
    (pages,) = [entry[title] for entry in NAV if isinstance(entry, dict) and title in entry]
    return nav_pages(pages)


def _opening(page: str) -> str:
    """The first paragraph after the page's title, as Markdown, comments left out and a file the
    page includes whole (`--8<-- "bench/README.md"`) read in its place."""
    text = re.sub(r"<!--.*?-->", "", (DOCS / page).read_text("utf-8"), flags=re.S)
    text = re.sub(r'^--8<-- "([^"]+)"$', lambda found: (ROOT / found[1]).read_text("utf-8"), text, flags=re.M)
    after_title = re.split(r"^# .*$", text, maxsplit=1, flags=re.M)[-1]
    return next(part for part in re.split(r"\n\s*\n", after_title) if part.strip())


@pytest.mark.parametrize("page", nav_pages(NAV))
def test_every_page_opens_with_what_the_reader_will_be_able_to_do(page):
    opening = " ".join(_opening(page).split())
    assert re.search(r"\byou\b|\byour\b", opening, re.I), f"docs/{page} opens without its reader: {opening[:200]}"


# What a person following a tutorial or a how-to guide never needs: the hub's modules (a dotted
# name in code, or a Python file other than the ones at the top of the repository, which a person
# runs), its tests, its constants, or the RFCs its code implements.
PACKAGES = sorted(
    {init.parent.name for init in ROOT.glob("*/__init__.py")}
    | {init.parent.name for init in (ROOT / "cli" / "ltm").glob("*/__init__.py")}
    | {"ltm"}
)
MODULE = re.compile(rf"(?!hub\.(?:example|crt|key)\b)(?:{'|'.join(PACKAGES)})(?:\.[a-z_]+)+")
CONSTANT_OF_A_MODULE = re.compile(r"[a-z_]+(?:\.[a-z_]+)*\.[A-Z][A-Z0-9_]+")
INTERNALS = re.compile(r"\b[\w/]+/\w+\.py\b|\btest_\w+|\btests?/|\bRFC ?\d+")
PYTHON_FILE = re.compile(r"\b(\w+)\.py\b")


@functools.cache
def _constants() -> frozenset[str]:
    """The upper-case names the code assigns at module level, less those a reader sets: the
    variables the settings and the client's reference describe."""
    code = (path for path in ROOT.rglob("*.py") if not {".venv", "tests", "node_modules"} & set(path.parts))
    assigned = {
        name for path in code for name in re.findall(r"^([A-Z][A-Z0-9_]{2,})\s*[:=]", path.read_text("utf-8"), re.M)
    }
    described = (DOCS / "configuration.md").read_text("utf-8") + (DOCS / "reference" / "client.md").read_text("utf-8")
    return frozenset(assigned - set(re.findall(r"`([A-Z][A-Z0-9_]{2,})`", described)))


def _internals(text: str) -> list[str]:
    spans = [span.split("(")[0] for span in re.findall(r"`([^`]+)`", text)]
    dotted = [span for span in spans if MODULE.fullmatch(span) or CONSTANT_OF_A_MODULE.fullmatch(span)]
    constants = [span for span in spans if span in _constants()]
    files = [found for found in PYTHON_FILE.findall(text) if not (ROOT / f"{found}.py").is_file()]
    return dotted + constants + files + INTERNALS.findall(text)


@pytest.mark.parametrize("page", _part("Tutorials") + _part("How-to guides"))
def test_tutorials_and_how_to_guides_name_no_internals(page):
    shown = re.sub(r"<!--.*?-->", "", (DOCS / page).read_text("utf-8"), flags=re.S)  # comments are not shown
    assert _internals(shown) == [], f"docs/{page}"


def test_the_internals_pattern_catches_what_it_should():
    for internal in (
        "`oauth.server.redirect_uri_problem`",
        "`tool_calls.ANSWERS`",
        "`LOCAL_TOOLS`",
        "`federation.inbox`",
        "packets/models/rights.py",
        "the rules are in rights.py",
        "tests/e2e",
        "RFC 8628",
    ):
        assert _internals(internal), internal
    for fine in (
        "ltm save packet.json",
        "`https://hub.example/mcp`",
        "`hub.example.com`",
        "`make run PORT=8080`",
        "`python web.py`",
        "`manage.py ltm_token alice`",
        "`LTM_EXTERNAL_URL`",
        "`ALLOWED_HOSTS`",
    ):
        assert not _internals(fine), fine


def test_the_manual_has_the_four_parts_and_a_landing_page_for_each():
    titles = [next(iter(entry)) for entry in NAV if isinstance(entry, dict)]
    assert titles == ["Home", "Tutorials", "How-to guides", "Reference", "Explanation"]
    landing = (DOCS / "index.md").read_text("utf-8")
    for title, folder in zip(titles[1:], ("tutorials", "how-to", "reference", "explanation"), strict=True):
        assert _part(title)[0] == f"{folder}/index.md", title
        assert f"({folder}/index.md)" in landing, folder


@pytest.mark.parametrize("title", ["Tutorials", "How-to guides", "Reference", "Explanation"])
def test_each_parts_landing_page_links_every_page_of_its_part(title):
    landing, *pages = _part(title)
    folder = posixpath.dirname(landing)
    links = re.findall(r"\]\(([^)#]+)", (DOCS / landing).read_text("utf-8"))
    linked = {posixpath.normpath(posixpath.join(folder, link)) for link in links}
    assert [page for page in pages if page not in linked] == [], f"docs/{landing}"


# Every variable the settings, the web server and the proxy read from the environment.
READS = re.compile(
    r"""(?:\benv(?:\.\w+)?\(|\.get\(|getenv\(|environ\[|_number\(environ,)\s*["']([A-Z][A-Z0-9_]{2,})["']"""
)
NOT_SETTINGS = {"PATH"}


def test_the_configuration_reference_names_every_variable_the_hub_reads():
    sources = [*sorted((ROOT / "hub" / "settings").glob("*.py")), ROOT / "web.py", ROOT / "proxy.py"]
    variables = {name for source in sources for name in READS.findall(source.read_text("utf-8"))} - NOT_SETTINGS
    assert {"SECRET_KEY", "DATABASE_URL", "PROXY_MAX_BODY", "WEB_THREADS"} <= variables  # the pattern reads them
    reference = (DOCS / "configuration.md").read_text("utf-8")
    missing = sorted(name for name in variables if f"`{name}`" not in reference)
    assert missing == [], f"docs/configuration.md does not describe {missing}"
