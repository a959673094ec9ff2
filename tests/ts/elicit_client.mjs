// A third-party MCP client (the TypeScript SDK, @modelcontextprotocol/client 2.4.0) that answers
// the server's elicitations like a person at the keyboard would.
//
// Usage: node tests/ts/elicit_client.mjs '<plan JSON>'
//
// Where the SDK comes from: scripts/setup installs tests/ts/package.json (with its lock) into
// $AQLGEN_TS_DIR, default <repo>/target/ts-mcp (a relative AQLGEN_TS_DIR is taken from the repo
// root, as scripts/setup does). NODE_PATH does not apply to ESM imports, so this script reads
// <dir>/node_modules/@modelcontextprotocol/client/package.json, takes the ESM entry points ("."
// and "./stdio", condition "import") from its "exports", and loads them with a dynamic import()
// of their absolute file URLs. The SDK's own dependencies then resolve from its node_modules.
//
// The plan (tests/python/elicit_client.py takes the same one):
//
//   {
//     "transport": "stdio" | "http",
//     "command": "/abs/path/binary", "args": [...], "env": {"K": "V"},  // stdio: spawn this server
//                                                                       // (current environment + env)
//     "url": "http://127.0.0.1:PORT/mcp",                               // http: streamable HTTP endpoint
//     "headers": {"X-Upstream-Key": "..."},                             // http, optional: sent with every request
//     "protocol": "2025-11-25" | "2026-07-28",   // initialize-handshake session, or the 2026-07-28
//                                                // revision (server/discover probe, then per-request _meta)
//     "elicitation": "accept" | "decline" | "cancel" | "timeout" | "wrong_code" | "none",
//     "code_file": "/abs/path",                  // optional: accepting a `code` form reads the code here
//                                                // (re-read at each elicitation, trimmed)
//     "timeout_seconds": 5,                      // optional: how long "timeout" waits before it cancels
//     "tool": "mcp_aql_delete",
//     "calls": [{"arguments": {...}}, ...],
//     "progress": true,                          // optional: every call carries a progress token
//     "notifications": true,                     // optional: print every progress notification
//     "tasks": true,                             // optional: declare the MCP Tasks extension
//                                                // (2025-11-25 only, see below)
//     "cancel_after_ms": 500                     // optional, with tasks: tasks/cancel this long
//                                                // after the task was created
//   }
//
// "none" declares no elicitation capability and registers no handler. Any other value declares
// {elicitation: {form: {}}} and registers an `elicitation/create` handler that prints one line
// {"step":"elicitation","mode","message","requested_schema"} and then answers: accept fills
// `confirm` with true and `code` with the code file's contents, decline and cancel answer so,
// timeout sleeps timeout_seconds and then cancels, wrong_code accepts with code "WRONG-CODE". The
// SDK calls that same handler for a 2025-11-25 server-to-client `elicitation/create` request and
// for the requests embedded in a 2026-07-28 `input_required` result (it then retries the call
// with the answers and the echoed `requestState`, up to 10 rounds).
//
// With "progress": true each call is made with an `onprogress` request option (so the SDK puts a
// progress token in the request's `_meta`), and each `notifications/progress` that comes while it
// runs prints {"step":"progress","progress":p,"total":t,"message":m} before the call's own line.
// With "notifications": true each `notifications/progress`, whatever its token (one the SDK
// issued, or one the caller put in the arguments, e.g. in the operation object's `_meta`), prints
// {"step":"notification","progress_token":token,"progress":p,"total":t,"message":m}.
//
// Both are printed from a `notifications/progress` handler of the harness's own, which replaces
// the SDK's: this SDK runs notification handlers a microtask late but settles a response at once,
// so a progress notification read in the same chunk as the call's answer reaches `onprogress`
// after the SDK has forgotten its token, and is dropped ("unknown token"); and the SDK hands no
// notification with a token it did not issue to anyone. Calls run one at a time, so every
// notification during a call is that call's.
//
// Each call prints {"step":"call","answer":<MCP-AQL JSON of the first text content>,"is_error"}
// or, when the call rejects (a JSON-RPC error, a timeout), {"step":"call","protocol_error":"..."}.
// With "tasks": true the client declares the MCP Tasks extension (SEP-2663,
// `io.modelcontextprotocol/tasks`) in its capabilities ({extensions: {...: {}}}) and sends each
// call with the low-level `client.request({method: 'tools/call', params}, schema)` and a
// permissive Standard Schema (this SDK has no tasks client; `callTool` would lift a task answer
// into a CallToolResult with empty content). An answer carrying a `taskId` is a task: the harness
// prints {"step":"task","task_id","status","poll_interval_ms"}, then polls `tasks/get` (the same
// low-level request) at the task's pollIntervalMs, printing
// {"step":"task_status","task_id","status","status_message"} each time, until a terminal status
// (60 s at most, then the call's protocol_error); with "cancel_after_ms" it sends `tasks/cancel`
// that long after the task was created and prints {"step":"task_cancel"} (or
// {"step":"task_cancel","protocol_error":"..."}). A completed (or failed) task with a `result`
// then prints the usual call line from that result (a CallToolResult); a cancelled one prints
// {"step":"call","cancelled":true}; a failed one without a result
// {"step":"call","task_failed":true,"error":<its error>}. An answer without a task prints its
// call line as usual.
//
// Tasks need a 2025-11-25 session: on the 2026-07-28 wire this SDK refuses a `tools/call` answer
// with `resultType: "task"` locally, whatever schema the caller passes (the 2026 codec's
// `decodeResult` in dist/src-*.mjs, reached from `Protocol._requestWithSchemaViaCodec`, rejects
// every resultType but "complete" and "input_required" with SdkError UNSUPPORTED_RESULT_TYPE). So
// "tasks" with "protocol": "2026-07-28" is a harness error.
//
// stdout carries those JSON lines only. Exit status 0 when the plan ran, even if calls failed; 2
// with a message on stderr for harness errors (bad plan, connection failure, unreadable code file).

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

