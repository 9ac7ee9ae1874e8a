"""The world the scoping tests ask every surface about: a table of actors and kinds of packet
with what each may do (READ, CHANGE, SHARE as packets.models rules them), one team with its
people and one packet per test, and how each surface is called as a person (the wire API, the
dashboard, /mcp)."""

import json
from dataclasses import dataclass

from django.test import Client

from core.testing import signed_in
from packets.models import Packet
from packets.publishing.services import packet_publish
from packets.sharing.services import share_create
from packets.testing import packet_v02, push_packet
from teams.models import Membership
from teams.services import membership_remove, team_leave, team_settings_update
from teams.testing import make_team

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
    texts = {
        surface: answer[0] if isinstance(answer, tuple) else response_text(answer)
        for surface, answer in answers.items()
    }
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


def response_text(response) -> str:
    if response.streaming:
        return b"".join(response.streaming_content).decode()
    return response.content.decode()


WIRE_LISTS = ("api list", "mcp ls")
