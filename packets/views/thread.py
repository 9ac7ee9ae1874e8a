"""The thread page: the packets linked by parent_id around one, drawn as a tree on a timeline."""

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import render

from core.errors import NotFound
from packets import selectors
from packets.pages import detail_url


@login_required
def packet_thread(request, packet_id):
    """The thread that holds a packet, drawn as a tree on a timeline: each packet under the one it
    continues, siblings oldest first, with a line from each packet to the ones that continue it."""
    try:
        items = selectors.packet_thread(viewer=request.user, packet_id=packet_id)
    except NotFound as exc:
        raise Http404(exc.message) from None
    context = {"current": packet_id, "graph": _thread_graph(items, current=packet_id), "count": len(items)}
    return render(request, "packets/thread.html", context)


# The thread graph's geometry, in SVG user units (pixels). Past MAX_INDENT levels a long chain
# goes straight down instead of off the page.
ROW, INDENT, MAX_INDENT, LEFT, TOP, LABEL_WIDTH = 56, 28, 12, 16, 22, 760


def _thread_graph(items: list[dict], *, current: str) -> dict:
    """Coordinates for the thread page's SVG: rows in depth-first order (so the line from a
    packet down to a later child only passes that packet's deeper descendants, never a node of
    its own column), columns by depth, and an elbow line from each packet's parent to it."""
    known = {item["id"] for item in items}
    children: dict[str, list] = {}
    starts = []
    for item in items:  # oldest first, so siblings stay in time order
        parent = item["parent_id"]
        if parent in known and parent != item["id"]:
            children.setdefault(parent, []).append(item)
        else:
            starts.append(item)
    nodes, placed = [], {}
    # Threads from their roots; then whatever a cycle of parent_ids kept out of reach.
    for start in starts + items:
        stack = [(start, None)]
        while stack:
            item, parent = stack.pop()
            if item["id"] in placed:
                continue
            depth = placed[parent][2] + 1 if parent else 0
            x, y = LEFT + min(depth, MAX_INDENT) * INDENT, TOP + len(nodes) * ROW
            placed[item["id"]] = (x, y, depth)
            nodes.append(
                {
                    **item,
                    "x": x,
                    "y": y,
                    "label_x": x + 16,
                    "url": detail_url(item["id"]),
                    "current": item["id"] == current,
                    "parent_x": placed[parent][0] if parent else None,
                    "parent_y": placed[parent][1] if parent else None,
                }
            )
            stack += [(child, item["id"]) for child in reversed(children.get(item["id"], []))]
    deepest = max((depth for _, _, depth in placed.values()), default=0)
    return {
        "nodes": nodes,
        "width": LEFT + min(deepest, MAX_INDENT) * INDENT + LABEL_WIDTH,
        "height": TOP + max(len(nodes) - 1, 0) * ROW + 30,
    }