// Generous, so that the server's own timeouts are the ones the tests observe.
const REQUEST_TIMEOUT_MS = 60_000;
const ELICITATION_ANSWERS = ['accept', 'decline', 'cancel', 'timeout', 'wrong_code', 'none'];

class HarnessError extends Error {}

function emit(line) {
    process.stdout.write(JSON.stringify(line) + '\n');
}

async function loadSdk() {
    const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
    const tsDir = path.resolve(repo, process.env.AQLGEN_TS_DIR || path.join('target', 'ts-mcp'));
    const packageDir = path.join(tsDir, 'node_modules', '@modelcontextprotocol', 'client');
    let manifest;
    try {
        manifest = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8'));
    } catch (error) {
        throw new HarnessError(`@modelcontextprotocol/client is not installed in ${tsDir} (run scripts/setup): ${error.message}`);
    }
    const entry = subpath => {
        const target = manifest.exports?.[subpath]?.import;
        const file = typeof target === 'string' ? target : target?.default;
        if (typeof file !== 'string') throw new HarnessError(`${packageDir} exports no ESM entry for ${subpath}`);
        return pathToFileURL(path.join(packageDir, file)).href;
    };
    const [main, stdio] = await Promise.all([import(entry('.')), import(entry('./stdio'))]);
    return { ...main, StdioClientTransport: stdio.StdioClientTransport, sdkVersion: manifest.version };
}

function loadPlan(text) {
    let plan;
    try {
        plan = JSON.parse(text);
    } catch (error) {
        throw new HarnessError(`the plan is not JSON: ${error.message}`);
    }
    if (plan === null || typeof plan !== 'object' || Array.isArray(plan)) throw new HarnessError('the plan must be a JSON object');
    if (plan.transport === 'stdio') {
        if (typeof plan.command !== 'string') throw new HarnessError('a stdio plan needs "command"');
    } else if (plan.transport === 'http') {
        if (typeof plan.url !== 'string') throw new HarnessError('an http plan needs "url"');
    } else {
        throw new HarnessError(`"transport" must be stdio or http, not ${JSON.stringify(plan.transport)}`);
    }
    if (!['2025-11-25', '2026-07-28'].includes(plan.protocol)) {
        throw new HarnessError(`"protocol" must be 2025-11-25 or 2026-07-28, not ${JSON.stringify(plan.protocol)}`);
    }
    if (!ELICITATION_ANSWERS.includes(plan.elicitation)) throw new HarnessError(`"elicitation" must be one of ${ELICITATION_ANSWERS.join(', ')}`);
    if (typeof plan.tool !== 'string') throw new HarnessError('the plan needs "tool"');
    if (!Array.isArray(plan.calls) || !plan.calls.every(call => call !== null && typeof call === 'object')) {
        throw new HarnessError('"calls" must be a list of {"arguments": {...}} objects');
    }
    for (const flag of ['progress', 'notifications', 'tasks']) {
        if (plan[flag] !== undefined && typeof plan[flag] !== 'boolean') throw new HarnessError(`"${flag}" must be true or false`);
    }
    if (plan.tasks && plan.protocol !== '2025-11-25') {
        throw new HarnessError('"tasks" needs "protocol": "2025-11-25": this SDK refuses a task answer to tools/call on the 2026-07-28 wire (UNSUPPORTED_RESULT_TYPE)');
    }
    if (plan.cancel_after_ms !== undefined) {
        if (!plan.tasks) throw new HarnessError('"cancel_after_ms" needs "tasks": true');
        if (typeof plan.cancel_after_ms !== 'number' || !(plan.cancel_after_ms >= 0)) {
            throw new HarnessError('"cancel_after_ms" must be a number of milliseconds');
        }
    }
    return plan;
}

