"""A third-party MCP client (the Python `mcp` package, high-level `mcp.client.client.Client`) that
answers the server's elicitations like a person at the keyboard would.

Usage: $AQLGEN_PY_VENV/bin/python tests/python/elicit_client.py '<plan JSON>'

Run it with the venv's interpreter (scripts/setup makes it, default target/py-mcp, with
mcp==2.3.0); the SDK is imported from there, nothing else is looked up.

The plan (tests/ts/elicit_client.mjs takes the same one):

    {
      "transport": "stdio" | "http",
      "command": "/abs/path/binary", "args": [...], "env": {"K": "V"},  # stdio: spawn this server
                                                                        # (current environment + env)
      "url": "http://127.0.0.1:PORT/mcp",                               # http: streamable HTTP endpoint
      "headers": {"X-Upstream-Key": "..."},                             # http, optional: sent with
                                                                        # every request (a caller's
                                                                        # credential, its token)
      "protocol": "2025-11-25" | "2026-07-28",   # initialize-handshake session, or the 2026-07-28
                                                 # revision: adopted without any probe (no
                                                 # initialize, no server/discover); each request
                                                 # carries the _meta envelope with the capabilities
      "elicitation": "accept" | "decline" | "cancel" | "timeout" | "wrong_code" | "none",
      "code_file": "/abs/path",                  # optional: accepting a `code` form reads the code here
                                                 # (re-read at each elicitation, trimmed)
      "timeout_seconds": 5,                      # optional: how long "timeout" waits before it cancels
      "tool": "mcp_aql_delete",
      "calls": [{"arguments": {...}}, ...],
      "progress": true,                          # optional: every call carries a progress token
      "notifications": true,                     # optional: print every progress notification
      "tasks": true,                             # optional: declare the MCP Tasks extension
                                                 # (2026-07-28 only, see below)
      "cancel_after_ms": 500                     # optional, with tasks: tasks/cancel this long
                                                 # after the task was created
    }

"none" declares no elicitation capability. Any other value declares it (this SDK declares form and
url modes) and registers a callback that prints one line
{"step": "elicitation", "mode", "message", "requested_schema"} and then answers: accept fills
`confirm` with true and `code` with the code file's contents, decline and cancel answer so,
timeout sleeps timeout_seconds and then cancels, wrong_code accepts with code "WRONG-CODE". The
SDK routes both the 2025-11-25 server-to-client `elicitation/create` request and the 2026-07-28
`input_required` result (its embedded requests, then the retry echoing `requestState`) through
that one callback.

With "progress": true each call is made with a `progress_callback` (so the SDK puts a progress
token in the request's `_meta`), and each `notifications/progress` for it prints
{"step": "progress", "progress": p, "total": t, "message": m} before the call's own line. With
"notifications": true every `notifications/progress` the server sends, whatever its token (one the
SDK issued, or one the caller put in the arguments, e.g. in the operation object's `_meta`),
prints {"step": "notification", "progress_token": token, "progress": p, "total": t, "message": m}
(through the client's message handler, which sees them all).

Each call prints {"step": "call", "answer": <MCP-AQL JSON of the first text content>, "is_error"}
or, when the call raises (a JSON-RPC error, a timeout), {"step": "call", "protocol_error": "..."}.
With "tasks": true the client declares the MCP Tasks extension (SEP-2663,
`io.modelcontextprotocol/tasks`, capabilities.extensions) through the SDK's own extension
mechanism: a `ClientExtension` whose `ResultClaim` claims the `tools/call` result type "task",
which `Client.call_tool` hands to the claim's resolver. The resolver prints
{"step": "task", "task_id", "status", "poll_interval_ms"}, then polls `tasks/get` (sent with
`ClientSession.send_request` and a permissive result type) at the task's pollIntervalMs, printing
{"step": "task_status", "task_id", "status", "status_message"} each time, until a terminal
status (60 s at most, then the call's protocol_error); with "cancel_after_ms" it sends
`tasks/cancel` that long after the task was created and prints {"step": "task_cancel"} (or
{"step": "task_cancel", "protocol_error": "..."}). A completed (or failed) task with a `result`
then prints the usual call line from that result (a CallToolResult); a cancelled one prints
{"step": "call", "cancelled": true}; a failed one without a result
{"step": "call", "task_failed": true, "error": <its error>}. A call the server answers without a
task (e.g. an operation that is not long-running) prints its call line as usual.

This SDK activates result claims on the 2026-07-28 revision only (mcp/client/session.py
`_claim_active`): on a 2025-11-25 session it drops a claim-bearing extension from the capabilities
it declares at `initialize` (`ClientSession._build_capabilities`), and an advertise-only
declaration gets a task answer its `send_request` refuses (`mcp_types.methods.
validate_server_result` checks the `tools/call` result against the 2025-11-25 CallToolResult,
which requires `content`). So "tasks" with "protocol": "2025-11-25" is a harness error.

stdout carries those JSON lines only. Exit status 0 when the plan ran, even if calls failed; 2
with a message on stderr for harness errors (bad plan, connection failure, unreadable code file).
At 2026-07-28 nothing is sent before the first call, so there an unreachable server shows as each
call's protocol_error rather than as a connection failure.
"""

