//! The end-to-end harness: a fixture server on 127.0.0.1 (and the same fixtures from
//! a second site, for cross-site frames), and `tabwire mcp --launch` driven as an
//! agent would drive it, over MCP on stdio.
//!
//! Each [`Agent`] launches its own headless Chromium with a fresh profile, the real
//! extension and the real native host. Every wait is bounded and fails with a message
//! that says what was being waited for; nothing sleeps to synchronise.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::OnceLock;
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResult, ClientConfig};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::Value;
use tokio::process::{Child, Command};

use crate::cdp::Cdp;
use crate::display;

/// The name test agents give at MCP initialize unless told otherwise.
pub const AGENT_NAME: &str = "e2e-agent";

/// The name of the project folder each test's `tabwire` runs in (a fresh one per
/// agent), as agent clients start their MCP servers in the project's folder.
pub const AGENT_FOLDER: &str = "e2e-project";

/// How the browser shows an agent named `name` working in [`AGENT_FOLDER`].
pub fn agent_label(name: &str) -> String {
    format!("{name} · {AGENT_FOLDER}")
}

/// Longest any single MCP call may take in a test before it counts as hung.
pub const CALL_LIMIT: Duration = Duration::from_secs(60);

/// The flags a headless Chromium needs on these machines (root, closed network).
pub const BROWSER_FLAGS: &[&str] = &[
    "--chromeArg=--no-sandbox",
    "--chromeArg=--disable-gpu",
    "--chromeArg=--disable-quic",
    "--chromeArg=--disable-background-networking",
    "--chromeArg=--disable-component-update",
    "--chromeArg=--disable-sync",
];

/// The fixture pages, served once per test binary on an ephemeral loopback port.
pub fn fixtures() -> &'static str {
    static BASE: OnceLock<String> = OnceLock::new();
    BASE.get_or_init(|| format!("http://127.0.0.1:{}", serve_fixtures()))
}

/// The same fixture pages from a second origin, another site than [`fixtures`]:
/// `localhost` on a port of its own (Chrome counts `127.0.0.1` and `localhost` as
/// different sites, so a page from [`fixtures`] shows a frame from here in another
/// renderer process).
pub fn cross_site_fixtures() -> &'static str {
    static BASE: OnceLock<String> = OnceLock::new();
    BASE.get_or_init(|| format!("http://localhost:{}", serve_fixtures()))
}

/// A fixture page's URL on the second origin ([`cross_site_fixtures`]).
pub fn cross_site_page(name: &str) -> String {
    format!("{}/{name}", cross_site_fixtures())
}

/// Where fixture files built from sources in `tests/fixtures` go (`scripts/fixture-angular`),
/// served as if they were beside their sources.
pub fn built_fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/fixtures")
}

/// Serves `tests/fixtures` (and [`built_fixtures`] for files not there) on an
/// ephemeral loopback port, from a thread of its own; returns the port.
fn serve_fixtures() -> u16 {
    let server = tiny_http::Server::http("127.0.0.1:0").expect("bind fixture server");
    let port = server.server_addr().to_ip().expect("ip listener").port();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
    let built = built_fixtures();
    std::thread::spawn(move || {
        for request in server.incoming_requests() {
            let (root, built) = (root.clone(), built.clone());
            // Each request on a thread of its own, so a late one (`?delay=<ms>`, for
            // pages whose resources arrive slowly) holds up no other.
            std::thread::spawn(move || serve_one(request, &root, &built));
        }
    });
    port
}

