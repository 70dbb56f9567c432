"""The three model APIs the clients speak, each as `parse(body)` -> what the model is
shown, and `reply(step, model)` -> the answer in the API's own (streaming) format.

`parse` returns (prompt_text, offered_tool_names, turns): the user's words, the tools the
client offered, and each tool call with the result text as the client passed it on.
`reply` takes an agent.Call or the final words, and returns (content_type, body bytes).
"""

import json

from agent import Call, Turn


def sse(events, named=True):
    """Server-sent events: `event: <type>` lines (Anthropic, OpenAI) or bare `data:` (Gemini)."""
    out = []
    for event in events:
        head = f"event: {event['type']}\n" if named else ""
        out.append(f"{head}data: {json.dumps(event)}\n\n")
    return "".join(out).encode()


def _texts(blocks, kinds):
    """The text of content blocks: a string as it is, else the text of the blocks whose
    type is in `kinds`, joined with newlines."""
    if isinstance(blocks, str):
        return blocks
    return "\n".join(b.get("text", "") for b in blocks or [] if b.get("type") in kinds)


def sample(schema):
    """A value that fits a JSON schema, for a client's side request that wants JSON."""
    kind = str(schema.get("type", "object")).lower()
    if "enum" in schema:
        return schema["enum"][0]
    if kind == "object":
        props = schema.get("properties", {})
        return {k: sample(props[k]) for k in schema.get("required", props)}
    return {"string": "client-check", "integer": 1, "number": 1, "boolean": False, "array": []}.get(kind)


class Anthropic:
    """Claude Code: POST /v1/messages (Messages API), streamed unless `stream` is false."""

    @staticmethod
    def parse(body):
        prompt, calls, turns = [], {}, []
        for message in body.get("messages", []):
            content = message.get("content")
            blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
            for block in blocks:
                kind = block.get("type")
                if kind == "text" and message["role"] == "user":
                    prompt.append(block["text"])
                elif kind == "tool_use":
                    calls[block["id"]] = (block["name"], block.get("input") or {})
                elif kind == "tool_result":
                    name, args = calls.get(block.get("tool_use_id"), ("?", {}))
                    turns.append(Turn(name, args, _texts(block.get("content"), {"text"})))
        offered = [t["name"] for t in body.get("tools", []) if "name" in t]
        return "\n".join(prompt), offered, turns

    @staticmethod
    def reply(step, model, stream=True, n=0):
        if isinstance(step, Call):
            block = {"type": "tool_use", "id": f"toolu_{n:04d}", "name": step.name, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(step.args)}
            whole = dict(block, input=step.args)
            stop = "tool_use"
        else:
            block = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": step}
            whole = {"type": "text", "text": step}
            stop = "end_turn"
        usage = {"input_tokens": 100, "output_tokens": 10}
        message = {"id": f"msg_{n:04d}", "type": "message", "role": "assistant", "model": model,
                   "content": [], "stop_reason": None, "stop_sequence": None, "usage": usage}
        if not stream:
            done = dict(message, content=[whole], stop_reason=stop)
            return "application/json", json.dumps(done).encode()
        return "text/event-stream", sse([
            {"type": "message_start", "message": message},
            {"type": "content_block_start", "index": 0, "content_block": block},
            {"type": "content_block_delta", "index": 0, "delta": delta},
            {"type": "content_block_stop", "index": 0},
            {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
             "usage": {"output_tokens": 10}},
            {"type": "message_stop"},
        ])


