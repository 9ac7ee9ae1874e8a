"""Sharing on the dashboard: the Share form on a packet's page, its refusals as messages, the
packet page of a packet shared with the viewer, Shared with me (the inbox, with its count in the
navigation) and Shared by me (withdraw)."""

import pytest
from django.template import Context, Template

from core.testing import signed_in
from packets.models import SHARE_NOTE_MAX_LENGTH, Share
from packets.sharing import services
from packets.testing import push_packet
from teams.testing import make_team

pytestmark = pytest.mark.django_db

SHARE_FORM = 'action="/packets/{}/share"'


@pytest.fixture
def packet(alice):
    return push_packet(alice, goal="Make the importer idempotent")


@pytest.fixture
def team(alice, bob):
    """Team "core": alice owns it, bob is a member; sharing outside it is off (the default)."""
    return make_team(alice, "core", members=[bob])


def post_share(user, packet_id, to, note=""):
    """The Share form posted as `user`, followed to the page it lands on."""
    return signed_in(user).post(f"/packets/{packet_id}/share", {"to": to, "note": note}, follow=True)


def said(response) -> list[str]:
    """The messages the page a POST landed on showed."""
    return [str(message) for message in response.context["messages"]]


def page_of(user, packet_id):
    return signed_in(user).get(f"/packets/{packet_id}")


# The form


def test_the_creator_sees_the_share_form_and_shares_with_a_note(alice, bob, packet):
    assert SHARE_FORM.format(packet.id) in page_of(alice, packet.id).content.decode()

    response = post_share(alice, packet.id, "bob", note="Start with the retry loop")

    assert response.redirect_chain == [(f"/packets/{packet.id}", 302)]
    assert said(response) == [
        "Shared with bob. They find it under Shared with me, and can read it until you withdraw it."
    ]
    share = Share.objects.get()
    assert (share.packet_id, share.sender, share.recipient, share.note) == (
        packet.id,
        alice,
        bob,
        "Start with the retry loop",
    )


def test_sharing_again_updates_the_note(alice, bob, packet):
    post_share(alice, packet.id, "bob", note="first")
    response = post_share(alice, packet.id, "bob", note="second")
    assert said(response) == ["bob already has this packet from you; its note is now the one you gave."]
    assert list(Share.objects.values_list("note", flat=True)) == ["second"]


def test_the_form_is_shown_only_to_those_who_may_share(alice, bob, carol, packet, team):
    """Who may share is SHARE's (packets.models), asked through packet_viewer_rights."""
    post_share(alice, packet.id, "bob")
    assert SHARE_FORM.format(packet.id) not in page_of(bob, packet.id).content.decode()  # a recipient

    team_packet = push_packet(bob, team=team)
    assert SHARE_FORM.format(team_packet.id) not in page_of(bob, team_packet.id).content.decode()
    team.share_outside = True
    team.save()
    assert SHARE_FORM.format(team_packet.id) in page_of(bob, team_packet.id).content.decode()


@pytest.mark.parametrize(
    ("to", "note", "message"),
    [
        ("zed", "", "Nobody is called zed on this hub."),
        ("alice", "", "you cannot share a packet with yourself"),
        ("", "", "to is required: the username of the person to share with"),
        (
            "bob",
            "x" * (SHARE_NOTE_MAX_LENGTH + 1),
            f"note is at most {SHARE_NOTE_MAX_LENGTH} characters; got {SHARE_NOTE_MAX_LENGTH + 1}",
        ),
    ],
)
def test_a_bad_form_is_refused_with_a_message_on_the_packet_page(alice, bob, packet, to, note, message):
    response = post_share(alice, packet.id, to, note=note)
    assert response.status_code == 200
    assert response.redirect_chain == [(f"/packets/{packet.id}", 302)]
    assert said(response) == [message]
    assert not Share.objects.exists()


def test_a_member_is_refused_with_the_team_setting_named(bob, carol, team):
    """Posted without the form (which is not shown): the 403 is a message, not an error page."""
    team_packet = push_packet(bob, team=team)
    response = post_share(bob, team_packet.id, "carol")
    assert response.status_code == 200
    [message] = said(response)
    assert message.startswith("team core does not allow sharing its packets outside it")
    assert not Share.objects.exists()


