"""What django-axes counts wrong passwords against (settings AXES_USERNAME_CALLABLE)."""


def attempted_username(request, credentials) -> str | None:
    """The name a sign-in tried, however it was typed in.

    allauth's form has one `login` field and hands authenticate() either `username` or `email`;
    the admin's form posts `username`. Lower-cased, so `Alice` and `alice` share one count.
    """
    credentials = credentials or {}
    form = request.POST if request is not None else {}
    name = credentials.get("username") or credentials.get("email") or form.get("login") or form.get("username")
    return name.strip().lower() if name else None
