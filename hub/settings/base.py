"""Settings shared by every environment, read from the environment with django-environ.

local.py (manage.py), test.py (pytest) and production.py (wsgi, asgi, Celery, Docker) build on
this module and set what differs: DEBUG, SECRET_KEY, password hashing, secure cookies. Unset,
the shared variables describe one laptop: SQLite in the project folder, local-memory cache,
Celery tasks run eagerly in the web process, console mail.
"""

from datetime import timedelta
from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent.parent

env = environ.Env()

# Only local.py turns it on.
DEBUG = False

# Production requires ALLOWED_HOSTS; elsewhere the hub answers on the loopback names.
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

# The public base URL of the hub (invite links, publish pages, device-flow verification URI).
# Empty: built from the request (and from a trusted proxy's forwarded headers, see below).
LTM_EXTERNAL_URL = env("LTM_EXTERNAL_URL", default="").rstrip("/")

# Behind a reverse proxy that sets X-Forwarded-Proto / X-Forwarded-Host, set
# LTM_TRUST_PROXY_HEADERS=1 so that links the hub builds use the public scheme and host.
LTM_TRUST_PROXY_HEADERS = env.bool("LTM_TRUST_PROXY_HEADERS", default=False)
if LTM_TRUST_PROXY_HEADERS:
    USE_X_FORWARDED_HOST = True
    # Also what makes HSTS and the HTTPS redirect (production) see a request the proxy received
    # over TLS as secure.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# Publish pages: LTM_PUBLISH_NOINDEX=1 asks search engines not to index them (a robots meta tag
# and an X-Robots-Tag header). Off by default: a published page is meant to be shared.
LTM_PUBLISH_NOINDEX = env.bool("LTM_PUBLISH_NOINDEX", default=False)

# The hub's own secret scan of every pushed packet (packets.findings): "flag" (the default) stores
# the packet and holds it back from publishing and sharing until it is fixed or cleared, "refuse"
# answers 422 and stores nothing, "off" does not scan. A team may only be stricter.
LTM_SECRET_SCAN = env("LTM_SECRET_SCAN", default="flag")
if LTM_SECRET_SCAN not in ("off", "flag", "refuse"):
    raise ImproperlyConfigured(f"LTM_SECRET_SCAN is off, flag or refuse; got {LTM_SECRET_SCAN!r}")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Redoc's files, served by the hub itself (no CDN)
    "oauth2_provider",
    "allauth",
    "allauth.account",
    "csp",
    "axes",
    "core",
    "accounts",
    "oauth",
    "teams",
    "packets",
]

MIDDLEWARE = [
    "core.middleware.CollapseApiLeadingSlashes",
    # The wire API (/v1) leaves here for API_MIDDLEWARE below; pages go on.
    "core.middleware.ApiMiddleware",
    "core.middleware.RejectNulCharacters",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    "csp.middleware.CSPMiddleware",
    # Last, as django-axes asks: it turns a lockout into its 429 page.
    "axes.middleware.AxesMiddleware",
]

# What a request for the wire API runs instead of the rest of MIDDLEWARE (core.middleware.ApiMiddleware;
# the pages under /v1 keep MIDDLEWARE): the same NUL check, Django's security headers (nosniff,
# HSTS and the https redirect in production), its host check and Content-Length, and the site's
# framing and content policies as constant headers. Sessions, CSRF, messages, allauth, CSP's
# per-answer policy and django-axes are for pages: /v1 authenticates with bearer tokens
# (oauth.authentication) in CSRF-exempt views and never checks a password. The API's chain is
# built beside MIDDLEWARE's (core.middleware.ApiHandler); neither setting changes at run time.
API_MIDDLEWARE = [
    "core.middleware.RejectNulCharacters",
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "core.middleware.SitePolicy",
]

# A web or Celery worker builds what its first requests would (URLs, templates, validators, the
# database connection) as it starts, then freezes its objects out of the garbage collector's
# full collections (hub/warm_up.py). The test settings turn it off: tests import hub.wsgi.
LTM_WARM_UP = env.bool("LTM_WARM_UP", default=True)

# Content-Security-Policy (django-csp) on every answer: only the hub's own static files run or
# style a page, no inline script or style anywhere (Django's admin needs none either), no
# framing. The public /p/ pages tighten it further (packets/views.py).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'none'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'"],
        "connect-src": ["'self'"],
        "form-action": ["'self'"],
        "base-uri": ["'none'"],
        "frame-ancestors": ["'none'"],
    }
}