/// Answers one fixture request, after `?delay=<ms>` when the URL asks for one.
fn serve_one(request: tiny_http::Request, root: &Path, built: &Path) {
    let delay = request
        .url()
        .split_once("delay=")
        .and_then(|(_, ms)| ms.split('&').next()?.parse::<u64>().ok());
    if let Some(ms) = delay {
        std::thread::sleep(std::time::Duration::from_millis(ms.min(10_000)));
    }
    let path = request
        .url()
        .split('?')
        .next()
        .unwrap_or("/")
        .trim_start_matches('/');
    let mut file = root.join(if path.is_empty() { "index.html" } else { path });
    if !file.exists() {
        file = built.join(path);
    }
    let response = match std::fs::read(&file) {
        Ok(bytes) => {
            let kind = match file.extension().and_then(|e| e.to_str()) {
                Some("html") => "text/html; charset=utf-8",
                Some("js") => "text/javascript",
                Some("json") => "application/json",
                Some("css") => "text/css",
                Some("png") => "image/png",
                Some("gif") => "image/gif",
                Some("webp") => "image/webp",
                Some("svg") => "image/svg+xml",
                _ => "application/octet-stream",
            };
            let mut response = tiny_http::Response::from_data(bytes)
                .with_header(tiny_http::Header::from_bytes("Content-Type", kind).expect("header"));
            if kind == "application/json" {
                // A session cookie from the server, for redaction checks.
                response.add_header(
                    tiny_http::Header::from_bytes("Set-Cookie", "token=server-secret")
                        .expect("header"),
                );
            }
            response
        }
        Err(_) => tiny_http::Response::from_string("not found").with_status_code(404),
    };
    let _ = request.respond(response);
}

/// A fixture page's URL.
pub fn page(name: &str) -> String {
    format!("{}/{name}", fixtures())
}

/// A fixture page's URL under another host name (mapped to loopback by
/// [`TEST_HOST_RULE`]), for origin checks.
pub fn page_on(host: &str, name: &str) -> String {
    fixtures().replace("127.0.0.1", host) + "/" + name
}

/// Makes `tabwire.test` resolve to loopback in the launched browser.
pub const TEST_HOST_RULE: &str = "--chromeArg=--host-resolver-rules=MAP tabwire.test 127.0.0.1";

/// Switches third-party developer tools on.
pub const THIRD_PARTY: &str = "--categoryExperimentalThirdParty=true";

/// Switches the WebMCP tools on.
pub const WEBMCP: &str = "--categoryExperimentalWebmcp=true";

/// Starts the launched browser with WebMCP (`document.modelContext`, Chromium 156's
/// `WebMCP` feature); only the tests of WebMCP use it.
pub const WEBMCP_BROWSER: &str = "--chromeArg=--enable-features=WebMCP";

/// The `tabwire` binary under test.
pub fn tabwire_exe() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_tabwire"))
}

/// The built extension folder (`scripts/build` makes it).
pub fn extension_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../dist/extension");
    assert!(
        dir.join("manifest.json").is_file(),
        "the extension is not built at {}: run scripts/build first",
        dir.display()
    );
    dir
}

/// An agent's session: a `tabwire mcp` process and the MCP client talking to it.
/// The agent's side of the MCP session: its `initialize` info, and a count of the
/// `notifications/tools/list_changed` the server sent.
struct TestClient {
    info: ClientConfig,
    tools_changed: tokio::sync::watch::Sender<u64>,
}

impl ClientHandler for TestClient {
    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.tools_changed.send_modify(|count| *count += 1);
    }
}

pub struct Agent {
    client: Option<RunningService<RoleClient, TestClient>>,
    /// How many `notifications/tools/list_changed` have arrived.
    tools_changed: tokio::sync::watch::Receiver<u64>,
    child: Child,
    /// The server's stderr, kept for failure messages.
    pub stderr_path: PathBuf,
    _stderr_dir: tempfile::TempDir,
    /// The launched browser's profile, when the test chose it (deleted when dropped).
    profile: Option<tempfile::TempDir>,
    /// Each tool's `outputSchema` from `tools/list` (`None`: it declares none).
    output_schemas: HashMap<String, Option<Value>>,
    /// The screen a headful browser draws on (dropped after the browser: fields drop
    /// in order, and `child` ends the browser).
    display: Option<display::Display>,
}

