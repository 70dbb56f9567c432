//! The selected page's developer tools as MCP tools of their own
//! (`--experimentalPageToolsAsMcpTools`): they follow navigation with
//! `notifications/tools/list_changed`, take typed arguments and run like
//! `execute_3p_developer_tool`.

use serde_json::json;

use crate::harness::{tabwire_exe, Agent, THIRD_PARTY};

const PAGE_TOOLS: &str = "--experimentalPageToolsAsMcpTools";

#[tokio::test]
async fn page_tools_follow_navigation_and_take_typed_arguments() {
    let agent = Agent::launch(&[THIRD_PARTY, PAGE_TOOLS]).await;
    assert!(
        agent.page_tool_names().await.is_empty(),
        "none before discovery"
    );

    let seen = agent.tools_changed_count();
    agent.open("3p/add.html").await;
    let seen = agent
        .tools_changed_after(seen, "navigating to 3p/add.html")
        .await;
    let tools = agent.tools().await;
    let add = tools
        .iter()
        .find(|t| t.name == "page_Page_specific_DevTools_add")
        .unwrap_or_else(|| {
            panic!(
                "no page tool for add in {:?}",
                tools.iter().map(|t| &t.name).collect::<Vec<_>>()
            )
        });
    assert_eq!(add.input_schema["required"], json!(["a", "b"]));
    let execute = tools.iter().find(|t| t.name == "execute_3p_developer_tool");
    assert_eq!(
        add.output_schema,
        execute.and_then(|t| t.output_schema.clone()),
        "the output schema every tool declares"
    );
    assert_eq!(add.input_schema["properties"]["a"]["type"], "number");
    let description = add.description.as_deref().unwrap_or_default();
    assert!(
        description.contains("offered by the page http://127.0.0.1")
            && description.contains("Calculates the sum of two numbers."),
        "{description}"
    );

    // Typed arguments, not a JSON string; the result is the tool's.
    let sum = agent
        .ok("page_Page_specific_DevTools_add", json!({"a": 2, "b": 3}))
        .await;
    sum.says("# page_Page_specific_DevTools_add response");
    assert_eq!(sum.json["result"], 5, "{}", sum.text);
    agent
        .err(
            "page_Page_specific_DevTools_add",
            json!({"a": "two", "b": 3}),
        )
        .await
        .says("Invalid parameters for tool add: ")
        .says("at /a: ");

    // Another page, other tools: the list changes, a clashing name runs its own group.
    agent.open("3p/groups.html").await;
    let seen = agent
        .tools_changed_after(seen, "navigating to 3p/groups.html")
        .await;
    assert_eq!(
        agent.page_tool_names().await,
        [
            "page_Router_currentRoute",
            "page_Store_getState",
            "page_Store_status",
            "page_Telemetry_status"
        ]
    );
    let status = agent.ok("page_Telemetry_status", json!({})).await;
    assert_eq!(status.json["result"], "telemetry ok", "{}", status.text);
    agent
        .err("page_Page_specific_DevTools_add", json!({"a": 1, "b": 2}))
        .await
        .says("does not offer the tool `page_Page_specific_DevTools_add`");

    // A page without tools: the list is the built-in tools alone.
    agent.open("3p/none.html").await;
    agent
        .tools_changed_after(seen, "navigating to 3p/none.html")
        .await;
    assert!(agent.page_tool_names().await.is_empty());
}

#[tokio::test]
async fn page_tools_without_third_party_tools_is_refused_at_start() {
    let out = tokio::process::Command::new(tabwire_exe())
        .args(["mcp", PAGE_TOOLS])
        .stdin(std::process::Stdio::null())
        .output();
    let out = tokio::time::timeout(std::time::Duration::from_secs(30), out)
        .await
        .expect("tabwire mcp did not exit within 30 s")
        .expect("run tabwire");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--categoryExperimentalThirdParty=true"),
        "{stderr}"
    );
}

#[tokio::test]
async fn selecting_another_page_changes_the_page_tools_and_says_so() {
    let agent = Agent::launch(&[THIRD_PARTY, PAGE_TOOLS]).await;
    let seen = agent.tools_changed_count();
    let add_page = agent.open("3p/add.html").await.selected_page();
    let seen = agent.tools_changed_after(seen, "opening 3p/add.html").await;
    let groups_page = agent.open("3p/groups.html").await.selected_page();
    let seen = agent
        .tools_changed_after(seen, "opening 3p/groups.html")
        .await;
    assert!(agent
        .page_tool_names()
        .await
        .contains(&"page_Telemetry_status".to_owned()));

    agent.ok("select_page", json!({"pageId": add_page})).await;
    let seen = agent
        .tools_changed_after(seen, "selecting the 3p/add.html page")
        .await;
    assert_eq!(
        agent.page_tool_names().await,
        ["page_Page_specific_DevTools_add"]
    );
    let sum = agent
        .ok("page_Page_specific_DevTools_add", json!({"a": 4, "b": 5}))
        .await;
    assert_eq!(sum.json["result"], 9, "{}", sum.text);
    agent
        .err("page_Telemetry_status", json!({}))
        .await
        .says("does not offer the tool `page_Telemetry_status`");

    agent
        .ok("select_page", json!({"pageId": groups_page}))
        .await;
    agent
        .tools_changed_after(seen, "selecting the 3p/groups.html page again")
        .await;
    let status = agent.ok("page_Telemetry_status", json!({})).await;
    assert_eq!(status.json["result"], "telemetry ok", "{}", status.text);
}