const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
// How long a task is polled before the harness gives up on it.
const TASK_FOLLOW_MS = 60_000;
const TERMINAL_TASK_STATUSES = ['completed', 'failed', 'cancelled'];

// A permissive Standard Schema (what `client.request` takes as its result schema): any result,
// as the SDK decoded it.
const ANY_RESULT = {
    '~standard': { version: 1, vendor: 'aqlgen-elicit-client', validate: value => ({ value }) }
};

class TaskCancelled extends Error {}

class TaskFailed extends Error {
    constructor(error) {
        super('the task failed');
        this.error = error;
    }
}

function pollMs(task) {
    const interval = task.pollIntervalMs;
    return typeof interval === 'number' && interval > 0 ? interval : 1000;
}

// Follows the task `created` until it ends: the CallToolResult of its `result`.
async function followTask(client, plan, created) {
    const started = Date.now();
    const taskId = created.taskId;
    emit({ step: 'task', task_id: taskId, status: created.status ?? null, poll_interval_ms: created.pollIntervalMs ?? null });
    let cancelAt = plan.cancel_after_ms === undefined ? undefined : started + plan.cancel_after_ms;
    const options = { timeout: REQUEST_TIMEOUT_MS };
    let task = created;
    while (!TERMINAL_TASK_STATUSES.includes(task.status)) {
        const now = Date.now();
        if (now - started > TASK_FOLLOW_MS) throw new Error(`task ${taskId} still ${task.status} after ${TASK_FOLLOW_MS / 1000} s`);
        const wake = now + pollMs(task);
        if (cancelAt !== undefined && cancelAt < wake) {
            await sleep(Math.max(0, cancelAt - now));
            cancelAt = undefined;
            try {
                await client.request({ method: 'tasks/cancel', params: { taskId } }, ANY_RESULT, options);
                emit({ step: 'task_cancel', task_id: taskId });
            } catch (error) {
                emit({ step: 'task_cancel', task_id: taskId, protocol_error: describe(error) });
            }
        } else {
            await sleep(wake - now);
        }
        task = await client.request({ method: 'tasks/get', params: { taskId } }, ANY_RESULT, options);
        emit({ step: 'task_status', task_id: task.taskId ?? null, status: task.status ?? null, status_message: task.statusMessage ?? null });
    }
    if (task.result !== null && typeof task.result === 'object') return task.result;
    if (task.status === 'cancelled') throw new TaskCancelled();
    throw new TaskFailed(task.error ?? null);
}

// One call with the tasks extension declared: a task is followed to its end.
async function callWithTasks(client, plan, params, options) {
    const answer = await client.request({ method: 'tools/call', params }, ANY_RESULT, options);
    if (typeof answer?.taskId === 'string' && !Array.isArray(answer.content)) return followTask(client, plan, answer);
    return answer;
}

// The `elicitation/create` handler: (request, ctx) => ElicitResult. The SDK validates the request
// and the result against the negotiated revision's schema around it (Client._wrapHandler).
function makeElicitationHandler(plan, harnessErrors) {
    const answer = plan.elicitation;
    const timeoutMs = Number(plan.timeout_seconds ?? 5) * 1000;
    return async (request, ctx) => {
        const params = request.params ?? {};
        const mode = params.mode ?? 'form';
        const requestedSchema = mode === 'form' ? (params.requestedSchema ?? null) : null;
        emit({ step: 'elicitation', mode, message: params.message ?? null, requested_schema: requestedSchema });
        if (answer === 'decline') return { action: 'decline' };
        if (answer === 'cancel') return { action: 'cancel' };
        if (answer === 'timeout') {
            // The person walked away. If the server gives up first and cancels the request (on a
            // session), the SDK aborts ctx.mcpReq.signal; the answer is then dropped anyway.
            try {
                await sleep(timeoutMs, undefined, { signal: ctx?.mcpReq?.signal });
            } catch {
                // aborted
            }
            return { action: 'cancel' };
        }
        if (mode !== 'form') return { action: 'accept' };
        const properties = requestedSchema?.properties ?? {};
        const content = {};
        if ('confirm' in properties) content.confirm = true;
        if ('code' in properties) {
            if (answer === 'wrong_code') {
                content.code = 'WRONG-CODE';
            } else if (!plan.code_file) {
                harnessErrors.push('a `code` form arrived but the plan has no "code_file"');
                return { action: 'cancel' };
            } else {
                try {
                    content.code = readFileSync(plan.code_file, 'utf8').trim();
                } catch (error) {
                    harnessErrors.push(`cannot read code_file ${plan.code_file}: ${error.message}`);
                    return { action: 'cancel' };
                }
            }
        }
        return { action: 'accept', content };
    };
}