impl Agent {
    /// Starts `tabwire mcp --launch` with these extra arguments: headless, or with
    /// a window on a screen of its own when the run is headful ([`display::headful`]).
    pub async fn launch(extra: &[&str]) -> Agent {
        let mut args = vec!["mcp", "--launch"];
        args.extend_from_slice(BROWSER_FLAGS);
        args.extend_from_slice(extra);
        Agent::start_launching(args).await
    }

    /// Starts `tabwire mcp --launch` like [`Agent::launch`], with a profile the test
    /// owns and the browser's DevTools endpoint open, and connects a browser-level
    /// [`Cdp`] client to it: the test sees the same browser the agent drives.
    pub async fn launch_with_cdp(extra: &[&str]) -> (Agent, Cdp) {
        let profile = tempfile::Builder::new()
            .prefix("tabwire-e2e-profile-")
            .tempdir()
            .expect("temp profile");
        let user_data_dir = format!("--userDataDir={}", profile.path().display());
        let mut args = vec![
            "mcp",
            "--launch",
            "--chromeArg=--remote-debugging-port=0",
            &user_data_dir,
        ];
        args.extend_from_slice(BROWSER_FLAGS);
        args.extend_from_slice(extra);
        let mut agent = Agent::start_launching(args).await;
        let cdp = Cdp::connect(profile.path()).await;
        agent.profile = Some(profile);
        (agent, cdp)
    }

    /// Starts `tabwire mcp` with `args` (which launch a browser), adding `--headless`,
    /// or, in a headful run, a screen with a window manager for the browser.
    async fn start_launching(mut args: Vec<&str>) -> Agent {
        if !display::headful() {
            args.insert(2, "--headless");
            return Agent::start(&args, &[]).await;
        }
        let screen = display::Display::start();
        let mut agent = Agent::start(&args, &[("DISPLAY", screen.name())]).await;
        agent.display = Some(screen);
        agent
    }

    /// What a browser started again by the test (as the user would) needs in its
    /// environment to draw where this agent's did: `DISPLAY` in a headful run.
    pub fn browser_env(&self) -> Vec<(&'static str, String)> {
        self.display
            .iter()
            .map(|d| ("DISPLAY", d.name().to_owned()))
            .collect()
    }

    /// The launched browser's profile, for an agent from [`Agent::launch_with_cdp`].
    pub fn profile(&self) -> &Path {
        self.profile
            .as_ref()
            .expect("only an agent from Agent::launch_with_cdp has a known profile")
            .path()
    }

    /// The relay socket of this agent's launched browser: read from the native-host
    /// wrapper that `--launch` registers in the profile (`TABWIRE_SOCKET=...`). The
    /// socket exists once the extension has started its native host (after any
    /// successful tool call).
    pub fn relay_socket(&self) -> PathBuf {
        let manifest = self.profile().join("NativeMessagingHosts/dev.tabwire.json");
        let manifest: Value = serde_json::from_str(
            &std::fs::read_to_string(&manifest)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", manifest.display())),
        )
        .expect("native host manifest is JSON");
        let wrapper = manifest["path"].as_str().expect("manifest names a wrapper");
        let script = std::fs::read_to_string(wrapper)
            .unwrap_or_else(|e| panic!("cannot read the wrapper {wrapper}: {e}"));
        let quoted = script
            .lines()
            .find_map(|line| line.strip_prefix("TABWIRE_SOCKET="))
            .unwrap_or_else(|| panic!("the wrapper sets no TABWIRE_SOCKET:\n{script}"));
        // Quoted for /bin/sh.
        match shlex::split(quoted).as_deref() {
            Some([path]) => PathBuf::from(path),
            _ => panic!("unexpected quoting in {quoted}"),
        }
    }

    /// Starts a second `tabwire mcp` (no --launch) that connects to this agent's
    /// launched browser through its relay socket, as another agent on the same browser.
    pub async fn join(&self) -> Agent {
        self.join_as(None).await
    }

