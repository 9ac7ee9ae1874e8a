"""Signing in: the user model, passwords, sessions, django-axes' lockouts and django-allauth."""

from datetime import timedelta

from .environment import REDIS_URL, env

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
    # Packets shared by name (packets.sharing), per sender.
    "packet_share": env("LTM_SHARE_RATE", default="200/h/user"),
}
