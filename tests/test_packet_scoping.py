"""Who may read a packet, who may change it and who may share it by name, asked of every surface
that reads, changes or shares packets: the wire API, the dashboard and /mcp. Each row of the table
is an actor and a kind of packet; every surface must answer as the row says, on SQLite and on
PostgreSQL alike. A second table does the same for packets the secret scan quarantines: who reads
their content, and who only learns that they are held."""

import json
from dataclasses import dataclass

import pytest
from django.contrib.messages import get_messages
from django.test import Client

from core.dashboard import CONFIRMED
from core.testing import signed_in
from packets.models import HELD_GOAL, Packet, Share
from packets.services import packet_publish
from packets.shares import share_create
from packets.testing import packet_v02, push_packet
from teams.models import Membership
from teams.services import membership_remove, team_leave, team_settings_update
from teams.testing import make_team

pytestmark = pytest.mark.django_db

MCP_HEADERS = {"HTTP_ACCEPT": "application/json, text/event-stream", "HTTP_MCP_PROTOCOL_VERSION": "2025-11-25"}
# A word only one kind of packet holds, so a search for it finds that packet or nothing.
WORDS = {
    "personal": "aardvark",
    "team": "bison",
    "team, creator left": "cheetah",
    "team, creator removed": "dingo",
    "personal, held": "emu",
    "team, held": "ferret",
}
GONE = ("team, creator left", "team, creator removed")


@dataclass(frozen=True)
class Row:
    actor: str  # creator, member, admin, owner, stranger, or recipient (someone it was shared with)
    # personal, team, or a team packet whose creator has since left the team or been removed from it
    kind: str
    may_read: bool
    may_change: bool
    may_share: bool  # with a person by name (the team allows sharing outside it: see world())
    # Whether the wire's list (GET /v1/packets, the ls tool: the Go client's `ltm ls`) holds it; it
    # stays the caller's own and their teams' packets, so not one shared with them. None: may_read.
    listed: bool | None = None

    @property
    def may_move(self) -> bool:
        """Moving between scopes: the creator, of what they may change."""
        return self.may_change and self.actor == "creator"

    def __str__(self) -> str:
        return f"{self.actor} of {self.kind}"


TABLE = [
    # Personal packets: their creator only, whatever roles others hold in the creator's teams, and
    # the person they shared it with, who reads it (not in their list) and changes nothing.
    Row("creator", "personal", may_read=True, may_change=True, may_share=True),
    Row("member", "personal", may_read=False, may_change=False, may_share=False),
    Row("admin", "personal", may_read=False, may_change=False, may_share=False),
    Row("owner", "personal", may_read=False, may_change=False, may_share=False),
    Row("stranger", "personal", may_read=False, may_change=False, may_share=False),
    Row("recipient", "personal", may_read=True, may_change=False, may_share=False, listed=False),
    # Team packets: every member reads and shares them; the creator, the admins and the owner
    # change them.
    Row("creator", "team", may_read=True, may_change=True, may_share=True),
    Row("member", "team", may_read=True, may_change=False, may_share=True),
    Row("admin", "team", may_read=True, may_change=True, may_share=True),
    Row("owner", "team", may_read=True, may_change=True, may_share=True),
    Row("stranger", "team", may_read=False, may_change=False, may_share=False),
    Row("recipient", "team", may_read=True, may_change=False, may_share=False, listed=False),
    # Leaving a team, or being removed from it, ends every right in it: the creator no longer reads,
    # changes or shares what they pushed there (nor its public page); the team's owner and admins do.
    *(
        row
        for kind in GONE
        for row in (
            Row("creator", kind, may_read=False, may_change=False, may_share=False),
            Row("member", kind, may_read=True, may_change=False, may_share=True),
            Row("admin", kind, may_read=True, may_change=True, may_share=True),
            Row("owner", kind, may_read=True, may_change=True, may_share=True),
            Row("stranger", kind, may_read=False, may_change=False, may_share=False),
            Row("recipient", kind, may_read=True, may_change=False, may_share=False, listed=False),
        )
    ),
]


@dataclass
class World:
    people: dict
    packet: Packet
    team_name: str | None
    word: str

    def actor(self, row: Row):
        return self.people["leaver" if row.actor == "creator" and row.kind in GONE else row.actor]


PEOPLE = ("owner", "admin", "creator", "member", "leaver", "stranger", "recipient", "target")
# What the held packets carry in their next step: a made-up GitHub token, which the scan flags.
TOKEN = "ghp_" + "Zq8Xw3Lp0Rt6Yv2Nb5Mc7Kd1Hf4Js9Ga0EuXy"


