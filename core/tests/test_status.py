"""The footer's *status* link: a page for people with the facts /v1/healthz gives programs, while
/v1/healthz keeps answering its JSON."""

import json

from django.test import Client


def test_the_status_page_shows_what_healthz_answers(db):
    health = json.loads(Client().get("/v1/healthz").content)
    page = Client().get("/status")
    assert page.status_code == 200
    assert page["Content-Type"] == "text/html; charset=utf-8"
    html = page.content.decode()
    assert "This hub is up" in html
    assert f'<span id="protocol-version">{health["version"]}</span>' in html
    assert f'<span id="hub-version">{health["hub"]}</span>' in html
    assert 'href="/v1/healthz"' in html and 'href="/v1/readyz"' in html


def test_every_pages_footer_links_the_status_page_not_the_json(db):
    for path in ("/", "/accounts/login/", "/client/"):
        html = Client().get(path).content.decode()
        assert '<a href="/status">status</a>' in html, path
        assert '<a href="/v1/healthz">status</a>' not in html, path


def test_healthz_still_answers_json_to_a_browser(db):
    answer = Client().get("/v1/healthz", HTTP_ACCEPT="text/html,application/xhtml+xml")
    assert answer["Content-Type"] == "application/json"
    assert json.loads(answer.content)["ok"] is True


def test_the_status_page_refuses_a_post(db):
    assert Client().post("/status").status_code == 405
