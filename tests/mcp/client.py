"""Drives an MCP server with the Python `mcp` package's client, step by step.

    client.py [--discover] [--elicit ANSWER] stdio COMMAND [ARG...]
        spawn the server, talk over stdin/stdout
    client.py [--discover] [--elicit ANSWER] http URL [TOKEN]
        streamable HTTP (TOKEN as a bearer token)

With `--elicit`, the client declares that it can ask its user (elicitation) and answers every
question with ANSWER: `allow_once`, `allow_session` or `deny` (accepted with that choice),
`decline` or `cancel`. Under 2026-07-28 a call answered `input_required` is called again with
the answers and the request state, as a host does.

The client opens with `initialize` (protocol 2025-11-25), or with `--discover` with
`server/discover` and then speaks 2026-07-28, every request carrying its own `_meta`. The
first answer line says which: {"protocol": "..."}.

The steps are a JSON array on stdin; each answers with one JSON line on stdout:

    {"op": "list"}                                     -> {"tools": [...]} (as the server sent them)
    {"op": "call", "name", "arguments", "progress"?}   -> {"isError", "text", "structured", "progress": [...], "asked": [...]}
        `asked` holds the message of every question the server asked during the call
    {"op": "write", "path", "content"}                 -> {"written": true}
        changes a file on disk between calls, as a user's editor does
    {"op": "sleep", "seconds"}                         -> {"slept": true}
    {"op": "resources"}                                -> {"resources": [...], "read": [...]}
        lists the resources and reads each (the text of its contents)
    {"op": "prompt", "name", "arguments"}              -> {"prompts": [...], "messages": [...]}
        lists the prompts and gets one (the text of each message)
    {"op": "cancel", "name", "arguments", "after"?}    -> {"cancelled": true, "progress": [...]}
        starts the call with a progress token and abandons it after the first progress
        notification (whose message contains `after`, when given); the client then sends
        notifications/cancelled
"""

import json
import sys

import anyio
import httpx2
import mcp_types as types
from mcp.client.session import ClientRequestContext, ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


ASKED = []


def answerer(answer):
    async def on_elicit(context, params):
        ASKED.append(params.message)
        if answer in ("decline", "cancel"):
            return types.ElicitResult(action=answer)
        return types.ElicitResult(action="accept", content={"decision": answer})

    return on_elicit


async def call_tool(session, name, arguments, progress_callback):
    """A call, and under 2026-07-28 its retries with the user's answers (at most 10 rounds)."""
    if session.protocol_version < "2026-07-28":
        return await session.call_tool(name, arguments, progress_callback=progress_callback)
    result = await session.call_tool(
        name, arguments, progress_callback=progress_callback, allow_input_required=True
    )
    rounds = 0
    while isinstance(result, types.InputRequiredResult):
        rounds += 1
        if rounds > 10:
            raise RuntimeError("more than 10 input_required rounds")
        responses = {}
        for key, request in (result.input_requests or {}).items():
            context = ClientRequestContext(session=session, request_id=key, meta=None)
            responses[key] = await session.dispatch_input_request(context, request)
        result = await session.call_tool(
            name,
            arguments,
            progress_callback=progress_callback,
            input_responses=responses or None,
            request_state=result.request_state,
            allow_input_required=True,
        )
    return result


async def run_steps(session, steps, discover):
    if discover:
        await session.discover()
    else:
        await session.initialize()
    print(json.dumps({"protocol": session.protocol_version}), flush=True)
    for step in steps:
        op = step["op"]
        if op == "list":
            result = await session.list_tools()
            out = {"tools": [dump(t) for t in result.tools]}
        elif op == "call":
            seen = []

            async def on_progress(progress, total, message):
                seen.append({"progress": progress, "message": message})

            ASKED.clear()
            result = await call_tool(
                session,
                step["name"],
                step.get("arguments", {}),
                on_progress if step.get("progress") else None,
            )
            text = "".join(c.text for c in result.content if getattr(c, "type", "") == "text")
            out = {
                "isError": bool(result.is_error),
                "text": text,
                "structured": result.structured_content,
                "progress": seen,
                "asked": list(ASKED),
            }
        elif op == "resources":
            listed = await session.list_resources()
            read = []
            for r in listed.resources:
                contents = await session.read_resource(str(r.uri))
                read.append("".join(getattr(c, "text", "") for c in contents.contents))
            out = {"resources": [dump(r) for r in listed.resources], "read": read}
        elif op == "prompt":
            listed = await session.list_prompts()
            got = await session.get_prompt(step["name"], step.get("arguments"))
            out = {
                "prompts": [dump(p) for p in listed.prompts],
                "messages": [getattr(m.content, "text", "") for m in got.messages],
            }
        elif op == "write":
            with open(step["path"], "w", encoding="utf-8") as f:
                f.write(step["content"])
            out = {"written": True}
        elif op == "sleep":
            await anyio.sleep(step["seconds"])
            out = {"slept": True}
        elif op == "cancel":
            seen = []
            first = anyio.Event()
            after = step.get("after")

            async def on_progress(progress, total, message):
                seen.append({"progress": progress, "message": message})
                if after is None or (message is not None and after in message):
                    first.set()

            async with anyio.create_task_group() as tg:

                async def call():
                    await session.call_tool(
                        step["name"], step.get("arguments", {}), progress_callback=on_progress
                    )

                tg.start_soon(call)
                with anyio.fail_after(30):
                    await first.wait()
                tg.cancel_scope.cancel()
            # Give the courtesy cancellation time to reach the server before the next step.
            await anyio.sleep(2)
            out = {"cancelled": True, "progress": seen}
        else:
            raise ValueError(f"unknown op {op}")
        print(json.dumps(out), flush=True)


async def main():
    steps = json.load(sys.stdin)
    args = sys.argv[1:]
    discover = args[:1] == ["--discover"]
    if discover:
        args = args[1:]
    extra = {}
    if args[:1] == ["--elicit"]:
        extra["elicitation_callback"] = answerer(args[1])
        args = args[2:]
    kind = args[0]
    if kind == "stdio":
        params = StdioServerParameters(command=args[1], args=args[2:])
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write, **extra) as session:
                await run_steps(session, steps, discover)
    elif kind == "http":
        url = args[1]
        headers = {"Authorization": f"Bearer {args[2]}"} if len(args) > 2 else {}
        async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
            async with streamable_http_client(url, http_client=http) as streams:
                read, write = streams[0], streams[1]
                async with ClientSession(read, write, **extra) as session:
                    await run_steps(session, steps, discover)
    else:
        raise ValueError(f"unknown transport {kind}")


anyio.run(main)
