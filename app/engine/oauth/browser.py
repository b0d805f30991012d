"""Opening the authorization URL in the user's browser, for the sign-ins that ask a person."""

from __future__ import annotations

from app.engine.oauth.steps import AuthStep


class BrowserObserver:
    """Hears nothing and opens the browser for a sign-in: for callers that show no steps."""

    def on_step(self, step: AuthStep) -> None:
        return None

    async def sign_in(self, authorization_url: str) -> None:
        await open_browser(authorization_url)


async def open_browser(url: str) -> bool:
    """Open `url` in the user's browser (`$BROWSER` honoured, else as `webbrowser` picks) without
    blocking the loop and without the browser writing on this terminal (a full-screen UI draws
    there); whether a browser took it."""
    import asyncio

    return await asyncio.to_thread(launch_browser, url)


def launch_browser(url: str) -> bool:
    """Open `url` in the browser now (blocking), its output detached; whether one took it.

    `$BROWSER` is read on each call (webbrowser reads it once per process): its first entry is
    the command, `%s` standing for the URL (appended when absent); without it, webbrowser picks.
    """
    import os
    import shlex
    import subprocess
    import webbrowser

    chosen = os.environ.get("BROWSER", "").split(os.pathsep)[0].strip()
    if chosen:
        parts = shlex.split(chosen)
        command = [part.replace("%s", url) for part in parts]
        if not any("%s" in part for part in parts):
            command.append(url)
    else:
        try:
            controller = webbrowser.get()
        except webbrowser.Error:
            return False
        name, args = getattr(controller, "name", None), getattr(controller, "args", None)
        if not isinstance(name, str) or not isinstance(args, list):
            try:
                return bool(controller.open(url))
            except Exception:
                return False
        command = [name, *(arg.replace("%s", url) for arg in args)]
    try:
        subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except (OSError, ValueError):
        return False
    return True
