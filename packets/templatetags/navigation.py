"""The counts the navigation shows beside its links, for the signed-in person:

    {% load navigation %}{% unseen_share_count as unseen %}{% review_queue_size as held %}

`unseen_share_count`: packets shared with them they have not opened yet (one COUNT on the inbox's
index). `review_queue_size`: packets the secret scan holds back that they are asked to look at
(packets.scan.findings.review_queue_size); the navigation links the queue only when it holds something.
Tags rather than a context processor: only pages that draw the navigation pay for them."""

from collections.abc import Callable

from django import template

from packets.scan.findings import review_queue_size
from packets.sharing.selectors import shares_unseen_count

register = template.Library()


def _viewer_count(name: str, count: Callable[..., int]) -> None:
    """Register the tag `name`: count(viewer=...) for a signed-in person, 0 for anyone else."""

    def tag(context) -> int:
        user = context.get("user")
        if user is None or not user.is_authenticated:
            return 0
        return count(viewer=user)

    register.simple_tag(tag, takes_context=True, name=name)


_viewer_count("unseen_share_count", shares_unseen_count)
_viewer_count("review_queue_size", lambda viewer: review_queue_size(viewer=viewer))
