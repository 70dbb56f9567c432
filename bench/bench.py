"""tabwire against chrome-devtools-mcp: the same workload, the same Chromium, the same
pages, both driven as MCP servers over stdio. Run it through scripts/bench, which sets
everything up; `python3 bench/bench.py --help` lists the knobs.
"""

import argparse
import datetime
import functools
import glob
import http.server
import json
import os
import platform
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402
from mcp import McpError, Sampler, Server, cpu_seconds  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "bench", "fixtures")

BROWSER_FLAGS = [
    "--chromeArg=--no-sandbox",
    "--chromeArg=--disable-gpu",
    "--chromeArg=--disable-quic",
    "--chromeArg=--no-first-run",
    "--chromeArg=--disable-background-networking",
    "--chromeArg=--disable-component-update",
    "--chromeArg=--disable-sync",
]

TW, REF = "tabwire", "reference"
SMALL_SNAPSHOT = "take_snapshot (500 elements)"
UNCHANGED_SNAPSHOT = "take_snapshot (5,000 elements, unchanged page)"
SERVERS = (TW, REF)


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# -- fixture pages ------------------------------------------------------------------


class FixtureHandler(http.server.SimpleHTTPRequestHandler):
    def end_headers(self):
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, *args):
        pass


def serve_fixtures():
    handler = functools.partial(FixtureHandler, directory=FIXTURES)
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}"


# -- the two servers ----------------------------------------------------------------


def server_argv(kind, args, headless=True):
    """The server's command line; `headless=False`: its browser draws windows (on the
    display in the environment)."""
    mode = ["--headless"] if headless else []
    if kind == TW:
        return [args.tabwire, "mcp", "--launch"] + mode + [
                "--executablePath=" + args.chromium, "--extensionDir=" + args.extension,
                "--categoryExperimentalThirdParty=true"] + BROWSER_FLAGS
    return [args.node, args.reference] + mode + ["--isolated",
            "--executablePath=" + args.chromium] + BROWSER_FLAGS + [
            "--categoryExperimentalThirdParty=true", "--no-usage-statistics",
            "--no-performance-crux"]


def server_env(kind, args, display=None):
    env = dict(os.environ)
    if display is not None:
        env["DISPLAY"] = display
    if kind == TW:
        env.setdefault("TABWIRE_LOG", "info")
    else:
        env["CHROME_DEVTOOLS_MCP_NO_UPDATE_CHECKS"] = "1"
    return env


class Session:
    """A started server with its page id, ready for page tools."""

    def __init__(self, kind, args, logdir, tag, display=None):
        """`display`: an X display (":n") for a windowed browser; None: headless."""
        self.kind = kind
        self.server = Server(
            f"{kind} ({tag})", server_argv(kind, args, headless=display is None),
            server_env(kind, args, display),
            os.path.join(logdir, f"{kind}-{tag}.stderr.log"), cwd=logdir,
        )
        self.page_id = None
        self.uid = None

    def args_for(self, tool, arguments):
        """Adds pageId where this server's schema requires it (the reference does)."""
        schema = self.server.schema(tool)
        if schema is None:
            raise McpError(f"{self.kind} does not offer the tool {tool}")
        arguments = dict(arguments)
        if "pageId" in (schema.get("required") or []) and self.page_id is not None:
            arguments["pageId"] = self.page_id
        return arguments

    def call(self, tool, arguments, timeout):
        try:
            arguments = self.args_for(tool, arguments)
        except McpError as e:
            return {"ok": False, "ms": None, "chars": 0, "text": "", "error": str(e)}
        return self.server.call(tool, arguments, timeout)

    def find_page_id(self, timeout):
        r = self.server.call("list_pages", {}, timeout)
        if not r["ok"]:
            raise McpError(f"{self.kind}: list_pages failed: {r['error']}")
        m = re.search(r"^(\d+): .*\[selected\]", r["text"], re.M)
        if not m:
            raise McpError(f"{self.kind}: no selected page in list_pages:\n{r['text'][:500]}")
        self.page_id = int(m.group(1))
        return r


SPILLED = re.compile(r"saved to (/\S+?\.(?:txt|json))\b")


def spilled_file(text):
    """The private file a result too long to show inline was saved to, and its text:
    tabwire shows a path and a preview instead of anything over its inline limit."""
    m = SPILLED.search(text)
    if not m:
        return None, None
    try:
        with open(m.group(1), encoding="utf-8") as f:
            return m.group(1), f.read()
    except OSError as e:
        raise McpError(f"cannot read the spilled result {m.group(1)}: {e}")


def uid_of(snapshot_text, name):
    """The uid of the element whose line carries this accessible name: after `uid=`
    (the reference), else the line's first word (tabwire: `1_5 button "Save"`)."""
    for line in snapshot_text.splitlines():
        if f'"{name}"' in line:
            m = re.search(r"uid=(\S+)", line) or re.match(r"\s*(\d+_\d+)\s", line)
            if m:
                return m.group(1)
    return None


# -- measurement --------------------------------------------------------------------


