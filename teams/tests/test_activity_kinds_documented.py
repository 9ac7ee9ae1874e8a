"""The manual's Teams reference lists every kind of line the activity log writes, so a new kind
comes with its words for people (docs/reference/teams.md, "Activity log")."""

from pathlib import Path

from teams.models import TeamEvent

REFERENCE = Path(__file__).resolve().parents[2] / "docs" / "reference" / "teams.md"


def test_the_teams_reference_names_every_kind_of_activity_log_line():
    listed = REFERENCE.read_text("utf-8").split("## Activity log", 1)[1]
    missing = [kind for kind, _ in TeamEvent.KINDS if f"`{kind}`" not in listed]
    assert missing == [], f"docs/reference/teams.md does not list {missing}"