    /// Like [`Agent::join`], running the second server as another user
    /// (`Some((uid, gid))`); only root can.
    pub async fn join_as(&self, user: Option<(u32, u32)>) -> Agent {
        let socket = self.relay_socket();
        let socket = socket.to_str().expect("UTF-8 socket path");
        Agent::start_as(&["mcp"], &[("TABWIRE_SOCKET", socket)], user).await
    }

    /// Like [`Agent::join`], for an agent that calls itself `name` at MCP initialize.
    pub async fn join_named(&self, name: &str) -> Agent {
        let socket = self.relay_socket();
        let socket = socket.to_str().expect("UTF-8 socket path");
        Agent::start_with(&["mcp"], &[("TABWIRE_SOCKET", socket)], None, name).await
    }

    /// Like [`Agent::join_named`], its server started with `args` (after `mcp`).
    pub async fn join_named_with(&self, name: &str, args: &[&str]) -> Agent {
        let socket = self.relay_socket();
        let socket = socket.to_str().expect("UTF-8 socket path");
        let mut all = vec!["mcp"];
        all.extend_from_slice(args);
        Agent::start_with(&all, &[("TABWIRE_SOCKET", socket)], None, name).await
    }

    /// Like [`Agent::join_named`], its server started in a project folder named
    /// `folder` (another project than [`AGENT_FOLDER`]).
    pub async fn join_named_in(&self, name: &str, folder: &str) -> Agent {
        let socket = self.relay_socket();
        let socket = socket.to_str().expect("UTF-8 socket path");
        let env = [("TABWIRE_SOCKET", socket)];
        Agent::start_in(&tabwire_exe(), &["mcp"], &env, None, name, folder).await
    }

    /// Starts `tabwire` with these arguments and extra environment. A `tabwire mcp`
    /// gets `--experimentalStructuredContent` unless the arguments say otherwise, so
    /// that every result of every test is checked for complete structured content
    /// ([`crate::complete::check`]).
    pub async fn start(args: &[&str], env: &[(&str, &str)]) -> Agent {
        Agent::start_as(args, env, None).await
    }

    /// Like [`Agent::start`], as another user (`Some((uid, gid))`) when given.
    pub async fn start_as(args: &[&str], env: &[(&str, &str)], user: Option<(u32, u32)>) -> Agent {
        Agent::start_with(args, env, user, AGENT_NAME).await
    }

    /// Like [`Agent::start_as`], for an agent that calls itself `name` at MCP initialize.
    pub async fn start_with(
        args: &[&str],
        env: &[(&str, &str)],
        user: Option<(u32, u32)>,
        name: &str,
    ) -> Agent {
        Agent::start_program(&tabwire_exe(), args, env, user, name).await
    }

    /// Like [`Agent::start_with`], running the program `exe` (a copy of tabwire).
    pub async fn start_program(
        exe: &Path,
        args: &[&str],
        env: &[(&str, &str)],
        user: Option<(u32, u32)>,
        name: &str,
    ) -> Agent {
        Agent::start_in(exe, args, env, user, name, AGENT_FOLDER).await
    }

