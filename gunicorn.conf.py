"""gunicorn's settings for the hub: `gunicorn -c gunicorn.conf.py hub.wsgi:application`.

Access lines name the request's path, query and referrer, which can hold an invite, claim or
device code; the logger below masks them (core/logs.py) in the access and the error log.
Options given on the command line still win over this file.
"""

from gunicorn.glogging import Logger

from core.logs import MaskSecrets

accesslog = "-"


class SecretMaskingLogger(Logger):
    def __init__(self, cfg):
        super().__init__(cfg)
        for log in (self.error_log, self.access_log):
            log.addFilter(MaskSecrets())


logger_class = SecretMaskingLogger