ROOT_URLCONF = "hub.urls"
WSGI_APPLICATION = "hub.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# Database: SQLite in the project folder unless DATABASE_URL names another (PostgreSQL via
# psycopg 3 in production and CI).
DATABASES = {
    "default": {
        **env.db_url("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
        "CONN_MAX_AGE": env.int("DB_CONN_MAX_AGE", default=60),
        # No `SELECT 1` before every request (a round trip each): a connection the database
        # dropped fails its next query instead, which answers 503 once, and Django then closes it.
        "CONN_HEALTH_CHECKS": False,
    }
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # A database that does not answer must cost a request seconds, not a worker: connecting
    # gives up after DB_CONNECT_TIMEOUT seconds, the server cancels a statement after
    # DB_STATEMENT_TIMEOUT milliseconds (0: no limit, e.g. for a long migration), and a server
    # that stopped answering is given up half a second after that (core.postgresql, which then
    # leaves the database alone for a few seconds). Each is a 503 (core.views.server_error).
    #
    # Parameters are bound on the server and a statement a connection has run 5 times is prepared
    # (psycopg's prepare_threshold): PostgreSQL then neither parses nor plans it again, which was
    # most of a pull's database time. Django leaves both off for poolers that cannot keep
    # prepared statements: DB_PREPARED_STATEMENTS=0 behind PgBouncer older than 1.21 in
    # transaction mode (1.21 and newer keep them with max_prepared_statements set).
    prepared = env.bool("DB_PREPARED_STATEMENTS", default=True)
    statement_timeout = env.int("DB_STATEMENT_TIMEOUT", default=4000)
    DATABASES["default"]["ENGINE"] = "core.postgresql"
    DATABASES["default"]["OPTIONS"] = {
        "connect_timeout": env.int("DB_CONNECT_TIMEOUT", default=3),
        "options": f"-c statement_timeout={statement_timeout}",
        "answer_timeout": statement_timeout / 1000 + 0.5 if statement_timeout > 0 else None,
        "server_side_binding": prepared,
        "prepare_threshold": 5 if prepared else None,
    }
# A commit the hub answered for survives a power cut: SQLite syncs the WAL at every commit
# (`full`). `normal` syncs only at checkpoints, faster, and a power loss or OS crash may then roll
# back transactions already answered 201 (SQLite's own words are in docs/production.md); an
# operator opts in knowingly, and `check --deploy` says so (core.checks).
LTM_SQLITE_SYNCHRONOUS = env("LTM_SQLITE_SYNCHRONOUS", default="full")
if LTM_SQLITE_SYNCHRONOUS not in ("full", "normal"):
    raise ImproperlyConfigured(f"LTM_SQLITE_SYNCHRONOUS is full or normal; got {LTM_SQLITE_SYNCHRONOUS!r}")
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Several web processes on one SQLite file: WAL lets readers run beside a writer, IMMEDIATE
    # transactions queue writers (instead of failing with "database is locked" on upgrade). The
    # one place every connection is set up, the web's, the Celery worker's and the commands'.
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": f"PRAGMA journal_mode=WAL; PRAGMA synchronous={LTM_SQLITE_SYNCHRONOUS.upper()};",
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Redis, when set, is both the cache (rate limits, shared by every web process) and the Celery
# broker. Unset: local-memory cache and tasks run eagerly, in-process.
REDIS_URL = env("REDIS_URL", default="")
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "core.cache.FailOpenRedisCache",
            "LOCATION": REDIS_URL,
            # Redis away or paused must not take sign-in down with it: a cache call gives up
            # after half a second and counts as a miss (so rate limits let requests through until
            # Redis is back; redis-py reconnects by itself).
            "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 0.5, "SOCKET_TIMEOUT": 0.5, "IGNORE_EXCEPTIONS": True},
        }
    }
else:
    CACHES = {"default": env.cache_url_config("locmemcache://")}

CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = None
CELERY_TASK_ALWAYS_EAGER = not REDIS_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TIMEZONE = "UTC"
CELERY_BEAT_SCHEDULE = {}
# OAuth (oauth.tasks): expired device grants and expired OAuth tokens leave the database every hour.
CELERY_BEAT_SCHEDULE["purge-expired-oauth"] = {
    "task": "accounts.tasks.purge_expired_oauth",
    "schedule": 3600.0,
}
# Work queued for after a commit waits in the database's outbox (core.outbox) until it is queued;
# what its process never queued (it died between the commit and the queue) a sweep queues: beat
# every minute, each worker as it starts and, without a broker (nothing else would), a thread of
# each web process (hub/wsgi.py). The test settings turn the thread off: tests sweep themselves.
CELERY_BEAT_SCHEDULE["outbox-sweep"] = {"task": "core.tasks.outbox_sweep", "schedule": 60.0}
LTM_OUTBOX_WEB_SWEEP = not REDIS_URL

AUTH_USER_MODEL = "accounts.User"
AUTHENTICATION_BACKENDS = [
    # First, as django-axes asks: it refuses a locked-out sign-in before any password is checked.
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "account_login"
# Database sessions whose table keeps a digest of each session key, not the key the cookie holds.
SESSION_ENGINE = "accounts.sessions"

# Wrong passwords (django-axes), on every form that signs in with a password: allauth's sign-in
# and Django's admin. Ten failures for one name from one address lock that pair out for 15
# minutes, even with the right password; a success clears the count. The pair, not the name
# alone, so a stranger cannot lock a person out of their own account. Counted in Redis when there
# is one (one count for every web process), else in the database (a local-memory cache would
# count per process). Bearer tokens and the device flow never ask for a password, so a lockout
# leaves the `ltm` client working.
AXES_HANDLER = "axes.handlers.cache.AxesCacheHandler" if REDIS_URL else "axes.handlers.database.AxesDatabaseHandler"
AXES_FAILURE_LIMIT = 10
AXES_COOLOFF_TIME = timedelta(minutes=15)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_CLIENT_IP_CALLABLE = "core.http.client_address"
AXES_USERNAME_CALLABLE = "accounts.lockout.attempted_username"
AXES_LOCKOUT_TEMPLATE = "account/lockout.html"
AXES_VERBOSE = False  # no banner on every start
# No row per successful sign-in (the database handler's access log).
AXES_DISABLE_ACCESS_LOG = True
LOGIN_REDIRECT_URL = "/"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["oauth.authentication.BearerAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.IsAuthenticated",
        "accounts.authentication.TokenScopeAllowsMethod",
    ],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "core.negotiation.JsonAnswers",
    "DEFAULT_PARSER_CLASSES": ["core.parsers.JSONParser"],
    "EXCEPTION_HANDLER": "core.api.exception_handler",
    "UNAUTHENTICATED_USER": None,
    # drf-spectacular's own; the errors every operation shares come from a postprocessing hook
    # (core.openapi.add_shared_errors), not from an override of its private methods.
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
}

# The OpenAPI description of /v1, served at /v1/openapi.json and /v1/docs (drf-spectacular).
SPECTACULAR_SETTINGS = {
    "TITLE": "ltm hub API",
    "DESCRIPTION": 'The ltm wire protocol (/v1) as this hub speaks it. Every error body is `{"error": message}`.',
    "VERSION": "0.2",
    # 3.1: its schemas are JSON Schema 2020-12, the dialect of the packet schemas it embeds.
    "OAS_VERSION": "3.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_AUTHENTICATION": [],
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    "SCHEMA_PATH_PREFIX": "/v1",
    "REDOC_DIST": "SIDECAR",
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    # readyz reports the database and the cache with the same three states: one enum.
    "ENUM_NAME_OVERRIDES": {"DependencyStateEnum": "core.serializers.DEPENDENCY_STATES"},
    # The errors every /v1 operation shares (before any hook adds paths), the OAuth metadata
    # documents and client registration (the toolkit's views, not DRF's), then the limits
    # the web server (granian, web.py) answers for on every operation.
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "core.openapi.add_shared_errors",
        "oauth.openapi.add_oauth_paths",
        "core.openapi.add_server_limits",
    ],
}

