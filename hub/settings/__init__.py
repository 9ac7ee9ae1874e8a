"""Settings per environment: base (shared), local (manage.py), test (pytest), production
(wsgi, asgi, Celery, the Docker image)."""
