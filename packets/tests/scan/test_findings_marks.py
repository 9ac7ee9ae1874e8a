"""A flagged packet's page says what the findings keep (the field and the kind, never the value),
marks where in the packet each finding is, and links each row of the findings to its mark."""

import pytest

from core.testing import signed_in
from packets.scan.findings import findings_clear
from packets.services import packet_push
from packets.testing.scan import TOKEN, clean, leaky

pytestmark = pytest.mark.django_db


def page(user, packet_id) -> str:
    return signed_in(user).get(f"/packets/{packet_id}").content.decode()


def test_the_field_in_the_packet_is_marked_and_the_finding_links_to_it(bob, alpha):
    packet = packet_push(actor=bob, packet=leaky(goal="Deploy the runner"), team=alpha)
    html = page(bob, packet.id)
    mark = '<mark class="finding-mark" id="finding-next_step">possible secret: gitlab-token</mark>'
    assert f"{TOKEN} and run the suite</p>{mark}" in html  # right after the next step's text
    assert '<a href="#finding-next_step"><code>next_step</code></a>' in html
    assert "A finding records only the field and the kind of secret, never its value" in html
    assert "never shows or keeps the secret" not in html


def test_a_finding_in_a_regrouped_decision_is_marked_on_that_decision(bob, alpha):
    # The page shows locked decisions first: the mark follows the decision, not its position.
    decisions = [
        {"what": "Keep the old runner", "why": "nothing better yet", "locked": False},
        {"what": "Use the vault", "why": f"the token {TOKEN} leaked once", "locked": True},
    ]
    packet = packet_push(actor=bob, packet=clean(leaky(decisions=decisions)), team=alpha)
    html = page(bob, packet.id)
    mark = 'id="finding-decisions[1].why">possible secret: gitlab-token</mark>'
    assert f'the token {TOKEN} leaked once<mark class="finding-mark" {mark}' in html
    assert html.count('class="finding-mark" id=') == 1
    assert html.index("Use the vault") < html.index(mark) < html.index("Keep the old runner")


def test_a_cleared_packet_has_no_marks(bob, alpha):
    packet = packet_push(actor=bob, packet=leaky(), team=alpha)
    findings_clear(actor=bob, packet_id=packet.id, reason="a test fixture")
    html = page(bob, packet.id)
    assert 'class="finding-mark" id=' not in html
    assert "<code>next_step</code>" in html  # the cleared findings are still listed


def test_the_held_page_says_what_the_findings_keep_and_shows_nothing_of_the_packet(bob, carol, alpha):
    packet = packet_push(actor=bob, packet=leaky(), team=alpha)
    html = signed_in(carol).get(f"/packets/{packet.id}").content.decode()
    assert "The findings record only the field and the kind of secret, never its value" in html
    assert TOKEN not in html and 'class="finding-mark" id=' not in html