def summary(calls):
    good = [c["ms"] for c in calls if c["ok"]]
    chars = [c["chars"] for c in calls if c["ok"]]
    out = {"n": len(calls), "failures": sum(1 for c in calls if not c["ok"])}
    errors = sorted({c["error"].splitlines()[0][:200] for c in calls if not c["ok"]})
    if errors:
        out["errors"] = errors
    if good:
        s = sorted(good)
        out["median_ms"] = round(statistics.median(s), 2)
        out["p90_ms"] = round(s[min(len(s) - 1, max(0, -(-9 * len(s) // 10) - 1))], 2)
        out["min_ms"] = round(s[0], 2)
        out["max_ms"] = round(s[-1], 2)
        out["chars"] = int(statistics.median(chars))
    return out


def alternate(sessions, iteration):
    """Both servers each iteration; who goes first alternates."""
    return sessions if iteration % 2 == 0 else list(reversed(sessions))


def selected(args, name):
    """Whether --only (a regular expression) lets this row run."""
    return args.only is None or re.search(args.only, name) is not None


def run_step(sessions, name, make_call, warmups, reps, timeout, results, note="",
             only=None, setup=False):
    """Times one step on both servers: warm-ups untimed, then reps alternated. A row
    that --only leaves out is skipped, unless it is a `setup` (a navigation later rows
    need): that runs once per server, untimed."""
    if only is not None and re.search(only, name) is None:
        if setup:
            log(f"step {name}: once, untimed (set-up for later rows)")
            for s in sessions:
                r = make_call(s)
                if not r["ok"]:
                    raise McpError(f"{s.kind}: set-up step {name} failed: {r['error'][:300]}")
        return None
    log(f"step {name}: {warmups} warm-up(s), {reps} timed, alternated")
    calls = {s.kind: [] for s in sessions}
    for i in range(warmups + reps):
        for s in alternate(sessions, i):
            r = make_call(s)
            if i >= warmups:
                calls[s.kind].append(r)
            elif not r["ok"]:
                log(f"  {s.kind} warm-up failed: {r['error'][:200]}")
    results["steps"][name] = {"note": note, **{k: summary(v) for k, v in calls.items()}}
    for k, v in calls.items():
        fails = [c for c in v if not c["ok"]]
        if fails:
            log(f"  {k}: {len(fails)}/{len(v)} failed, first: {fails[0]['error'][:300]}")
    return calls


def cold_starts(args, logdir, base, sampler, results):
    log(f"cold start: {args.cold} spawn→first navigate per server, alternated")
    rows = {k: [] for k in SERVERS}
    for i in range(args.cold):
        for kind in (SERVERS if i % 2 == 0 else SERVERS[::-1]):
            s = Session(kind, args, logdir, f"cold{i}")
            rec = {"ok": False, "ms": None, "chars": 0, "text": "", "error": None}
            try:
                t0 = time.perf_counter()
                s.server.spawn()
                sampler.watch(kind + ":cold", s.server)
                init_ms = s.server.initialize(args.start_timeout)
                s.server.list_tools(args.timeout)
                t_list = time.perf_counter()
                s.find_page_id(args.start_timeout)
                list_ms = (time.perf_counter() - t_list) * 1000
                nav = s.call("navigate_page", {"url": base + "/3p.html"}, args.start_timeout)
                total = (time.perf_counter() - t0) * 1000
                if nav["ok"]:
                    rec.update(ok=True, ms=total, chars=nav["chars"], initialize_ms=round(init_ms, 1),
                               list_pages_ms=round(list_ms, 1), navigate_ms=round(nav["ms"], 1))
                else:
                    rec["error"] = "first navigate failed: " + nav["error"]
            except McpError as e:
                rec["error"] = str(e)
            finally:
                sampler.unwatch(s.server)
                s.server.stop()
            if rec["ok"]:
                log(f"  {kind}: {rec['ms']:.0f} ms (initialize {rec['initialize_ms']:.0f}, "
                    f"list_pages {rec['list_pages_ms']:.0f}, navigate {rec['navigate_ms']:.0f})")
            else:
                log(f"  {kind}: FAILED: {rec['error'][:300]}")
            rows[kind].append(rec)
    step = {"note": "spawn, initialize, tools/list, list_pages, navigate_page (fresh browser each time)"}
    for k, v in rows.items():
        step[k] = summary(v)
        parts = [r for r in v if r["ok"]]
        if parts:
            for part in ("initialize_ms", "list_pages_ms", "navigate_ms"):
                step[k][part] = round(statistics.median(r[part] for r in parts), 1)
    results["steps"]["cold start"] = step


# -- cold start with a browser already connected ------------------------------------

ATTACHED = "cold start, browser already connected"
LANE = "lane=attached"  # marks the page the attached agents navigate, in its URL


def wait_for(what, check, timeout, interval=0.05):
    """Polls check() until it returns something truthy; fails naming what it awaited."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise McpError(f"gave up after {timeout:.0f} s waiting for {what}")
        time.sleep(interval)


def relay_socket(profile):
    """The relay socket of the tabwire session that launched a browser on this profile:
    the native-host manifest names a wrapper script whose TABWIRE_SOCKET=… line holds
    it, quoted for /bin/sh where it needs quoting (read back with shlex)."""
    manifest = os.path.join(profile, "NativeMessagingHosts", "dev.tabwire.json")
    try:
        with open(manifest) as f:
            wrapper = json.load(f).get("path")
        if not wrapper:
            raise McpError(f"{manifest} names no wrapper (no 'path')")
        with open(wrapper) as f:
            script = f.read()
    except (OSError, ValueError) as e:
        raise McpError(f"cannot read the relay socket's path from {manifest}: {e}")
    for line in script.splitlines():
        if line.startswith("TABWIRE_SOCKET="):
            try:
                words = shlex.split(line)
            except ValueError as e:
                raise McpError(f"cannot read {wrapper}: {line}: {e}")
            if len(words) != 1:
                raise McpError(f"unexpected TABWIRE_SOCKET line in {wrapper}: {line}")
            return words[0][len("TABWIRE_SOCKET="):]
    raise McpError(f"the wrapper {wrapper} sets no TABWIRE_SOCKET:\n{script}")


class DebuggingBrowser:
    """A plain Chromium with --remote-debugging-port, for the reference's --browserUrl:
    the same flags the reference passes through its --chromeArg in the other rows."""

    def __init__(self, args, logdir):
        self.profile = tempfile.mkdtemp(prefix="tabwire-bench-rdp-")
        self.stderr = open(os.path.join(logdir, "reference-attached-chromium.stderr.log"), "ab")
        flags = [f.split("=", 1)[1] for f in BROWSER_FLAGS]
        self.proc = subprocess.Popen(
            [args.chromium, "--headless", "--remote-debugging-port=0",
             f"--user-data-dir={self.profile}", *flags, "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.stderr,
            start_new_session=True,
        )
        port_file = os.path.join(self.profile, "DevToolsActivePort")

        def port():
            if self.proc.poll() is not None:
                raise McpError(f"Chromium with --remote-debugging-port exited with "
                               f"{self.proc.returncode}")
            try:
                with open(port_file) as f:
                    first = f.readline().strip()
            except OSError:
                return None
            return int(first) if first.isdigit() else None

        self.url = f"http://127.0.0.1:{wait_for('DevToolsActivePort', port, args.start_timeout)}"

    def new_tab(self, url, timeout):
        request = urllib.request.Request(
            self.url + "/json/new?" + urllib.parse.quote(url, safe=""), method="PUT")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as reply:
                return json.load(reply)
        except (OSError, ValueError) as e:
            raise McpError(f"cannot open a tab through {self.url}/json/new: {e}")

    def alive(self):
        return self.proc.poll() is None

    def stop(self):
        if self.proc.poll() is None:
            _kill_group(self.proc, signal.SIGTERM)
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                _kill_group(self.proc, signal.SIGKILL)
                self.proc.wait(timeout=5)
        _kill_group(self.proc, signal.SIGKILL)  # what is left of the group (renderers)
        self.stderr.close()
        shutil.rmtree(self.profile, ignore_errors=True)


def _kill_group(proc, sig):
    try:
        os.killpg(proc.pid, sig)
    except OSError:
        pass


def attached_argv(kind, args, browser_url):
    if kind == TW:
        return [args.tabwire, "mcp", "--categoryExperimentalThirdParty=true"]
    return [args.node, args.reference, "--browserUrl=" + browser_url,
            "--categoryExperimentalThirdParty=true", "--no-usage-statistics",
            "--no-performance-crux"]


def attached_starts(args, logdir, base, sampler, results):
    """Spawn → initialize → tools/list → list_pages → the first navigate_page, with the
    browser already up: tabwire joins a browser that a tabwire session launched (through
    that session's relay socket); the reference connects to a Chromium started with
    --remote-debugging-port (--browserUrl). Each agent navigates a page opened for this
    row (its URL carries LANE), never the page of the session holding the browser."""
    log(f"{ATTACHED}: {args.attached} per server, alternated")
    profile = tempfile.mkdtemp(prefix="tabwire-bench-profile-")
    holder = Server("tabwire (holds the browser)",
                    server_argv(TW, args) + ["--userDataDir=" + profile],
                    server_env(TW, args), os.path.join(logdir, "tabwire-holder.stderr.log"),
                    cwd=logdir)
    browser = None
    rows = {k: [] for k in SERVERS}
    lane_url = base + "/3p.html?" + LANE
    try:
        holder.spawn()
        holder.initialize(args.start_timeout)
        holder.list_tools(args.timeout)
        r = holder.call("list_pages", {}, args.start_timeout)
        if not r["ok"]:
            raise McpError(f"the tabwire session holding the browser: list_pages failed: "
                           f"{r['error']}")
        r = holder.call("new_page", {"url": lane_url, "background": True}, args.start_timeout)
        if not r["ok"]:
            raise McpError(f"the tabwire session holding the browser: new_page failed: "
                           f"{r['error']}")
        socket = relay_socket(profile)
        if not os.path.exists(socket):
            raise McpError(f"the relay socket {socket} does not exist")
        browser = DebuggingBrowser(args, logdir)
        browser.new_tab(lane_url, args.timeout)

        envs = {TW: dict(server_env(TW, args), TABWIRE_SOCKET=socket),
                REF: server_env(REF, args)}
        for i in range(args.attached):
            for kind in (SERVERS if i % 2 == 0 else SERVERS[::-1]):
                if not holder.alive():
                    raise McpError("the tabwire session holding the browser exited\n"
                                   + holder.stderr_tail())
                if not browser.alive():
                    raise McpError(f"the reference's Chromium exited with "
                                   f"{browser.proc.returncode}")
                s = Server(f"{kind} (attached{i})", attached_argv(kind, args, browser.url),
                           envs[kind], os.path.join(logdir, f"{kind}-attached{i}.stderr.log"),
                           cwd=logdir)
                rec = {"ok": False, "ms": None, "chars": 0, "text": "", "error": None}
                try:
                    t0 = time.perf_counter()
                    s.spawn()
                    sampler.watch(kind + ":attached", s)
                    init_ms = s.initialize(args.start_timeout)
                    tools_ms, _, _ = s.list_tools(args.timeout)
                    pages = s.call("list_pages", {}, args.start_timeout)
                    if not pages["ok"]:
                        raise McpError("list_pages failed: " + pages["error"])
                    m = re.search(r"^(\d+): .*" + re.escape(LANE), pages["text"], re.M)
                    if not m:
                        raise McpError(f"list_pages shows no page with {LANE}:\n"
                                       + pages["text"][:500])
                    nav = s.call("navigate_page", {"pageId": int(m.group(1)),
                                 "url": f"{lane_url}&run={i}"}, args.start_timeout)
                    total = (time.perf_counter() - t0) * 1000
                    if not nav["ok"]:
                        raise McpError("first navigate failed: " + nav["error"])
                    rec.update(ok=True, ms=total, chars=nav["chars"],
                               initialize_ms=round(init_ms, 1),
                               tools_list_ms=round(tools_ms, 1),
                               list_pages_ms=round(pages["ms"], 1),
                               navigate_ms=round(nav["ms"], 1))
                except McpError as e:
                    rec["error"] = str(e)
                finally:
                    sampler.unwatch(s)
                    s.stop()
                if rec["ok"]:
                    log(f"  {kind}: {rec['ms']:.0f} ms (initialize {rec['initialize_ms']:.0f}, "
                        f"tools/list {rec['tools_list_ms']:.1f}, list_pages "
                        f"{rec['list_pages_ms']:.0f}, navigate {rec['navigate_ms']:.0f})")
                else:
                    log(f"  {kind}: FAILED: {rec['error'][:300]}")
                rows[kind].append(rec)
    finally:
        holder.stop()
        if browser is not None:
            browser.stop()
        shutil.rmtree(profile, ignore_errors=True)
        if rows[TW] or rows[REF]:
            step = {"note": "spawn, initialize, tools/list, list_pages, navigate_page of a page "
                            "opened for this row, the browser already up: tabwire joins a "
                            "launched browser through its relay socket (TABWIRE_SOCKET), the "
                            "reference connects with --browserUrl to a Chromium started with "
                            "--remote-debugging-port"}
            for k, v in rows.items():
                step[k] = summary(v)
                parts = [r for r in v if r["ok"]]
                if parts:
                    for part in ("initialize_ms", "tools_list_ms", "list_pages_ms",
                                 "navigate_ms"):
                        step[k][part] = round(statistics.median(r[part] for r in parts), 1)
            results["steps"][ATTACHED] = step


def main_session(args, logdir, base, sampler, results):
    sessions = []
    try:
        for kind in SERVERS:
            s = Session(kind, args, logdir, "main")
            sessions.append(s)
            s.server.spawn()
            sampler.watch(kind, s.server)
            s.server.initialize(args.start_timeout)
            s.find_page_id(args.start_timeout)
        reps, T = args.reps, args.timeout

        # tools/list: the size an agent pays for on every turn, and its latency.
        for s in sessions:
            _, result, raw = s.server.list_tools(T)
            results["tools"][s.kind] = {
                "count": len(result["tools"]),
                "chars": len(json.dumps(result["tools"], separators=(",", ":"))),
                "names": sorted(t["name"] for t in result["tools"]),
            }

        def tools_list(s):
            try:
                ms, reply, raw = s.server.request("tools/list", {}, T)
            except McpError as e:
                return {"ok": False, "ms": None, "chars": 0, "error": str(e)}
            if "error" in reply:
                return {"ok": False, "ms": ms, "chars": 0, "error": str(reply["error"])}
            return {"ok": True, "ms": ms, "chars": raw, "error": None}

        step = functools.partial(run_step, sessions, only=args.only)
        step("tools/list", tools_list, 3, reps, T, results, "chars: the whole JSON-RPC reply")

        def nav(url):
            return lambda s: s.call("navigate_page", {"url": base + url}, T)

        def tool(name, arguments=None, timeout=T):
            return lambda s: s.call(name, arguments or {}, timeout)

        def execute(name, params):
            return tool("execute_3p_developer_tool",
                        {"toolName": name, "params": json.dumps(params)})

        step("navigate (3P page)", nav("/3p.html"), 2, reps, T, results, setup=True)
        step("list_pages", tool("list_pages"), 3, reps, T, results)

        def after(script, timed):
            """Runs `script` in the page (untimed), then times `timed`: a list after the
            page changed, which tabwire cannot answer from memory."""
            def make_call(s):
                r = s.call("evaluate_script", {"function": script}, T)
                if not r["ok"]:
                    return r
                return timed(s)
            return make_call

        step("list_pages after a retitle",
             after("() => { document.title = 'bench ' + Math.random(); }", tool("list_pages")),
             3, reps, T, results, "the page retitled by an untimed evaluate_script first")
        step("list_3p_developer_tools", tool("list_3p_developer_tools"), 3, reps, T, results)
        # Does listing the page's tools ask the page again each time? (The fixture
        # counts its discovery events.)
        if args.only is None:
            counts = {}
            for s in sessions:
                r = s.call("evaluate_script", {"function": "() => window.benchDiscoveries"}, T)
                m = re.search(r"\b(\d+)\b", r["text"].split("\n", 1)[-1]) if r["ok"] else None
                counts[s.kind] = int(m.group(1)) if m else None
            results["discovery_events_on_3p_page"] = counts
        step("execute 3P add", execute("add", {"a": 2, "b": 3}), 3, reps, T, results)
        step("execute 3P ~2 KB object", execute("inventory", {}), 3, reps, T, results)
        step("execute 3P awaits 50 ms", execute("later", {}), 3, reps, T, results)
        step("evaluate_script 1+1", tool("evaluate_script", {"function": "() => 1+1"}), 3,
             reps, T, results)

        needs_snapshot = selected(args, "click (uid from snapshot)")

        def snapshot(s):
            r = s.call("take_snapshot", {}, args.slow_timeout)
            if r["ok"]:
                text = r["text"]
                path, spilled = spilled_file(text)
                if spilled is not None:
                    # Too long to show inline: tabwire saved it to a private file and
                    # answered with its path and a preview. The agent reads the file for
                    # the uids, and its characters count as the snapshot's.
                    text = spilled
                    r["chars"] += len(spilled)
                    r["spilled_to"] = path
                s.uid = uid_of(text, "Bench target") or s.uid
            return r

        # A tenth of the big page, to see what a snapshot costs on an ordinary page.
        if selected(args, SMALL_SNAPSHOT):
            for s in sessions:
                r = nav("/big.html?rows=100")(s)
                if not r["ok"]:
                    raise McpError(f"{s.kind}: navigate to the 500-element page failed: "
                                   f"{r['error']}")
        step(SMALL_SNAPSHOT, snapshot, 2, reps, T, results,
             "bench/fixtures/big.html?rows=100: 100 rows of the big page's five elements")

        step("navigate (5,000 elements)", nav("/big.html"), 2, reps, T, results,
             setup=needs_snapshot or selected(args, "take_snapshot (5,000 elements)")
             or selected(args, UNCHANGED_SNAPSHOT))
        step("take_snapshot (5,000 elements)", snapshot, 2, reps, T, results,
             "chars: a snapshot saved to a file counts the file's characters",
             setup=needs_snapshot)

        def unchanged(s):
            """A snapshot (untimed), then at once another of the page it left as it was:
            what an agent pays for looking again."""
            first = s.call("take_snapshot", {}, args.slow_timeout)
            if not first["ok"]:
                return first
            return snapshot(s)

        step(UNCHANGED_SNAPSHOT, unchanged, 1, max(5, reps // 2), T, results,
             "the timed call comes right after an untimed one, the page left as it was")

        def click(s):
            if s.uid is None:
                return {"ok": False, "ms": None, "chars": 0, "text": "",
                        "error": "no uid for the button: every snapshot failed"}
            return s.call("click", {"uid": s.uid}, T)

        if step("click (uid from snapshot)", click, 3, reps, T, results,
                "the button on the 5,000-element page") is not None:
            clicks = {}
            for s in sessions:
                r = s.call("evaluate_script", {"function":
                           "() => +document.getElementById('target').dataset.clicks || 0"}, T)
                clicks[s.kind] = r["text"].strip()[-40:] if r["ok"] else "failed: " + r["error"]
            results["click_check"] = clicks

        step("navigate (2,000 console messages)", nav("/console.html"), 2, max(5, reps // 2),
             T, results, setup=True)
        step("list_console_messages", tool("list_console_messages"), 3, reps, T, results,
             "each server's default page size")
        step("list_console_messages pageSize=50",
             tool("list_console_messages", {"pageSize": 50}), 3, reps, T, results)
        step("list_console_messages pageSize=50 after a new message",
             after("() => { console.log('bench extra ' + Math.random()); }",
                   tool("list_console_messages", {"pageSize": 50})),
             3, reps, T, results, "one more message logged by an untimed evaluate_script first")

        # Last, because after it the reference's take_snapshot fails on the next
        # document (its element handles from the old one): checked just below.
        if selected(args, "execute 3P DOM elements"):
            for s in sessions:
                r = nav("/3p.html")(s)
                if not r["ok"]:
                    raise McpError(f"{s.kind}: navigate back to the 3P page failed: "
                                   f"{r['error']}")
        step("execute 3P DOM elements", execute("buttons", {}), 3, reps, T, results,
             "3 buttons; both answers include a snapshot holding them")
        if args.only is None:
            checks = results.setdefault("checks", {})
            for s in sessions:
                n = s.call("navigate_page", {"url": base + "/big.html"}, T)
                r = s.call("take_snapshot", {}, args.slow_timeout) if n["ok"] else n
                checks[s.kind] = {"take_snapshot after a 3P element result on the previous "
                                  "page": "ok" if r["ok"] else "FAILED: " + r["error"][:200]}
                if not r["ok"]:
                    log(f"  check: {s.kind} take_snapshot after 3P elements: "
                        f"{r['error'][:200]}")

        sampler.sample_now()
        for s in sessions:
            results["cpu"][s.kind] = {
                "server_s": cpu_seconds(s.server.pid),
                "tree_s": round(sampler.tree_cpu(s.kind), 2),
                "tree_by_role_s": sampler.cpu_by_role(s.kind),
            }
    finally:
        for s in sessions:
            sampler.unwatch(s.server)
            s.server.stop()


# -- a tab in the background -------------------------------------------------------

FRONT_AND_BACK = ("click", "hover", "take_snapshot", "take_screenshot",
                  "take_screenshot fullPage")
# Each background row against the same step in front, on the same server, same run.
BACKGROUND_LIMIT = 1.5


class Screen:
    """A virtual screen (Xvfb) with a window manager (openbox) on it, for a browser
    with windows as users run it; both stop with `stop()`. Every wait is bounded."""

    def __init__(self, timeout=20):
        for tool in ("Xvfb", "openbox"):
            if shutil.which(tool) is None:
                raise RuntimeError(f"{tool} is not installed (scripts/bootstrap installs it)")
        self.openbox = None
        # -displayfd: Xvfb picks a free display and writes its number once it serves.
        self.xvfb = subprocess.Popen(
            ["Xvfb", "-displayfd", "1", "-screen", "0", "1600x1200x24", "-nolisten", "tcp"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True)
        number = self._line(self.xvfb.stdout, timeout, "Xvfb to accept clients")
        self.name = ":" + number.strip()
        env = dict(os.environ, DISPLAY=self.name)
        # --sm-disable: no session manager; "--startup" echo: a line once it runs.
        self.openbox = subprocess.Popen(
            ["openbox", "--sm-disable", "--startup", "echo started"], env=env,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True)
        self._line(self.openbox.stdout, timeout, "openbox to manage the screen")

    def _line(self, pipe, timeout, what):
        got = []
        reader = threading.Thread(target=lambda: got.append(pipe.readline()), daemon=True)
        reader.start()
        reader.join(timeout)
        if not got or not got[0]:
            self.stop()
            raise RuntimeError(f"waited {timeout} s for {what}")
        return got[0].decode()

    def stop(self):
        for proc in (self.openbox, self.xvfb):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()


def hidden_state(s, timeout):
    r = s.call("evaluate_script", {"function": "() => document.visibilityState"}, timeout)
    if not r["ok"]:
        return "failed: " + r["error"][:200]
    m = re.search(r'"(visible|hidden|prerender)"', r["text"])
    return m.group(1) if m else r["text"].strip()[-80:]


def background_session(args, logdir, base, sampler, results):
    """The same three steps on a page in front, then on the same page opened behind it
    with `new_page {background: true}` (hidden: no frames drawn, timers throttled).
    Last of all because a server whose background call hangs answers nothing after it:
    such a server is not called again, and its remaining cells say so."""
    sessions = []
    T = min(args.timeout, 30)
    hung = set()
    headful = args.background_display == "headful"
    screens = []
    results["background_display"] = (
        "headful: windows under openbox on Xvfb, a screen per server" if headful
        else "headless")

    def guarded(make_call):
        def call(s):
            if s.kind in hung:
                return {"ok": False, "ms": None, "chars": 0, "text": "",
                        "error": "skipped: an earlier call on this server got no answer"}
            r = make_call(s)
            if not r["ok"] and "got no answer within" in r["error"]:
                hung.add(s.kind)
            return r
        return call

    def set_up(what, make_call):
        for s in sessions:
            r = guarded(make_call)(s)
            if not r["ok"]:
                log(f"  {s.kind}: {what} failed: {r['error'][:300]}")
            yield s, r

    try:
        for kind in SERVERS:
            display = None
            if headful:
                screens.append(Screen())
                display = screens[-1].name
            s = Session(kind, args, logdir, "background", display)
            sessions.append(s)
            s.server.spawn()
            sampler.watch(kind + ":background", s.server)
            s.server.initialize(args.start_timeout)
            s.find_page_id(args.start_timeout)
            s.server.list_tools(T)
        url = base + "/tab.html"

        def find_target(s):
            r = s.call("take_snapshot", {}, T)
            if r["ok"]:
                s.uid = uid_of(r["text"], "Bench target")
            return r

        def shots(prefix):
            for name in FRONT_AND_BACK:
                if name == "click":
                    def make_call(s):
                        if s.uid is None:
                            return {"ok": False, "ms": None, "chars": 0, "text": "",
                                    "error": "no uid for the button: the snapshot failed"}
                        return s.call("click", {"uid": s.uid}, T)
                elif name == "hover":
                    def make_call(s):
                        if s.uid is None:
                            return {"ok": False, "ms": None, "chars": 0, "text": "",
                                    "error": "no uid for the button: the snapshot failed"}
                        return s.call("hover", {"uid": s.uid}, T)
                elif name == "take_snapshot":
                    make_call = lambda s: s.call("take_snapshot", {}, T)
                elif name == "take_screenshot":
                    make_call = lambda s: s.call("take_screenshot", {}, T)
                else:
                    make_call = lambda s: s.call("take_screenshot", {"fullPage": True}, T)
                run_step(sessions, f"{prefix}: {name}", guarded(make_call), 2, args.reps, T,
                         results, "bench/fixtures/tab.html: a 200-row list, a spinner on "
                         "every animation frame, a clock on a timer", only=args.only)

        log("background: the page in front")
        list(set_up("navigate", lambda s: s.call("navigate_page", {"url": url}, T)))
        list(set_up("take_snapshot", find_target))
        shots("front")

        log("background: the same page opened behind it (new_page background: true)")

        def open_behind(s):
            r = s.call("new_page", {"url": url, "background": True}, T)
            if r["ok"]:
                m = re.search(r"^(\d+): .*\[selected\]", r["text"], re.M)
                if m:
                    s.page_id = int(m.group(1))
            return r
        list(set_up("new_page in the background", open_behind))
        checks = results.setdefault("checks", {})
        for s in sessions:
            checks.setdefault(s.kind, {})["background page before its rows"] = (
                "skipped" if s.kind in hung else hidden_state(s, T))
        list(set_up("take_snapshot", find_target))
        shots("background")
        for s in sessions:
            checks[s.kind]["background page after its rows"] = (
                "skipped: a call hung" if s.kind in hung else hidden_state(s, T))
    finally:
        for s in sessions:
            sampler.unwatch(s.server)
            s.server.stop()
        for screen in screens:
            screen.stop()


# -- report -------------------------------------------------------------------------

TARGETS = {
    "list_pages": ("median", 1.0),
    "list_console_messages": ("median", 1.0),
    "list_console_messages pageSize=50": ("median", 1.0),
    "list_3p_developer_tools": ("median", 1.0),
    "execute 3P add": ("median", 1.0),
    "execute 3P ~2 KB object": ("median", 1.0),
    "execute 3P DOM elements": ("median", 1.0),
    "execute 3P awaits 50 ms": ("median", 1.0),
    "evaluate_script 1+1": ("median", 0.25),
    "click (uid from snapshot)": ("median", 0.25),
    "take_snapshot (5,000 elements)": ("median", 0.5),
    SMALL_SNAPSHOT: ("median", 0.5),
    UNCHANGED_SNAPSHOT: ("median", 0.1),
    "cold start": ("median", 0.8),
    "background: click": ("median", 1.0),
    "background: hover": ("median", 1.0),
    "background: take_snapshot": ("median", 1.0),
    "background: take_screenshot": ("median", 1.0),
    "background: take_screenshot fullPage": ("median", 1.0),
}
CHAR_TARGETS = {"take_snapshot (5,000 elements)": 0.8}
MS_TARGETS = {ATTACHED: 100}  # tabwire's own median, in ms, whatever the reference takes


def fmt_ms(v):
    if v is None:
        return "-"
    return f"{v:.0f}" if v >= 100 else f"{v:.1f}"


def ratio(a, b):
    if a is None or b in (None, 0):
        return None
    return a / b


def verdict(r, limit):
    if r is None:
        return "n/a"
    return f"{'holds' if r <= limit else 'MISSES'} (≤{limit:g}×)"


def render(results):
    lines = []
    head = ("step", "tabwire med", "p90", "chars", "reference med", "p90", "chars",
            "ratio", "chars ratio", "target")
    rows = []
    for name, step in results["steps"].items():
        t, r = step.get(TW, {}), step.get(REF, {})

        def cell(side, key):
            if side.get("failures") and not side.get(key):
                return f"FAIL {side['failures']}/{side['n']}"
            v = side.get(key)
            text = fmt_ms(v) if key != "chars" else (str(v) if v is not None else "-")
            if key == "median_ms" and side.get("failures"):
                text += f" ({side['failures']}/{side['n']} FAIL)"
            return text

        q = ratio(t.get("median_ms"), r.get("median_ms"))
        qc = ratio(t.get("chars"), r.get("chars"))
        target = []
        if name in TARGETS:
            target.append(verdict(q, TARGETS[name][1]))
        if name in CHAR_TARGETS:
            target.append("chars " + verdict(qc, CHAR_TARGETS[name]))
        if name.startswith("background: "):
            front = results["steps"].get("front: " + name.split(": ", 1)[1], {}).get(TW, {})
            qf = ratio(t.get("median_ms"), front.get("median_ms"))
            target.append(f"front {qf:.2f}× " if qf is not None else "front - ")
            target[-1] += verdict(qf, BACKGROUND_LIMIT)
        if name in MS_TARGETS:
            v, limit = t.get("median_ms"), MS_TARGETS[name]
            target.append("n/a" if v is None else
                          f"{'holds' if v <= limit else 'MISSES'} (tabwire ≤{limit:g} ms)")
        if t.get("failures") or r.get("failures"):
            target.append("has failures")
        rows.append((name, cell(t, "median_ms"), cell(t, "p90_ms"), cell(t, "chars"),
                     cell(r, "median_ms"), cell(r, "p90_ms"), cell(r, "chars"),
                     f"{q:.2f}×" if q is not None else "-",
                     f"{qc:.2f}×" if qc is not None else "-", "; ".join(target)))

    def extra(name, tv, rv, unit, target=""):
        q = ratio(tv, rv)
        rows.append((name, f"{tv:g} {unit}" if tv is not None else "-", "", "",
                     f"{rv:g} {unit}" if rv is not None else "-", "", "",
                     f"{q:.2f}×" if q is not None else "-", "", target))

    tools = results["tools"]
    if tools.get(TW) and tools.get(REF):
        extra("tools/list: tools", tools[TW]["count"], tools[REF]["count"], "")
        extra("tools/list: chars", tools[TW]["chars"], tools[REF]["chars"], "")
    mem = results["memory"]

    def mb(kind, key):
        v = mem.get(kind, {}).get(key)
        return round(v / 1024, 1) if v else None

    def peak_rss(kind):
        return max(filter(None, [mb(kind + suffix, "rss_kb")
                                 for suffix in ("", ":cold", ":attached", ":background")]), default=None)

    tw_rss, rf_rss = peak_rss(TW), peak_rss(REF)
    extra("server peak RSS", tw_rss, rf_rss, "MB",
          ("holds" if tw_rss is not None and tw_rss <= 25 else "MISSES") + " (tabwire ≤25 MB)")
    extra("tree peak PSS (main run)", mb(TW, "pss_tree_kb"), mb(REF, "pss_tree_kb"), "MB")
    cpu = results["cpu"]
    if cpu.get(TW) and cpu.get(REF):
        extra("server CPU (main run)", cpu[TW]["server_s"], cpu[REF]["server_s"], "s")
        extra("tree CPU (main run)", cpu[TW]["tree_s"], cpu[REF]["tree_s"], "s")
    wasm = results.get("extension_wasm_bytes")
    if wasm:
        rows.append(("extension WASM", f"{wasm / 1024:.0f} KiB", "", "", "-", "", "", "", "",
                     "reported"))

    widths = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
    fmt = lambda row: "| " + " | ".join(str(x).ljust(w) for x, w in zip(row, widths)) + " |"
    lines.append(fmt(head))
    lines.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    lines.extend(fmt(r) for r in rows)
    return "\n".join(lines)


# -- main ---------------------------------------------------------------------------


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--tabwire", default=os.path.join(ROOT, "target/release/tabwire"))
    p.add_argument("--extension", default=os.path.join(ROOT, "dist/extension"))
    p.add_argument("--reference", required=True,
                   help="path to chrome-devtools-mcp's build/src/bin/chrome-devtools-mcp.js")
    p.add_argument("--node", default="/usr/bin/node")
    p.add_argument("--chromium", default="/usr/bin/chromium")
    p.add_argument("--reps", type=int, default=20, help="timed repetitions per step")
    p.add_argument("--cold", type=int, default=5, help="cold starts per server")
    p.add_argument("--attached", type=int, default=10,
                   help="cold starts per server with the browser already connected")
    p.add_argument("--timeout", type=float, default=60, help="seconds any one call may take")
    p.add_argument("--slow-timeout", type=float, default=120, help="for take_snapshot")
    p.add_argument("--start-timeout", type=float, default=90,
                   help="seconds for initialize and the first calls of a fresh server")
    p.add_argument("--deadline", type=float, default=1800, help="seconds for the whole run")
    p.add_argument("--out", default=os.path.join(ROOT, "bench", "results.json"))
    p.add_argument("--keep-logs", action="store_true", help="keep the servers' stderr logs")
    p.add_argument("--background-display", choices=("headful", "headless"),
                   default="headful",
                   help="how the front: and background: rows' browsers run: with windows "
                        "under a window manager on Xvfb, as users run them (default), or "
                        "headless")
    p.add_argument("--only", metavar="REGEX",
                   help="run only the rows whose names match (navigations later rows need "
                        "still run, once and untimed); for iterating, not for the record")
    args = p.parse_args()

    for path in (args.tabwire, args.reference, args.node, args.chromium):
        if not os.path.exists(path):
            sys.exit(f"bench: {path} does not exist")

    def on_signal(signum, _frame):
        raise KeyboardInterrupt(f"signal {signum}")

    def on_deadline(signum, _frame):
        raise TimeoutError(f"the whole run took longer than {args.deadline:.0f} s")

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGALRM, on_deadline)
    signal.alarm(int(args.deadline))

    logdir = tempfile.mkdtemp(prefix="tabwire-bench-")
    httpd, base = serve_fixtures()
    sampler = Sampler(0.25)
    sampler.start()
    chromium_version = subprocess.run([args.chromium, "--version"], capture_output=True,
                                      text=True, timeout=30).stdout.strip()
    results = {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                    "chromium": chromium_version, "loadavg_start": os.getloadavg()},
        "settings": {"reps": args.reps, "cold": args.cold, "attached": args.attached,
                     "only": args.only},
        "steps": {}, "tools": {}, "memory": {}, "cpu": {},
    }
    wasm = sorted(glob.glob(os.path.join(args.extension, "*.wasm")))
    results["extension_wasm_bytes"] = sum(os.path.getsize(w) for w in wasm)
    started = time.monotonic()
    status = 0
    try:
        if selected(args, "cold start"):
            cold_starts(args, logdir, base, sampler, results)
        if selected(args, ATTACHED):
            attached_starts(args, logdir, base, sampler, results)
        main_session(args, logdir, base, sampler, results)
        if any(selected(args, f"{where}: {name}") for where in ("front", "background")
               for name in FRONT_AND_BACK):
            background_session(args, logdir, base, sampler, results)
        if selected(args, "floor"):
            log("floor: raw CDP over a pipe to a plain Chromium (no MCP server, no extension)")
            flags = [f.split("=", 1)[1] for f in BROWSER_FLAGS]
            results["raw_cdp"] = cdp.floor(args.chromium, flags, base, args.reps,
                                           args.timeout)
            log(f"  {results['raw_cdp']}")
    except (McpError, TimeoutError, RuntimeError, KeyboardInterrupt) as e:
        log(f"bench: stopped: {e}")
        results["aborted"] = str(e)
        status = 130 if isinstance(e, KeyboardInterrupt) else 1
    finally:
        signal.alarm(0)
        sampler.stop()
        httpd.shutdown()
        results["memory"] = sampler.peaks
        results["memory_samples"] = sampler.samples
        results["machine"]["loadavg_end"] = os.getloadavg()
        results["seconds"] = round(time.monotonic() - started, 1)
        for step in results["steps"].values():
            for side in SERVERS:
                if side in step and "failures" in step[side] and step[side]["failures"]:
                    status = status or 2
        if args.keep_logs:
            log(f"server logs kept in {logdir}")
        else:
            for f in glob.glob(os.path.join(logdir, "*")):
                os.remove(f)
            os.rmdir(logdir)

    table = render(results)
    results["table"] = table
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(results, f, indent=1)
    print(table)
    print(f"\n{results['machine']['chromium']}, {os.cpu_count()} CPUs, load "
          f"{results['machine']['loadavg_start'][0]:.1f}→{results['machine']['loadavg_end'][0]:.1f}; "
          f"{results['seconds']:.0f} s; JSON: {args.out}")
    if results.get("raw_cdp"):
        print("raw CDP floor (pipe, no server): " + ", ".join(
            f"{k} {v}" for k, v in results["raw_cdp"].items()))
    if results.get("background_display"):
        print(f"front: and background: rows: {results['background_display']}")
    for kind, check in (results.get("checks") or {}).items():
        for what, outcome in check.items():
            print(f"check {kind}: {what}: {outcome}")
    if results.get("aborted"):
        print(f"ABORTED: {results['aborted']}")
    if status == 2:
        print("Some calls failed: see the FAIL cells and the 'errors' in the JSON.")
    return status


if __name__ == "__main__":
    sys.exit(main())
