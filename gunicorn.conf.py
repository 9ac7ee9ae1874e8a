"""gunicorn's settings for the hub: `gunicorn -c gunicorn.conf.py hub.wsgi:application`, as the
Procfile, docker-compose.yml and the Docker image run it.

Access lines name the request's path, query and referrer, which can hold an invite, claim or
device code; the logger below masks them (core/logs.py) in the access and the error log.
Options given on the command line still win over this file.
"""

import os

from gunicorn.glogging import Logger

from core.logs import MaskSecrets

# PORT as a process manager (honcho, foreman, a PaaS) hands it out; WEB_HOST=127.0.0.1 keeps a
# local stack on loopback, a container listens on every interface.
bind = [f"{os.environ.get('WEB_HOST', '0.0.0.0')}:{os.environ.get('PORT', '8000')}"]
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
# WEB_THREADS above 1: each worker answers that many requests at once in threads (gunicorn's
# gthread workers), sharing one copy of the application; the $5 VPS profile runs one such worker
# (docs/production.md).
threads = int(os.environ.get("WEB_THREADS", "1"))
# gunicorn's control socket is one path per user ($HOME/.gunicorn/gunicorn.ctl): several hubs on
# one machine would take it from each other, and nothing here uses it.
control_socket_disable = True

accesslog = "-"


class SecretMaskingLogger(Logger):
    def __init__(self, cfg):
        super().__init__(cfg)
        for log in (self.error_log, self.access_log):
            log.addFilter(MaskSecrets())


logger_class = SecretMaskingLogger
