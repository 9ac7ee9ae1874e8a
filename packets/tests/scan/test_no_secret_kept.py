"""No secret is kept outside the packet itself, and none is logged: every secret of the corpus
(secret_corpus/secrets.jsonl) is pushed under each policy, its findings read and cleared, the
packets rescanned; then the whole database is dumped and searched, and so is every log line.

A secret may rightly sit only in the stored packet's own text (its body and the columns read from
it: goal, next step, parent id, project, tags), in the search index built from that text, and in
the quote of the goal that the team's activity log keeps to name a packet. Those are blanked before
the dump; findings, scan runs, clearings and everything else must not hold any part of a secret.

A secret pushed as the packet's own id is left out: the scan flags it (or refuses it) as any other,
but the id names the packet in every answer, link and log line."""

import json
import logging
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection

from ltm.protocol.packet import PacketError, check_packet
from packets.models import Packet
from packets.search import sqlite_index
from teams.models import TeamEvent
from teams.testing import make_team

pytestmark = pytest.mark.django_db

CORPUS = Path(__file__).resolve().parent / "secret_corpus" / "secrets.jsonl"
SECRETS = [record for line in CORPUS.read_text().splitlines() if (record := json.loads(line))["path"] != "id"]
REASON = "made up for a test"
PIECE_MIN = 8  # shorter pieces of a secret wrapped over lines are ordinary words


def valid(record: dict) -> bool:
    try:
        check_packet(record["packet"])
    except PacketError:
        return False
    return True


PUSHABLE = [record for record in SECRETS if valid(record)]


def pieces(secret: str) -> list[str]:
    """The parts of a secret a leak would show: a secret wrapped over lines (a newline, or the two
    characters backslash-n) may be kept in pieces, and JSON escapes the line break between them.
    A PEM key's armour (-----BEGIN RSA PRIVATE KEY-----) is the same in every key: not a piece."""
    words = secret.replace("\\n", " ").split()
    return [word for word in words if len(word) >= PIECE_MIN and "-----" not in word]


def leaked(text: str) -> list[str]:
    """The secrets of the corpus any piece of which is in `text`."""
    return [record["secret"] for record in SECRETS if any(piece in text for piece in pieces(record["secret"]))]


@pytest.fixture
def every_log_line(caplog):
    """Every record of every logger, at DEBUG: the loggers that do not propagate to the root
    (runserver's access lines, django.server) send theirs to caplog too."""
    caplog.set_level(logging.DEBUG)
    loggers = [logging.getLogger(name) for name in list(logging.root.manager.loggerDict)]
    levels = [(logger, logger.level) for logger in loggers]
    quiet = [logger for logger in loggers if not logger.propagate]
    for logger in loggers:
        logger.setLevel(logging.DEBUG)
    for logger in quiet:
        logger.addHandler(caplog.handler)
    yield caplog
    for logger, level in levels:
        logger.setLevel(level)
    for logger in quiet:
        logger.removeHandler(caplog.handler)


def dump() -> str:
    """The whole database as text: SQLite's own dump and every row of its search database, on
    PostgreSQL every row of every table."""
    if connection.vendor == "sqlite":
        lines = list(connection.connection.iterdump())
        with connection.cursor() as cursor:
            cursor.execute("SELECT name FROM search.sqlite_master WHERE type = 'table'")
            for (table,) in cursor.fetchall():
                cursor.execute(f'SELECT * FROM search."{table}"')
                lines += [f"search.{table}: {row}" for row in cursor.fetchall()]
        return "\n".join(lines)
    lines = []
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names(cursor):
            cursor.execute(f'SELECT t::text FROM "{table}" t')
            lines += [f"{table}: {row}" for (row,) in cursor.fetchall()]
    return "\n".join(lines)


def blank_the_packets_own_text() -> None:
    """Blank where a secret may rightly be (see above); the search index follows the packets."""
    with connection.cursor() as cursor:
        # '{}': SQLite's search triggers read the body as JSON.
        cursor.execute(
            f"UPDATE {Packet._meta.db_table} SET body = '{{}}', goal = '', next_step = '', parent_id = '', project = '', tags = ''"
        )
        events = TeamEvent._meta.db_table
        if connection.vendor == "sqlite":
            sqlite_index.catch_up()  # the blanked text replaces the old in the index
            cursor.execute(f"UPDATE {events} SET detail = json_remove(detail, '$.goal')")
        else:  # search_vector is generated from the columns just blanked
            cursor.execute(f"UPDATE {events} SET detail = detail - 'goal'")


def test_the_corpus_secrets_are_kept_only_in_their_packets_and_never_logged(
    api_as, alice, settings, every_log_line, django_capture_on_commit_callbacks
):
    make_team(alice, "alpha")
    api = api_as(alice)

    def scope(index: int) -> str:
        return "?team=alpha" if index % 2 else ""  # half in a team, whose log names them

    answers = []
    settings.LTM_SECRET_SCAN = "refuse"
    for index, record in enumerate(SECRETS):
        response = api.post("/v1/packets" + scope(index), record["packet"])
        # 201: one the scan misses; 400: a packet too large for the protocol, never stored
        assert response.status_code == (422 if valid(record) else 400) or response.status_code == 201
        answers.append(response.content.decode())
    refused = sum("findings" in answer for answer in answers)
    assert refused >= 0.98 * len(PUSHABLE)
    assert Packet.objects.count() == len(PUSHABLE) - refused

    settings.LTM_SECRET_SCAN = "flag"
    for index, record in enumerate(SECRETS):
        if not valid(record):
            continue
        packet_id = record["packet"]["id"]
        response = api.post("/v1/packets" + scope(index), record["packet"])
        assert response.status_code == 201, response.content
        answers.append(response.content.decode())
        answers.append(api.get(f"/v1/packets/{packet_id}/findings").content.decode())
        if "findings" in response.json():
            cleared = api.post(f"/v1/packets/{packet_id}/findings/clear", {"reason": REASON})
            assert cleared.status_code == 200, cleared.content
            answers.append(cleared.content.decode())
    assert api.get("/v1/findings").status_code == 200

    # Forget what the pushes found, so the rescan finds (and writes) it all again.
    Packet.objects.update(findings=[], quarantined=False)
    with django_capture_on_commit_callbacks(execute=True):
        call_command("ltm_scan", "--no-wait")
    assert Packet.objects.filter(quarantined=True).count() >= 0.98 * len(PUSHABLE)

    assert leaked("\n".join(answers)) == []  # the answers name paths and kinds only
    assert "Unprocessable" in every_log_line.text and "flagged" in every_log_line.text  # the capture works
    assert leaked(every_log_line.text) == []
    assert leaked("\n".join(str(record.__dict__) for record in every_log_line.records)) == []

    whole = dump()
    assert len(leaked(whole)) == len(PUSHABLE)  # the search finds each secret where it belongs
    blank_the_packets_own_text()
    rest = dump()
    assert REASON in rest and TeamEvent.PACKET_FLAGGED in rest  # it holds what the scan wrote
    assert leaked(rest) == []
