"""What every operation of the OpenAPI description shares beyond the hub's own errors
(SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"], after the hooks that add paths)."""

# Answered by gunicorn before a request reaches the hub, as a short HTML page rather than the JSON
# error body: a path and query over 4,094 bytes, or more headers, or larger ones, than it accepts.
SERVER_LIMITS = {
    "414": {"description": "the request line (path and query) is longer than the server accepts"},
    "431": {"description": "too many request headers, or one too large"},
}


def add_server_limits(result, generator, request, public):
    """POSTPROCESSING_HOOKS: the server's size limits, on every operation."""
    for item in result["paths"].values():
        for operation in item.values():
            if isinstance(operation, dict) and "responses" in operation:
                for status, response in SERVER_LIMITS.items():
                    operation["responses"].setdefault(status, dict(response))
                operation["responses"] = dict(sorted(operation["responses"].items()))
    return result
