# The hub's image: the same code runs as web (gunicorn), worker and beat (celery).
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 DJANGO_SETTINGS_MODULE=hub.settings.production PORT=8000
WORKDIR /app
COPY requirements.txt ./
COPY cli ./cli
RUN pip install --no-cache-dir -r requirements.txt
COPY . .
# The production settings require these; collectstatic needs no real ones.
RUN SECRET_KEY=build-only ALLOWED_HOSTS=build-only python manage.py collectstatic --noinput
EXPOSE 8000
# The Procfile's web line (docker-compose.yml runs its other lines: release, worker, beat).
CMD ["gunicorn", "-c", "gunicorn.conf.py", "hub.wsgi:application"]