def world(make_user, kind: str, *, published: bool = False) -> World:
    """Team crew, which allows sharing its packets outside it: its owner, an admin and plain
    members (the creator, another member and one who leaves or is removed); outside it a stranger,
    the recipient and the target (whom the sharing surfaces share with). One packet of `kind`, its
    goal holding the kind's word, shared with the recipient by its creator (by the member once the
    creator is gone: their shares ended with their membership), and published by its creator when
    `published`. A held kind is then pushed again by its creator with TOKEN in its next step: the
    secret scan quarantines it, shared as it is."""
    people = {name: make_user(name) for name in PEOPLE}
    crew = make_team(people["owner"], "crew", members=[people["creator"], people["member"], people["leaver"]])
    Membership.objects.create(team=crew, user=people["admin"], role=Membership.ADMIN)
    team_settings_update(actor=people["owner"], team=crew, share_outside=True)
    creator = people["leaver" if kind in GONE else "creator"]
    team = None if kind.startswith("personal") else crew
    fields = packet_v02(goal=f"Scoping probe {WORDS[kind]}", next_step="Rotate nothing yet.")
    packet = push_packet(creator, team=team, **fields)
    if published:
        packet_publish(actor=creator, packet_id=packet.id)
    if kind == "team, creator left":
        team_leave(actor=creator, team=crew)
    elif kind == "team, creator removed":
        membership_remove(actor=people["owner"], team=crew, user_id=creator.pk)
    share_create(actor=people["member" if kind in GONE else "creator"], packet_id=packet.id, to="recipient")
    if kind.endswith("held"):
        packet = push_packet(creator, team=team, **{**fields, "next_step": f"Rotate {TOKEN} first."})
        assert packet.quarantined
    return World(people, packet, crew.name if team else None, WORDS[kind])


# Calling each surface as a person.


def api(make_token, user):
    return Client(HTTP_AUTHORIZATION=f"Bearer {make_token(user)}")


def mcp(make_token, user):
    token = make_token(user, name="mcp")

    def call(name, **arguments) -> tuple[str, bool]:
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
        response = Client().post(
            "/mcp",
            data=json.dumps(body),
            content_type="application/json",
            HTTP_AUTHORIZATION=f"Bearer {token}",
            **MCP_HEADERS,
        )
        assert response.status_code == 200, response.content
        result = response.json()["result"]
        return "".join(block["text"] for block in result["content"]), result.get("isError", False)

    return call


def listed_ids(response) -> set[str]:
    return {item["id"] for item in response.json()["packets"]} if response.status_code == 200 else set()


def read_answers(w: World, user, make_token) -> tuple[dict[str, bool], str]:
    """Whether each reading surface shows the packet to `user`, and every answer's text."""
    packet_id, word, team = w.packet.id, w.word, w.team_name
    client, page, tool = api(make_token, user), signed_in(user), mcp(make_token, user)
    scope = {"team": team} if team else {}
    answers = {
        "api list": client.get("/v1/packets", scope),
        "api pull": client.get(f"/v1/packets/{packet_id}"),
        "api search": client.get("/v1/search", {"q": word}),
        "api thread": client.get(f"/v1/packets/{packet_id}/thread"),
        "api export": client.get("/v1/export"),
        "dashboard list": page.get("/"),
        "dashboard search": page.get("/", {"q": word}),
        "dashboard page": page.get(f"/packets/{packet_id}"),
        "dashboard thread": page.get(f"/packets/{packet_id}/thread"),
        "mcp show": tool("show", id=packet_id),
        "mcp pull": tool("pull", id=packet_id),
        "mcp resume": tool("resume", id=packet_id),
        "mcp ls": tool("ls", **scope),
        "mcp search": tool("search", q=word),
    }
    texts = {surface: answer[0] if isinstance(answer, tuple) else _text(answer) for surface, answer in answers.items()}
    exported = {json.loads(line)["id"] for line in texts["api export"].splitlines()}
    shown = {
        "api list": packet_id in listed_ids(answers["api list"]),
        "api pull": answers["api pull"].status_code == 200,
        "api search": packet_id in {hit["id"] for hit in answers["api search"].json()["results"]},
        "api thread": answers["api thread"].status_code == 200,
        "api export": packet_id in exported,
        "dashboard list": packet_id in texts["dashboard list"],
        "dashboard search": packet_id in texts["dashboard search"],
        "dashboard page": answers["dashboard page"].status_code == 200,
        "dashboard thread": answers["dashboard thread"].status_code == 200,
        "mcp show": not answers["mcp show"][1],
        "mcp pull": not answers["mcp pull"][1],
        "mcp resume": not answers["mcp resume"][1],
        "mcp ls": not answers["mcp ls"][1] and packet_id in {item["id"] for item in json.loads(texts["mcp ls"])},
        "mcp search": not answers["mcp search"][1] and packet_id in texts["mcp search"],
    }
    return shown, "\n".join(texts.values())


def _text(response) -> str:
    if response.streaming:
        return b"".join(response.streaming_content).decode()
    return response.content.decode()


@pytest.mark.parametrize("row", TABLE, ids=str)
def test_every_surface_reads_as_the_table_says(row, make_user, make_token):
    w = world(make_user, row.kind)
    answers, _ = read_answers(w, w.actor(row), make_token)
    expected = dict.fromkeys(answers, row.may_read)
    if row.listed is not None:
        expected.update(dict.fromkeys(WIRE_LISTS, row.listed))
    assert answers == expected


