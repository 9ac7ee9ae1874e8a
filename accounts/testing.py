"""Builders for tests of accounts and of every app above it: people without a password, the site
admin, and password sign-in through the forms."""

from django.test import Client

from accounts import services
from accounts.models import User

FORM = "application/x-www-form-urlencoded"


def passwordless_user(username="dana", display="Dana") -> tuple[User, str]:
    """(user, token) as an anonymous `ltm join` leaves them: no password, no email, one personal
    API token."""
    user = User(username=username, display=display, email="")
    user.set_unusable_password()
    user.save()
    _, token = services.api_token_create(actor=user, name="ltm join")
    return user, token


def make_admin(user) -> User:
    """`user`, made staff and superuser: the site admin."""
    user.is_staff = user.is_superuser = True
    user.save(update_fields=["is_staff", "is_superuser"])
    return user


def password_sign_in(login: str, password: str, *, path: str = "/accounts/login/", address: str = "127.0.0.1"):
    """Signs in through a password form, as a browser would (allauth's by default, the admin's with
    path="/admin/login/"): the answer, and whether it signed in. (Django's Client.login() bypasses
    the forms, and django-axes refuses sign-ins that carry no request.)"""
    client = Client(REMOTE_ADDR=address)
    field = "username" if path.startswith("/admin/") else "login"
    response = client.post(path, {field: login, "password": password})
    return response, "_auth_user_id" in client.session


# Second factors (allauth.mfa), set up as the account pages would, and the codes a person's app
# would show, computed with the library's own function.


def add_totp(user) -> str:
    """Give `user` an authenticator app; its secret, to compute codes with `totp_code`."""
    from allauth.mfa.totp.internal.auth import TOTP, generate_totp_secret

    secret = generate_totp_secret()
    TOTP.activate(user, secret)
    return secret


def totp_code(secret: str, *, steps_ago: int = 0) -> str:
    """The code an authenticator app shows now (or `steps_ago` periods ago) for `secret`."""
    import time

    from allauth.mfa.totp.internal.auth import format_hotp_value, hotp_value

    return format_hotp_value(hotp_value(secret, int(time.time()) // 30 - steps_ago))


def sign_in_with_code(login: str, password: str, code: str, *, address: str = "127.0.0.1"):
    """Signs in through allauth's forms, the password then the second factor's code: (client,
    the code's answer, whether it signed in)."""
    client = Client(REMOTE_ADDR=address)
    first = client.post("/accounts/login/", {"login": login, "password": password})
    assert first.status_code == 302 and first["Location"].startswith("/accounts/2fa/authenticate"), first
    answer = client.post("/accounts/2fa/authenticate/", {"code": code})
    return client, answer, "_auth_user_id" in client.session
