"""The public page of a published packet, /p/<slug>, and its /p/<slug>.json variant."""

import html
import json
import re

import pytest
from django.template.loader import render_to_string
from django.test import Client

from ltm.protocol.packet import canonical_json
from ltm.protocol.resume import render_resume
from packets import services
from packets.publishing import services as publishing
from packets.testing import packet_v01, packet_v02

pytestmark = pytest.mark.django_db

MARKUP = '<script>alert("x")</script><img src=x onerror="alert(1)"><b>bold</b>'

# Stricter than the site-wide policy: no form may be sent from a public page.
PUBLIC_POLICY = (
    "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


def rich_packet(**overrides) -> dict:
    """The protocol example plus a tentative decision and one attempt of every outcome."""
    packet = packet_v02(**overrides)
    packet["decisions"].append(
        {"what": "Use a plain list of bullets", "why": "Easier to skim", "consequences": "No tables", "locked": False}
    )
    packet["attempts"] += [
        {"tried": "Trimmed the intro to one line", "outcome": "partial", "learned": "Shorter, still flat"},
        {"tried": "Opened with the midnight re-brief", "outcome": "succeeded", "confidence": "medium"},
    ]
    return packet


def publish(user, packet: dict, team=None) -> str:
    """Push and publish `packet` as `user`; returns the path of its public page."""
    services.packet_push(actor=user, packet=packet, team=team)
    return f"/p/{publishing.packet_publish(actor=user, packet_id=packet['id']).public_slug}"


def text(response) -> str:
    return response.content.decode()


def embedded(response, element_id: str) -> str:
    """The text of the <pre id=...> the copy buttons copy, as the browser decodes it."""
    match = re.search(rf'<pre class="block" id="{element_id}">(.*?)</pre>', text(response), re.S)
    assert match, f"no #{element_id} on the page"
    return html.unescape(match.group(1))


def meta(response, key: str) -> str:
    match = re.search(rf'<meta (?:property|name)="{re.escape(key)}" content="([^"]*)">', text(response))
    assert match, f"no meta {key}"
    return html.unescape(match.group(1))


def test_the_page_shows_every_part_of_the_packet(alice):
    packet = rich_packet()
    response = Client().get(publish(alice, packet))
    assert response.status_code == 200
    page = html.unescape(text(response))

    for value in (
        packet["goal"],
        packet["next_step"],
        *packet["success_criteria"],
        *packet["constraints"],
        *packet["open_questions"],
        *packet["tags"],
        packet["project"]["name"],
        packet["project"]["ref"],
        packet["provenance"]["author_human"],
        packet["provenance"]["author_model"],
    ):
        assert value in page
    for decision in packet["decisions"]:
        assert decision["what"] in page and decision["why"] in page
        if "consequences" in decision:
            assert decision["consequences"] in page
    for method in packet["methods"]:
        assert method["name"] in page and method["when_applicable"] in page and method["how"] in page
    for attempt in packet["attempts"]:
        assert attempt["tried"] in page
    assert packet["attempts"][0]["learned"] in page


def test_decisions_are_split_into_locked_and_tentative_and_attempts_grouped_by_outcome(alice):
    packet = rich_packet()
    page = html.unescape(text(Client().get(publish(alice, packet))))

    locked, tentative = page.index(">Locked<"), page.index(">Tentative<")
    assert locked < page.index(packet["decisions"][0]["what"]) < tentative
    assert tentative < page.index("Use a plain list of bullets")

    failed, partial, worked = page.index(">Failed<"), page.index(">Partial<"), page.index(">Worked<")
    assert failed < page.index(packet["attempts"][0]["tried"]) < partial
    assert partial < page.index("Trimmed the intro to one line") < worked
    assert worked < page.index("Opened with the midnight re-brief")
    assert re.search(r"<dt>Confidence</dt><dd>medium</dd>", page)


def test_the_page_embeds_exactly_what_the_copy_buttons_copy(alice):
    packet = rich_packet()
    response = Client().get(publish(alice, packet))
    assert embedded(response, "resume-text") == render_resume(packet)
    assert embedded(response, "json-text") == canonical_json(packet)
    page = text(response)
    assert 'data-copy-target="resume-text"' in page and ">Copy resume block<" in page
    assert 'data-copy-target="json-text"' in page and ">Copy JSON<" in page
    assert '<script src="/static/js/copy.js" defer></script>' in page


def test_strict_csp_and_no_cookie_even_for_a_signed_in_reader(alice, bob):
    path = publish(alice, packet_v02())
    signed_in = Client()
    signed_in.force_login(bob)
    for client in (Client(), signed_in):
        response = client.get(path)
        assert response.status_code == 200
        assert _policy(response) == _policy_of(PUBLIC_POLICY)
        assert "Set-Cookie" not in response.headers
        assert not response.cookies
        assert "Cookie" not in response.get("Vary", "")
    # No inline script or style for the CSP to block.
    page = text(response)
    assert "<style" not in page and " style=" not in page
    assert re.findall(r"<script[^>]*>", page) == ['<script src="/static/js/copy.js" defer>']


def test_open_graph_and_twitter_tags(alice):
    packet = packet_v02()
    path = publish(alice, packet)
    response = Client().get(path)
    assert meta(response, "og:title") == packet["goal"][:89] + "…"  # the example goal is longer than 90
    assert meta(response, "og:description") == f"Next step: {packet['next_step']}"
    assert meta(response, "og:url") == f"http://testserver{path}"
    assert meta(response, "og:type") == "article"
    assert meta(response, "twitter:card") == "summary"
    assert meta(response, "twitter:title").startswith(packet["goal"][:60])
    assert meta(response, "twitter:description") == f"Next step: {packet['next_step']}"


def test_short_goals_are_the_title_as_they_are(alice):
    response = Client().get(publish(alice, packet_v02(goal="Fix the flaky import test")))
    assert meta(response, "og:title") == "Fix the flaky import test"
    assert "<title>Fix the flaky import test · ltm packet</title>" in text(response)


def test_indexing_is_allowed_by_default(alice):
    response = Client().get(publish(alice, packet_v02()))
    assert "X-Robots-Tag" not in response.headers
    assert 'name="robots"' not in text(response)


def test_the_noindex_setting_adds_the_meta_tag_and_the_header(alice, settings):
    settings.LTM_PUBLISH_NOINDEX = True
    path = publish(alice, packet_v02())
    response = Client().get(path)
    assert response["X-Robots-Tag"] == "noindex"
    assert meta(response, "robots") == "noindex"
    assert Client().get(path + ".json")["X-Robots-Tag"] == "noindex"


def test_the_json_variant_serves_the_packet_itself(alice):
    packet = rich_packet()
    response = Client().get(publish(alice, packet) + ".json")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    assert response.content.decode() == canonical_json(packet)
    assert json.loads(response.content) == packet
    assert "Set-Cookie" not in response.headers


def test_the_page_reflects_a_re_push_of_the_packet(alice):
    packet = packet_v02(goal="First wording")
    path = publish(alice, packet)
    services.packet_push(actor=alice, packet={**packet, "goal": "Second wording"})
    page = text(Client().get(path))
    assert "Second wording" in page and "First wording" not in page


@pytest.mark.parametrize("how", ["unknown", "unpublished", "deleted"])
def test_a_dead_link_answers_404_saying_so(alice, how):
    packet = packet_v02()
    path = publish(alice, packet)
    if how == "unknown":
        path = "/p/AAAAAAAAAAAAAAAAAAAAAAAA"
    elif how == "unpublished":
        publishing.packet_unpublish(actor=alice, packet_id=packet["id"])
    else:
        services.packet_delete(actor=alice, packet_id=packet["id"])

    page = Client().get(path)
    assert page.status_code == 404
    assert "This link is no longer valid" in text(page)
    assert packet["goal"] not in text(page)
    assert _policy(page) == _policy_of(PUBLIC_POLICY)
    assert "Set-Cookie" not in page.headers

    data = Client().get(path + ".json")
    assert data.status_code == 404
    assert data.json() == {"error": "this link is no longer valid"}


def test_only_get_and_head_are_answered(alice):
    path = publish(alice, packet_v02())
    assert Client().head(path).status_code == 200
    assert Client().post(path).status_code == 405


def test_every_text_field_holding_markup_is_shown_as_text(alice):
    packet = packet_v02(
        id="01INJECT0000000000001",
        parent_id="<i>01PARENTID</i>",
        goal=MARKUP,
        next_step=MARKUP,
        success_criteria=[MARKUP],
        constraints=[MARKUP],
        open_questions=[MARKUP],
        decisions=[
            {"what": MARKUP, "why": MARKUP, "consequences": MARKUP, "locked": True},
            {"what": MARKUP, "why": MARKUP, "consequences": MARKUP},
        ],
        methods=[{"name": "safe-name", "when_applicable": MARKUP, "how": MARKUP}],
        attempts=[
            {"tried": MARKUP, "outcome": outcome, "learned": MARKUP, "confidence": "low"}
            for outcome in ("failed", "partial", "succeeded")
        ],
        project={"name": MARKUP[:128], "ref": MARKUP},
        provenance={"author_model": MARKUP[:128], "author_human": MARKUP[:128], "confidence": "high"},
    )
    response = Client().get(publish(alice, packet))
    page = text(response)

    assert re.findall(r"<script[^>]*>", page) == ['<script src="/static/js/copy.js" defer>']
    assert "<img" not in page and "<b>" not in page and "<i>" not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
    # Every field, the page title and the social tags included, comes back as the same text.
    assert html.unescape(page).count(MARKUP) >= 20
    assert embedded(response, "resume-text") == render_resume(packet)
    assert embedded(response, "json-text") == canonical_json(packet)


def test_the_chain_links_published_neighbours_of_the_same_author_only(alice, bob):
    parent = packet_v02(goal="The parent")
    child = packet_v02(goal="The child", parent_id=parent["id"])
    hidden_child = packet_v02(goal="An unpublished child", parent_id=parent["id"])
    strangers_child = packet_v02(goal="A stranger's child", parent_id=parent["id"])
    parent_path = publish(alice, parent)
    child_path = publish(alice, child)
    services.packet_push(actor=alice, packet=hidden_child)
    publish(bob, strangers_child)

    parent_page = text(Client().get(parent_path))
    assert f'<a href="{child_path}">The child</a>' in parent_page
    assert "An unpublished child" not in parent_page
    assert "A stranger&#x27;s child" not in parent_page

    child_page = text(Client().get(child_path))
    assert f'<a href="{parent_path}">The parent</a>' in child_page

    publishing.packet_unpublish(actor=alice, packet_id=parent["id"])
    child_page = text(Client().get(child_path))
    assert "The parent" not in child_page
    assert parent["id"] in child_page  # the id stays, as in the packet, but links nowhere


def test_the_partial_renders_a_v01_packet_without_a_chain():
    """The dashboard reuses the partial: it must work from the packet dict alone."""
    packet = packet_v01()
    rendered = html.unescape(render_to_string("packets/_packet.html", {"packet": packet}))
    assert packet["goal"] in rendered and packet["next_step"] in rendered
    assert packet["decisions"][0]["what"] in rendered and packet["attempts"][0]["learned"] in rendered
    assert "Thread" not in rendered  # no parent, no chain given: nothing to show


def _policy_of(header: str) -> set[str]:
    return {directive.strip() for directive in header.split(";")}


def _policy(response) -> set[str]:
    """The directives of a response's Content-Security-Policy, whatever their order."""
    return _policy_of(response["Content-Security-Policy"])
