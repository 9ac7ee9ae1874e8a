"""`ltm search` against the real hub (pytest-django's live_server): the hub's full-text search
reaches the person, scoped as the wire API scopes it."""

import json

from ltm.main import main

from .test_live_hub import out_of, person, signed_in, write_example  # noqa: F401 - fixtures


def test_search_finds_by_any_word_order_and_stem(signed_in, tmp_path, capsys):
    out_of(capsys, ["push", write_example(tmp_path, id="01HVLIVESEARCH00000000000A", goal="Stop the flaky test #107")])
    out_of(capsys, ["push", write_example(tmp_path, id="01HVLIVESEARCH00000000000B", goal="Rotate the password")])
    lines = out_of(capsys, ["search", "tests", "flaky", "107"]).splitlines()
    assert lines[0].startswith("01HVLIVESEARCH00000000000A  2026-04-22  personal  Stop the flaky test #107")
    assert len(lines) == 2
    answer = json.loads(out_of(capsys, ["search", "01HVLIVESEARCH00000000000B", "--json"]))
    assert answer["results"][0]["id"] == "01HVLIVESEARCH00000000000B"
    assert answer["results"][0]["score"] == 1.0


def test_search_in_a_team_and_out_of_it(signed_in, tmp_path, capsys):
    out_of(capsys, ["teams", "create", "alpha"])
    out_of(
        capsys,
        ["push", write_example(tmp_path, id="01HVLIVESEARCH00000000000C", goal="Heron in the team"), "-t", "alpha"],
    )
    out_of(capsys, ["push", write_example(tmp_path, id="01HVLIVESEARCH00000000000D", goal="Heron of my own")])
    team = json.loads(out_of(capsys, ["search", "heron", "-t", "alpha", "--json"]))["results"]
    assert [(r["id"], r["team"]) for r in team] == [("01HVLIVESEARCH00000000000C", "alpha")]
    assert len(json.loads(out_of(capsys, ["search", "heron", "--json"]))["results"]) == 2
    assert main(["search", "heron", "-t", "beta"]) == 1
    assert "team 'beta' not found" in capsys.readouterr().err
    assert main(["search", "--limit", "101", "heron"]) == 1
    assert "limit must be a whole number from 1 to 100" in capsys.readouterr().err
