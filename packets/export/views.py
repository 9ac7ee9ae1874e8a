"""The dashboard's download buttons of an export."""

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.views.decorators.http import require_safe

from packets.export.stream import FORMATS, export_response
from packets.pages import team_asked


@login_required
@require_safe
def packets_export(request, format):
    """The dashboard's download buttons: the same stream as GET /v1/export, for the signed-in
    person (all they may read, or ?team=NAME)."""
    if format not in FORMATS:
        raise Http404("no such export format")
    return export_response(viewer=request.user, team=team_asked(request), format=format)