def test_a_recipient_may_not_share_on(alice, bob, carol, packet):
    post_share(alice, packet.id, "bob")
    response = post_share(bob, packet.id, "carol")
    assert response.status_code == 200 and said(response) == [services.SHARE_REFUSED]
    assert Share.objects.count() == 1


def test_too_many_shares_is_a_message(settings, alice, bob, carol, packet):
    settings.ACCOUNT_RATE_LIMITS = {**settings.ACCOUNT_RATE_LIMITS, "packet_share": "1/h/user"}
    post_share(alice, packet.id, "bob")
    response = post_share(alice, packet.id, "carol")
    assert response.status_code == 200
    assert said(response) == ["too many shares in the last hour; wait a while, then share again"]
    assert not Share.objects.filter(recipient=carol).exists()


def test_unknown_names_on_the_form_count_against_the_limit(settings, alice, bob, packet):
    settings.ACCOUNT_RATE_LIMITS = {**settings.ACCOUNT_RATE_LIMITS, "packet_share": "1/h/user"}
    assert said(post_share(alice, packet.id, "zed")) == ["Nobody is called zed on this hub."]
    response = post_share(alice, packet.id, "bob")
    assert said(response) == ["too many shares in the last hour; wait a while, then share again"]
    assert not Share.objects.exists()


def test_a_packet_the_viewer_cannot_read_is_a_404(carol, packet):
    response = signed_in(carol).post(f"/packets/{packet.id}/share", {"to": "bob"})
    assert response.status_code == 404 and not Share.objects.exists()


def test_sharing_needs_a_signed_in_person_and_a_post(client, alice, packet):
    assert client.post(f"/packets/{packet.id}/share", {"to": "bob"}).status_code == 302
    assert signed_in(alice).get(f"/packets/{packet.id}/share").status_code == 405


# The packet page of a packet shared with the viewer


def test_the_recipient_reads_it_with_who_shared_it_and_the_note_and_it_becomes_seen(alice, bob, packet):
    post_share(alice, packet.id, "bob", note="Look at <the> retry loop")
    assert Share.objects.get().seen_at is None

    response = page_of(bob, packet.id)

    assert response.status_code == 200
    body = response.content.decode()
    assert "<strong>alice</strong> shared this packet with you" in body
    assert "Look at &lt;the&gt; retry loop" in body
    assert Share.objects.get().seen_at is not None


def test_downloading_a_shared_packet_is_reading_it(alice, bob, packet):
    post_share(alice, packet.id, "bob")
    assert signed_in(bob).get(f"/packets/{packet.id}.json").status_code == 200
    assert Share.objects.get().seen_at is not None


def test_the_creator_opening_their_own_packet_marks_nothing(alice, bob, packet):
    post_share(alice, packet.id, "bob")
    assert "shared this packet with you" not in page_of(alice, packet.id).content.decode()
    assert Share.objects.get().seen_at is None


# Shared with me, Shared by me


def test_the_inbox_lists_goal_sender_note_and_what_is_new(alice, bob, packet):
    post_share(alice, packet.id, "bob", note="Start with the retry loop")
    response = signed_in(bob).get("/shared")
    assert response.status_code == 200
    [share] = response.context["shares"]
    body = response.content.decode()
    assert f'<tr data-share="{share.id}" class="unseen">' in body
    for text in ("Make the importer idempotent", "alice", "Start with the retry loop", ">new</span>"):
        assert text in body
    assert f'action="/shared/{share.id}/dismiss"' in body

    page_of(bob, packet.id)
    body = signed_in(bob).get("/shared").content.decode()
    assert f'<tr data-share="{share.id}">' in body and ">new</span>" not in body


def test_the_inbox_and_the_sent_list_are_the_viewers_own(alice, bob, carol, packet):
    post_share(alice, packet.id, "bob")
    assert signed_in(carol).get("/shared").context["shares"] == []
    assert signed_in(alice).get("/shared").context["shares"] == []
    assert [s.recipient for s in signed_in(alice).get("/shared/by-me").context["shares"]] == [bob]
    assert "Nothing shared with you yet." in signed_in(carol).get("/shared").content.decode()


