"""The scripted model: decides the next step from the conversation a client sent.

It acts only on what it was shown. Each API module turns its request into a list of
`Turn`s (the tool calls made so far, each with the result text the client passed back);
`next_step` answers with the next tool call or the closing words.

The session, the same for every client (the prompt names the scenario and the page):
  navigate_page to the page -> take_snapshot -> click the LAST uid in the snapshot text
  the client passed on -> evaluate_script reading what the click did -> done.
In the `wait` scenario every call also carries `wait_for_previous: true` (Gemini CLI adds
that parameter to every tool's schema, so a model may well send it).
"""

import re
from dataclasses import dataclass

STEPS = ["navigate_page", "take_snapshot", "click", "evaluate_script"]
STATUS_SCRIPT = "() => document.getElementById('status').textContent"
PROMPT_RE = re.compile(r"client-check run=(\S+) scenario=(\w+) page=(\S+)")
# A snapshot line's uid ("  1_5 button ..."), at the start of a line or after an escaped
# newline (a client may show the result as JSON), followed by a space (so not cut short).
UID_RE = re.compile(r"(?:^|\\n)[ \t]*(\d+_\d+) ", re.MULTILINE)


@dataclass
class Turn:
    name: str  # the tool name as the client offered it (prefixes included)
    args: dict
    result: str  # the result text exactly as the client passed it to the model


@dataclass
class Call:
    name: str
    args: dict


def prompt(run, scenario, page):
    """The user's words that start a scripted session."""
    return f"client-check run={run} scenario={scenario} page={page}"


def scenario(prompt_text):
    """(run, scenario, page URL) named in the prompt, or None for a request that is not
    ours (a client's side request: titles, summaries)."""
    match = PROMPT_RE.search(prompt_text or "")
    return match.groups() if match else None


def tool_named(offered, step):
    """The client's name for tabwire's tool `step` (`mcp__tabwire__click`,
    `mcp__tabwire/click` for a tool in a namespace, `click`, …)."""
    for name in offered:
        if name == step or any(name.endswith(sep + step) for sep in ("/", "__", "_")):
            return name
    return None


def last_uid(text):
    uids = UID_RE.findall(text)
    return uids[-1] if uids else None


def next_step(prompt_text, offered, turns):
    """A `Call`, or a string: the final answer. `offered` are the tool names the client
    offered; `turns` the calls made so far, oldest first."""
    found = scenario(prompt_text)
    if not found:
        return "ok"
    _run, name, page = found
    done = len(turns)
    if done >= len(STEPS):
        return "client-check: finished"
    step = STEPS[done]
    tool = tool_named(offered, step)
    if not tool:
        return f"client-check: the client offered no tool for {step} (tools: {sorted(offered)})"
    if step == "navigate_page":
        args = {"type": "url", "url": page}
    elif step == "take_snapshot":
        args = {}
    elif step == "click":
        uid = last_uid(turns[-1].result)
        if not uid:
            return "client-check: the snapshot the client passed on holds no uid"
        args = {"uid": uid}
    else:
        args = {"function": STATUS_SCRIPT}
    if name == "wait":
        args["wait_for_previous"] = True
    return Call(tool, args)
