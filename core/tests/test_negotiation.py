"""The wire API answers JSON whatever the request's Accept says (core.negotiation.JsonAnswers);
the OpenAPI document, which has several renderers, still goes by it."""

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("accept", ["text/html", "application/xml", "*/*;q=oops", "application/json"])
def test_the_list_answers_json_whatever_accept_says(api_as, alice, accept):
    response = api_as(alice).get("/v1/packets", HTTP_ACCEPT=accept)
    assert (response.status_code, response["Content-Type"]) == (200, "application/json")
    assert response.json() == {"packets": []}
