""" "Sign out" in the palette: forget the OAuth sign-in of the server watched, after asking; the
next request the server refuses signs in again (the sign-in screen follows it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.engine.safety.sanitize import one_line
from app.tui.problems import describe
from widgets.plain import toast

if TYPE_CHECKING:
    from app.tui.host import Connected


def sign_out(app: Connected) -> None:
    """Ask, then remove the stored tokens and client registration of this server."""
    from widgets.confirm import ConfirmModal

    server = one_line(app.info.label if app.info is not None else "this server", 80)

    def confirmed(yes: bool | None) -> None:
        if yes:
            app.run_worker(_sign_out(app, server), group="actions", exit_on_error=False)

    body = (
        f"Remove the stored sign-in of {server} (tokens and client registration)? The next "
        "request the server refuses signs in again, in the browser."
    )
    app.push_screen(ConfirmModal("Sign out", body, yes="Sign out", no="Keep"), confirmed)


async def _sign_out(app: Connected, server: str) -> None:
    try:
        removed = await app.source.sign_out()
    except Exception as exc:
        toast(app, describe(exc), title="Sign out", severity="warning")
        return
    toast(
        app,
        f"Signed out of {server}." if removed else f"No sign-in was stored for {server}.",
        title="Sign out",
    )
