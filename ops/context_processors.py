from django.conf import settings


def version(request) -> dict:
    """The hub's version for the footer of every page (templates/base.html)."""
    return {"hub_version": settings.LTM_VERSION}
