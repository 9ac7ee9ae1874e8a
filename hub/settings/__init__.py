"""Settings per environment: base (shared), local (manage.py), test (pytest), production
(wsgi, asgi, Celery, the Docker image).

base.py holds the site itself and gathers one module per topic (the database, the cache and
Celery, sign-in, mail, the API, OAuth, packets, and each feature's own); a new topic is a new
module here, star-imported at the end of base.py. What several topics read (env, BASE_DIR,
REDIS_URL, LTM_EXTERNAL_URL) is in environment.py."""
