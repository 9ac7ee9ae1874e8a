"""Each /v1 call reaches the database a fixed, small number of times, whatever the number of
packets, teams and members: pull, thread, list and team list 2, a personal push or re-push 5. A
change to packets (a push, a delete, a publish, an unpublish) runs in a transaction with what it
tells: BEGIN and COMMIT besides the change, the line's INSERT in the team's activity log when it
is a team packet's (teams.events), and the question which webhooks hear it (webhooks, one SELECT).

A round trip here is a statement the database receives, plus BEGIN and COMMIT for each
transaction, plus the connection health check when it is on: what crosses the wire. Under the
test's own transaction a service's transaction is a savepoint: SAVEPOINT and RELEASE, counted in
their place. On SQLite (the embedded default: in process, no wire) a push runs one
more statement, the check that tells a push from a re-push, which PostgreSQL reads off the push's
own statement (`xmax`); and a delete first deletes the packet's shares, which PostgreSQL's foreign
key does by itself (ON DELETE CASCADE)."""

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext

from packets.testing import SEEDED, packet_v02, seed_packets
from teams.models import Membership, TeamEvent
from teams.testing import make_team

pytestmark = pytest.mark.django_db


class RoundTrips:
    """Counts what one call sends to the database."""

    def __init__(self):
        self.transactions = 0

    def __call__(self, call):
        real_commit, real_rollback = connection._commit, connection._rollback

        def commit():
            self.transactions += 1
            return real_commit()

        def rollback():
            self.transactions += 1
            return real_rollback()

        self.transactions = 0
        connection._commit, connection._rollback = commit, rollback
        try:
            with CaptureQueriesContext(connection) as captured:
                response = call()
        finally:
            connection._commit, connection._rollback = real_commit, real_rollback
        assert response.status_code < 300, response.content
        health_checks = 1 if settings.DATABASES["default"]["CONN_HEALTH_CHECKS"] else 0
        return len(captured) + 2 * self.transactions + health_checks


# Made only once, and counted: a second call would find the packet gone or write one more line of
# the team's activity log. Every other call is made once uncounted first: the token's last use is
# recorded once a minute, not per request.
ONCE = {"re-push to a team", "delete", "publish a team packet", "unpublish a team packet", "delete a team packet"}


def counts(api, team, round_trips):
    """The round trips of each call, by name."""
    pushed, shared = packet_v02(), packet_v02()
    fields = {"team": team.name, "pushed": pushed["id"], "shared": shared["id"]}
    # In this order: name, request and the body if any (packet_v02: a fresh packet each time). In a
    # path, {team} is the team's name, {pushed} and {shared} the ids of the packets pushed first.
    calls = [
        ("push", "POST /v1/packets", packet_v02),
        ("re-push", "POST /v1/packets", pushed),
        ("push to a team", "POST /v1/packets?team={team}", shared),
        ("re-push to a team", "POST /v1/packets?team={team}", shared),
        ("list", "GET /v1/packets?limit=50"),
        ("team list", "GET /v1/packets?team={team}&limit=50"),
        ("pull", "GET /v1/packets/{pushed}"),
        ("pull a team packet", "GET /v1/packets/{shared}"),
        ("thread", "GET /v1/packets/{pushed}/thread"),
        ("publish", "POST /v1/packets/{pushed}/publish"),
        ("teams", "GET /v1/teams"),
        ("team events", "GET /v1/teams/{team}/events?limit=50"),
        ("delete", "DELETE /v1/packets/{pushed}"),
        # A team packet's change also writes a line of the team's activity log.
        ("publish a team packet", "POST /v1/packets/{shared}/publish"),
        ("unpublish a team packet", "DELETE /v1/packets/{shared}/publish"),
        ("delete a team packet", "DELETE /v1/packets/{shared}"),
    ]
    counted = {}
    for name, request, *body in calls:
        method, path = request.split()

        def call():
            sent = [fresh() if callable(fresh) else fresh for fresh in body]
            return getattr(api, method.lower())(path.format(**fields), *sent)

        if name not in ONCE:
            call()
        counted[name] = round_trips(call)
    return counted


LIMITS = {
    "push": 5,
    "re-push": 5,
    "push to a team": 7,
    "re-push to a team": 7,
    "list": 2,
    "team list": 2,
    "pull": 2,
    "pull a team packet": 2,
    "thread": 2,
    "publish": 4,
    "teams": 2,
    "team events": 3,
    "delete": 5,
    "publish a team packet": 6,
    "unpublish a team packet": 6,
    "delete a team packet": 6,
}
SQLITE_MORE = {
    "push": 1,
    "re-push": 1,
    "push to a team": 1,
    "re-push to a team": 1,
    "delete": 1,
    "delete a team packet": 1,
}


def limit(call: str) -> int:
    return LIMITS[call] + (SQLITE_MORE.get(call, 0) if connection.vendor == "sqlite" else 0)


def test_round_trips_are_few_and_do_not_grow(api_as, alice, make_user):
    api, round_trips = api_as(alice), RoundTrips()
    team = make_team(alice, "alpha", members=[make_user("m0")])
    small = counts(api, team, round_trips)

    members = [make_user(f"member{i}") for i in range(30)]
    Membership.objects.bulk_create(Membership(team=team, user=m, role=Membership.MEMBER) for m in members)
    for i in range(10):
        make_team(alice, f"other-{i}")
    seed_packets(alice, 300)
    seed_packets(alice, 300, team=team)
    large = counts(api, team, round_trips)

    assert small == large
    # Each team push, re-push, publish, unpublish and delete above wrote its line of the log.
    kinds = list(
        TeamEvent.objects.filter(team=team)
        .exclude(detail__packet_id__startswith=SEEDED)
        .order_by("id")
        .values_list("kind", flat=True)
    )
    assert kinds == 2 * [
        "packet.pushed",
        "packet.repushed",
        "packet.repushed",
        "packet.published",
        "packet.unpublished",
        "packet.deleted",
    ]
    assert {call: count for call, count in large.items() if count > limit(call)} == {}, large
