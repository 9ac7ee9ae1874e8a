"""The caller's address: a valid IP whatever the request carries, since it keys rate limits and
django-axes stores it in an address column (PostgreSQL refuses anything else)."""

import pytest
from django.test import RequestFactory

from core.http import UNKNOWN_ADDRESS, client_address


@pytest.mark.parametrize(
    "meta, trusted, expected",
    [
        ({"REMOTE_ADDR": "10.0.0.2", "HTTP_X_FORWARDED_FOR": "203.0.113.5"}, True, "203.0.113.5"),
        ({"REMOTE_ADDR": "10.0.0.2", "HTTP_X_FORWARDED_FOR": "203.0.113.5"}, False, "10.0.0.2"),
        ({"REMOTE_ADDR": "10.0.0.2", "HTTP_X_FORWARDED_FOR": "not-an-address"}, True, "10.0.0.2"),
        ({"REMOTE_ADDR": ""}, False, UNKNOWN_ADDRESS),
        ({"REMOTE_ADDR": "::1"}, False, "::1"),
    ],
)
def test_client_address_is_always_a_valid_ip(settings, meta, trusted, expected):
    settings.LTM_TRUST_PROXY_HEADERS = trusted
    request = RequestFactory().get("/", **meta)
    assert client_address(request) == expected
