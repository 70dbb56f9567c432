//! The demo behind `scripts/demo`: an agent-style MCP session against a real page.
//!
//! Serves the bundled demo page (a todo list that offers its state and actions as
//! third-party developer tools) on 127.0.0.1, starts `tabwire mcp --launch
//! --categoryExperimentalThirdParty=true` (its own Chromium with the tabwire extension)
//! and talks MCP to it over stdio like an agent, printing every call and its result.
//! Each step checks that its result shows what it should (the page's tools, an element
//! uid, the state after a click), so a broken chain exits non-zero instead of printing a
//! plausible transcript. It reads only the text content, which every client passes on.
//! `--headed` shows the browser window.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, ClientConfig};
use rmcp::{Peer, RoleClient, ServiceExt};
use serde_json::{json, Value};

type Error = Box<dyn std::error::Error + Send + Sync>;

/// The item the demo finds with a page tool and then ticks off by its uid.
const ITEM: &str = "Buy milk";
/// What the demo asks the page's `find_item` tool for.
const FIND: &str = "milk";
/// The item the demo adds from `evaluate_script`.
const ADD: &str = "Call the plumber";

/// Serves `dir` on an ephemeral loopback port; returns the base URL.
fn serve(dir: &'static Path) -> Result<String, Error> {
    let server = tiny_http::Server::http("127.0.0.1:0")?;
    let port = server.server_addr().to_ip().ok_or("no ip address")?.port();
    std::thread::spawn(move || {
        for request in server.incoming_requests() {
            let file = dir.join(request.url().trim_start_matches('/'));
            let response = match std::fs::read(file) {
                Ok(body) => tiny_http::Response::from_data(body),
                Err(_) => {
                    tiny_http::Response::from_data(b"not found".to_vec()).with_status_code(404)
                }
            };
            let _ = request.respond(response);
        }
    });
    Ok(format!("http://127.0.0.1:{port}"))
}

/// Fails with `what` unless `text` contains `needle`.
fn expect(text: &str, needle: &str, what: &str) -> Result<(), Error> {
    if text.contains(needle) {
        Ok(())
    } else {
        Err(format!("{what}: the result lacks {needle:?}").into())
    }
}

/// The JSON value a response shows under `## <heading>` (a ```json block).
fn json_section(text: &str, heading: &str) -> Result<Value, Error> {
    let missing = || format!("the result has no JSON under \"## {heading}\"");
    let (_, after) = text
        .split_once(&format!("## {heading}\n"))
        .ok_or_else(missing)?;
    let (_, body) = after.split_once("```json\n").ok_or_else(missing)?;
    let (body, _) = body.split_once("\n```").ok_or_else(missing)?;
    Ok(serde_json::from_str(body)?)
}

/// Whether the todo `state` (as `get_state` returns it) has an item containing `text`
/// with `done` as given.
fn has_item(state: &Value, text: &str, done: bool) -> bool {
    state["items"].as_array().is_some_and(|items| {
        items.iter().any(|item| {
            item["text"].as_str().is_some_and(|t| t.contains(text)) && item["done"] == done
        })
    })
}

/// Calls `tool` as an agent would, printing the call and the text of its result; an
/// error result fails the demo. Returns the text.
async fn call(peer: &Peer<RoleClient>, tool: &'static str, args: Value) -> Result<String, Error> {
    println!("\n>>> {tool} {args}");
    let mut params = CallToolRequestParams::new(tool);
    if let Value::Object(map) = args {
        params = params.with_arguments(map);
    }
    let result = tokio::time::timeout(Duration::from_secs(60), peer.call_tool(params)).await??;
    let mut text = String::new();
    for content in &result.content {
        if let Some(t) = content.as_text() {
            text.push_str(&t.text);
        } else if let Some(image) = content.as_image() {
            text.push_str(&format!(
                "(an inline {} image, {} base64 characters)",
                image.mime_type,
                image.data.len()
            ));
        }
    }
    println!("{}", text.trim_end());
    if result.is_error == Some(true) {
        return Err(format!("{tool} returned an error").into());
    }
    Ok(text)
}