function describe(error) {
    if (error instanceof Error) {
        const code = error.code !== undefined ? ` (code ${error.code})` : '';
        return `${error.name}${code}: ${error.message}`;
    }
    return String(error);
}

function answerLine(result) {
    const text = (result.content ?? []).find(block => block?.type === 'text')?.text;
    let answer = null;
    if (typeof text === 'string') {
        try {
            answer = JSON.parse(text);
        } catch {
            answer = text;
        }
    }
    return { step: 'call', answer, is_error: Boolean(result.isError) };
}

async function run(plan) {
    const sdk = await loadSdk();
    const harnessErrors = [];
    const elicit = plan.elicitation !== 'none';
    const client = new sdk.Client(
        { name: 'aqlgen-elicit-client-ts', version: '1.0.0' },
        {
            capabilities: {
                ...(elicit ? { elicitation: { form: {} } } : {}),
                ...(plan.tasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {})
            },
            ...(plan.protocol === '2026-07-28'
                ? // Modern era at exactly this revision: connect() sends server/discover (no
                  // initialize); every request then carries the _meta envelope with these capabilities.
                  { versionNegotiation: { mode: { pin: '2026-07-28' } } }
                : // The plain initialize handshake, offering 2025-11-25 only.
                  { supportedProtocolVersions: ['2025-11-25'] })
        }
    );
    if (elicit) client.setRequestHandler('elicitation/create', makeElicitationHandler(plan, harnessErrors));
    if (plan.progress || plan.notifications) {
        client.setNotificationHandler('notifications/progress', notification => {
            const { progressToken, progress, total, message } = notification.params;
            const rest = { progress, total: total ?? null, message: message ?? null };
            if (plan.progress) emit({ step: 'progress', ...rest });
            if (plan.notifications) emit({ step: 'notification', progress_token: progressToken, ...rest });
        });
    }
    // Transport hiccups after the plan ran (e.g. the server gone at close) are not the tests' business.
    client.onerror = error => process.stderr.write(`elicit_client: ${describe(error)}\n`);

    let transport;
    if (plan.transport === 'stdio') {
        const env = { ...process.env };
        for (const [key, value] of Object.entries(plan.env ?? {})) env[key] = String(value);
        transport = new sdk.StdioClientTransport({
            command: plan.command,
            args: (plan.args ?? []).map(String),
            env,
            stderr: 'inherit'
        });
    } else {
        const headers = Object.fromEntries(Object.entries(plan.headers ?? {}).map(([k, v]) => [k, String(v)]));
        transport = new sdk.StreamableHTTPClientTransport(new URL(plan.url), { requestInit: { headers } });
    }
    try {
        await client.connect(transport, { timeout: REQUEST_TIMEOUT_MS });
    } catch (error) {
        throw new HarnessError(`cannot connect: ${describe(error)}`);
    }
    try {
        const negotiated = client.getNegotiatedProtocolVersion();
        if (negotiated !== plan.protocol) throw new HarnessError(`asked for protocol ${plan.protocol}, the connection negotiated ${negotiated}`);
        for (const call of plan.calls) {
            let result;
            try {
                const options = { timeout: REQUEST_TIMEOUT_MS };
                // The token goes in the request; the harness's own handler prints (see above).
                if (plan.progress) options.onprogress = () => {};
                const params = { name: plan.tool, arguments: call.arguments ?? {} };
                result = plan.tasks ? await callWithTasks(client, plan, params, options) : await client.callTool(params, options);
            } catch (error) {
                if (error instanceof TaskCancelled) {
                    emit({ step: 'call', cancelled: true });
                    continue;
                }
                if (error instanceof TaskFailed) {
                    emit({ step: 'call', task_failed: true, error: error.error });
                    continue;
                }
                emit({ step: 'call', protocol_error: describe(error) });
                continue;
            }
            emit(answerLine(result));
        }
    } finally {
        try {
            await client.close();
        } catch (error) {
            process.stderr.write(`elicit_client: closing the connection: ${describe(error)}\n`);
        }
    }
    if (harnessErrors.length > 0) throw new HarnessError(harnessErrors.join('; '));
}

async function main(argv) {
    if (argv.length !== 1) {
        process.stderr.write("usage: node elicit_client.mjs '<plan JSON>'\n");
        return 2;
    }
    try {
        await run(loadPlan(argv[0]));
        return 0;
    } catch (error) {
        process.stderr.write(`elicit_client: ${error instanceof HarnessError ? error.message : (error?.stack ?? String(error))}\n`);
        return 2;
    }
}

// Flush stdout before leaving: process.exit() would cut a piped stdout short.
process.exitCode = await main(process.argv.slice(2));