    /// Like [`Agent::start_program`], in a fresh project folder named `folder`.
    async fn start_in(
        exe: &Path,
        args: &[&str],
        env: &[(&str, &str)],
        user: Option<(u32, u32)>,
        name: &str,
        folder: &str,
    ) -> Agent {
        let stderr_dir = tempfile::tempdir().expect("temp dir");
        let stderr_path = stderr_dir.path().join("stderr.log");
        let stderr = std::fs::File::create(&stderr_path).expect("stderr file");
        let project = stderr_dir.path().join(folder);
        std::fs::create_dir(&project).expect("project folder");
        if user.is_some() {
            // Another user's program must be able to start in it.
            use std::os::unix::fs::PermissionsExt;
            for folder in [stderr_dir.path(), project.as_path()] {
                let open = std::fs::Permissions::from_mode(0o755);
                std::fs::set_permissions(folder, open).expect("open the project folder");
            }
        }
        let mut command = Command::new(exe);
        command.args(args).current_dir(&project);
        if args.first() == Some(&"mcp")
            && !args.iter().any(|a| {
                a.starts_with("--experimentalStructuredContent")
                    || a.starts_with("--experimental-structured-content")
            })
        {
            command.arg("--experimentalStructuredContent");
        }
        command
            .env("TABWIRE_LOG", "info")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .kill_on_drop(true);
        for (key, value) in env {
            command.env(key, value);
        }
        if let Some((uid, gid)) = user {
            command.uid(uid).gid(gid);
        }
        let mut child = command.spawn().expect("spawn tabwire");
        let stdout = child.stdout.take().expect("stdout");
        let stdin = child.stdin.take().expect("stdin");
        let mut info = ClientConfig::default();
        info.client_info.name = name.to_owned();
        let (tools_changed, tools_changed_seen) = tokio::sync::watch::channel(0);
        let handler = TestClient {
            info,
            tools_changed,
        };
        let client = tokio::time::timeout(CALL_LIMIT, handler.serve((stdout, stdin)))
            .await
            .expect("MCP initialize timed out")
            .expect("MCP initialize failed");
        let tools = tokio::time::timeout(CALL_LIMIT, client.list_all_tools())
            .await
            .expect("tools/list timed out")
            .expect("tools/list failed");
        let output_schemas = tools
            .into_iter()
            .map(|t| {
                let schema = t.output_schema.map(|s| Value::Object((*s).clone()));
                (t.name.to_string(), schema)
            })
            .collect();
        Agent {
            client: Some(client),
            tools_changed: tools_changed_seen,
            child,
            stderr_path,
            _stderr_dir: stderr_dir,
            profile: None,
            output_schemas,
            display: None,
        }
    }

    /// The reply to a call, checked for complete structured content.
    fn checked(&self, name: &str, result: CallToolResult) -> Reply {
        let reply = Reply::new(name, result);
        // Page tools come and go after the first tools/list; they declare the output
        // schema every tool does (page_tools.rs checks that they list one).
        let listed_as = match self.output_schemas.contains_key(name) {
            false if name.starts_with("page_") => "execute_3p_developer_tool",
            _ => name,
        };
        let schema = self.output_schemas.get(listed_as).and_then(Option::as_ref);
        crate::complete::check(&reply, schema);
        reply
    }

    /// How many `notifications/tools/list_changed` the server has sent so far.
    pub fn tools_changed_count(&self) -> u64 {
        *self.tools_changed.borrow()
    }

    /// Waits until more than `seen` `notifications/tools/list_changed` have arrived;
    /// returns the count. `what` names the change, for the failure message.
    pub async fn tools_changed_after(&self, seen: u64, what: &str) -> u64 {
        let mut changes = self.tools_changed.clone();
        let waited = tokio::time::timeout(CALL_LIMIT, changes.wait_for(|count| *count > seen));
        let count = match waited.await {
            Ok(Ok(count)) => *count,
            Ok(Err(_)) => panic!("the MCP session ended before tools/list_changed ({what})"),
            Err(_) => panic!(
                "no notifications/tools/list_changed within {CALL_LIMIT:?} after {what}; log:\n{}",
                self.log()
            ),
        };
        count
    }

    /// Every tool the server lists now, with its definition.
    pub async fn tools(&self) -> Vec<rmcp::model::Tool> {
        tokio::time::timeout(CALL_LIMIT, self.client().list_all_tools())
            .await
            .expect("tools/list timed out")
            .expect("tools/list failed")
    }

    fn client(&self) -> &RunningService<RoleClient, TestClient> {
        self.client.as_ref().expect("client is open")
    }

