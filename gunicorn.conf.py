"""gunicorn's settings for every deployment (`gunicorn -c gunicorn.conf.py hub.wsgi:application`,
as the Procfile, docker-compose.yml and the Docker image run it).

Where to listen, how many workers, the access log on stdout."""

import os

# PORT as a process manager (honcho, foreman, a PaaS) hands it out; WEB_HOST=127.0.0.1 keeps a
# local stack on loopback, a container listens on every interface.
bind = [f"{os.environ.get('WEB_HOST', '0.0.0.0')}:{os.environ.get('PORT', '8000')}"]
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
accesslog = "-"
# gunicorn's control socket is one path per user ($HOME/.gunicorn/gunicorn.ctl): several hubs on
# one machine would take it from each other, and nothing here uses it.
control_socket_disable = True
