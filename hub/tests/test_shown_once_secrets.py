"""A token or invite link made on the dashboard is shown in the answer to the POST and stored
nowhere readable: not in the session table, whatever a reader of it decodes."""

import re

import pytest
from django.contrib.sessions.models import Session

from core.testing import signed_in
from teams.testing import make_team

pytestmark = pytest.mark.django_db


def test_the_session_table_holds_neither_a_new_token_nor_a_new_invite_code(alice):
    make_team(alice, "core")
    browser = signed_in(alice)

    token_page = browser.post("/tokens", {"name": "ci"})
    invite_page = browser.post("/teams/core/invites")
    browser.get("/tokens")
    browser.get("/teams/core")

    token = token_page.context["new_token"]["plaintext"]
    code = re.search(r"/v1/invites/([0-9a-f]+)", invite_page.content.decode()).group(1)
    assert token.startswith("ltm_") and len(code) == 48
    sessions = list(Session.objects.all())
    assert sessions
    for session in sessions:
        stored = session.session_data + repr(session.get_decoded())
        assert token not in stored
        assert code not in stored