    /// The server's log so far, for assertion messages.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.stderr_path).unwrap_or_default()
    }

    /// Names of the tools the server offers.
    pub async fn tool_names(&self) -> Vec<String> {
        let tools = tokio::time::timeout(CALL_LIMIT, self.client().list_all_tools())
            .await
            .expect("tools/list timed out")
            .expect("tools/list failed");
        tools.into_iter().map(|t| t.name.to_string()).collect()
    }

    /// Calls a tool and returns its result, whatever it is.
    pub async fn call(&self, name: &str, args: Value) -> Reply {
        let mut params = CallToolRequestParams::new(name.to_string());
        if let Value::Object(map) = args {
            params = params.with_arguments(map);
        }
        let result = tokio::time::timeout(CALL_LIMIT, self.client().call_tool(params))
            .await
            .unwrap_or_else(|_| {
                panic!(
                    "{name} did not answer within {CALL_LIMIT:?}\nserver log:\n{}",
                    self.log()
                )
            })
            .unwrap_or_else(|e| {
                panic!(
                    "{name} failed at the protocol level: {e}\nserver log:\n{}",
                    self.log()
                )
            });
        self.checked(name, result)
    }

    /// Calls a tool, returning a protocol-level failure (the server died) as an error
    /// instead of failing the test.
    pub async fn try_call(&self, name: &str, args: Value) -> Result<Reply, String> {
        let mut params = CallToolRequestParams::new(name.to_string());
        if let Value::Object(map) = args {
            params = params.with_arguments(map);
        }
        match tokio::time::timeout(CALL_LIMIT, self.client().call_tool(params)).await {
            Ok(Ok(result)) => Ok(self.checked(name, result)),
            Ok(Err(e)) => Err(e.to_string()),
            Err(_) => panic!("{name} did not answer within {CALL_LIMIT:?}"),
        }
    }

    /// Calls a tool that must succeed.
    pub async fn ok(&self, name: &str, args: Value) -> Reply {
        let reply = self.call(name, args).await;
        assert!(
            !reply.is_error,
            "{name} failed:\n{}\nserver log:\n{}",
            reply.text,
            self.log()
        );
        reply
    }

    /// Calls a tool that must fail, returning its text.
    pub async fn err(&self, name: &str, args: Value) -> Reply {
        let reply = self.call(name, args).await;
        assert!(
            reply.is_error,
            "{name} should have failed but said:\n{}",
            reply.text
        );
        reply
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id().expect("server is running")
    }

    /// Sends `signal` to the server, its stdin still open (as an agent client stopping
    /// its server does), and waits up to `limit` for it to exit.
    pub async fn signal(mut self, signal: i32, limit: Duration) -> std::process::ExitStatus {
        let pid = self.pid();
        // SAFETY: kill(2) on our own child, which has not been reaped yet.
        unsafe { libc::kill(pid as i32, signal) };
        let status = tokio::time::timeout(limit, self.child.wait())
            .await
            .unwrap_or_else(|_| {
                panic!(
                    "tabwire mcp (pid {pid}) did not exit within {limit:?} of signal {signal}, \
                     its stdin open\nserver log:\n{}",
                    self.log()
                )
            })
            .expect("wait for tabwire mcp");
        // Only now: closing the client would close the server's stdin.
        drop(self.client.take());
        status
    }

    /// The folder of this agent's launched session (it holds the relay socket), from
    /// the server's log.
    pub fn session_folder(&self) -> PathBuf {
        let log = self.log();
        let socket = log
            .split_whitespace()
            .find_map(|word| word.strip_prefix("socket="))
            .unwrap_or_else(|| panic!("the server did not log its socket:\n{log}"));
        Path::new(socket)
            .parent()
            .expect("a socket in a folder")
            .to_path_buf()
    }

    /// Closes the agent's side of stdio, as an agent that quits does, and waits for the
    /// server to exit.
    pub async fn quit(mut self) -> std::process::ExitStatus {
        if let Some(client) = self.client.take() {
            let _ = client.cancel().await;
        }
        tokio::time::timeout(Duration::from_secs(20), self.child.wait())
            .await
            .expect("tabwire mcp did not exit within 20 s after its client closed")
            .expect("wait for tabwire mcp")
    }
}

