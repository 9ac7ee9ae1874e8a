"""/metrics in the OpenAPI description (SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"], after the
shared errors, before the server's limits): a plain Django view answering Prometheus' text
format, which drf-spectacular cannot see."""

ERROR = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}

METRICS = {
    "operationId": "metrics_retrieve",
    "summary": "Prometheus metrics (hub extension)",
    "description": "The hub's metrics in the Prometheus text format, for the bearer of the operator's "
    "LTM_METRICS_TOKEN (`Authorization: Bearer <token>`). No label names a person, a token or a packet.",
    "tags": ["metrics"],
    "responses": {
        "200": {
            "description": "the metrics",
            "content": {"text/plain; version=0.0.4": {"schema": {"type": "string"}}},
        },
        "401": {**ERROR, "description": "no bearer, or not LTM_METRICS_TOKEN"},
        "404": {**ERROR, "description": "metrics are off: LTM_METRICS_TOKEN is not set"},
        "503": {**ERROR, "description": "the database is not answering"},
    },
}


def add_metrics_path(result, generator, request, public):
    result.setdefault("paths", {})["/metrics"] = {"get": METRICS}
    return result