import json
import os
import sys
import traceback
from typing import Any, Literal

import anyio
import mcp_types as types
from mcp.client.client import Client
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.client.session import ClientRequestContext
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from pydantic import ConfigDict, Field, TypeAdapter

REQUEST_TIMEOUT_SECONDS = 60.0
"""Generous, so that the server's own timeouts are the ones the tests observe."""

ELICITATION_ANSWERS = ("accept", "decline", "cancel", "timeout", "wrong_code", "none")


class HarnessError(Exception):
    """The plan cannot run as written, or the harness itself failed."""


def emit(line):
    print(json.dumps(line), flush=True)


def load_plan(text):
    try:
        plan = json.loads(text)
    except json.JSONDecodeError as error:
        raise HarnessError(f"the plan is not JSON: {error}") from error
    if not isinstance(plan, dict):
        raise HarnessError("the plan must be a JSON object")
    transport = plan.get("transport")
    if transport == "stdio":
        if not isinstance(plan.get("command"), str):
            raise HarnessError("a stdio plan needs \"command\"")
    elif transport == "http":
        if not isinstance(plan.get("url"), str):
            raise HarnessError("an http plan needs \"url\"")
    else:
        raise HarnessError(f"\"transport\" must be stdio or http, not {transport!r}")
    if plan.get("protocol") not in ("2025-11-25", "2026-07-28"):
        raise HarnessError(f"\"protocol\" must be 2025-11-25 or 2026-07-28, not {plan.get('protocol')!r}")
    if plan.get("elicitation") not in ELICITATION_ANSWERS:
        raise HarnessError(f"\"elicitation\" must be one of {', '.join(ELICITATION_ANSWERS)}")
    if not isinstance(plan.get("tool"), str):
        raise HarnessError("the plan needs \"tool\"")
    calls = plan.get("calls")
    if not isinstance(calls, list) or not all(isinstance(call, dict) for call in calls):
        raise HarnessError("\"calls\" must be a list of {\"arguments\": {...}} objects")
    for flag in ("progress", "notifications", "tasks"):
        if not isinstance(plan.get(flag, False), bool):
            raise HarnessError(f"\"{flag}\" must be true or false")
    if plan.get("tasks") and plan["protocol"] != "2026-07-28":
        raise HarnessError(
            "\"tasks\" needs \"protocol\": \"2026-07-28\": this SDK activates the extension's result "
            "claim (the `task` answer of tools/call) at 2026-07-28 only"
        )
    cancel_after_ms = plan.get("cancel_after_ms")
    if cancel_after_ms is not None:
        if not plan.get("tasks"):
            raise HarnessError("\"cancel_after_ms\" needs \"tasks\": true")
        if isinstance(cancel_after_ms, bool) or not isinstance(cancel_after_ms, (int, float)) or cancel_after_ms < 0:
            raise HarnessError("\"cancel_after_ms\" must be a number of milliseconds")
    return plan


def schema_properties(schema):
    properties = schema.get("properties") if isinstance(schema, dict) else None
    return properties if isinstance(properties, dict) else {}