# Mail (sign-up verification, password reset) goes to the console until EMAIL_HOST names an SMTP
# server; EMAIL_BACKEND names another backend explicitly.
EMAIL_HOST = env("EMAIL_HOST", default="")
EMAIL_BACKEND = env(
    "EMAIL_BACKEND",
    default="django.core.mail.backends.smtp.EmailBackend"
    if EMAIL_HOST
    else "django.core.mail.backends.console.EmailBackend",
)
EMAIL_PORT = env.int("EMAIL_PORT", default=587)
EMAIL_HOST_USER = env("EMAIL_HOST_USER", default="")
EMAIL_HOST_PASSWORD = env("EMAIL_HOST_PASSWORD", default="")
EMAIL_USE_TLS = env.bool("EMAIL_USE_TLS", default=True)
EMAIL_USE_SSL = env.bool("EMAIL_USE_SSL", default=False)
DEFAULT_FROM_EMAIL = env("DEFAULT_FROM_EMAIL", default="ltm hub <noreply@localhost>")
# EMAIL_URL (e.g. smtp+tls://user:password@smtp.example.com:587, or smtp+ssl://...:465) sets the
# backend and the server in one variable, over the above.
if env("EMAIL_URL", default=""):
    vars().update({key: value for key, value in env.email_url("EMAIL_URL").items() if value not in (None, "")})
    EMAIL_USE_TLS = EMAIL_USE_TLS and not EMAIL_USE_SSL  # Django refuses both
# The filebased backend (EMAIL_BACKEND=django.core.mail.backends.filebased.EmailBackend) writes
# each mail to a file in this folder.
EMAIL_FILE_PATH = env("EMAIL_FILE_PATH", default="")
# An SMTP server that takes the connection and then says nothing must not hold a web worker (the
# server ends no request by time) or a Celery worker for ever.
EMAIL_TIMEOUT = env.int("EMAIL_TIMEOUT", default=10)

