"""Who may read a packet, who may change it and who may share it by name, asked of every surface
that reads, changes or shares packets: the wire API, the dashboard and /mcp. Each row of the table
is an actor and a kind of packet; every surface must answer as the row says, on SQLite and on
PostgreSQL alike."""

import json
from dataclasses import dataclass

import pytest
from django.contrib.messages import get_messages
from django.test import Client

from core.testing import signed_in
from packets.models import Packet, Share
from packets.shares import share_create
from packets.testing import push_packet
from teams.models import Membership
from teams.services import team_leave, team_settings_update
from teams.testing import make_team

pytestmark = pytest.mark.django_db

MCP_HEADERS = {"HTTP_ACCEPT": "application/json, text/event-stream", "HTTP_MCP_PROTOCOL_VERSION": "2025-11-25"}
# A word only one kind of packet holds, so a search for it finds that packet or nothing.
WORDS = {"personal": "aardvark", "team": "bison", "team, creator left": "cheetah"}


@dataclass(frozen=True)
class Row:
    actor: str  # creator, member, admin, owner, stranger, or recipient (someone it was shared with)
    kind: str  # personal, team, or "team, creator left" (pushed to the team by someone since gone)
    may_read: bool
    may_change: bool
    may_share: bool  # with a person by name (the team allows sharing outside it: see world())
    # Whether the wire's list (GET /v1/packets, the ls tool: the Go client's `ltm ls`) holds it; it
    # stays the caller's own and their teams' packets, so not one shared with them. None: may_read.
    listed: bool | None = None

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
    # A creator who left the team no longer reads (nor shares) its packets, but may still take theirs down.
    Row("creator", "team, creator left", may_read=False, may_change=True, may_share=False),
    Row("member", "team, creator left", may_read=True, may_change=False, may_share=True),
    Row("admin", "team, creator left", may_read=True, may_change=True, may_share=True),
    Row("owner", "team, creator left", may_read=True, may_change=True, may_share=True),
    Row("stranger", "team, creator left", may_read=False, may_change=False, may_share=False),
    Row("recipient", "team, creator left", may_read=True, may_change=False, may_share=False, listed=False),
]


@dataclass
class World:
    people: dict
    packet: Packet
    team_name: str | None
    word: str

    def actor(self, row: Row):
        return self.people["leaver" if row.actor == "creator" and row.kind == "team, creator left" else row.actor]


PEOPLE = ("owner", "admin", "creator", "member", "leaver", "stranger", "recipient", "target")


def world(make_user, kind: str) -> World:
    """Team crew, which allows sharing its packets outside it: its owner, an admin and plain
    members (the creator, another member and one who leaves); outside it a stranger, the recipient
    and the target (whom the sharing surfaces share with). One packet of `kind`, its goal holding
    the kind's word, shared with the recipient by its creator (by the member once the creator left:
    the leaver's shares ended with their membership)."""
    people = {name: make_user(name) for name in PEOPLE}
    crew = make_team(people["owner"], "crew", members=[people["creator"], people["member"], people["leaver"]])
    Membership.objects.create(team=crew, user=people["admin"], role=Membership.ADMIN)
    team_settings_update(actor=people["owner"], team=crew, share_outside=True)
    goal = f"Scoping probe {WORDS[kind]}"
    sender = people["creator"]
    if kind == "personal":
        packet = push_packet(people["creator"], goal=goal)
    elif kind == "team":
        packet = push_packet(people["creator"], team=crew, goal=goal)
    else:
        packet = push_packet(people["leaver"], team=crew, goal=goal)
        team_leave(actor=people["leaver"], team=crew)
        sender = people["member"]
    share_create(actor=sender, packet_id=packet.id, to="recipient")
    return World(people, packet, None if kind == "personal" else crew.name, WORDS[kind])


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


