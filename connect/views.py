"""/client/: the page that says how to install the Python client from this hub, and the wheel it
offers (connect/wheel.py)."""

from django.http import FileResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import http_date
from django.views.decorators.http import require_safe

from connect import wheel as client_wheel
from core.links import hub_url


@require_safe
def client_page(request):
    """/client/: the exact lines that install the Python client from this hub and sign it in, the
    public Go client beside it, and the agent lines. Without a built wheel, how to build one."""
    return _client_page(request, status=200)


def _client_page(request, *, status: int, asked: str = ""):
    hub = hub_url(request)
    wheel = client_wheel.built_wheel()
    context = {
        "hub_url": hub,
        "wheel": wheel,
        "wheel_size": wheel.stat().st_size if wheel else 0,
        "wheel_url": hub + reverse("client-wheel", args=[wheel.name]) if wheel else "",
        "wheel_dir": client_wheel.wheel_dir(),
        "asked": asked,
    }
    return render(request, "connect/client.html", context, status=status)


@require_safe
def client_wheel_latest(request):
    """/client/ltm.whl, a link that lasts: a redirect to the wheel's own file name, which pip and
    pipx need (they refuse to install from a URL whose file name is not a wheel's)."""
    wheel = client_wheel.built_wheel()
    if wheel is None:
        return _client_page(request, status=404, asked=request.path)
    return HttpResponseRedirect(reverse("client-wheel", args=[wheel.name]))


@require_safe
def client_wheel_file(request, filename):
    """/client/<the wheel's file name>: the wheel, and nothing else of the folder."""
    wheel = client_wheel.built_wheel()
    if wheel is None or filename != wheel.name:
        return _client_page(request, status=404, asked=request.path)
    stat = wheel.stat()
    response = FileResponse(wheel.open("rb"), as_attachment=True, filename=wheel.name)
    response["Content-Type"] = "application/zip"
    response["Last-Modified"] = http_date(stat.st_mtime)
    response["Cache-Control"] = "public, max-age=300"  # a rebuild keeps the name when the version stays
    return response
