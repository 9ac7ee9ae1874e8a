"""Mail (sign-up verification, password reset)."""

from .environment import env

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