WIRE_LISTS = ("api list", "mcp ls")


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


# A change's outcome on each surface: "done", "403" (refused to someone who may read the packet)
# or "404" (refused to anyone else, who learns nothing about it).


def _api(method: str, path: str):
    def change(w, user, make_token):
        status = getattr(api(make_token, user), method)(path.format(id=w.packet.id)).status_code
        return "done" if status in (200, 204) else str(status)

    return change


def _dashboard(action: str, **form):
    def change(w, user, make_token):
        response = signed_in(user).post(f"/packets/{w.packet.id}/{action}", {"confirmed": CONFIRMED, **form})
        if response.status_code == 404:
            return "404"
        refused = any(message.level_tag == "error" for message in get_messages(response.wsgi_request))
        return "403" if refused else "done"

    return change


def _mcp(tool: str):
    def change(w, user, make_token):
        text, is_error = mcp(make_token, user)(tool, id=w.packet.id)
        if not is_error:
            return "done"
        return "404" if text == "packet not found" else "403"

    return change


# Each surface: how it changes the packet, and the packet's state after a change (the world's
# packet is published first for an unpublish, so that the change shows).
CHANGES = {
    "api delete": (_api("delete", "/v1/packets/{id}"), "deleted"),
    "api publish": (_api("post", "/v1/packets/{id}/publish"), "published"),
    "api unpublish": (_api("delete", "/v1/packets/{id}/publish"), "not published"),
    "dashboard delete": (_dashboard("delete"), "deleted"),
    "dashboard publish": (_dashboard("publish"), "published"),
    "dashboard unpublish": (_dashboard("unpublish"), "not published"),
    "mcp rm": (_mcp("rm"), "deleted"),
    "mcp publish": (_mcp("publish"), "published"),
    "mcp unpublish": (_mcp("unpublish"), "not published"),
}


def _state(packet_id: str) -> str:
    packet = Packet.objects.filter(pk=packet_id).first()
    if packet is None:
        return "deleted"
    return "published" if packet.public_slug else "not published"


@pytest.mark.parametrize("surface", CHANGES)
@pytest.mark.parametrize("row", TABLE, ids=str)
def test_every_surface_changes_as_the_table_says(row, surface, make_user, make_token):
    change, effect = CHANGES[surface]
    w = world(make_user, row.kind, published=effect == "not published")
    before = _state(w.packet.id)
    outcome = change(w, w.actor(row), make_token)
    if row.may_change:
        assert (outcome, _state(w.packet.id)) == ("done", effect)
    else:
        assert (outcome, _state(w.packet.id)) == ("403" if row.may_read else "404", before)


@pytest.mark.parametrize("row", TABLE, ids=str)
def test_the_dashboard_moves_as_the_table_says(row, make_user):
    """Moving a packet out of its scope (a team packet to personal, a personal one into the team):
    its creator only, of what they may change. Someone who may read it but not move it is told so."""
    w = world(make_user, row.kind)
    to = "team:crew" if w.team_name is None else "personal"
    outcome = _dashboard("move", to=to)(w, w.actor(row), None)
    moved = Packet.objects.get(pk=w.packet.id).team_id != w.packet.team_id
    if row.may_move:
        assert (outcome, moved) == ("done", True)
    else:
        assert (outcome, moved) == ("403" if row.may_read else "404", False)


# Sharing with a person by name: "done" (the target now has the packet from the actor), "403"
# (refused to someone who may read the packet) or "404" (refused to anyone else).


def _api_share(w, user, make_token):
    response = api(make_token, user).post(
        f"/v1/packets/{w.packet.id}/shares", data={"to": "target"}, content_type="application/json"
    )
    return "done" if response.status_code == 201 else str(response.status_code)


def _dashboard_share(w, user, make_token):
    response = signed_in(user).post(f"/packets/{w.packet.id}/share", {"to": "target"})
    if response.status_code == 404:
        return "404"
    refused = any(message.level_tag == "error" for message in get_messages(response.wsgi_request))
    return "403" if refused else "done"


def _mcp_share(w, user, make_token):
    text, is_error = mcp(make_token, user)("share", id=w.packet.id, to="target")
    if not is_error:
        return "done"
    return "404" if text == "packet not found" else "403"


SHARES = {"api share": _api_share, "dashboard share": _dashboard_share, "mcp share": _mcp_share}


@pytest.mark.parametrize("surface", SHARES)
@pytest.mark.parametrize("row", TABLE, ids=str)
def test_every_surface_shares_as_the_table_says(row, surface, make_user, make_token):
    w = world(make_user, row.kind)
    user = w.actor(row)
    outcome = SHARES[surface](w, user, make_token)
    shared = Share.objects.filter(packet_id=w.packet.id, sender=user, recipient=w.people["target"]).exists()
    if row.may_share:
        assert (outcome, shared) == ("done", True)
    else:
        assert (outcome, shared) == ("403" if row.may_read else "404", False)
