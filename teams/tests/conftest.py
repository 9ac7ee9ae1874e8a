import pytest


@pytest.fixture
def api_with_token(anon_api):
    """api_with_token(token) -> an API client carrying that bearer (e.g. a token `ltm join` got).

    Built from anon_api's class: `from conftest import ...` is ambiguous once cli/tests is
    collected too."""
    return lambda token: type(anon_api)(token)