def make_elicitation_callback(plan, harness_errors):
    answer = plan["elicitation"]
    if answer == "none":
        return None
    timeout_seconds = float(plan.get("timeout_seconds", 5))
    code_file = plan.get("code_file")

    async def on_elicit(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        if isinstance(params, types.ElicitRequestFormParams):
            requested_schema = params.requested_schema
        else:
            requested_schema = None
        emit({
            "step": "elicitation",
            "mode": params.mode,
            "message": params.message,
            "requested_schema": requested_schema,
        })
        if answer == "decline":
            return types.ElicitResult(action="decline")
        if answer == "cancel":
            return types.ElicitResult(action="cancel")
        if answer == "timeout":
            # The person walked away; if the server gives up first (and cancels this request on a
            # session), the SDK cancels this task and nothing is answered.
            await anyio.sleep(timeout_seconds)
            return types.ElicitResult(action="cancel")
        if requested_schema is None:
            # URL mode: consenting to open the link has no content.
            return types.ElicitResult(action="accept")
        properties = schema_properties(requested_schema)
        content = {}
        if "confirm" in properties:
            content["confirm"] = True
        if "code" in properties:
            if answer == "wrong_code":
                content["code"] = "WRONG-CODE"
            else:
                if not code_file:
                    harness_errors.append("a `code` form arrived but the plan has no \"code_file\"")
                    return types.ElicitResult(action="cancel")
                try:
                    with open(code_file, encoding="utf-8") as file:
                        content["code"] = file.read().strip()
                except OSError as error:
                    harness_errors.append(f"cannot read code_file {code_file}: {error}")
                    return types.ElicitResult(action="cancel")
        return types.ElicitResult(action="accept", content=content)

    return on_elicit


def describe(error):
    """One line for an exception; exception groups (anyio task groups) are flattened."""
    if isinstance(error, BaseExceptionGroup):
        return "; ".join(describe(inner) for inner in error.exceptions)
    if isinstance(error, MCPError):
        return f"{type(error).__name__} (code {error.code}): {error.message}"
    return f"{type(error).__name__}: {str(error) or type(error).__name__}"


async def on_progress(progress, total, message):
    """The progress callback of each call when the plan asks for progress."""
    emit({"step": "progress", "progress": progress, "total": total, "message": message})


def make_message_handler(plan):
    """With "notifications": every progress notification, whatever its token."""
    if not plan.get("notifications"):
        return None

    async def on_message(message):
        if isinstance(message, types.ProgressNotification):
            params = message.params
            emit({
                "step": "notification",
                "progress_token": params.progress_token,
                "progress": params.progress,
                "total": params.total,
                "message": params.message,
            })

    return on_message


TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
TASK_FOLLOW_SECONDS = 60.0
"""How long a task is polled before the harness gives up on it."""
TERMINAL_TASK_STATUSES = ("completed", "failed", "cancelled")
RAW_RESULT = TypeAdapter(dict[str, Any])
"""A permissive result type: the raw result object, as the server sent it."""


class TaskCreated(types.Result):
    """The `tools/call` answer that created a task (SEP-2663): `resultType: "task"`."""

    model_config = ConfigDict(extra="allow")
    result_type: Literal["task"]
    task_id: str = Field(alias="taskId")
    status: str
    poll_interval_ms: int | None = Field(default=None, alias="pollIntervalMs")


class GetTask(types.GetTaskRequest):
    """`tasks/get`; SEP-2663 mirrors the task id into the Mcp-Name header."""

    name_param = "taskId"


class CancelTask(types.CancelTaskRequest):
    """`tasks/cancel`; SEP-2663 mirrors the task id into the Mcp-Name header."""

    name_param = "taskId"


class TaskCancelled(Exception):
    """The task the call created ended cancelled: there is no tool result."""


class TaskFailed(Exception):
    """The task ended failed without a result."""

    def __init__(self, error):
        super().__init__("the task failed")
        self.error = error


class TaskTimedOut(Exception):
    """The task was still working after TASK_FOLLOW_SECONDS."""


def poll_seconds(task):
    interval = task.get("pollIntervalMs")
    if isinstance(interval, bool) or not isinstance(interval, (int, float)) or interval <= 0:
        interval = 1000
    return interval / 1000


class TasksExtension(ClientExtension):
    """Declares the tasks extension and follows the tasks `tools/call` answers with."""

    identifier = TASKS_EXTENSION

    def __init__(self, plan):
        self.cancel_after = plan.get("cancel_after_ms")

    def claims(self):
        return [ResultClaim(result_type="task", model=TaskCreated, resolve=self.follow)]

    async def follow(self, created: TaskCreated, context: ClaimContext) -> types.CallToolResult:
        started = anyio.current_time()
        session = context.session
        task_id = created.task_id
        emit({
            "step": "task",
            "task_id": task_id,
            "status": created.status,
            "poll_interval_ms": created.poll_interval_ms,
        })
        cancel_at = None if self.cancel_after is None else started + self.cancel_after / 1000
        task = created.model_dump(by_alias=True, mode="json")
        while task.get("status") not in TERMINAL_TASK_STATUSES:
            now = anyio.current_time()
            if now - started > TASK_FOLLOW_SECONDS:
                raise TaskTimedOut(f"task {task_id} still {task.get('status')} after {TASK_FOLLOW_SECONDS:.0f} s")
            wake = now + poll_seconds(task)
            if cancel_at is not None and cancel_at < wake:
                await anyio.sleep(max(0.0, cancel_at - now))
                cancel_at = None
                try:
                    await session.send_request(
                        CancelTask(params=types.CancelTaskRequestParams(task_id=task_id)), RAW_RESULT
                    )
                    emit({"step": "task_cancel", "task_id": task_id})
                except Exception as error:
                    emit({"step": "task_cancel", "task_id": task_id, "protocol_error": describe(error)})
            else:
                await anyio.sleep(wake - now)
            task = await session.send_request(GetTask(params=types.GetTaskRequestParams(task_id=task_id)), RAW_RESULT)
            emit({
                "step": "task_status",
                "task_id": task.get("taskId"),
                "status": task.get("status"),
                "status_message": task.get("statusMessage"),
            })
        result = task.get("result")
        if isinstance(result, dict):
            return types.CallToolResult.model_validate(result, by_name=False)
        if task["status"] == "cancelled":
            raise TaskCancelled()
        raise TaskFailed(task.get("error"))


def answer_line(result):
    """The MCP-AQL answer inside a tool result: the first text content, parsed as JSON."""
    text = next((block.text for block in result.content if isinstance(block, types.TextContent)), None)
    if text is None:
        answer = None
    else:
        try:
            answer = json.loads(text)
        except json.JSONDecodeError:
            answer = text
    return {"step": "call", "answer": answer, "is_error": bool(result.is_error)}


async def run(plan):
    harness_errors = []
    if plan["transport"] == "stdio":
        env = dict(os.environ)
        env.update({str(k): str(v) for k, v in (plan.get("env") or {}).items()})
        server = StdioServerParameters(command=plan["command"], args=[str(a) for a in plan.get("args") or []], env=env)
    elif plan.get("headers"):
        headers = {str(k): str(v) for k, v in plan["headers"].items()}
        server = streamable_http_client(plan["url"], http_client=create_mcp_http_client(headers=headers))
    else:
        server = plan["url"]
    protocol = plan["protocol"]
    client = Client(
        server,
        # "legacy" is the initialize handshake (this SDK offers 2025-11-25, its newest handshake
        # revision); a modern version string adopts that revision directly, without a probe.
        mode="legacy" if protocol == "2025-11-25" else protocol,
        read_timeout_seconds=REQUEST_TIMEOUT_SECONDS,
        elicitation_callback=make_elicitation_callback(plan, harness_errors),
        message_handler=make_message_handler(plan),
        client_info=types.Implementation(name="aqlgen-elicit-client-py", version="1.0.0"),
        cache=None,
        extensions=[TasksExtension(plan)] if plan.get("tasks") else None,
    )
    try:
        await client.__aenter__()
    except Exception as error:
        raise HarnessError(f"cannot connect: {describe(error)}") from error
    try:
        if client.protocol_version != protocol:
            raise HarnessError(f"asked for protocol {protocol}, the connection negotiated {client.protocol_version}")
        for call in plan["calls"]:
            try:
                result = await client.call_tool(
                    plan["tool"],
                    call.get("arguments") or {},
                    progress_callback=on_progress if plan.get("progress") else None,
                )
            except TaskCancelled:
                emit({"step": "call", "cancelled": True})
                continue
            except TaskFailed as failed:
                emit({"step": "call", "task_failed": True, "error": failed.error})
                continue
            except Exception as error:
                emit({"step": "call", "protocol_error": describe(error)})
                continue
            if plan.get("progress") or plan.get("notifications"):
                # The SDK runs notification callbacks as tasks of their own: let those of
                # notifications that came before the answer print before it.
                for _ in range(5):
                    await anyio.sleep(0)
            emit(answer_line(result))
    finally:
        try:
            await client.__aexit__(None, None, None)
        except Exception as error:
            # The plan ran; a messy shutdown (the server already gone) is not the tests' business.
            print(f"elicit_client: closing the connection: {describe(error)}", file=sys.stderr)
    if harness_errors:
        raise HarnessError("; ".join(harness_errors))


def main(argv):
    if len(argv) != 2:
        print("usage: elicit_client.py '<plan JSON>'", file=sys.stderr)
        return 2
    try:
        anyio.run(run, load_plan(argv[1]))
    except HarnessError as error:
        print(f"elicit_client: {error}", file=sys.stderr)
        return 2
    except Exception:
        traceback.print_exc()
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
