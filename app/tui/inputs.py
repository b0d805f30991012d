"""One entry point for answering input in the TUI: pick the right modal for a request and run it.

`open_input` must be awaited from a worker (it waits for the modal to close). It returns the
response the server acknowledged, or None when no result was sent (put off with "Later", or a
sampling request declined through `reject`). `roots/list` never comes here: the App answers it at
once from the `--root` paths (`TaskSource.answer_roots`).
"""

from __future__ import annotations

import webbrowser
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from app.engine.forms.schema_form import UnsupportedSchema, parse_schema
from app.engine.tasks.models import InputKind, InputRequest
from widgets.input_form import InputForm
from widgets.input_json import InputJson, unsupported_reason
from widgets.input_modal import AnswerModal, Reject, Submit
from widgets.input_sampling import InputSampling
from widgets.input_url import InputUrl, Opener

if TYPE_CHECKING:
    from app.tui.host import Screens


def draft_content(draft: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """The form content of a kept (unacknowledged) elicitation answer, if it has one."""
    if draft is None:
        return None
    content = draft.get("content")
    return content if isinstance(content, Mapping) else None


def input_screen(
    request: InputRequest,
    submit: Submit,
    *,
    server: str = "",
    draft: Mapping[str, Any] | None = None,
    opener: Opener = webbrowser.open,
    reject: Reject | None = None,
) -> AnswerModal:
    """The modal that answers `request`, for callers that push it with a callback themselves.

    `draft` is a response typed earlier but not acknowledged (`broker.staged_answer`); its values
    are filled in again. `reject` declines a sampling request with a JSON-RPC error (e.g.
    `adapter.reject(request)`). `roots/list` has no modal: it is answered from the configuration.
    """
    if request.kind is InputKind.FORM:
        schema = request.requested_schema
        try:
            spec = parse_schema(schema)
        except UnsupportedSchema as problem:
            return InputJson(
                request,
                submit,
                server=server,
                schema=schema,
                reason=unsupported_reason(str(problem)),
                draft=draft_content(draft),
            )
        return InputForm(request, spec, submit, server=server, draft=draft_content(draft))
    if request.kind is InputKind.URL:
        return InputUrl(request, submit, server=server, opener=opener)
    if request.kind is InputKind.SAMPLING:
        return InputSampling(request, submit, server=server, reject=reject)
    if request.kind is InputKind.ROOTS:
        raise ValueError("roots/list is answered from --root (answer_roots), not a modal")
    if request.method == "elicitation/create":
        mode = request.params.get("mode")
        return InputJson(
            request,
            submit,
            server=server,
            reason=f"Unknown elicitation mode {mode!r}. Type the answer's content as JSON.",
            draft=draft_content(draft),
        )
    return InputJson(
        request,
        submit,
        server=server,
        reason="taskscope does not know this kind of request. Type the whole response as JSON.",
        raw_response=True,
        draft=draft,
    )


async def open_input(
    app: Screens,
    request: InputRequest,
    *,
    submit: Submit,
    server: str = "",
    draft: Mapping[str, Any] | None = None,
    opener: Opener = webbrowser.open,
    reject: Reject | None = None,
    keep_draft: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any] | None:
    """Answer one input request: show its modal and return the acknowledged response, or None.

    Call it from a worker. `submit(response)` sends one response (e.g. `adapter.answer(request,
    response)`) and raises on failure; the modal keeps what was typed and lets the user retry.
    `reject()` declines a sampling request with a JSON-RPC error (False where the wire cannot).
    When the modal is put off (Later, escape), what was typed goes to `keep_draft`.
    """
    screen = input_screen(request, submit, server=server, draft=draft, opener=opener, reject=reject)
    answered = await app.push_screen(screen, wait_for_dismiss=True)
    if answered is None and screen.kept_draft is not None and keep_draft is not None:
        keep_draft(screen.kept_draft)
    return answered
