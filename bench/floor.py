"""The floor of `make bench`: the least any Python web application can cost per request here.

A bare WSGI callable that answers every request with the same small JSON, served by gunicorn's
sync workers (as many as the hub's, and no configuration file: no access log). No framework, no
database: what is left is gunicorn, the kernel's loopback and wrk. Each call of the bench is
reported as a ratio to a floor run made just before it, which stays meaningful on a shared
machine whose speed drifts from run to run.
"""

BODY = b'{"ok":true,"version":"0.2"}'
HEADERS = [("Content-Type", "application/json"), ("Content-Length", str(len(BODY)))]


def application(environ, start_response):
    start_response("200 OK", HEADERS)
    return [BODY]
