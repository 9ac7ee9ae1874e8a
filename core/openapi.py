"""What every operation of the OpenAPI description shares beyond its own errors
(SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"], drf-spectacular's public hook for the finished
document): the errors every /v1 operation can answer, and the limits the server answers for."""

from core.api import ERROR_MEANINGS

# Answered by the web server (granian, web.py) before a request reaches the hub, with an empty body
# rather than the JSON error body: a path and query over 65,534 bytes, more than 100 headers, or a
# request head larger than its buffer (about 400 KiB).
SERVER_LIMITS = {
    "414": {"description": "the request line (path and query) is longer than the server accepts"},
    "431": {"description": "too many request headers, or one too large"},
}

# The component drf-spectacular makes of core.serializers.ErrorSerializer (every view lists it
# among its errors, core.api.error_responses).
ERROR_COMPONENT = "Error"


def _operations(result):
    for item in result["paths"].values():
        for operation in item.values():
            if isinstance(operation, dict) and "responses" in operation:
                yield operation


def add_shared_errors(result, generator, request, public):
    """POSTPROCESSING_HOOKS, before the hooks that add paths, so on the /v1 views only: the errors
    every operation shares, 400 (a NUL character in the path or query, refused by
    core.middleware before any view) and 503 everywhere, 401/403 wherever a bearer is required
    (a bad token; a token without the scope of the method). Each view lists its own other errors
    with `core.api.error_responses`; what it says about a status wins."""
    if ERROR_COMPONENT not in result.get("components", {}).get("schemas", {}):
        raise RuntimeError(f"the OpenAPI description has no {ERROR_COMPONENT!r} schema for the shared errors")
    for operation in _operations(result):
        security = operation.get("security") or []
        shared = [400, 503]
        if security and {} not in security:  # a bearer is required, not merely accepted
            shared += [401, 403]
        for status in shared:
            operation["responses"].setdefault(str(status), _error_response(status))
        operation["responses"] = dict(sorted(operation["responses"].items()))
    return result


def _error_response(status: int) -> dict:
    """What drf-spectacular writes for `core.api.error_responses(status)`."""
    schema = {"$ref": f"#/components/schemas/{ERROR_COMPONENT}"}
    return {"content": {"application/json": {"schema": schema}}, "description": ERROR_MEANINGS[status]}


def add_server_limits(result, generator, request, public):
    """POSTPROCESSING_HOOKS, last: the server's size limits, on every operation."""
    for operation in _operations(result):
        for status, response in SERVER_LIMITS.items():
            operation["responses"].setdefault(status, dict(response))
        operation["responses"] = dict(sorted(operation["responses"].items()))
    return result
