"""A minimal MCP client over stdio, and process-tree accounting from /proc.

Standard library only. Every wait is bounded and fails with a message naming what was
awaited; a server's stderr is kept in a file for those messages.
"""

import json
import os
import queue
import signal
import subprocess
import threading
import time

PROTOCOL_VERSION = "2025-06-18"
CLK_TCK = os.sysconf("SC_CLK_TCK")


class McpError(Exception):
    pass


class Server:
    """One MCP server process, spoken to as an agent would."""

    def __init__(self, label, argv, env, stderr_path, cwd=None):
        self.label = label
        self.argv = argv
        self.env = env
        self.cwd = cwd
        self.stderr_path = stderr_path
        self.proc = None
        self.next_id = 0
        self.waiting = {}
        self.lock = threading.Lock()
        self.closed = threading.Event()
        self.tools = []
        self.known_pids = set()

    # -- process -------------------------------------------------------------------

    def spawn(self):
        self._stderr = open(self.stderr_path, "ab")
        self.proc = subprocess.Popen(
            self.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=self.env,
            cwd=self.cwd,
            start_new_session=True,
        )
        self.known_pids.add(self.proc.pid)
        threading.Thread(target=self._read, daemon=True).start()

    @property
    def pid(self):
        return self.proc.pid

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def stderr_tail(self, lines=25):
        try:
            with open(self.stderr_path, "rb") as f:
                text = f.read().decode("utf-8", "replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def _read(self):
        for line in self.proc.stdout:
            arrived = time.perf_counter()  # the reply is complete: time it before parsing
            line = line.strip()
            if not line:
                continue
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if "method" in message:
                if "id" in message:  # a request from the server: answer it plainly
                    reply = {"jsonrpc": "2.0", "id": message["id"]}
                    if message["method"] == "ping":
                        reply["result"] = {}
                    else:
                        reply["error"] = {"code": -32601, "message": "not supported"}
                    self._write(reply)
                continue
            with self.lock:
                box = self.waiting.pop(message.get("id"), None)
            if box is not None:
                box.put((arrived, message, len(line)))
        self.closed.set()

    def _write(self, message):
        data = (json.dumps(message, separators=(",", ":")) + "\n").encode()
        try:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError, OSError) as e:
            raise McpError(f"{self.label}: cannot write to the server ({e})")

    def request(self, method, params, timeout):
        """Sends a request; returns (milliseconds, message, raw length)."""
        with self.lock:
            self.next_id += 1
            rid = self.next_id
            box = queue.Queue(maxsize=1)
            self.waiting[rid] = box
        message = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            message["params"] = params
        start = time.perf_counter()
        self._write(message)
        try:
            end, reply, size = box.get(timeout=timeout)
        except queue.Empty:
            with self.lock:
                self.waiting.pop(rid, None)
            state = "running" if self.alive() else f"exited with {self.proc.returncode}"
            raise McpError(
                f"{self.label}: {method} got no answer within {timeout:.0f} s "
                f"(server {state})\n--- its stderr, last lines ---\n{self.stderr_tail()}"
            )
        return (end - start) * 1000.0, reply, size

    def notify(self, method, params=None):
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self._write(message)

    def initialize(self, timeout):
        ms, reply, _ = self.request(
            "initialize",
            {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "tabwire-bench", "version": "1"},
            },
            timeout,
        )
        if "error" in reply:
            raise McpError(f"{self.label}: initialize failed: {reply['error']}")
        self.notify("notifications/initialized")
        return ms

    def list_tools(self, timeout):
        ms, reply, size = self.request("tools/list", {}, timeout)
        if "error" in reply:
            raise McpError(f"{self.label}: tools/list failed: {reply['error']}")
        self.tools = reply["result"]["tools"]
        return ms, reply["result"], size

    def schema(self, tool):
        for t in self.tools:
            if t["name"] == tool:
                return t.get("inputSchema") or {}
        return None

    def call(self, tool, arguments, timeout):
        """Calls a tool. Returns a dict: ok, ms, chars, text, error."""
        try:
            ms, reply, size = self.request(
                "tools/call", {"name": tool, "arguments": arguments}, timeout
            )
        except McpError as e:
            return {"ok": False, "ms": None, "chars": 0, "text": "", "error": str(e)}
        if "error" in reply:
            return {
                "ok": False, "ms": ms, "chars": 0, "text": "",
                "error": f"protocol error {reply['error'].get('code')}: {reply['error'].get('message')}",
            }
        result = reply.get("result") or {}
        text = "\n".join(
            c.get("text", "") for c in result.get("content", []) if c.get("type") == "text"
        )
        if result.get("isError"):
            return {"ok": False, "ms": ms, "chars": len(text), "text": text,
                    "error": "isError: " + text[:300]}
        return {"ok": True, "ms": ms, "chars": len(text), "text": text, "error": None,
                "raw": size}

    def stop(self, grace=8.0):
        """Closes stdin (the polite shutdown), then terminates and kills what is left of
        the server's process tree, browser included."""
        if self.proc is None:
            return
        self.known_pids |= set(descendants(self.proc.pid))
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                _signal_group(self.proc.pid, signal.SIGTERM)
                try:
                    self.proc.wait(timeout=3)
                except subprocess.TimeoutExpired:
                    _signal_group(self.proc.pid, signal.SIGKILL)
                    self.proc.wait(timeout=5)
        # Whatever of the tree outlived the server (its browser, a relay) goes too.
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline and any(_exists(p) for p in self.known_pids):
            time.sleep(0.1)
        for pid in self.known_pids:
            if _exists(pid):
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        _signal_group(self.proc.pid, signal.SIGKILL)
        try:
            self._stderr.close()
        except OSError:
            pass