/// A tool result, flattened for assertions.
#[derive(Debug)]
pub struct Reply {
    /// The tool called.
    pub tool: String,
    /// All text content joined.
    pub text: String,
    /// `structuredContent` (null if absent).
    pub json: Value,
    /// `isError`.
    pub is_error: bool,
    /// Image contents: (base64 data, MIME type).
    pub images: Vec<(String, String)>,
}

impl Reply {
    fn new(tool: &str, result: CallToolResult) -> Self {
        let text = result
            .content
            .iter()
            .filter_map(|c| c.as_text().map(|t| t.text.clone()))
            .collect::<Vec<_>>()
            .join("\n");
        let images = result
            .content
            .iter()
            .filter_map(|c| c.as_image().map(|i| (i.data.clone(), i.mime_type.clone())))
            .collect();
        Reply {
            tool: tool.to_string(),
            images,
            text,
            json: result.structured_content.unwrap_or(Value::Null),
            is_error: result.is_error.unwrap_or(false),
        }
    }

    /// Asserts the text contains `needle`.
    pub fn says(&self, needle: &str) -> &Self {
        assert!(
            self.text.contains(needle),
            "{} response should contain {needle:?}, got:\n{}",
            self.tool,
            self.text
        );
        self
    }

    /// Asserts the text does not contain `needle`.
    pub fn lacks(&self, needle: &str) -> &Self {
        assert!(
            !self.text.contains(needle),
            "{} response should not contain {needle:?}, got:\n{}",
            self.tool,
            self.text
        );
        self
    }

    /// The uid on the first snapshot line containing `needle`.
    pub fn uid_of(&self, needle: &str) -> String {
        self.text
            .lines()
            .find(|l| l.contains(needle) && is_snapshot_line(l))
            .and_then(|l| l.split_whitespace().next())
            .map(str::to_string)
            .unwrap_or_else(|| panic!("no snapshot line with {needle:?} in:\n{}", self.text))
    }

    /// The selected page's id from a response with a page list.
    pub fn selected_page(&self) -> i64 {
        self.json["pages"]
            .as_array()
            .and_then(|pages| pages.iter().find(|p| p["selected"] == true))
            .and_then(|p| p["id"].as_i64())
            .unwrap_or_else(|| panic!("no selected page in {}", self.text))
    }
}

/// Whether a line of text is a snapshot node: it starts (after indentation) with a
/// uid, `<snapshot>_<n>`.
pub fn is_snapshot_line(line: &str) -> bool {
    line.split_whitespace().next().is_some_and(|first| {
        first.split_once('_').is_some_and(|(a, b)| {
            !a.is_empty() && !b.is_empty() && a.bytes().chain(b.bytes()).all(|c| c.is_ascii_digit())
        })
    })
}

/// A process seen in /proc: its id, parent and command line.
#[derive(Debug, Clone)]
pub struct Process {
    /// Process id.
    pub pid: u32,
    /// Parent's process id.
    pub ppid: u32,
    /// Arguments, NUL-separated in /proc, joined with spaces here.
    pub cmdline: String,
    /// Exited but not yet reaped by its parent: gone in all but name.
    pub zombie: bool,
}

/// Every process on the machine.
pub fn processes() -> Vec<Process> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // The command name may contain spaces and parentheses: parse after the last ')'.
        let mut fields = stat.rsplit(')').next().unwrap_or("").split_whitespace();
        let zombie = fields.next() == Some("Z");
        let Some(ppid) = fields.next().and_then(|p| p.parse().ok()) else {
            continue;
        };
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        found.push(Process {
            pid,
            ppid,
            cmdline,
            zombie,
        });
    }
    found
}

/// Processes descending from `root` (not including it).
pub fn descendants(root: u32) -> Vec<Process> {
    let all = processes();
    let mut family = vec![root];
    let mut found = Vec::new();
    let mut grew = true;
    while grew {
        grew = false;
        for p in &all {
            if family.contains(&p.ppid) && !family.contains(&p.pid) {
                family.push(p.pid);
                found.push(p.clone());
                grew = true;
            }
        }
    }
    found
}
