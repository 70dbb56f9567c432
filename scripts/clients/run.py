"""Runs the scripted sessions of each client against tabwire and checks them (the work
behind scripts/client-check, which installs the clients and passes them here).

    python3 run.py --tabwire BIN --client NAME=BINARY@VERSION ... [--only NAME] [--keep]
                   [--timeout SECONDS] [--browser PATH]

Each session gets a folder of its own in one temporary folder: the client's HOME and
settings, its working folder, tabwire's temporary folder (so the browser's profile is
there too), and the MCP traffic the tap recorded. Every process a session started is
ended when it is over; the temporary folder is removed at the end unless --keep.
"""

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import agent
import clients
import fake_model
import report

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIOS = [("big", "/big.html"), ("wait", "/small.html")]
# What a headless Chromium needs here (root, closed network): as the end-to-end tests.
BROWSER_FLAGS = ["--chromeArg=--no-sandbox", "--chromeArg=--disable-gpu", "--chromeArg=--disable-quic",
                 "--chromeArg=--disable-background-networking", "--chromeArg=--disable-component-update",
                 "--chromeArg=--disable-sync"]


def say(text):
    print(f"client-check: {text}", file=sys.stderr, flush=True)


def processes_under(folder):
    """Process ids whose command line names `folder` (the tap, and the browser on its
    profile there), this process excepted."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if folder.encode() in f.read() and int(pid) != os.getpid():
                    found.append(int(pid))
        except OSError:
            pass
    return found


def end_all(group, folder):
    """Ends the client's process group, then whatever still runs from its folder: a
    polite SIGTERM first (tabwire closes its browser on it), SIGKILL after 10 s."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(group, sig)
        except ProcessLookupError:
            pass
        for pid in processes_under(folder):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and processes_under(folder):
            time.sleep(0.2)
        if not processes_under(folder):
            return []
    return processes_under(folder)


def run_session(client, binary, version, scenario, path, root, model_url, args):
    run = f"{client}-{scenario}"
    folder = os.path.join(root, run)
    os.makedirs(folder)
    mcp = ["env", f"TMPDIR={os.path.join(folder, 'tmp')}", sys.executable, os.path.join(HERE, "mcp_tap.py"),
           os.path.join(folder, "mcp.jsonl"), "--", args.tabwire, "mcp", "--launch", "--headless", *BROWSER_FLAGS]
    if args.browser:
        mcp.append(f"--executablePath={args.browser}")
    argv, env = clients.setup(client, binary, folder, mcp, model_url,
                              agent.prompt(run, scenario, model_url + path))
    say(f"{run}: {client} {version}, scenario {scenario}")
    started = time.monotonic()
    with open(os.path.join(folder, "stdout"), "wb") as out, open(os.path.join(folder, "stderr"), "wb") as err:
        child = subprocess.Popen(argv, env=env, cwd=os.path.join(folder, "work"), stdin=subprocess.DEVNULL,
                                 stdout=out, stderr=err, start_new_session=True)
        try:
            code = child.wait(timeout=args.timeout)
        except subprocess.TimeoutExpired:
            code = f"no end after {args.timeout} s (killed)"
    seconds = time.monotonic() - started
    left = end_all(child.pid, folder)
    with open(os.path.join(folder, "stderr"), errors="replace") as f:
        stderr = f.read()
    if left:
        stderr += f"\nprocesses still running after SIGKILL: {left}"
    return {"client": client, "binary": binary, "version": version, "scenario": scenario, "run": run,
            "folder": folder, "code": code, "seconds": seconds, "stderr": stderr}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tabwire", required=True)
    parser.add_argument("--client", action="append", default=[], help="NAME=BINARY@VERSION")
    parser.add_argument("--only", action="append", help="run only this client (repeatable)")
    parser.add_argument("--timeout", type=int, default=240, help="seconds a session may take")
    parser.add_argument("--browser", help="the Chromium tabwire launches (--executablePath)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()

    known = [spec.split("=", 1)[0] for spec in args.client]
    unknown = set(args.only or []) - set(known)
    if unknown:
        parser.error(f"--only {', '.join(sorted(unknown))}: the clients are {', '.join(known)}")

    root = tempfile.mkdtemp(prefix="tabwire-client-check-")
    model_log = os.path.join(root, "model.jsonl")
    server = fake_model.start(model_log)
    model_url = f"http://127.0.0.1:{server.server_address[1]}"
    sessions = []
    try:
        for spec in args.client:
            client, rest = spec.split("=", 1)
            binary, version = rest.rsplit("@", 1)
            if args.only and client not in args.only:
                continue
            for scenario, path in SCENARIOS:
                sessions.append(run_session(client, binary, version, scenario, path, root, model_url, args))
        rows, base, expected = [], [], []
        for session in sessions:
            row, b, e = report.analyse(session, model_log)
            rows.append(row)
            base += [f"{session['run']}: {f}" for f in b]
            expected += [f"{session['run']}: {f}" for f in e]
    finally:
        server.shutdown()
        if args.keep:
            say(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)

    print(report.table(rows))
    if base:
        print("\nFAILED: the scripted sessions did not go through:\n  " + "\n  ".join(base))
    if expected:
        print("\nFAILED: tabwire does not yet serve the clients as expected (report.py, EXPECTED):\n  "
              + "\n  ".join(expected))
    if not base and not expected:
        print("\nall checks passed")
    return 1 if base or expected else 0


if __name__ == "__main__":
    sys.exit(main())