/// The session proper: each step checks that its result shows what it should.
async fn session(peer: &Peer<RoleClient>, base: &str) -> Result<(), Error> {
    call(peer, "list_pages", json!({})).await?;

    // Opening the page lists its tools on the way.
    let opened = call(
        peer,
        "new_page",
        json!({"url": format!("{base}/index.html")}),
    )
    .await?;
    expect(
        &opened,
        "### Todos",
        "new_page did not list the page's tools",
    )?;

    let listed = call(peer, "list_3p_developer_tools", json!({})).await?;
    for tool in ["get_state", "find_item", "add_item"] {
        expect(&listed, &format!("- {tool}: "), "list_3p_developer_tools")?;
    }

    let snapshot = call(peer, "take_snapshot", json!({})).await?;
    expect(&snapshot, &format!("checkbox \"{ITEM}\""), "take_snapshot")?;

    let state = call(
        peer,
        "execute_3p_developer_tool",
        json!({"toolName": "get_state", "params": "{}"}),
    )
    .await?;
    let state = json_section(&state, "Tool result")?;
    if !has_item(&state, ITEM, false) {
        return Err(format!("get_state: no open {ITEM:?} item in {state}").into());
    }

    // A tool that returns an element: the agent gets its uid, and a snapshot holding it.
    let found = call(
        peer,
        "execute_3p_developer_tool",
        json!({"toolName": "find_item", "params": json!({"text": FIND}).to_string()}),
    )
    .await?;
    let uid = json_section(&found, "Tool result")?["uid"]
        .as_str()
        .ok_or("find_item: the result is not an element uid")?
        .to_string();
    let in_snapshot = found
        .split_once("## Page snapshot")
        .is_some_and(|(_, tree)| {
            tree.lines()
                .any(|l| l.trim_start().starts_with(&format!("{uid} checkbox")))
        });
    if !in_snapshot {
        return Err(format!("find_item: the response's snapshot has no checkbox {uid}").into());
    }

    // That uid works with every other tool.
    call(peer, "click", json!({"uid": uid, "includeSnapshot": true})).await?;

    // Two tools composed in one script: add an item, then read the whole state.
    let script = format!(
        "async () => {{\n  await window.__dtmcp.executeTool('add_item', {{ text: {} }});\n  \
         return window.__dtmcp.executeTool('get_state', {{}});\n}}",
        json!(ADD)
    );
    let composed = call(peer, "evaluate_script", json!({ "function": script })).await?;
    let state = json_section(&composed, "Script result")?;
    if !has_item(&state, ITEM, true) {
        return Err(format!("the click did not tick off {ITEM:?}: {state}").into());
    }
    if !has_item(&state, ADD, false) {
        return Err(format!("add_item did not add {ADD:?}: {state}").into());
    }

    let console = call(peer, "list_console_messages", json!({})).await?;
    expect(
        &console,
        &format!("\"{ITEM}\" is now done"),
        "list_console_messages",
    )?;
    expect(
        &console,
        &format!("added \"{ADD}\""),
        "list_console_messages",
    )?;

    let shot = std::env::temp_dir().join(format!("tabwire-demo-{}.png", std::process::id()));
    call(peer, "take_screenshot", json!({"filePath": shot})).await?;
    let bytes = std::fs::metadata(&shot).map(|m| m.len()).unwrap_or(0);
    if bytes == 0 {
        return Err(format!("take_screenshot: nothing was saved to {}", shot.display()).into());
    }

    Ok(())
}

/// Runs the demo; any failed step ends it with a message and exit status 1.
#[tokio::main]
async fn main() {
    if let Err(e) = run().await {
        eprintln!("\ndemo FAILED: {e}");
        std::process::exit(1);
    }
}

/// Serves the page, starts tabwire, runs the session and shuts tabwire down.
async fn run() -> Result<(), Error> {
    let headed = std::env::args().any(|a| a == "--headed");
    let page_dir: &'static Path = Box::leak(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples/demo-page")
            .into_boxed_path(),
    );
    let base = serve(page_dir)?;

    let tabwire = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/debug/tabwire");
    let mut shown = vec!["mcp", "--launch"];
    if !headed {
        shown.push("--headless");
    }
    shown.push("--categoryExperimentalThirdParty=true");
    let mut command = tokio::process::Command::new(&tabwire);
    command.args(&shown);
    if running_as_root() {
        // Chromium refuses to run as root without this.
        command.arg("--chromeArg=--no-sandbox");
    }
    command.args([
        "--chromeArg=--disable-gpu",
        "--chromeArg=--no-first-run",
        "--chromeArg=--disable-background-networking",
        "--chromeArg=--disable-component-update",
        "--chromeArg=--disable-sync",
    ]);
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .kill_on_drop(true);
    println!("$ {} {}", tabwire.display(), shown.join(" "));
    let mut child = command.spawn()?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let stdin = child.stdin.take().ok_or("no stdin")?;
    let client = ClientConfig::default().serve((stdout, stdin)).await?;
    if let Some(server) = client.peer_info().and_then(|info| info.server_info.clone()) {
        println!("connected to {} {}", server.name, server.version);
    }

    // Shut tabwire down (and with it its browser) whether or not every step passed.
    let outcome = session(client.peer(), &base).await;
    client.cancel().await?;
    let status = tokio::time::timeout(Duration::from_secs(20), child.wait()).await??;
    println!("\ntabwire exited ({status}); its browser and temporary profile are gone.");
    outcome?;
    println!("demo OK: every step showed what it should.");
    Ok(())
}

/// Whether this runs as root (never on Windows).
fn running_as_root() -> bool {
    #[cfg(unix)]
    {
        // SAFETY: geteuid has no preconditions.
        unsafe { libc::geteuid() == 0 }
    }
    #[cfg(not(unix))]
    {
        false
    }
}
