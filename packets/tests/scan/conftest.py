"""Fixtures of the secret scan's tests: the team alpha and its people, a flagged team packet, and
a rescan run through manage.py ltm_scan."""

import io

import pytest
from django.core.management import call_command

from packets.models import ScanRun
from packets.testing.scan import leaky
from teams.models import Membership
from teams.testing import make_team


@pytest.fixture
def alpha(alice, adam, bob, carol):
    """alice owns alpha, adam administers it, bob and carol are plain members."""
    team = make_team(alice, "alpha", members=[bob, carol])
    Membership.objects.create(team=team, user=adam, role=Membership.ADMIN)
    return team


@pytest.fixture
def flagged(api_as, bob, alpha):
    """bob's team packet, pushed with a token in it and flagged: the packet as sent."""
    packet = leaky()
    response = api_as(bob).post("/v1/packets?team=alpha", packet)
    assert response.status_code == 201, response.content
    return packet


@pytest.fixture
def rescan(django_capture_on_commit_callbacks):
    """rescan(*arguments): manage.py ltm_scan --no-wait, whose Celery task runs (eagerly) once the
    command's transaction commits; the ScanRun, as the task left it."""

    def run(*arguments: str) -> ScanRun:
        with django_capture_on_commit_callbacks(execute=True):
            call_command("ltm_scan", "--no-wait", *arguments, stdout=io.StringIO())
        return ScanRun.objects.order_by("-requested_at").first()

    return run