def read_answers(w: World, user, make_token) -> dict[str, bool]:
    """Whether each reading surface shows the packet to `user`."""
    packet_id, word, team = w.packet.id, w.word, w.team_name
    client, page, tool = api(make_token, user), signed_in(user), mcp(make_token, user)
    scope = {"team": team} if team else {}
    exported = client.get("/v1/export")
    mcp_listed, listed_error = tool("ls", **scope)
    mcp_found, search_error = tool("search", q=word)
    return {
        "api list": packet_id in listed_ids(client.get("/v1/packets", scope)),
        "api pull": client.get(f"/v1/packets/{packet_id}").status_code == 200,
        "api search": packet_id in {hit["id"] for hit in client.get("/v1/search", {"q": word}).json()["results"]},
        "api thread": client.get(f"/v1/packets/{packet_id}/thread").status_code == 200,
        "api export": packet_id
        in {json.loads(line)["id"] for line in b"".join(exported.streaming_content).splitlines()},
        "dashboard list": packet_id in page.get("/").content.decode(),
        "dashboard search": packet_id in page.get("/", {"q": word}).content.decode(),
        "dashboard page": page.get(f"/packets/{packet_id}").status_code == 200,
        "dashboard thread": page.get(f"/packets/{packet_id}/thread").status_code == 200,
        "mcp show": not tool("show", id=packet_id)[1],
        "mcp pull": not tool("pull", id=packet_id)[1],
        "mcp ls": not listed_error and packet_id in {item["id"] for item in json.loads(mcp_listed)},
        "mcp search": not search_error and packet_id in mcp_found,
    }


@pytest.mark.parametrize("row", TABLE, ids=str)
def test_every_surface_reads_as_the_table_says(row, make_user, make_token):
    w = world(make_user, row.kind)
    answers = read_answers(w, w.actor(row), make_token)
    expected = dict.fromkeys(answers, row.may_read)
    if row.listed is not None:
        expected.update(dict.fromkeys(WIRE_LISTS, row.listed))
    assert answers == expected


WIRE_LISTS = ("api list", "mcp ls")


@pytest.mark.parametrize("row", [row for row in TABLE if row.may_read], ids=str)
def test_the_packet_page_offers_changes_as_the_table_says(row, make_user):
    w = world(make_user, row.kind)
    page = signed_in(w.actor(row)).get(f"/packets/{w.packet.id}")
    assert page.context["rights"]["change"] is row.may_change
    assert (f"/packets/{w.packet.id}/delete" in page.content.decode()) is row.may_change


# A change's outcome on each surface: "done", "403" (refused to someone who may read the packet)
# or "404" (refused to anyone else, who learns nothing about it).


def _api(method: str, path: str):
    def change(w, user, make_token):
        status = getattr(api(make_token, user), method)(path.format(id=w.packet.id)).status_code
        return "done" if status in (200, 204) else str(status)

    return change


def _dashboard_publish(w, user, make_token):
    response = signed_in(user).post(f"/packets/{w.packet.id}/publish")
    if response.status_code == 404:
        return "404"
    refused = any(message.level_tag == "error" for message in get_messages(response.wsgi_request))
    return "403" if refused else "done"


def _mcp(tool: str):
    def change(w, user, make_token):
        text, is_error = mcp(make_token, user)(tool, id=w.packet.id)
        if not is_error:
            return "done"
        return "404" if text == "packet not found" else "403"

    return change


CHANGES = {
    "api delete": (_api("delete", "/v1/packets/{id}"), "deleted"),
    "api publish": (_api("post", "/v1/packets/{id}/publish"), "published"),
    "dashboard publish": (_dashboard_publish, "published"),
    "mcp rm": (_mcp("rm"), "deleted"),
    "mcp publish": (_mcp("publish"), "published"),
}


def _state(packet_id: str) -> str:
    packet = Packet.objects.filter(pk=packet_id).first()
    if packet is None:
        return "deleted"
    return "published" if packet.public_slug else "untouched"


@pytest.mark.parametrize("surface", CHANGES)
@pytest.mark.parametrize("row", TABLE, ids=str)
def test_every_surface_changes_as_the_table_says(row, surface, make_user, make_token):
    w = world(make_user, row.kind)
    change, effect = CHANGES[surface]
    outcome = change(w, w.actor(row), make_token)
    if row.may_change:
        assert (outcome, _state(w.packet.id)) == ("done", effect)
    else:
        assert (outcome, _state(w.packet.id)) == ("403" if row.may_read else "404", "untouched")


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
