"""The App's engine workers: build a deferred source off the event loop, then connect the
source and run its poller for as long as the App lives.

The workers touch no App state and no widget: they post what happened (`SourceLoaded`,
`SourceConnected`, `SourceFailed`, `SignInChanged`) and the App applies it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from app.tui.messages import (
    ActionReplayed,
    SignInChanged,
    SourceConnected,
    SourceFailed,
    SourceLoaded,
)
from app.tui.problems import describe

if TYPE_CHECKING:
    from app.tui.host import Screens
    from app.tui.messages import Batcher
    from app.tui.startup import DeferredSource
    from app.view.sign_in import SignInState
    from app.view.source import TaskSource

ENGINE_GROUP = "engine"
"""The workers' group: cancelled as the App closes its source, named when one fails."""


def load_engine(app: Screens, deferred: DeferredSource) -> None:
    """Import the engine and build the deferred source in a worker thread."""

    def load() -> None:
        try:
            loaded = deferred.load()
        except Exception as exc:
            app.post_message(SourceFailed(describe(exc)))
            return
        app.post_message(SourceLoaded(loaded))

    app.run_worker(
        load, thread=True, exclusive=True, group=ENGINE_GROUP, exit_on_error=False, name="engine"
    )


def run_engine(app: Screens, source: TaskSource, updates: Batcher) -> None:
    """Connect `source` and run its poller in a worker; its events and frames go to `updates`."""

    def signing_in(state: SignInState) -> None:
        app.post_message(SignInChanged(state))

    source.on_sign_in(signing_in)

    def replayed(action: str, tasks: Mapping[str, Mapping[str, Any]]) -> None:
        updates.flush_now()  # the events recorded before the action are applied before it
        app.post_message(ActionReplayed(action, tasks))

    source.on_action(replayed)

    async def run() -> None:
        try:
            info = await source.connect(updates.add_event, updates.add_frame)
        except Exception as exc:
            app.post_message(SourceFailed(describe(exc)))
            return
        app.post_message(SourceConnected(info))
        await source.run()

    app.run_worker(run(), exclusive=True, group=ENGINE_GROUP, exit_on_error=False, name="engine")
