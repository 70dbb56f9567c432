"""A local stand-in for the model APIs of Claude Code, Codex and Gemini CLI, and the web
server of the pages the scripted sessions open.

    python3 fake_model.py LOG        (run.py starts it in-process with `start(LOG)`)

Listens on 127.0.0.1 (a free port), answers each model request with the scripted
agent's next step (agent.py) in that API's format (apis.py), and appends every request,
parsed, to LOG as one JSON line: what the client showed the model is what the checks
read. Needs Python 3 only; no network.
"""

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlparse

import agent
from apis import Anthropic, Gemini, Responses

ROWS = 1500
CLICK_SCRIPT = """
document.addEventListener('click', (e) => {
  const el = e.target;
  document.getElementById('status').textContent =
    'clicked: ' + (el.getAttribute('aria-label') || el.textContent || el.tagName).trim();
});
"""


def page(title, rows):
    items = "".join(f"<li><button>Select list row {i}</button></li>" for i in range(1, rows + 1))
    return (f"<!doctype html><html><head><meta charset=utf-8><title>{title}</title></head><body>"
            f"<h1>{title}</h1><p id=status>nothing clicked</p><ul>{items}</ul>"
            f"<button>Done</button><script>{CLICK_SCRIPT}</script></body></html>").encode()


PAGES = {"/big.html": page("Big list", ROWS), "/small.html": page("Small list", 3)}
lock = threading.Lock()
counter = [0]


def route(path):
    """(API class, streaming?) for a model request path, or None."""
    if path.endswith("/messages"):
        return Anthropic, None
    if path.endswith("/responses"):
        return Responses, True
    if ":streamGenerateContent" in path:
        return Gemini, True
    if ":generateContent" in path:
        return Gemini, False
    return None


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):  # quiet: everything worth keeping goes to LOG
        pass

    def send(self, status, content_type, body):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        body = PAGES.get(urlparse(self.path).path)
        if body is None:
            return self.send(404, "text/plain", b"not found")
        self.send(200, "text/html; charset=utf-8", body)

    def do_POST(self):
        path = urlparse(self.path).path
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        if path.endswith("/count_tokens") or path.endswith(":countTokens"):
            return self.send(200, "application/json", b'{"input_tokens": 100, "totalTokens": 100}')
        found = route(path)
        if not found:
            self.record({"path": self.path, "method": "POST", "unknown": True, "body": body})
            return self.send(404, "application/json", b'{"error": {"message": "not faked"}}')
        api, stream = found
        if stream is None:
            stream = bool(body.get("stream"))
        prompt, offered, turns = api.parse(body)
        step = getattr(api, "wants_json", lambda _: None)(body) or agent.next_step(prompt, offered, turns)
        with lock:
            counter[0] += 1
            n = counter[0]
        model = body.get("model") or path.rsplit("/", 1)[-1].split(":")[0]
        content_type, reply = api.reply(step, model, stream=stream, n=n)
        self.record({"n": n, "api": api.__name__, "path": self.path, "run": (agent.scenario(prompt) or [None])[0],
                     "offered": offered,
                     "turns": [{"name": t.name, "args": t.args, "result": t.result} for t in turns],
                     "step": step.__dict__ if isinstance(step, agent.Call) else {"text": step},
                     "body": body})
        self.send(200, content_type, reply)

    def record(self, entry):
        with lock, open(self.server.log_path, "a") as f:
            f.write(json.dumps(entry) + "\n")


def start(log_path):
    """Starts the server on a thread; returns it (`server_address`, `shutdown()`)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.log_path = log_path
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


if __name__ == "__main__":
    server = start(sys.argv[1])
    print(f"http://127.0.0.1:{server.server_address[1]}", flush=True)
    threading.Event().wait()
