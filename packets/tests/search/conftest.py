"""Fixtures of the search tests: alice's API client, and her team alpha with bob in it."""

import pytest

from teams.testing import make_team


@pytest.fixture
def api(api_as, alice):
    return api_as(alice)


@pytest.fixture
def alpha(alice, bob):
    """alice owns alpha, bob is a member; carol is in neither."""
    return make_team(alice, "alpha", members=[bob])
