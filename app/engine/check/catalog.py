"""Every check `taskscope check` knows, in report order: the one owner of ids, titles, levels and
the spec sentence each enforces.

Ids are MCPJam's `tasks conformance` ids or the official suite's `tasks-*` / `sep-2663-*` check
ids where one of them judges the same rule (`same_as` names the other's), so results compare;
the legacy-wire set, which neither has, is `tasks-legacy-*`.
"""

from __future__ import annotations

from app.engine.check.model import Check, CheckWire, Level

S1 = "2025-11-25 basic/utilities/tasks"
S3 = "SEP-2663 (io.modelcontextprotocol/tasks)"


def _check(
    check_id: str,
    title: str,
    wire: CheckWire,
    level: Level,
    category: str,
    spec: str,
    *,
    same_as: tuple[str, ...] = (),
) -> Check:
    return Check(check_id, title, wire, level, category, spec, same_as)


CHECKS: tuple[Check, ...] = (
    # -- both wires ---------------------------------------------------------------------------
    _check(
        "tasks-wire-resolvable",
        "Exactly one tasks wire resolves",
        "both",
        "MUST",
        "dispatch",
        f'{S3}, Compatibility: "the two are not wire-compatible"; a connection speaks one era, '
        "so it has one tasks wire (legacy capabilities.tasks.requests.tools.call, or the "
        "extension under capabilities.extensions)",
    ),
    _check(
        "tasks-declaration-hygiene",
        "No mixed-era capabilities",
        "both",
        "MUST",
        "dispatch",
        f'{S3}: "Servers MUST NOT advertise legacy capabilities under a protocol version that '
        'includes this extension"; the extension "is not defined under 2025-11-25"',
    ),
    _check(
        "tasks-declared-verbs-answer",
        "Every declared tasks verb is implemented",
        "both",
        "MUST",
        "dispatch",
        f'{S1}, Capabilities: "tasks.list: server supports tasks/list", "tasks.cancel: server '
        'supports tasks/cancel"; a declared verb answering -32601 (Method not found) breaks it',
    ),
    _check(
        "tasks-invalid-task-id-rejected",
        "An unknown task id is rejected with -32602",
        "both",
        "MUST",
        "lifecycle",
        f'{S1}, Error Handling: "Invalid or nonexistent taskId in tasks/get, tasks/result, or '
        'tasks/cancel: -32602 (Invalid params)"; ' + f'{S3}: tasks/get on an unknown id "MUST" '
        "answer -32602",
        same_as=("sep-2663-tasks-get-invalid-task-id-32602",),
    ),
    _check(
        "tasks-ttl-shape",
        "ttl / ttlMs is present, an integer or null",
        "both",
        "MUST",
        "creation",
        f'{S1}: "ttl: integer | null" is a required key ("null = unlimited"); {S3}: "ttlMs: '
        'integer | null", required',
    ),
    _check(
        "tasks-legal-transitions",
        "Only legal transitions; a terminal status is final",
        "both",
        "MUST",
        "lifecycle",
        f'{S1}, Task Status Lifecycle: "Tasks with a completed, failed, or cancelled status are '
        'in a terminal state and MUST NOT transition to any other status"',
    ),
    _check(
        "tasks-no-early-ttl-expiry",
        "No expiry before createdAt + ttl",
        "both",
        "MUST",
        "lifecycle",
        f'{S1}: "After ttl has elapsed from creation, the receiver MAY delete the task" (not '
        "before); the official suite's tasks-no-early-ttl-expiry",
    ),
    # -- legacy (2025-11-25) ------------------------------------------------------------------
    _check(
        "tasks-legacy-create-shape",
        "A task-augmented call returns CreateTaskResult, beginning working",
        "legacy",
        "MUST",
        "creation",
        f'{S1}: "Tasks MUST begin in the working status"; CreateTaskResult is {{"task": Task}} '
        'and "receivers MUST include createdAt and lastUpdatedAt" (ISO 8601)',
    ),
    _check(
        "tasks-legacy-task-support",
        "execution.taskSupport is honoured",
        "legacy",
        "MUST",
        "creation",
        f'{S1}, Tool-Level Negotiation: "required: ... the server MUST return a -32601 error if '
        'clients do not attempt to" call it as a task; "forbidden" or absent: "SHOULD return '
        'a -32601"',
    ),
    _check(
        "tasks-legacy-tools-call-declared",
        "A server that creates tasks on tools/call declares tasks.requests.tools.call",
        "legacy",
        "MUST",
        "dispatch",
        f'{S1}, schema (TaskAugmentedRequestParams.task): "receivers MUST declare support for '
        'task augmentation of specific request types in their capabilities"; for tools/call '
        "that is tasks.requests.tools.call (the requests set is exhaustive)",
    ),
    _check(
        "tasks-legacy-result",
        "tasks/result blocks, then returns the underlying result with related-task meta",
        "legacy",
        "MUST",
        "lifecycle",
        f'{S1}: tasks/result "MUST return exactly what the underlying request would have '
        'returned" and "MUST include" _meta["io.modelcontextprotocol/related-task"]; for a '
        "working or input_required task it MUST block until the task is terminal",
    ),
    _check(
        "tasks-legacy-input-related-task",
        "A task's questions carry the related task, and answering moves it on",
        "legacy",
        "MUST",
        "lifecycle",
        f'{S1}, Input Required: requests the receiver sends for a task "MUST" carry '
        '_meta["io.modelcontextprotocol/related-task"]; once answered the task "SHOULD" leave '
        "input_required",
    ),
    _check(
        "tasks-legacy-cancel-working",
        "tasks/cancel of a working task gives cancelled",
        "legacy",
        "MUST",
        "lifecycle",
        f'{S1}, Cancellation: the receiver "MUST transition the task to cancelled status before '
        'sending the response"',
    ),
    _check(
        "tasks-legacy-cancel-terminal",
        "tasks/cancel of a terminal task is rejected with -32602",
        "legacy",
        "MUST",
        "lifecycle",
        f'{S1}, Cancellation: "Receivers MUST reject cancellation requests for tasks already in a '
        'terminal status with error code -32602"',
    ),
    _check(
        "tasks-legacy-list",
        "tasks/list paginates, rejects a bad cursor and lists the created task",
        "legacy",
        "MUST",
        "lifecycle",
        f'{S1}, Listing: "invalid cursor: -32602"; "any task retrievable by tasks/get MUST also '
        'be retrievable through tasks/list" for that requestor',
    ),
    _check(
        "tasks-legacy-status-notifications",
        "Status notifications carry a whole, legal task",
        "legacy",
        "MUST",
        "lifecycle",
        f"{S1}: notifications/tasks/status params are NotificationParams & Task (taskId, "
        "status, createdAt, lastUpdatedAt, ttl); sending them is optional",
    ),
    _check(
        "tasks-legacy-session-binding",
        "Whether a task is bound to the session that made it (information)",
        "legacy",
        "MAY",
        "lifecycle",
        f'{S1}, Security: "When an authorization context exists, tasks MUST be bound to it"; '
        "without one, binding is the server's choice: a second connection shows which it made",
    ),
    # -- extension (SEP-2663) -----------------------------------------------------------------
    _check(
        "tasks-extension-advertised",
        "The extension is advertised under capabilities.extensions",
        "extension",
        "MUST",
        "dispatch",
        f'{S3}: server/discover returns capabilities.extensions["io.modelcontextprotocol/tasks"]'
        " = {}; not the legacy capabilities.tasks",
    ),
    _check(
        "tasks-undeclared-capability-rejected",
        "tasks/* without the declaration answers -32021",
        "extension",
        "MUST",
        "dispatch",
        f"{S3}: tasks/get, tasks/update or tasks/cancel from a request that did not declare the "
        'extension "MUST" be rejected with -32021',
        same_as=("sep-2663-tasks-methods-non-declaring",),
    ),
    _check(
        "tasks-undeclared-capability-names-requirements",
        "-32021 names the missing extension",
        "extension",
        "MUST",
        "dispatch",
        f'{S3}: the error carries data.requiredCapabilities.extensions["io.modelcontextprotocol/'
        'tasks"] = {} (sep-2663-server-returns-missing-capability-data-shape)',
    ),
    _check(
        "sep-2663-tasks-result-removed-method-not-found",
        "tasks/result answers -32601",
        "extension",
        "MUST",
        "dispatch",
        f"{S3}: tasks/result is removed; a server answers -32601 (Method not found)",
    ),
    _check(
        "tasks-removed-tasks-list",
        "tasks/list answers -32601",
        "extension",
        "MUST",
        "dispatch",
        f"{S3}: there is no tasks/list (callers are not exposed to each other's tasks); the "
        "official suite expects -32601",
    ),
    _check(
        "tasks-undeclared-creation-refused",
        "Without the declaration no task is created",
        "extension",
        "MUST",
        "creation",
        f'{S3}: "The server MUST NOT return CreateTaskResult unless the client declared the '
        'extension on that request"; a task-required tool answers -32021',
        same_as=("sep-2663-server-rejects-undeclared-client",),
    ),
    _check(
        "sep-2663-legacy-task-param-ignored",
        "A legacy params.task is ignored",
        "extension",
        "MUST",
        "creation",
        f'{S3}: the legacy params.task is removed; servers "MUST ignore it" and must not treat it'
        " as an opt-in",
    ),
    _check(
        "tasks-result-type-discipline",
        'resultType "task" on CreateTaskResult and on nothing else',
        "extension",
        "MUST",
        "creation",
        f'{S3}: "Servers MUST set resultType: \\"task\\"" on CreateTaskResult (flat, no task '
        'wrapper) and on no other result; tasks/get "MUST" say "complete"',
    ),
    _check(
        "sep-2663-durable-create-strong-consistency",
        "A created task can be fetched at once",
        "extension",
        "MUST",
        "creation",
        f'{S3}: the server "MUST NOT return CreateTaskResult until" a tasks/get for that id '
        "would resolve",
    ),
    _check(
        "tasks-ttl-integer-shape",
        "ttlMs and pollIntervalMs are integers",
        "extension",
        "MUST",
        "creation",
        f'{S3}: "ttlMs: integer | null", "pollIntervalMs?: integer" (positive, per the suite)',
    ),
    _check(
        "tasks-wire-field-renames",
        "Never the legacy ttl / pollInterval names",
        "extension",
        "MUST",
        "creation",
        f"{S3}: the fields are ttlMs and pollIntervalMs; the official suite fails a task that "
        "still carries ttl or pollInterval",
    ),
    _check(
        "tasks-create-result-no-request-state",
        "No requestState on CreateTaskResult",
        "extension",
        "MUST",
        "creation",
        f"{S3}: requestState belongs to MRTR rounds, not to tasks (an early draft had it); the "
        "official suite's tasks-create-result-no-request-state",
    ),
    _check(
        "tasks-get-detailed-no-request-state",
        "No requestState on tasks/get",
        "extension",
        "MUST",
        "lifecycle",
        f"{S3}: GetTaskResult is Result & DetailedTask, with no requestState; the official "
        "suite's tasks-get-detailed-no-request-state",
    ),
    _check(
        "tasks-status-payload-shape",
        "Each status carries its payload",
        "extension",
        "MUST",
        "lifecycle",
        f"{S3}, DetailedTask: input_required has inputRequests, completed an inline result, "
        "failed a JSON-RPC error (sep-2663-tasks-get-status-*)",
    ),
    _check(
        "tasks-inline-result",
        "A completed task carries its result inline",
        "extension",
        "MUST",
        "lifecycle",
        f'{S3}: a completed tasks/get carries "result", "exactly what the underlying request '
        'would have returned"',
    ),
    _check(
        "tasks-no-related-task-meta-on-inlined-result",
        "No related-task meta on an inlined result",
        "extension",
        "MUST",
        "lifecycle",
        f"{S3}: the legacy related-task _meta key does not belong on the inlined result; the "
        "official suite's tasks-no-related-task-meta-on-inlined-result",
    ),
    _check(
        "tasks-input-required-update-completes",
        "tasks/update resumes an input_required task",
        "extension",
        "MUST",
        "lifecycle",
        f"{S3}, tasks/update: the answered keys leave inputRequests and the task moves on",
        same_as=("tasks-mrtr-tasks-update-resumes",),
    ),
    _check(
        "tasks-cancel-ack-shape",
        "tasks/cancel answers an empty ack",
        "extension",
        "MUST",
        "lifecycle",
        f'{S3}, tasks/cancel: the result is an empty ack {{"resultType": "complete"}}',
        same_as=("sep-2663-cancel-ack-empty-result",),
    ),
    _check(
        "tasks-cancel-terminal-idempotent-ack",
        "tasks/cancel of a terminal task is an idempotent ack",
        "extension",
        "SHOULD",
        "lifecycle",
        f"{S3} is silent; the official suite expects the same empty ack (-32602 only warns)",
    ),
    _check(
        "tasks-mcp-name-routing",
        "Mcp-Name routes tasks/*; a mismatched one is rejected",
        "extension",
        "MUST",
        "dispatch",
        f'{S3}: tasks/get, tasks/update and tasks/cancel "MUST" carry Mcp-Name: <taskId>; a '
        "mismatch answers -32020 (HeaderMismatch), Streamable HTTP only",
    ),
    _check(
        "sep-2663-result-type-task-on-create",
        "CreateTaskResult is flat, with no result, error or inputRequests",
        "extension",
        "MUST",
        "creation",
        f'{S3}: CreateTaskResult = Result & Task & {{resultType: "task"}}: taskId, status and '
        "ISO createdAt / lastUpdatedAt at the top level, no task wrapper, and no result, error or "
        "inputRequests (those come with tasks/get)",
    ),
    _check(
        "tasks-per-request-meta-opt-in",
        "A request that declares the extension in its _meta can get a task",
        "extension",
        "MUST",
        "creation",
        f'{S3}: the declaration goes in "each request\'s" _meta, and "servers MUST NOT infer '
        "capabilities from earlier requests\"; the suite's slow_compute answers such a call with "
        "a task",
    ),
    _check(
        "sep-2663-tasks-get-status-working",
        "tasks/get right after creation answers the task",
        "extension",
        "MUST",
        "lifecycle",
        f"{S3}, tasks/get: the result is the DetailedTask of the requested taskId, with its status",
    ),
    _check(
        "sep-2663-tasks-get-status-input-required",
        "An input_required task lists its questions",
        "extension",
        "MUST",
        "lifecycle",
        f'{S3}: an input_required tasks/get carries inputRequests with "all" outstanding '
        "requests, each {method, params}",
    ),
    _check(
        "tasks-mrtr-partial-fulfillment",
        "Answering some questions leaves the task waiting on the rest",
        "extension",
        "MUST",
        "lifecycle",
        'SEP-2663 (ext-tasks): "A partial set of keys MAY be accepted; the task then stays '
        'input_required until the rest arrive"; the answered key leaves inputRequests',
    ),
    _check(
        "sep-2663-tasks-get-status-completed",
        "A completed task's result has content",
        "extension",
        "MUST",
        "lifecycle",
        f'{S3}: a completed task carries "result", "exactly what the underlying request would '
        'have returned" (a CallToolResult: a content array)',
    ),
    _check(
        "sep-2663-tool-error-uses-completed-status",
        "A tool error ends completed with isError, not failed",
        "extension",
        "MUST",
        "lifecycle",
        f'{S3}: "failed is ONLY for JSON-RPC errors"; "a tool result with isError: true MUST be '
        'completed"',
    ),
    _check(
        "sep-2663-tasks-get-status-failed",
        "A failed task carries its JSON-RPC error and no result",
        "extension",
        "MUST",
        "lifecycle",
        f"{S3}: FailedTask has error {{code, message, data?}}; the official suite also "
        "requires no result",
    ),
    _check(
        "tasks-server-directed-creation-no-hint",
        "The server may make a task of a call that did not ask for one",
        "extension",
        "MUST",
        "creation",
        f'{S3}: "The server is the sole decider"; the suite\'s failing_job is created as a task '
        "for a declaring request",
    ),
    _check(
        "tasks-immediate-result-shortcut",
        "A task-capable tool may answer at once",
        "extension",
        "MUST",
        "creation",
        f"{S3}: a declaring client MUST handle either CallToolResult or CreateTaskResult; the "
        "suite's slow_compute with seconds 0 answers either way, each whole",
    ),
    _check(
        "tasks-sync-tool-call",
        "A synchronous tool answers a plain result",
        "extension",
        "MUST",
        "creation",
        f"{S3}: synchronous answers are always legal; the suite's greet answers {{resultType: "
        '"complete", content}} and never a task',
    ),
    _check(
        "tasks-result-type-complete-on-non-task-responses",
        'Every other result says resultType "complete"',
        "extension",
        "MUST",
        "dispatch",
        "2026-07-28 basic: results carry a required resultType; SEP-2663: tasks/get, tasks/update "
        'and tasks/cancel answer "complete", as does a synchronous tools/call',
    ),
    _check(
        "sep-2663-server-returns-missing-capability-when-required",
        "A task-required tool refuses a non-declaring call with -32021",
        "extension",
        "MUST",
        "dispatch",
        f'{S3}: "If the server cannot serve the request without a task and the client did not '
        'declare the extension, it MUST return -32021"',
    ),
    _check(
        "sep-2663-server-returns-missing-capability-data-shape",
        "That -32021 names the extension in data.requiredCapabilities",
        "extension",
        "MUST",
        "dispatch",
        f'{S3}: the -32021 carries data.requiredCapabilities.extensions["io.modelcontextprotocol/'
        'tasks"] = {} (an absent data only warns, as in the suite)',
    ),
    _check(
        "sep-2663-mrtr-synchronous-before-task-creation",
        "MRTR rounds finish before the task is created",
        "extension",
        "MUST",
        "creation",
        f'{S3}: "Servers SHOULD finish all MRTR rounds synchronously before creating the task", '
        "and the final round's CreateTaskResult carries no requestState or inputRequests (the "
        "official suite fails either)",
    ),
    _check(
        "tasks-headers-tolerate-mcp-method-on-tools-call",
        "Mcp-Method on tools/call is accepted",
        "extension",
        "MUST",
        "dispatch",
        "2026-07-28 Streamable HTTP: Mcp-Method: <method> goes on every request; a matching one "
        "is accepted",
    ),
    _check(
        "tasks-headers-reject-mismatched-method",
        "A mismatched Mcp-Method is rejected with -32020",
        "extension",
        "MUST",
        "dispatch",
        "2026-07-28 Streamable HTTP: a routing header that disagrees with the body answers "
        "-32020 (HeaderMismatch), HTTP 400",
    ),
    _check(
        "sep-2663-routing-headers-accepted-on-tasks-get",
        "tasks/get with Mcp-Name: <taskId> is accepted",
        "extension",
        "MUST",
        "dispatch",
        f'{S3}: tasks/get, tasks/update and tasks/cancel "MUST" carry Mcp-Name: <taskId>',
    ),
    _check(
        "sep-2663-server-rejects-mismatched-mcp-name-on-tasks-get",
        "tasks/get with a mismatched Mcp-Name answers -32020",
        "extension",
        "MUST",
        "dispatch",
        "2026-07-28 Streamable HTTP: Mcp-Name that is not params.taskId answers -32020 "
        "(HeaderMismatch), HTTP 400",
    ),
    _check(
        "tasks-status-notifications",
        "subscriptions/listen for task notifications, where offered",
        "extension",
        "MUST",
        "lifecycle",
        f"{S3}: notifications/tasks are delivered on a subscriptions/listen stream with "
        "notifications.taskIds, the server's first message notifications/subscriptions/"
        "acknowledged listing them; offering it is optional (-32601 only warns)",
    ),
)

BY_ID: dict[str, Check] = {check.id: check for check in CHECKS}
CATEGORIES: tuple[str, ...] = tuple(dict.fromkeys(check.category for check in CHECKS))


def select(
    wire: str, check_ids: tuple[str, ...] = (), categories: tuple[str, ...] = ()
) -> dict[str, Check]:
    """The checks of `wire` (or both), narrowed to `check_ids` and `categories` when given, in
    catalogue order."""
    return {
        check.id: check
        for check in CHECKS
        if check.wire in (wire, "both")
        and (not check_ids or check.id in check_ids)
        and (not categories or check.category in categories)
    }
