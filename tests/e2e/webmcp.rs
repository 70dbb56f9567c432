//! WebMCP end to end: tools a page registers with `document.modelContext` (Chromium
//! started with `--enable-features=WebMCP`), listed and run through the extension's
//! debugger; those marked for debugging as third-party tools and page tools; bounds;
//! and the refusal in a browser without the feature. Pages open in background tabs.

use serde_json::{json, Value};

use crate::frames::frame_said;
use crate::harness::{
    cross_site_fixtures, cross_site_page, page, Agent, Reply, THIRD_PARTY, WEBMCP, WEBMCP_BROWSER,
};

const PAGE_TOOLS: &str = "--experimentalPageToolsAsMcpTools";

/// Opens the fixture `name` in a background tab, which becomes the selected page.
async fn open_behind(agent: &Agent, name: &str) -> Reply {
    agent
        .ok("new_page", json!({"url": page(name), "background": true}))
        .await
}

/// The names in a `webmcpTools` list.
fn names(list: &Value) -> Vec<String> {
    list.as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn webmcp_tools_are_listed_and_run_with_their_input() {
    let agent = Agent::launch(&[WEBMCP_BROWSER, WEBMCP]).await;
    open_behind(&agent, "index.html").await;
    agent
        .ok("list_webmcp_tools", json!({}))
        .await
        .says("No WebMCP tools available.");

    open_behind(&agent, "webmcp/tools.html").await;
    let listed = agent.ok("list_webmcp_tools", json!({})).await;
    listed
        .says("## WebMCP tools")
        .says("- add: Adds two numbers.")
        .lacks("inspect_state");
    let mut listed_names = names(&listed.json["webmcpTools"]);
    listed_names.sort();
    assert_eq!(listed_names, ["add", "boom", "bump", "hang", "leave"]);
    let add = listed.json["webmcpTools"]
        .as_array()
        .and_then(|tools| tools.iter().find(|t| t["name"] == "add"))
        .unwrap_or_else(|| panic!("no add in {}", listed.json));
    assert_eq!(add["annotations"]["readOnly"], true, "{add}");
    assert_eq!(add["inputSchema"]["required"], json!(["a", "b"]));

    let sum = agent
        .ok(
            "execute_webmcp_tool",
            json!({"toolName": "add", "input": "{\"a\": 2, \"b\": 3}"}),
        )
        .await;
    assert_eq!(
        sum.json["result"],
        json!({"status": "Completed", "output": {"sum": 5}}),
        "{}",
        sum.text
    );
    let bumped = agent
        .ok("execute_webmcp_tool", json!({"toolName": "bump"}))
        .await;
    assert_eq!(bumped.json["result"]["output"], "count is 1");

    let thrown = agent
        .ok("execute_webmcp_tool", json!({"toolName": "boom"}))
        .await;
    assert_eq!(thrown.json["result"]["status"], "Error");
    assert!(
        thrown.json["result"]["error"]
            .as_str()
            .is_some_and(|e| e.contains("kaboom")),
        "{}",
        thrown.text
    );

    agent
        .err("execute_webmcp_tool", json!({"toolName": "nope"}))
        .await
        .says("Tool nope not found");
    agent
        .err("execute_webmcp_tool", json!({"toolName": "inspect_state"}))
        .await
        .says("Tool inspect_state not found");
    agent
        .err(
            "execute_webmcp_tool",
            json!({"toolName": "add", "input": "{bad"}),
        )
        .await
        .says("Failed to parse input as JSON: ");
    agent
        .err(
            "execute_webmcp_tool",
            json!({"toolName": "add", "input": "[1]"}),
        )
        .await
        .says("Failed to parse input as JSON: Parsed input is not an object");

    // A tool that never answers is cancelled, and the page runs tools again after.
    agent
        .err(
            "execute_webmcp_tool",
            json!({"toolName": "hang", "timeout": 500}),
        )
        .await
        .says("did not answer within 500 ms")
        .says("cancelled");
    let again = agent
        .ok("execute_webmcp_tool", json!({"toolName": "bump"}))
        .await;
    assert_eq!(again.json["result"]["output"], "count is 2");

    // The page navigating mid-run ends the run at once.
    agent
        .err("execute_webmcp_tool", json!({"toolName": "leave"}))
        .await
        .says("navigated away while the command ran");
    let after = agent.ok("list_webmcp_tools", json!({})).await;
    assert_eq!(names(&after.json["webmcpTools"]).len(), 5, "{}", after.text);
    let fresh = agent
        .ok("execute_webmcp_tool", json!({"toolName": "bump"}))
        .await;
    assert_eq!(
        fresh.json["result"]["output"], "count is 1",
        "a new document"
    );
    agent.quit().await;
}

#[tokio::test]
async fn webmcp_tools_marked_for_debugging_are_third_party_tools() {
    let agent = Agent::launch(&[WEBMCP_BROWSER, THIRD_PARTY]).await;
    assert!(
        !agent
            .tool_names()
            .await
            .contains(&"list_webmcp_tools".to_owned()),
        "WebMCP's own tools stay off without their category"
    );
    open_behind(&agent, "webmcp/tools.html").await;
    let listed = agent.ok("list_3p_developer_tools", json!({})).await;
    listed
        .says("### WebMCP Tools (WebMCP)")
        .says("Tools exposed via WebMCP")
        .says("- inspect_state: Reports the page state (a developer tool).")
        .says("  annotations: {")
        .lacks("- add:");
    let group = &listed.json["thirdPartyDeveloperTools"][0];
    assert_eq!(group["name"], "WebMCP Tools");
    assert_eq!(group["webmcp"], true);
    assert_eq!(group["tools"][0]["annotations"]["debugging"], true);

    let state = agent
        .ok(
            "execute_3p_developer_tool",
            json!({"toolName": "inspect_state", "params": "{\"detail\": true}"}),
        )
        .await;
    assert_eq!(state.json["result"], json!({"count": 0, "detail": true}));
    agent
        .err(
            "execute_3p_developer_tool",
            json!({"toolName": "crash_state"}),
        )
        .await
        .says("state is broken");
    agent
        .err(
            "execute_3p_developer_tool",
            json!({"toolName": "inspect_state", "params": "{\"detail\": 3}"}),
        )
        .await
        .says("Invalid parameters for tool inspect_state");
    agent.quit().await;
}

#[tokio::test]
async fn webmcp_registrations_change_the_page_tools() {
    let agent = Agent::launch(&[WEBMCP_BROWSER, THIRD_PARTY, PAGE_TOOLS]).await;
    let seen = agent.tools_changed_count();
    open_behind(&agent, "webmcp/tools.html").await;
    let seen = agent
        .tools_changed_after(seen, "opening webmcp/tools.html")
        .await;
    assert_eq!(
        agent.page_tool_names().await,
        [
            "page_WebMCP_Tools_crash_state",
            "page_WebMCP_Tools_inspect_state"
        ]
    );
    let state = agent
        .ok("page_WebMCP_Tools_inspect_state", json!({"detail": true}))
        .await;
    assert_eq!(state.json["result"], json!({"count": 0, "detail": true}));

    agent
        .ok(
            "evaluate_script",
            json!({"function": "() => addDebugTool('late_tool')"}),
        )
        .await;
    let seen = agent
        .tools_changed_after(seen, "the page registering late_tool")
        .await;
    agent
        .expect_page_tool("page_WebMCP_Tools_late_tool", true)
        .await;
    let late = agent.ok("page_WebMCP_Tools_late_tool", json!({})).await;
    assert_eq!(late.json["result"], "late_tool");

    agent
        .ok(
            "evaluate_script",
            json!({"function": "() => removeDebugTool('late_tool')"}),
        )
        .await;
    agent
        .tools_changed_after(seen, "the page removing late_tool")
        .await;
    assert_eq!(
        agent.page_tool_names().await,
        [
            "page_WebMCP_Tools_crash_state",
            "page_WebMCP_Tools_inspect_state"
        ]
    );
    agent.quit().await;
}

#[tokio::test]
async fn hostile_webmcp_registrations_are_bounded() {
    let agent = Agent::launch(&[WEBMCP_BROWSER, WEBMCP, THIRD_PARTY, PAGE_TOOLS]).await;
    open_behind(&agent, "webmcp/hostile.html").await;
    let listed = agent.ok("list_3p_developer_tools", json!({})).await;
    let problems = &listed.json["thirdPartyToolProblems"];
    let heavy = "WebMCP tool \"schema_heavy\" left out: its input schema is over";
    assert!(
        problems.as_array().is_some_and(|p| p
            .iter()
            .any(|p| p.as_str().is_some_and(|p| p.starts_with(heavy)))),
        "{problems}"
    );
    let tools = &listed.json["thirdPartyDeveloperTools"][0]["tools"];
    // A 300-character name: Chromium refuses it itself, or tabwire leaves it out.
    let short = |t: &Value| t["name"].as_str().is_some_and(|n| n.len() <= 256);
    assert!(
        tools.as_array().is_some_and(|t| t.iter().all(short)),
        "{tools}"
    );
    let wordy = tools
        .as_array()
        .and_then(|t| t.iter().find(|t| t["name"] == "wordy"))
        .unwrap_or_else(|| panic!("no wordy tool in {tools}"));
    assert!(wordy["description"].as_str().unwrap_or_default().len() <= 4_004);

    // None is for end users: list_webmcp_tools has nothing, and says what was left out.
    let own = agent.ok("list_webmcp_tools", json!({})).await;
    own.says("No WebMCP tools available.")
        .says("Problems with what the page registered:");

    let offered = agent.tools().await;
    let page_tools: Vec<_> = offered
        .iter()
        .filter(|t| t.name.starts_with("page_"))
        .collect();
    assert!(page_tools.len() <= 64, "{}", page_tools.len());
    for tool in &page_tools {
        assert!(tool.name.len() <= 64, "{}", tool.name);
        assert!(
            tool.name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_'),
            "{}",
            tool.name
        );
        assert!(
            tool.description
                .as_deref()
                .unwrap_or_default()
                .chars()
                .count()
                <= 1_400,
            "{}",
            tool.name
        );
    }
    let mid = page_tools
        .iter()
        .find(|t| t.name == "page_WebMCP_Tools_a_schema_mid")
        .expect("a_schema_mid is offered");
    assert!(
        mid.input_schema
            .get("properties")
            .is_none_or(|p| p.as_object().is_some_and(|p| p.len() < 500)),
        "a schema too big to list is replaced: {:?}",
        mid.input_schema
    );
    agent.quit().await;
}

#[tokio::test]
async fn a_browser_without_webmcp_is_refused_naming_the_feature() {
    let agent = Agent::launch(&[WEBMCP, THIRD_PARTY]).await;
    open_behind(&agent, "webmcp/tools.html").await;
    agent
        .err("list_webmcp_tools", json!({}))
        .await
        .says("WebMCP is not available in this browser")
        .says("--enable-features=WebMCP");
    agent
        .err("execute_webmcp_tool", json!({"toolName": "add"}))
        .await
        .says("--enable-features=WebMCP");
    // Third-party tools do without: no WebMCP group, no complaint.
    let listed = agent.ok("list_3p_developer_tools", json!({})).await;
    listed
        .lacks("WebMCP")
        .says("exposes no third-party developer tools");
    agent.quit().await;
}

/// Opens `frames/cross-site.html` in a background tab with `webmcp/frame-tools.html`
/// of another site (`localhost`) as its cross-site frame, and waits for the frame.
async fn open_with_frame_tools(agent: &Agent) {
    let inner = cross_site_page("webmcp/frame-tools.html");
    let url = format!("{}?inner={inner}", page("frames/cross-site.html"));
    agent
        .ok("new_page", json!({"url": url, "background": true}))
        .await;
    frame_said(agent, "loaded /webmcp/frame-tools.html").await;
}

/// WebMCP is per target: a cross-site frame's tools are listed from its own debugging
/// session, each marked with the frame, and run there; its debugging tools are
/// third-party tools and page tools.
#[tokio::test]
async fn a_cross_site_frames_webmcp_tools_are_listed_and_run_in_the_frame() {
    let agent = Agent::launch(&[WEBMCP_BROWSER, WEBMCP, THIRD_PARTY, PAGE_TOOLS]).await;
    open_with_frame_tools(&agent).await;
    let listed = agent.ok("list_webmcp_tools", json!({})).await;
    let origin = cross_site_fixtures();
    listed
        .says("- frame_echo: Echoes its text")
        .says(&format!("  frame: the cross-site frame {origin} (frameId "))
        .lacks("frame_state");
    let tools = listed.json["webmcpTools"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let echo = tools
        .iter()
        .find(|t| t["name"] == "frame_echo")
        .unwrap_or_else(|| panic!("no frame_echo in {}", listed.text));
    assert_eq!(echo["frame"]["origin"], origin, "{echo}");
    assert_eq!(echo["frame"]["crossSite"], true, "{echo}");
    assert!(echo["frame"]["id"].is_string(), "{echo}");
    let ran = agent
        .ok(
            "execute_webmcp_tool",
            json!({"toolName": "frame_echo", "input": "{\"text\": \"hi\"}"}),
        )
        .await;
    assert_eq!(
        ran.json["result"],
        json!({"status": "Completed", "output": {"echo": "hi", "origin": origin}}),
        "{}",
        ran.text
    );
    // frameId picks a frame's tool by name; another frame has none of that name.
    let frame = echo["frame"]["id"].as_str().unwrap_or_default();
    let bumped = agent
        .ok(
            "execute_webmcp_tool",
            json!({"toolName": "bump", "frameId": frame}),
        )
        .await;
    assert_eq!(
        bumped.json["result"]["output"],
        format!("frame bump at {origin}")
    );
    agent
        .err(
            "execute_webmcp_tool",
            json!({"toolName": "bump", "frameId": "nowhere"}),
        )
        .await
        .says("Tool bump not found in frame nowhere");

    // The frame's debugging tool is a third-party tool, and a page tool, saying
    // where it comes from.
    let listed = agent.ok("list_3p_developer_tools", json!({})).await;
    listed.says(&format!(
        "- frame_state: Reports the frame state (a developer tool). (registered by the \
         cross-site frame {origin})"
    ));
    let state = agent
        .ok(
            "execute_3p_developer_tool",
            json!({"toolName": "frame_state"}),
        )
        .await;
    assert_eq!(state.json["result"], json!({"frame": origin}));
    agent
        .expect_page_tool("page_WebMCP_Tools_frame_state", true)
        .await;
    let state = agent.ok("page_WebMCP_Tools_frame_state", json!({})).await;
    assert_eq!(state.json["result"], json!({"frame": origin}));
    assert_eq!(
        agent.evaluate("() => document.visibilityState").await,
        "hidden"
    );
    agent.quit().await;
}

/// A cross-site frame that comes after the page loaded: its tools join the page's in
/// the listing (its debugging tool the page tools, announced with tools/list_changed),
/// a name both have runs the page's unless the frame is named, and the frame's tools
/// leave with it.
#[tokio::test]
async fn a_frame_added_later_brings_its_webmcp_tools_and_takes_them_away() {
    let agent = Agent::launch(&[WEBMCP_BROWSER, WEBMCP, THIRD_PARTY, PAGE_TOOLS]).await;
    let seen = agent.tools_changed_count();
    open_behind(&agent, "webmcp/tools.html").await;
    let seen = agent
        .tools_changed_after(seen, "opening webmcp/tools.html")
        .await;
    agent
        .ok("list_webmcp_tools", json!({}))
        .await
        .says("- bump: Counts up")
        .lacks("frame_echo");
    // The frame, added by the page; resolved when it says it loaded (within 10 s).
    let inner = cross_site_page("webmcp/frame-tools.html");
    let add = format!(
        "() => new Promise((loaded, failed) => {{
           addEventListener('message', (e) => {{ if (String(e.data).startsWith('loaded')) loaded(e.data); }});
           setTimeout(() => failed(new Error('the frame never loaded')), 10000);
           const frame = document.createElement('iframe');
           frame.id = 'late'; frame.allow = 'tools'; frame.src = {};
           document.body.append(frame);
         }})",
        json!(inner)
    );
    agent
        .ok("evaluate_script", json!({ "function": add }))
        .await
        .says("loaded /webmcp/frame-tools.html");
    let seen = agent
        .tools_changed_after(seen, "a cross-site frame registering frame_state")
        .await;
    agent
        .expect_page_tool("page_WebMCP_Tools_frame_state", true)
        .await;
    agent
        .ok("list_webmcp_tools", json!({}))
        .await
        .says("- frame_echo: Echoes its text");
    let ran = agent
        .ok(
            "execute_webmcp_tool",
            json!({"toolName": "frame_echo", "input": "{\"text\": \"late\"}"}),
        )
        .await;
    assert_eq!(ran.json["result"]["output"]["echo"], "late", "{}", ran.text);
    // Both have a bump: without a frame, the page's runs; with the frame's id, the
    // frame's.
    let bumped = agent
        .ok("execute_webmcp_tool", json!({"toolName": "bump"}))
        .await;
    assert_eq!(
        bumped.json["result"]["output"], "count is 1",
        "{}",
        bumped.text
    );
    let listed = agent.ok("list_webmcp_tools", json!({})).await;
    let frame = listed.json["webmcpTools"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|t| t["name"] == "bump" && t["frame"]["crossSite"] == true)
        .and_then(|t| t["frame"]["id"].as_str())
        .unwrap_or_else(|| panic!("the frame's bump is listed: {}", listed.text))
        .to_owned();
    let bumped = agent
        .ok(
            "execute_webmcp_tool",
            json!({"toolName": "bump", "frameId": frame}),
        )
        .await;
    assert_eq!(
        bumped.json["result"]["output"],
        format!("frame bump at {}", cross_site_fixtures()),
        "{}",
        bumped.text
    );

    // The frame goes: so do its tools.
    agent
        .ok(
            "evaluate_script",
            json!({"function": "() => { document.getElementById('late').remove(); return true; }"}),
        )
        .await;
    agent
        .tools_changed_after(seen, "the cross-site frame leaving")
        .await;
    agent
        .expect_page_tool("page_WebMCP_Tools_frame_state", false)
        .await;
    agent
        .ok("list_webmcp_tools", json!({}))
        .await
        .lacks("frame_echo");
    assert_eq!(
        agent.evaluate("() => document.visibilityState").await,
        "hidden"
    );
    agent.quit().await;
}