# Accounts (django-allauth): sign in with username or email; sign-up asks both. Verification is
# "optional" by default so that a person who signs up in the middle of `ltm auth` comes straight
# back to the device page (the verification mail still goes out); "mandatory" is one env away.
ACCOUNT_ADAPTER = "teams.adapter.AccountAdapter"
ACCOUNT_LOGIN_METHODS = {"username", "email"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "username*", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = env("ACCOUNT_EMAIL_VERIFICATION", default="optional")
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_LOGOUT_ON_PASSWORD_CHANGE = False
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = True
ACCOUNT_LOGIN_ON_PASSWORD_RESET = True
# LTM_SIGNUP_OPEN=0 closes sign-up (people then join through team invites or ltm_user).
LTM_SIGNUP_OPEN = env.bool("LTM_SIGNUP_OPEN", default=True)
# allauth's own limits stay (sign-in attempts 30 a minute per address, sign-ups, password
# resets, ...), except its count of failed sign-ins: django-axes counts those, once, for allauth
# and the admin alike, so one wrong password is never counted twice towards two lockouts.
# The device-flow endpoint `ltm auth` calls first takes its limit from here too
# (oauth/api.py). Addresses come from core.http.client_address (teams/adapter.py).
ACCOUNT_RATE_LIMITS = {
    "login_failed": None,
    "device_authorization": "20/m/ip",
    # Remote MCP (mcp_remote): client registrations per address, tool calls per token.
    "oauth_register": "20/h/ip",
    "mcp_tool_call": env("LTM_MCP_TOOL_CALL_RATE", default="120/m/key"),
    # Packets shared by name (packets.shares), per sender.
    "packet_share": env("LTM_SHARE_RATE", default="200/h/user"),
}

# OAuth (django-oauth-toolkit) for the device flow of the `ltm` client (see oauth/server.py).
# Tokens issued to `ltm-cli` live this long: the client never refreshes, so in practice they last
# until the person revokes them on the dashboard.
LTM_CLI_TOKEN_LIFETIME_DAYS = env.int("LTM_CLI_TOKEN_LIFETIME_DAYS", default=3650)
OAUTH2_PROVIDER = {
    "SCOPES": {
        "read": "read your packets, teams and team members",
        "write": "push, delete and publish packets, and create, leave or manage teams",
        # Clients that sign themselves in get a refresh token whether they ask for this or not;
        # it is advertised and accepted for the clients that ask for it by name (ChatGPT).
        "offline_access": "stay connected: renew its access without asking you again",
    },
    "DEFAULT_SCOPES": ["read", "write"],
    "OAUTH_DEVICE_VERIFICATION_URI": "/device",
    "OAUTH_DEVICE_VERIFICATION_URI_COMPLETE": "/device?user_code={user_code}",
    "OAUTH2_SERVER_CLASS": "oauth.server.HubOAuth2Server",
    "OAUTH2_VALIDATOR_CLASS": "oauth.server.HubOAuth2Validator",
    "ACCESS_TOKEN_GENERATOR": "oauth.server.access_token_generator",
    # Only a SHA-256 checksum of each access token is stored (RFC 9700); it needs no grace period.
    "COMPLIANT_BCP_RFC9700_TOKEN_STORAGE": True,
    "REFRESH_TOKEN_GRACE_PERIOD_SECONDS": 0,
    # Every RFC 9700 recommendation is enforced (no implicit or password grant, no plain PKCE, no
    # token in a query string, `iss` in authorization responses, refresh-token replay revokes the
    # family) but one: loopback redirect URIs are plain http (RFC 8252), which the toolkit can
    # only allow for every host; oauth.server.redirect_uri_problem allows it for loopback
    # addresses only, and oauth2_provider.W008 is silenced below for that reason.
    "COMPLIANT_BCP_RFC9700_IMPLICIT_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
    "COMPLIANT_BCP_RFC9700_ACCESS_TOKEN_TRANSPORT": True,
    "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": True,
    "COMPLIANT_BCP_RFC9700_REFRESH_TOKEN": True,
    "COMPLIANT_BCP_RFC9700_PKCE_REQUIRED": True,
    "PKCE_REQUIRED": True,
    "REFRESH_TOKEN_REUSE_PROTECTION": True,
    "ALLOWED_REDIRECT_URI_SCHEMES": ["https", "http"],
    # Any port on http://localhost as on 127.0.0.1 and [::1] (RFC 8252 section 7.3): Claude Code
    # registers localhost and listens on whichever port is free.
    "ALLOW_LOCALHOST_LOOPBACK": True,
    # MCP clients sign themselves in (mcp_remote, oauth/server.py): the authorization code
    # grant, clients registered on the fly (RFC 7591) or by their metadata document's URL.
    "OAUTH2_RESPONSE_TYPES_SUPPORTED": ["code"],
    "OAUTH2_GRANT_TYPES_SUPPORTED": [
        "authorization_code",
        "refresh_token",
        "urn:ietf:params:oauth:grant-type:device_code",
    ],
    "OAUTH2_TOKEN_ENDPOINT_AUTH_METHODS_SUPPORTED": ["none", "client_secret_basic", "client_secret_post"],
    "DCR_ENABLED": True,
    "DCR_REGISTRATION_PERMISSION_CLASSES": ("oauth2_provider.dcr.AllowAllDCRPermission",),
    "DCR_REGISTRATION_TOKEN_EXPIRE_SECONDS": 90 * 24 * 3600,
    "CIMD_ENABLED": True,
    "CIMD_METADATA_FETCHER": "oauth.server.HubMetadataFetcher",
    "OAUTH2_PROTECTED_RESOURCE_NAME": "ltm hub",
}
if LTM_EXTERNAL_URL:
    # The metadata documents name the hub as links do (core.links): the issuer (and the endpoint
    # URLs built on it) and /mcp as the protected resource, which the audience check compares.
    OAUTH2_PROVIDER["OIDC_ISS_ENDPOINT"] = LTM_EXTERNAL_URL
    OAUTH2_PROVIDER["OAUTH2_PROTECTED_RESOURCE_IDENTIFIER"] = LTM_EXTERNAL_URL + "/mcp"
SILENCED_SYSTEM_CHECKS = ["oauth2_provider.W008"]
# /mcp (mcp_remote): the largest request body it reads. A save carries a packet of up to 32 KiB,
# which a client may send with every non-ASCII character escaped.
LTM_MCP_MAX_REQUEST_BYTES = env.int("LTM_MCP_MAX_REQUEST_BYTES", default=128 * 1024)
# Tests only: a certificate authority file whose https://127.0.0.1 client metadata documents the
# hub fetches (oauth.server.HubMetadataFetcher). Empty: never from a loopback address.
CIMD_LOOPBACK_CA_FILE = ""

# Log lines name paths (`Not Found: /v1/invites/<code>`, runserver's request lines): the filter
# masks invite, claim and device codes and tokens before any line is written. The web server's
# access log has the same masking (web.py).
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"mask_secrets": {"()": "core.logs.MaskSecrets"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "filters": ["mask_secrets"]}},
    "loggers": {
        "django.server": {"handlers": ["console"], "level": "INFO", "propagate": False},
        # django-axes notes every sign-in at INFO; lockouts (WARNING) are what an operator needs.
        "axes": {"level": "WARNING"},
    },
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", default="INFO")},
}
