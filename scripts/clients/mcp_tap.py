"""Runs an MCP server over stdio and records its traffic.

    python3 mcp_tap.py LOG -- COMMAND [ARGS...]

Passes the client's stdin to COMMAND and COMMAND's stdout back, unchanged, and appends
each JSON-RPC line to LOG as {"dir": "in" | "out", "t": seconds, "msg": ...}: "in" is
what the client sent, "out" what the server answered. When the client closes stdin, the
server's stdin is closed too; on SIGTERM, SIGINT or SIGHUP the signal is passed on. The
tap exits with the server's exit code once the server has ended.
"""

import json
import signal
import subprocess
import sys
import threading
import time

log_path, command = sys.argv[1], sys.argv[3:]
assert sys.argv[2] == "--", "usage: mcp_tap.py LOG -- COMMAND [ARGS...]"
start = time.monotonic()
lock = threading.Lock()
log = open(log_path, "a")


def record(direction, line):
    try:
        msg = json.loads(line)
    except ValueError:
        msg = {"unparsed": line.decode(errors="replace")}
    with lock:
        log.write(json.dumps({"dir": direction, "t": round(time.monotonic() - start, 3), "msg": msg}) + "\n")
        log.flush()


def pump(source, sink, direction):
    for line in iter(source.readline, b""):
        record(direction, line)
        try:
            sink.write(line)
            sink.flush()
        except (BrokenPipeError, ValueError):
            break
    try:
        sink.close()
    except OSError:
        pass


server = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(sig, lambda s, _frame: server.send_signal(s))
threading.Thread(target=pump, args=(sys.stdin.buffer, server.stdin, "in"), daemon=True).start()
out = threading.Thread(target=pump, args=(server.stdout, sys.stdout.buffer, "out"))
out.start()
code = server.wait()
out.join(timeout=5)
sys.exit(code if code >= 0 else 128 - code)