class Responses:
    """Codex: POST /v1/responses (OpenAI Responses API), streamed."""

    @staticmethod
    def parse(body):
        prompt, calls, turns = [], {}, []
        items = body.get("input", [])
        for item in items if isinstance(items, list) else [{"type": "message", "role": "user", "content": items}]:
            kind = item.get("type", "message")
            if kind == "message" and item.get("role") == "user":
                prompt.append(_texts(item.get("content"), {"input_text"}))
            elif kind == "function_call":
                args = json.loads(item.get("arguments") or "{}")
                calls[item["call_id"]] = (Responses.full_name(item), args)
            elif kind == "function_call_output":
                name, args = calls.get(item.get("call_id"), ("?", {}))
                turns.append(Turn(name, args, _texts(item.get("output"), {"input_text", "output_text", "text"})))
        offered = []
        for tool in body.get("tools", []):
            if tool.get("type") == "namespace":  # Codex offers an MCP server's tools as one namespace
                offered += [Responses.full_name(dict(t, namespace=tool["name"])) for t in tool.get("tools", [])]
            else:
                offered.append(tool.get("name", ""))
        return "\n".join(prompt), offered, turns

    @staticmethod
    def full_name(item):
        """`namespace/name` for a tool in a namespace (`mcp__tabwire/click`), else the name."""
        return f"{item['namespace']}/{item['name']}" if item.get("namespace") else item["name"]

    @staticmethod
    def reply(step, model, stream=True, n=0):
        if isinstance(step, Call):
            namespace, _, name = step.name.rpartition("/")
            item = {"type": "function_call", "id": f"fc_{n:04d}", "call_id": f"call_{n:04d}",
                    "name": name, "arguments": json.dumps(step.args), "status": "completed"}
            if namespace:
                item["namespace"] = namespace
        else:
            item = {"type": "message", "id": f"msg_{n:04d}", "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": step, "annotations": []}]}
        response = {"id": f"resp_{n:04d}", "object": "response", "model": model, "status": "in_progress",
                    "output": []}
        usage = {"input_tokens": 100, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 10,
                 "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 110}
        return "text/event-stream", sse([
            {"type": "response.created", "response": response},
            {"type": "response.output_item.added", "output_index": 0, "item": dict(item, status="in_progress")},
            {"type": "response.output_item.done", "output_index": 0, "item": item},
            {"type": "response.completed",
             "response": dict(response, status="completed", output=[item], usage=usage)},
        ])


class Gemini:
    """Gemini CLI: POST /v1beta/models/<model>:streamGenerateContent?alt=sse (or
    :generateContent), the Gemini API."""

    @staticmethod
    def wants_json(body):
        """The JSON a side request asks for (Gemini CLI's model routing), else None."""
        config = body.get("generationConfig") or {}
        schema = config.get("responseJsonSchema") or config.get("responseSchema")
        return json.dumps(sample(schema)) if schema else None

    @staticmethod
    def parse(body):
        prompt, calls, turns = [], [], []
        for content in body.get("contents", []):
            for part in content.get("parts", []):
                if "text" in part and content.get("role") == "user":
                    prompt.append(part["text"])
                elif "functionCall" in part:
                    calls.append(part["functionCall"])
                elif "functionResponse" in part:
                    response = part["functionResponse"]
                    call = next((c for c in calls if c.get("id") and c.get("id") == response.get("id")),
                                calls[len(turns)] if len(turns) < len(calls) else {})
                    turns.append(Turn(response.get("name", "?"), call.get("args") or {},
                                      Gemini.result_text(response.get("response"))))
        offered = [d["name"] for t in body.get("tools", []) for d in t.get("functionDeclarations", [])]
        return "\n".join(prompt), offered, turns

    @staticmethod
    def result_text(response):
        """What Gemini CLI put in a functionResponse: `{"output": text}` or an error."""
        if isinstance(response, dict):
            for key in ("output", "error"):
                if isinstance(response.get(key), str):
                    return response[key]
            if isinstance(response.get("content"), list):
                return _texts(response["content"], {"text"})
        return json.dumps(response)

    @staticmethod
    def reply(step, model, stream=True, n=0):
        part = ({"functionCall": {"name": step.name, "args": step.args}} if isinstance(step, Call)
                else {"text": step})
        chunk = {"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP",
                                 "index": 0}],
                 "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110},
                 "modelVersion": model}
        if not stream:
            return "application/json", json.dumps(chunk).encode()
        return "text/event-stream", f"data: {json.dumps(chunk)}\n\n".encode()
