"""Reads what one run recorded and checks it: per session, the MCP traffic between the
client and tabwire (the tap's log) and what the client showed the model (the fake
model's log). Prints the table and returns the failures.

Two groups of checks:
  - BASELINE: the scripted session went through: tabwire answered the snapshot, the
    model found a uid at the end of what it got, the click on it worked and did what a
    click on that element does.
  - EXPECTED: how tabwire is meant to serve each client (EXPECTED_BY_CLIENT below), so
    that each client passes tabwire's replies to the model whole; and tabwire accepting
    `wait_for_previous`. Adjust here when that behaviour changes.
"""

import json
import re

from agent import last_uid

# --- what tabwire is expected to do per client (by the clientInfo name it sends) ---------
EXPECTED_BY_CLIENT = {
    "claude-code": {"max_reply": 60000, "tool_meta": {"anthropic/maxResultSizeChars": 66000}},
    "codex-mcp-client": {"max_reply": 11000},
    "gemini-cli-mcp-client": {"max_reply": 38000},
}

# How each client says it cut a result short (a substring of what the model got).
CUT_MARKERS = [
    ("<persisted-output>", "saved to a file, the model got a preview"),
    ("tokens truncated", "head and tail kept, middle cut"),
    ("Output too large. Showing first", "saved to a file, the model got head and tail"),
]


def read_jsonl(path):
    try:
        with open(path) as f:
            return [json.loads(line) for line in f if line.strip()]
    except FileNotFoundError:
        return []


def text_of(result):
    """The text an MCP tool result carries (its text contents, joined)."""
    return "\n".join(c.get("text", "") for c in (result or {}).get("content", []) if c.get("type") == "text")


def mcp_facts(tap_log):
    """clientInfo, tools/list and the tool calls, from the tap's log of one session."""
    entries = read_jsonl(tap_log)
    replies = {json.dumps(e["msg"].get("id")): e["msg"] for e in entries if e["dir"] == "out" and "id" in e["msg"]}
    info, via, tools, calls = None, None, None, []
    for e in entries:
        msg = e["msg"]
        if e["dir"] != "in" or "method" not in msg:
            continue
        params = msg.get("params") or {}
        if info is None:
            if "clientInfo" in params:
                info, via = params["clientInfo"], msg["method"]
            elif "io.modelcontextprotocol/clientInfo" in (params.get("_meta") or {}):
                info, via = params["_meta"]["io.modelcontextprotocol/clientInfo"], f"{msg['method']} _meta"
        reply = replies.get(json.dumps(msg.get("id")), {})
        if msg["method"] == "tools/list" and tools is None:
            tools = (reply.get("result") or {}).get("tools")
        elif msg["method"] == "tools/call":
            result = reply.get("result") or {}
            calls.append({"name": params.get("name"), "args": params.get("arguments"), "text": text_of(result),
                          "error": bool(result.get("isError")) or "error" in reply or not reply})
    return {"info": info or {}, "via": via, "tools": tools or [], "calls": calls}


def model_facts(model_log, run):
    """What the model was shown in the session's last request: its tool calls, each with
    the result text as the client passed it on, and its final words."""
    entries = [e for e in read_jsonl(model_log) if e.get("run") == run and "turns" in e]
    if not entries:
        return {"turns": [], "final": None, "requests": 0}
    last = max(entries, key=lambda e: len(e["turns"]))
    return {"turns": last["turns"], "final": last["step"].get("text"), "requests": len(entries)}


def turn(facts, step):
    return next((t for t in facts["turns"] if t["name"].endswith(step)), None)


def call(facts, step):
    return next((c for c in facts["calls"] if c["name"] == step), None)


def element_name(text, uid):
    """The quoted name on the snapshot line of `uid` (the line may be JSON-escaped)."""
    match = re.search(re.escape(uid) + r' \w+ \\?"(.*?)\\?"', text)
    return match.group(1) if match else None


def how_cut(got, sent):
    if sent and sent in got:
        return "whole"
    return next((what for marker, what in CUT_MARKERS if marker in got), "changed")


