//! The demo behind `scripts/demo`: an agent-style MCP session against a real page.
//!
//! Serves the bundled demo page on 127.0.0.1, starts `tabwire mcp --launch` (its own
//! Chromium with the tabwire extension) and talks MCP to it over stdio like an agent,
//! printing every call and its result. `--headed` shows the browser window.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, ClientConfig};
use rmcp::ServiceExt;
use serde_json::{json, Value};

type Error = Box<dyn std::error::Error + Send + Sync>;

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

#[tokio::main]
async fn main() -> Result<(), Error> {
    let headed = std::env::args().any(|a| a == "--headed");
    let page_dir: &'static Path = Box::leak(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples/demo-page")
            .into_boxed_path(),
    );
    let base = serve(page_dir)?;

    let tabwire = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/debug/tabwire");
    let mut command = tokio::process::Command::new(&tabwire);
    command.args(["mcp", "--launch"]);
    if !headed {
        command.arg("--headless");
    }
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
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
    println!(
        "$ {} mcp --launch{}",
        tabwire.display(),
        if headed { "" } else { " --headless" }
    );
    let mut child = command.spawn()?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let stdin = child.stdin.take().ok_or("no stdin")?;
    let client = ClientConfig::default().serve((stdout, stdin)).await?;
    if let Some(server) = client.peer_info().and_then(|info| info.server_info.clone()) {
        println!("connected to {} {}", server.name, server.version);
    }

    let call = |tool: &'static str, args: Value| {
        let client = &client;
        async move {
            println!("\n>>> {tool} {args}");
            let mut params = CallToolRequestParams::new(tool);
            if let Value::Object(map) = args {
                params = params.with_arguments(map);
            }
            let result =
                tokio::time::timeout(Duration::from_secs(60), client.call_tool(params)).await??;
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
                return Err::<String, Error>(format!("{tool} failed").into());
            }
            Ok(text)
        }
    };

    call("list_pages", json!({})).await?;
    call("new_page", json!({"url": format!("{base}/index.html")})).await?;
    call(
        "evaluate_script",
        json!({"function": "() => document.title"}),
    )
    .await?;
    let snapshot = call("take_snapshot", json!({})).await?;
    let button = snapshot
        .lines()
        .find(|l| l.contains("button \"Add another tea\""))
        .and_then(|l| l.split_whitespace().next())
        .ok_or("the snapshot has no \"Add another tea\" button")?
        .to_string();
    call("click", json!({"uid": button, "includeSnapshot": true})).await?;
    call(
        "evaluate_script",
        json!({"function": "() => ({ cart: window.shop.cart, total: window.shop.total })"}),
    )
    .await?;
    call("list_console_messages", json!({})).await?;
    let shot = std::env::temp_dir().join(format!("tabwire-demo-{}.png", std::process::id()));
    call("take_screenshot", json!({"filePath": shot})).await?;
    call("list_pages", json!({})).await?;
    client.cancel().await?;
    let status = tokio::time::timeout(Duration::from_secs(20), child.wait()).await??;
    println!("\ntabwire exited ({status}); its browser and temporary profile are gone.");
    Ok(())
}
