"""The README is the front door: what the hub is, a picture of the dashboard, the quickstart, the two
commands and a way into each part of the manual; everything else lives in the manual. Its links
are checked here, since `mkdocs build --strict` only checks the pages inside docs/."""

import re

from manual.testing import ROOT

README = (ROOT / "README.md").read_text("utf-8")
LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_the_readme_has_the_front_doors_sections_and_nothing_else():
    assert re.findall(r"^## (.+)$", README, re.M) == ["Quickstart", "Two commands", "The manual"]


def test_the_readme_shows_the_dashboard():
    (image,) = re.findall(r"!\[[^\]]+\]\(([^)]+)\)", README)
    assert "dashboard" in image
    assert (ROOT / image).is_file()


def test_the_readme_links_each_part_of_the_manual_and_where_the_hub_falls_short():
    links = set(LINK.findall(README))
    for landing in ("tutorials", "how-to", "reference", "explanation"):
        assert f"docs/{landing}/index.md" in links, landing
    assert "docs/explanation/trade-offs.md" in links


def test_every_link_of_the_readme_inside_the_repository_leads_to_a_file():
    local = [link.split("#")[0] for link in LINK.findall(README) if not re.match(r"\w+:", link)]
    assert local, "the pattern reads the README's links"
    assert [link for link in local if not (ROOT / link).is_file()] == []
