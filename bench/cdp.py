"""Raw CDP over --remote-debugging-pipe (standard library only): the floor under both
servers. Times Runtime.evaluate and Accessibility.getFullAXTree straight against the
renderer, with no MCP server and no extension in between.
"""

import json
import os
import signal
import statistics
import subprocess
import tempfile
import threading
import time
import queue
import shutil


class Pipe:
    def __init__(self, chromium, flags, timeout):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="tabwire-bench-cdp-")
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()
        self.proc = subprocess.Popen(
            # The browser reads commands on fd 3 and writes replies on fd 4.
            ["/bin/sh", "-c", f'exec "$@" 3<&{to_browser_r} 4>&{from_browser_w}', "sh",
             chromium, "--headless", "--remote-debugging-pipe",
             f"--user-data-dir={self.profile}", *flags, "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=(to_browser_r, from_browser_w), start_new_session=True,
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self.next_id = 0
        self.replies = {}
        self.events = queue.Queue()
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        buf = bytearray()
        while True:
            try:
                chunk = os.read(self.from_browser, 1 << 20)
            except OSError:
                return
            if not chunk:
                return
            start = len(buf)
            buf += chunk
            while True:
                end = buf.find(b"\0", start)
                if end < 0:
                    break
                # The reply is complete here: time it before parsing it.
                arrived = time.perf_counter()
                raw = bytes(buf[:end])
                del buf[: end + 1]
                start = 0
                message = json.loads(raw)
                if "id" in message:
                    with self.lock:
                        box = self.replies.pop(message["id"], None)
                    if box:
                        box.put((arrived, message, len(raw)))
                else:
                    self.events.put(message)

    def send(self, method, params=None, session=None):
        """Returns (milliseconds, result, reply size in bytes)."""
        with self.lock:
            self.next_id += 1
            rid = self.next_id
            box = queue.Queue(maxsize=1)
            self.replies[rid] = box
        message = {"id": rid, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        start = time.perf_counter()
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        try:
            end, reply, size = box.get(timeout=self.timeout)
        except queue.Empty:
            raise TimeoutError(f"raw CDP: {method} got no answer within {self.timeout} s")
        if "error" in reply:
            raise RuntimeError(f"raw CDP: {method} failed: {reply['error']}")
        return (end - start) * 1000, reply.get("result", {}), size

    def wait_event(self, method, timeout):
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"raw CDP: no {method} within {timeout} s")
            try:
                event = self.events.get(timeout=left)
            except queue.Empty:
                continue
            if event.get("method") == method:
                return event

    def close(self):
        try:
            self.send("Browser.close")
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                pass
            self.proc.wait(timeout=5)
        for fd in (self.to_browser, self.from_browser):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)


PROBE_EXTENSION = os.path.join(os.path.dirname(os.path.abspath(__file__)), "probe-extension")


def floor(chromium, flags, base, reps, timeout=60):
    """Median timings of the renderer round trips both servers build on: over this raw
    pipe, and through chrome.debugger from an extension (bench/probe-extension)."""
    pipe = Pipe(chromium, flags + [f"--load-extension={PROBE_EXTENSION}",
                                   f"--disable-extensions-except={PROBE_EXTENSION}"], timeout)
    try:
        targets = pipe.send("Target.getTargets")[1]["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        session = pipe.send("Target.attachToTarget",
                            {"targetId": page["targetId"], "flatten": True})[1]["sessionId"]
        pipe.send("Page.enable", session=session)
        pipe.send("Page.navigate", {"url": base + "/big.html"}, session=session)
        pipe.wait_event("Page.loadEventFired", timeout)
        evaluate, ax, size, nodes = [], [], 0, 0
        for i in range(reps + 2):
            ms, _, _ = pipe.send("Runtime.evaluate", {"expression": "1+1", "returnByValue": True},
                                 session=session)
            if i >= 2:
                evaluate.append(ms)
        for i in range(max(5, reps // 2) + 1):
            ms, result, size = pipe.send("Accessibility.getFullAXTree", session=session)
            nodes = len(result.get("nodes", []))
            if i >= 1:
                ax.append(ms)
        ax.sort()
        through_debugger = _through_debugger(pipe, base + "/big.html", reps, timeout)
        return {
            **through_debugger,
            "Runtime.evaluate 1+1 median_ms": round(statistics.median(evaluate), 2),
            "Accessibility.getFullAXTree median_ms": round(statistics.median(ax), 1),
            "Accessibility.getFullAXTree min_ms": round(ax[0], 1),
            "Accessibility.getFullAXTree max_ms": round(ax[-1], 1),
            "Accessibility.getFullAXTree reply_bytes": size,
            "Accessibility.getFullAXTree nodes": nodes,
        }
    finally:
        pipe.close()


def _through_debugger(pipe, url, reps, timeout):
    """The same commands sent by an extension with chrome.debugger.sendCommand."""
    deadline = time.monotonic() + timeout
    worker = None
    while worker is None:
        targets = pipe.send("Target.getTargets")[1]["targetInfos"]
        worker = next((t for t in targets if t["type"] == "service_worker"
                       and t["url"].startswith("chrome-extension://")), None)
        if worker is None:
            if time.monotonic() > deadline:
                return {"chrome.debugger": f"the probe extension's worker did not start "
                                           f"within {timeout} s"}
            time.sleep(0.1)
    session = pipe.send("Target.attachToTarget",
                        {"targetId": worker["targetId"], "flatten": True})[1]["sessionId"]
    _, result, _ = pipe.send("Runtime.evaluate", {
        "expression": f"benchTime({json.dumps(url)}, {int(reps)})",
        "awaitPromise": True, "returnByValue": True}, session=session)
    if "exceptionDetails" in result:
        return {"chrome.debugger": "probe failed: " +
                json.dumps(result["exceptionDetails"])[:300]}
    v = result["result"]["value"]
    return {
        "chrome.debugger Runtime.evaluate 1+1 median_ms": round(v["evaluate"], 2),
        "chrome.debugger Accessibility.getFullAXTree median_ms": round(v["ax"], 1),
        "chrome.debugger getFullAXTree result as JSON, chars": v["bytes"],
        "extension JSON.stringify of that result, ms": round(v["stringify"], 1),
    }