def _signal_group(pgid, sig):
    try:
        os.killpg(pgid, sig)
    except OSError:
        pass


def _exists(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        return state != "Z"
    except OSError:
        return False


# -- /proc accounting -------------------------------------------------------------


def _children_map():
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
    return children


def descendants(pid, children=None):
    """The pids below pid (not pid itself)."""
    children = children if children is not None else _children_map()
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def rss_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def pss_kb(pid):
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def role(pid):
    """What a process in a server's tree is: the server, a Chromium process type, ..."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            argv = f.read().split(b"\0")
    except OSError:
        return "?"
    # Chromium rewrites its command line into one space-separated string.
    args = " ".join(a.decode("utf-8", "replace") for a in argv if a).split()
    for a in args:
        if a.startswith("--type="):
            kind = a.split("=", 1)[1]
            if kind == "renderer" and "--extension-process" in args:
                return "extension renderer"
            return kind
    name = os.path.basename(args[0]) if args else "?"
    if len(args) > 1 and args[1] == "native-host":
        return "tabwire native-host"
    if "chrom" in name:
        return "browser"
    return name


def cpu_seconds(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK
    except OSError:
        return None


class Sampler:
    """Samples memory of the live servers every `interval` seconds, by server kind."""

    def __init__(self, interval=0.25):
        self.interval = interval
        self.servers = []  # (kind, Server)
        self.lock = threading.Lock()
        self.peaks = {}  # kind -> dict
        self.cpu_by_pid = {}  # (kind, pid) -> last seen cpu seconds
        self.role_of = {}  # (kind, pid) -> role
        self.samples = {}  # kind -> [(t, rss_kb, pss_tree_kb, nprocs)]
        self.stop_event = threading.Event()
        self.t0 = time.monotonic()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        self.thread.start()

    def watch(self, kind, server):
        with self.lock:
            self.servers.append((kind, server))

    def unwatch(self, server):
        with self.lock:
            self.servers = [(k, s) for k, s in self.servers if s is not server]

    def sample_now(self):
        with self.lock:
            servers = list(self.servers)
        if not servers:
            return
        children = _children_map()
        for kind, server in servers:
            if not server.alive():
                continue
            tree = [server.pid] + descendants(server.pid, children)
            server.known_pids |= set(tree)
            rss = rss_kb(server.pid)
            pss = sum(pss_kb(p) for p in tree)
            for p in tree:
                c = cpu_seconds(p)
                if c is not None:
                    self.cpu_by_pid[(kind, p)] = c
                    if (kind, p) not in self.role_of:
                        self.role_of[(kind, p)] = "server" if p == server.pid else role(p)
            peak = self.peaks.setdefault(kind, {"rss_kb": 0, "pss_tree_kb": 0, "procs": 0})
            peak["rss_kb"] = max(peak["rss_kb"], rss)
            peak["pss_tree_kb"] = max(peak["pss_tree_kb"], pss)
            peak["procs"] = max(peak["procs"], len(tree))
            self.samples.setdefault(kind, []).append(
                (round(time.monotonic() - self.t0, 2), rss, pss, len(tree))
            )

    def _run(self):
        while not self.stop_event.wait(self.interval):
            try:
                self.sample_now()
            except Exception:  # a process vanished between reads: skip the sample
                pass

    def stop(self):
        self.stop_event.set()
        self.thread.join(timeout=5)

    def tree_cpu(self, kind):
        return sum(c for (k, _), c in self.cpu_by_pid.items() if k == kind)

    def cpu_by_role(self, kind):
        out = {}
        for (k, p), c in self.cpu_by_pid.items():
            if k == kind:
                r = self.role_of.get((k, p), "?")
                out[r] = round(out.get(r, 0) + c, 2)
        return dict(sorted(out.items(), key=lambda kv: -kv[1]))