def analyse(session, model_log):
    """Facts and failures of one session: session = {client, version, scenario, run,
    folder, code, seconds, stderr}."""
    mcp = mcp_facts(session["folder"] + "/mcp.jsonl")
    model = model_facts(model_log, session["run"])
    row = {"client": session["client"], "version": session["version"], "scenario": session["scenario"],
           "info": mcp["info"], "via": mcp["via"], "seconds": session["seconds"], "calls": mcp["calls"]}
    base, expected = [], []

    if session["code"] != 0:
        base.append(f"the client exited with {session['code']}: {session['stderr'][-600:]}")
    snap_call, snap_turn = call(mcp, "take_snapshot"), turn(model, "take_snapshot")
    if not snap_call:
        base.append("tabwire got no take_snapshot call")
    elif snap_call["error"]:
        base.append(f"take_snapshot failed: {snap_call['text'][:300]}")
    if not snap_turn:
        base.append(f"the model never got a take_snapshot result (final words: {model['final']!r})")
    sent = snap_call["text"] if snap_call else ""
    got = snap_turn["result"] if snap_turn else ""
    uid = last_uid(got)
    row.update(sent=len(sent), got=len(got), cut=how_cut(got, sent) if snap_turn else "-", uid=uid)
    if snap_turn and not uid:
        base.append("the snapshot text the model got holds no uid")

    click, status = call(mcp, "click"), call(mcp, "evaluate_script")
    row["click"] = "-" if not click else ("error" if click["error"] else "ok")
    if uid and (not click or click["error"] or click["args"].get("uid") != uid):
        base.append(f"click on {uid} did not work: {click['text'][:300] if click else 'never reached tabwire'}")
    name = element_name(got, uid) if uid else None
    row["effect"] = status["text"].split("```json")[-1].strip(" `\n") if status else "-"
    if click and not click["error"] and (not status or f"clicked: {name}" not in status["text"]):
        base.append(f"the page did not show a click on {uid} ({name!r}): {row['effect']}")
    if model["final"] != "client-check: finished":
        base.append(f"the session did not finish: the model's last words were {model['final']!r}")

    # --- expected once tabwire serves each client by its limits ---------------------
    want = EXPECTED_BY_CLIENT.get(mcp["info"].get("name"))
    if not want:
        expected.append(f"unknown clientInfo {mcp['info']}: no expected limits")
    else:
        for c in mcp["calls"]:
            if len(c["text"]) > want["max_reply"]:
                expected.append(f"tabwire's {c['name']} reply has {len(c['text'])} chars, over {want['max_reply']}")
        for key, value in want.get("tool_meta", {}).items():
            missing = [t["name"] for t in mcp["tools"] if (t.get("_meta") or {}).get(key) != value]
            if missing or not mcp["tools"]:
                expected.append(f"tools/list lacks _meta {{{key!r}: {value}}} on {len(missing)} tools")
    if snap_turn and row["cut"] != "whole":
        expected.append(f"the model got the snapshot reply cut ({row['cut']}): {len(got)} of {len(sent)} chars")

    if session["scenario"] == "wait":
        bad = [c for c in mcp["calls"] if c["error"]]
        row["wait"] = "ok" if len(mcp["calls"]) >= 4 and not bad else (
            f"{len(bad)} of {len(mcp['calls'])} calls failed" if bad else f"{len(mcp['calls'])} calls reached tabwire")
        if row["wait"] != "ok":
            expected.append("with wait_for_previous: true, " + row["wait"] +
                            (f": {bad[0]['text'][:200]}" if bad else ""))
        # The whole session hangs on tabwire taking the argument: all of it is expected.
        expected, base = expected + base, []
    return row, base, expected


def table(rows):
    """The printed summary: one line per session."""
    head = ["client", "version", "scenario", "clientInfo (sent in)", "tabwire sent", "model got",
            "how", "last uid", "click", "page shows", "wait_for_previous", "s"]
    lines = [head]
    for r in rows:
        info = f"{r['info'].get('name', '?')} {r['info'].get('version', '')} ({r['via']})"
        lines.append([r["client"], r["version"], r["scenario"], info, str(r["sent"]), str(r["got"]), r["cut"],
                      str(r["uid"]), r["click"], r["effect"][:30], r.get("wait", "-"), f"{r['seconds']:.0f}"])
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip() for line in lines)
