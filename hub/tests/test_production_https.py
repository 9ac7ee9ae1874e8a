"""HTTPS under the production settings: the redirect, its exemptions for health checks, and HSTS.

The production settings read the environment once, so each case runs in its own interpreter."""

import json
import subprocess
import sys

from hub.testing import PRODUCTION as DEPLOYED
from hub.testing import ROOT

# No Redis, and a database of its own: only the HTTP layer is asked.
PRODUCTION = {key: value for key, value in DEPLOYED.items() if key != "REDIS_URL"} | {
    "DATABASE_URL": "sqlite:///:memory:"
}
ASK = """
import json, sys, django
django.setup()
from django.test import Client
answers = {}
for path, headers in json.loads(sys.argv[1]):
    response = Client(HTTP_HOST="hub.example.com").get(path, headers=headers)
    answers[path + " " + json.dumps(headers)] = [
        response.status_code, response.get("Location"), response.get("Strict-Transport-Security")]
print(json.dumps(answers))
"""


def ask(requests: list, **variables) -> list:
    """[status, Location, Strict-Transport-Security] for each (path, headers)."""
    result = subprocess.run(
        [sys.executable, "-c", ASK, json.dumps(requests)],
        cwd=ROOT,
        env={**PRODUCTION, **variables},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return list(json.loads(result.stdout.splitlines()[-1]).values())


HTTPS_PROXY = {"X-Forwarded-Proto": "https"}


def test_plain_http_is_sent_to_https_but_health_checks_answer_over_http():
    page, healthz, readyz = ask([("/tokens", {}), ("/v1/healthz", {}), ("/v1/readyz", {})])
    assert page[:2] == [301, "https://hub.example.com/tokens"]
    assert healthz[0] == 200
    assert readyz[0] in (200, 503) and readyz[1] is None


def test_behind_a_trusted_tls_proxy_pages_are_served_with_hsts():
    healthz, page = ask([("/v1/healthz", HTTPS_PROXY), ("/tokens", HTTPS_PROXY)], LTM_TRUST_PROXY_HEADERS="1")
    assert healthz == [200, None, "max-age=31536000; includeSubDomains"]
    assert page[0] == 302 and page[1].startswith("/accounts/login/")  # not another https redirect
    assert page[2] == "max-age=31536000; includeSubDomains"


def test_an_untrusted_forwarded_proto_is_ignored():
    [page] = ask([("/tokens", HTTPS_PROXY)])
    assert page[:2] == [301, "https://hub.example.com/tokens"]


def test_plain_http_answers_carry_no_hsts():
    [healthz] = ask([("/v1/healthz", {})])
    assert healthz[2] is None


def test_a_plain_http_local_stack_turns_the_redirect_off_with_its_cookies():
    [page] = ask([("/tokens", {})], SECURE_COOKIES="0")
    assert page[0] == 302 and page[1].startswith("/accounts/login/")
