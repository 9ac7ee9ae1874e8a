"""Who may read a packet, who may change it and who may share it by name, asked of every surface
that reads, changes or shares packets: the wire API, the dashboard and /mcp. Each row of the table
is an actor and a kind of packet; every surface must answer as the row says, on SQLite and on
PostgreSQL alike. A second table does the same for packets the secret scan quarantines: who reads
their content, and who only learns that they are held."""

from dataclasses import dataclass

import pytest

from core.testing import signed_in
from packets.models import HELD_GOAL
from packets.testing.scoping import TABLE, TOKEN, WIRE_LISTS, api, read_answers, world

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("row", TABLE, ids=str)
def test_every_surface_reads_as_the_table_says(row, make_user, make_token):
    w = world(make_user, row.kind)
    answers, _ = read_answers(w, w.actor(row), make_token)
    expected = dict.fromkeys(answers, row.may_read)
    if row.listed is not None:
        expected.update(dict.fromkeys(WIRE_LISTS, row.listed))
    assert answers == expected


# Packets the secret scan quarantines: their content is read only by those who may clear the
# findings (the creator, the team's owner and admins); every other reader learns that the packet
# exists and is held (its id, in the lists and threads they see it in), and nothing of what it
# says: no goal, no next step, no match for its words.


@dataclass(frozen=True)
class HeldRow:
    actor: str
    kind: str  # "personal, held" or "team, held"
    may_read: bool  # know it exists, as READ says (TABLE)
    may_read_content: bool
    listed: bool | None = None

    def __str__(self) -> str:
        return f"{self.actor} of {self.kind}"


HELD_TABLE = [
    HeldRow("creator", "personal, held", may_read=True, may_read_content=True),
    HeldRow("member", "personal, held", may_read=False, may_read_content=False),
    HeldRow("stranger", "personal, held", may_read=False, may_read_content=False),
    HeldRow("recipient", "personal, held", may_read=True, may_read_content=False, listed=False),
    HeldRow("creator", "team, held", may_read=True, may_read_content=True),
    HeldRow("member", "team, held", may_read=True, may_read_content=False),
    HeldRow("admin", "team, held", may_read=True, may_read_content=True),
    HeldRow("owner", "team, held", may_read=True, may_read_content=True),
    HeldRow("stranger", "team, held", may_read=False, may_read_content=False),
    HeldRow("recipient", "team, held", may_read=True, may_read_content=False, listed=False),
]
# Where a reader who may not read a held packet's content still sees that it exists.
HELD_SHOWN = ("api list", "api thread", "dashboard list", "dashboard thread", "mcp ls")


@pytest.mark.parametrize("row", HELD_TABLE, ids=str)
def test_a_held_packet_is_read_only_by_those_who_may_clear_it(row, make_user, make_token):
    w = world(make_user, row.kind)
    answers, texts = read_answers(w, w.actor(row), make_token)
    if row.may_read_content:
        expected = dict.fromkeys(answers, True)
    else:
        expected = {surface: row.may_read and surface in HELD_SHOWN for surface in answers}
    if row.listed is not None:
        expected.update(dict.fromkeys(WIRE_LISTS, row.listed))
    assert answers == expected
    shown = TOKEN in texts and w.word in texts
    assert shown is row.may_read_content


@pytest.mark.parametrize("row", [row for row in HELD_TABLE if row.may_read and not row.may_read_content], ids=str)
def test_a_held_packet_says_it_is_held(row, make_user, make_token):
    """Pull and the packet's page are a 409 that names the findings; the lists, the thread and a
    search by its id mark it held, with HELD_GOAL for its goal."""
    w = world(make_user, row.kind)
    user, packet_id = w.actor(row), w.packet.id
    client = api(make_token, user)
    pulled = client.get(f"/v1/packets/{packet_id}")
    assert pulled.status_code == 409
    assert pulled.json()["held"] is True
    assert pulled.json()["findings"] == [{"path": "next_step", "kind": "github-token"}]
    assert "X-LTM-Public-URL" not in pulled
    (item,) = client.get(f"/v1/packets/{packet_id}/thread").json()["packets"]
    assert (item["goal"], item["held"]) == (HELD_GOAL, True)
    (hit,) = client.get("/v1/search", {"q": packet_id}).json()["results"]
    assert (hit["goal"], hit["snippet"], hit["held"]) == (HELD_GOAL, "", True)
    if row.listed is None:  # a member of its team
        (line,) = client.get("/v1/packets", {"team": w.team_name}).json()["packets"]
        assert line == {"id": packet_id, "created_at": line["created_at"], "goal": HELD_GOAL, "held": True}
    page = signed_in(user).get(f"/packets/{packet_id}")
    assert page.status_code == 409
    assert "github-token" in page.content.decode() and w.word not in page.content.decode()
    assert client.get("/v1/export").headers["X-LTM-Export-Count"] == "0"


@pytest.mark.parametrize("row", [row for row in TABLE if row.may_read], ids=str)
def test_the_packet_page_offers_changes_as_the_table_says(row, make_user):
    w = world(make_user, row.kind)
    page = signed_in(w.actor(row)).get(f"/packets/{w.packet.id}")
    assert page.context["rights"]["change"] is row.may_change
    assert page.context["rights"]["move"] is row.may_move
    assert (f"/packets/{w.packet.id}/delete" in page.content.decode()) is row.may_change
