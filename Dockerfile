# The manual (docs/, mkdocs.yml), built in a stage of its own: the image gets the built site, which
# the hub serves at /docs/, and not MkDocs. bench/README.md is part of it (the benchmark history).
FROM python:3.11-slim AS docs
WORKDIR /src
COPY requirements-docs.txt ./
RUN pip install --no-cache-dir -r requirements-docs.txt
COPY mkdocs.yml ./
COPY docs ./docs
COPY bench/README.md ./bench/README.md
RUN NO_MKDOCS_2_WARNING=1 mkdocs build --strict --site-dir /docs_site

# The Python client (cli/) as a wheel, which the hub serves at /client/ (connect/wheel.py): from
# cli/pyproject.toml and cli/ltm/ alone, never a cli/build/ left in the build context.
FROM python:3.11-slim AS client
WORKDIR /src
COPY cli/pyproject.toml ./cli/
COPY cli/ltm ./cli/ltm
RUN pip wheel --no-cache-dir --no-deps ./cli -w /client_dist

# The hub's image: the same code runs as web (granian, through web.py), proxy (nginx, through
# proxy.py; openssl makes its self-signed certificate), worker and beat (celery).
FROM python:3.11-slim
# The commit the image is built from, for /metrics' build info (the image has no .git):
# `docker compose build --build-arg LTM_COMMIT=$(git rev-parse --short HEAD)`.
ARG LTM_COMMIT=""
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 DJANGO_SETTINGS_MODULE=hub.settings.production PORT=8000 \
    LTM_COMMIT=${LTM_COMMIT}
RUN apt-get update && apt-get install -y --no-install-recommends nginx openssl && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY requirements.txt requirements-postgres.txt ./
COPY cli ./cli
RUN pip install --no-cache-dir -r requirements-postgres.txt
COPY . .
# The production settings require these; collectstatic needs no real ones.
RUN SECRET_KEY=build-only ALLOWED_HOSTS=build-only python manage.py collectstatic --noinput
# The manual and the client's wheel as this commit's files make them, never copies left in the build context.
RUN rm -rf docs_site client_dist
COPY --from=docs /docs_site ./docs_site
COPY --from=client /client_dist ./client_dist
EXPOSE 8000
# The Procfile's web line (docker-compose.yml runs its other lines: release, proxy, worker, beat).
CMD ["python", "web.py"]