def test_the_sender_sees_whether_it_was_opened_and_withdraws_it(alice, bob, packet):
    post_share(alice, packet.id, "bob")
    share = Share.objects.get()
    body = signed_in(alice).get("/shared/by-me").content.decode()
    assert "not opened yet" in body and f'action="/shared/{share.id}/withdraw"' in body
    page_of(bob, packet.id)
    assert "opened just now" in signed_in(alice).get("/shared/by-me").content.decode()

    response = signed_in(alice).post(f"/shared/{share.id}/withdraw", {"confirmed": "yes"}, follow=True)

    assert response.redirect_chain == [("/shared/by-me", 302)]
    assert said(response) == ["Share withdrawn: they can no longer open the packet."]
    assert not Share.objects.exists()
    assert page_of(bob, packet.id).status_code == 404  # the next request


def test_withdraw_and_dismiss_ask_first_without_javascript(alice, bob, packet):
    post_share(alice, packet.id, "bob")
    share = Share.objects.get()
    asked = signed_in(alice).post(f"/shared/{share.id}/withdraw")
    assert asked.status_code == 200 and asked.context["title"] == "Withdraw this share?"
    asked = signed_in(bob).post(f"/shared/{share.id}/dismiss")
    assert asked.status_code == 200 and asked.context["title"] == "Dismiss this share?"
    assert Share.objects.exists()


def test_the_recipient_dismisses_it(alice, bob, packet):
    post_share(alice, packet.id, "bob")
    share = Share.objects.get()
    response = signed_in(bob).post(f"/shared/{share.id}/dismiss", {"confirmed": "yes"}, follow=True)
    assert response.redirect_chain == [("/shared", 302)] and said(response) == ["Share dismissed."]
    assert not Share.objects.exists()


def test_anyone_else_gets_404_and_the_share_stands(alice, bob, carol, packet):
    post_share(alice, packet.id, "bob")
    share = Share.objects.get()
    for action in ("withdraw", "dismiss"):
        assert signed_in(carol).post(f"/shared/{share.id}/{action}", {"confirmed": "yes"}).status_code == 404
    assert Share.objects.exists()


@pytest.mark.parametrize("path", ["/shared", "/shared/by-me"])
def test_share_pages_need_a_signed_in_person(client, path):
    response = client.get(path)
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


# The count in the navigation


def test_the_navigation_counts_what_the_viewer_has_not_opened(alice, bob, carol, packet):
    other = push_packet(alice)
    post_share(alice, packet.id, "bob")
    post_share(alice, other.id, "bob")
    body = signed_in(bob).get("/teams").content.decode()
    assert 'href="/shared"' in body
    assert '<span class="nav-count" id="unseen-shares" title="2 not opened yet">2' in body

    page = page_of(bob, packet.id).content.decode()  # read before the navigation is drawn
    assert 'title="1 not opened yet">1' in page
    page_of(bob, other.id)
    assert 'id="unseen-shares"' not in signed_in(bob).get("/teams").content.decode()
    assert 'id="unseen-shares"' not in signed_in(carol).get("/teams").content.decode()


def test_the_count_costs_one_query_and_none_signed_out(bob, django_assert_num_queries):
    from django.contrib.auth.models import AnonymousUser

    tag = Template("{% load navigation %}{% unseen_share_count as n %}{{ n }}")
    with django_assert_num_queries(1):
        assert tag.render(Context({"user": bob})) == "0"
    with django_assert_num_queries(0):
        assert tag.render(Context({"user": AnonymousUser()})) == "0"


def test_the_list_says_who_shared_a_packet_rather_than_personal(alice, bob, packet):
    post_share(alice, packet.id, "bob")
    push_packet(bob, goal="bob's own")
    response = signed_in(bob).get("/")
    shared = {p.id: p.shared_by for p in response.context["page"]}
    assert shared[packet.id] == "alice" and list(shared.values()).count(None) == 1
    body = response.content.decode()
    assert '<a class="badge warn" href="/shared">shared by alice</a>' in body
    assert body.count(">personal</a>") == 1  # bob's own packet only
    assert "shared by" not in signed_in(alice).get("/").content.decode()
