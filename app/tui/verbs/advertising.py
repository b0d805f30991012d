""" "Advertised capabilities" in the palette: which client capabilities a server is told of, a
toggle each; the change applies from that server's next request on (with several servers, the
one the user picks), and the header and server pane say while tasks are withheld."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.engine.safety.sanitize import one_line
from app.view.source import SourceUnavailable
from widgets.plain import toast

if TYPE_CHECKING:
    from app.tui.host import Advertising


def advertised_capabilities(app: Advertising) -> None:
    """Choose the server, show its toggles and apply them, in a worker (they wait on the user)."""
    app.run_worker(_choose_and_apply(app), group="actions", exit_on_error=False)


async def _choose_and_apply(app: Advertising) -> None:
    from app.engine.rpc.era import is_modern_version
    from app.tui.server_choice import choose_server
    from widgets.advertised_screen import AdvertisedScreen

    chosen = await choose_server(app, "Advertised capabilities of which server?")
    if chosen is None:
        return
    current = chosen.source.advertised()
    if current is None:
        toast(app, "No live server is watched.", severity="warning")
        return
    server = chosen.name or chosen.info.server_name or chosen.info.label
    legacy = not is_modern_version(chosen.info.protocol_version)
    screen = AdvertisedScreen(current, legacy=legacy, server=server)
    withheld = await app.push_screen_wait(screen)
    if withheld is None or withheld == current.withheld:
        return
    changed = current.withholding(withheld)
    try:
        chosen.source.advertise(changed)
    except SourceUnavailable as exc:
        toast(app, str(exc), severity="warning")
        return
    app.redraw.header()
    toast(app, f"{one_line(server, 40)} is told: {changed.describe()}", title="Advertised")
