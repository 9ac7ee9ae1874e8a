"""The manual's pages as a reader meets them: each opens by saying what the reader will be able to
do, the tutorials and how-to guides stay free of the hub's internals, and the settings reference,
which cannot be generated, still names every variable the code reads."""

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
# name in code, or a file), its tests, or the RFCs its code implements.
MODULE = re.compile(
    r"(?!hub\.(?:example|crt|key)\b)(?:core|hub|accounts|oauth|teams|packets|mcp_remote|connect|manual|ops|webhooks|ltm)(?:\.[a-z_]+)+"
)
INTERNALS = re.compile(r"\b[\w/]+/\w+\.py\b|\btest_\w+|\btests?/|\bRFC ?\d+")


def _internals(text: str) -> list[str]:
    dotted = [span for span in re.findall(r"`([^`]+)`", text) if MODULE.fullmatch(span.split("(")[0])]
    return dotted + INTERNALS.findall(text)


@pytest.mark.parametrize("page", _part("Tutorials") + _part("How-to guides"))
def test_tutorials_and_how_to_guides_name_no_internals(page):
    shown = re.sub(r"<!--.*?-->", "", (DOCS / page).read_text("utf-8"), flags=re.S)  # comments are not shown
    assert _internals(shown) == [], f"docs/{page}"


def test_the_internals_pattern_catches_what_it_should():
    for internal in ("`oauth.server.redirect_uri_problem`", "packets/models/rights.py", "tests/e2e", "RFC 8628"):
        assert _internals(internal), internal
    for fine in (
        "ltm save packet.json",
        "`https://hub.example/mcp`",
        "`hub.example.com`",
        "`make run PORT=8080`",
        "`python web.py`",
    ):
        assert not _internals(fine), fine


def test_the_manual_has_the_four_parts_and_a_landing_page_for_each():
    titles = [next(iter(entry)) for entry in NAV if isinstance(entry, dict)]
    assert titles == ["Home", "Tutorials", "How-to guides", "Reference", "Explanation"]
    landing = (DOCS / "index.md").read_text("utf-8")
    for title, folder in zip(titles[1:], ("tutorials", "how-to", "reference", "explanation"), strict=True):
        assert _part(title)[0] == f"{folder}/index.md", title
        assert f"({folder}/index.md)" in landing, folder


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
