//! The one path every tool call takes.
//!
//! tool lookup → unknown arguments rejected (naming the expected ones) → page resolved
//! (explicit `pageId`, else the selected page) → calls on that page serialised (but
//! the reads of what the page collected, [`super::tool::Tool::QUEUES_ON_PAGE`]) → refused
//! while a dialog blocks the page → handler → render. A handler's error does not abort
//! rendering: the agent gets the error and the page context together.

use rmcp::model::{CallToolResult, ContentBlock, JsonObject};
use serde_json::Value;
use tabwire_shared::TabId;

use super::context::ToolContext;
use super::output;
use super::registry::Registry;
use super::response::{render, Response};
use super::schema::{expected_arguments, PAGE_ID};
use super::ToolError;

/// Runs one tool call from start to finish. Never fails: every problem becomes a tool
/// result with `isError` that the agent can read.
pub async fn call_tool(
    registry: &Registry,
    base: &ToolContext,
    name: &str,
    args: Option<JsonObject>,
) -> CallToolResult {
    call_tool_as(registry, base, name, name, args).await
}

/// [`call_tool`] of the tool `name`, its result headed with `shown_as`: the name the
/// agent called (a page tool runs as `execute_3p_developer_tool`).
///
/// While the extension and this program differ in version, every result starts with
/// the line that says so: the agent then tells the user the one step that fixes it.
pub async fn call_tool_as(
    registry: &Registry,
    base: &ToolContext,
    name: &str,
    shown_as: &str,
    args: Option<JsonObject>,
) -> CallToolResult {
    let mut result = run(registry, base, name, shown_as, args).await;
    if let Some(mismatch) = base.version_mismatch() {
        head_with(&mut result, &mismatch.line());
    }
    result
}

/// Puts `line` first in the result's text, and beside its structured content.
fn head_with(result: &mut CallToolResult, line: &str) {
    let first_text = result.content.iter_mut().find_map(|c| match c {
        ContentBlock::Text(text) => Some(text),
        _ => None,
    });
    match first_text {
        Some(text) => text.text = format!("{line}\n\n{}", text.text),
        None => result.content.insert(0, ContentBlock::text(line)),
    }
    if let Some(Value::Object(structured)) = result.structured_content.as_mut() {
        structured.extend(output::entries(&output::message::Keys {
            version_mismatch: Some(line.to_owned()),
            ..Default::default()
        }));
    }
}

async fn run(
    registry: &Registry,
    base: &ToolContext,
    name: &str,
    shown_as: &str,
    args: Option<JsonObject>,
) -> CallToolResult {
    let Some(tool) = registry.get(name) else {
        return plain_error(base, unknown_tool(registry, name));
    };
    let spec = *tool.spec();
    let args = args.unwrap_or_default();

    let schema = tool.input_schema();
    let known = schema.get("properties").and_then(Value::as_object);
    let unknown: Vec<&String> = args
        .keys()
        .filter(|k| !known.is_some_and(|p| p.contains_key(k.as_str())))
        .collect();
    if !unknown.is_empty() {
        let unknown: Vec<String> = unknown.iter().map(|k| format!("`{k}`")).collect();
        let expected = expected_arguments(schema);
        return plain_error(
            base,
            format!(
                "Unknown argument{} {} for tool {}. Expected arguments: {}.",
                if unknown.len() == 1 { "" } else { "s" },
                unknown.join(", "),
                shown_as,
                if expected.is_empty() {
                    "none".to_string()
                } else {
                    expected.join(", ")
                }
            ),
        );
    }

    let ctx = base.on_page(None);
    let mut response = Response::default();

    if !spec.page_scoped {
        let outcome = tool.call(&ctx, args, &mut response).await;
        return render(shown_as, response, outcome.err(), &ctx).await;
    }

    let page = match resolve_page(&ctx, &args).await {
        Ok(page) => page,
        Err(e) => return render(shown_as, response, Some(e), &ctx).await,
    };
    let ctx = ctx.on_page(Some(page));
    let lock = ctx.page_lock(page);
    let _guard = match tool.queues_on_page() {
        true => Some(lock.lock().await),
        false => None,
    };
    let outcome = match ctx.dialog(page) {
        Some(dialog) if spec.blocked_by_dialog => Err(ToolError::new(format!(
            "Page {page} has an open {} dialog ({:?}) that blocks it. \
             Call handle_dialog to accept or dismiss it, then retry.",
            dialog.kind, dialog.message
        ))),
        _ => tool.call(&ctx, args, &mut response).await,
    };
    render(shown_as, response, outcome.err(), &ctx).await
}

/// Why there is no tool `name`: a tool a restriction took away, one whose category is
/// switched off, one of the
/// reference's tabwire does not offer, or a name no one knows (then every tool there is).
fn unknown_tool(registry: &Registry, name: &str) -> String {
    if let Some(why) = registry.why_taken_away(name) {
        return why.to_owned();
    }
    let switched_off = Registry::every_tool()
        .iter()
        .find(|t| t.spec().name == name)
        .map(|t| t.spec().category);
    if let Some(category) = switched_off {
        let flag = category.flag_name();
        return format!(
            "`{name}` is switched off: its category, {flag}, is not enabled in this tabwire. \
             Start `tabwire mcp` with --category{flag}=true to offer it."
        );
    }
    if let Some(reason) = super::not_offered::reason(name) {
        return reason;
    }
    let names: Vec<_> = registry.tools().iter().map(|t| t.spec().name).collect();
    format!(
        "Unknown tool `{name}`. Available tools: {}.",
        names.join(", ")
    )
}

/// The page a page-scoped call acts on: `pageId` if given, else the selected page.
async fn resolve_page(ctx: &ToolContext, args: &JsonObject) -> Result<TabId, ToolError> {
    match args.get(PAGE_ID) {
        None | Some(Value::Null) => ctx.default_page().await,
        Some(value) => value.as_i64().ok_or_else(|| {
            ToolError::new(format!(
                "`pageId` must be an integer page id from list_pages, not {value}."
            ))
        }),
    }
}

/// A refusal before the tool ran: the message alone, in text and (when the agent asked
/// for it) in `structuredContent`.
pub fn plain_error(base: &ToolContext, message: String) -> CallToolResult {
    let mut result = CallToolResult::error(vec![ContentBlock::text(message.clone())]);
    if base.settings().structured_content {
        result.structured_content = Some(serde_json::json!({ "errorMessage": message }));
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::context::{Browser, Session, Settings};
    use futures_util::future::BoxFuture;
    use serde_json::json;
    use std::collections::HashMap;
    use std::sync::Arc;
    use std::sync::Mutex;
    use tabwire_shared::requests::*;
    use tabwire_shared::{Command, DialogInfo, ErrorCode, Event, Reply, TabInfo, WireError};

    /// A browser with two tabs that records the commands it gets.
    #[derive(Default)]
    struct FakeBrowser {
        commands: Mutex<Vec<Command>>,
    }

    fn tab(id: TabId, active: bool) -> TabInfo {
        TabInfo {
            id,
            window_id: 1,
            url: format!("http://127.0.0.1/{id}"),
            title: format!("Tab {id}"),
            user_active: active,
            dialog: None,
            crashed: false,
        }
    }

    impl Browser for FakeBrowser {
        fn call(&self, command: Command) -> BoxFuture<'_, Result<Reply, WireError>> {
            self.commands.lock().unwrap().push(command.clone());
            Box::pin(async move {
                match command {
                    Command::ListTabs(ListTabs) => {
                        Ok(Reply::new(&vec![tab(1, false), tab(2, true)]).unwrap())
                    }
                    Command::Evaluate(Evaluate { tab_id: 99, .. }) => Err(WireError::new(
                        ErrorCode::NoSuchTab,
                        "No page with id 99. Call list_pages to see the open pages.",
                    )),
                    Command::Evaluate(Evaluate { function, .. }) if function.contains("throw") => {
                        Err(WireError::new(
                            ErrorCode::PageError,
                            "Error: boom\n    at <anonymous>:1:7",
                        ))
                    }
                    Command::Evaluate(Evaluate { args, .. }) => {
                        Ok(Reply::new(&json!(args)).unwrap())
                    }
                    // A page that describes its one tool at great length.
                    Command::DiscoverThirdPartyTools(DiscoverThirdPartyTools { .. }) => {
                        Ok(Reply::new(&tabwire_shared::Discovery {
                            document: "d".into(),
                            url: "http://127.0.0.1/".into(),
                            origin: "http://127.0.0.1".into(),
                            refused: false,
                            groups: vec![tabwire_shared::ToolGroup {
                                name: "Verbose".into(),
                                description: None,
                                webmcp: false,
                                tools: vec![tabwire_shared::ToolDefinition {
                                    name: "talk".into(),
                                    description: "word ".repeat(20_000),
                                    input_schema: json!({"type": "object"}),
                                    annotations: None,
                                }],
                            }],
                            problems: vec![],
                        })
                        .unwrap())
                    }
                    // 2,500 short buttons: about 50,000 characters as text, twice that
                    // as a JSON tree.
                    Command::TakeSnapshot(TakeSnapshot { .. }) => {
                        Ok(Reply::new(&tabwire_shared::Snapshot {
                            url: "http://127.0.0.1/".into(),
                            title: "T".into(),
                            nodes: (0..2500)
                                .map(|i| {
                                    let depth = u32::from(i > 0);
                                    crate::mcp::output::snapshot::text::test_node(
                                        &format!("1_{i}"),
                                        depth,
                                        "button",
                                        "b",
                                    )
                                })
                                .collect(),
                        })
                        .unwrap())
                    }
                    _ => Ok(Reply::new(&()).unwrap()),
                }
            })
        }
    }

    struct Harness {
        registry: Registry,
        browser: Arc<FakeBrowser>,
        session: Arc<Session>,
        settings: Arc<Settings>,
    }

    impl Harness {
        fn new() -> Self {
            Self {
                registry: Registry::new(&HashMap::new()),
                browser: Arc::new(FakeBrowser::default()),
                session: Arc::new(Session::default()),
                settings: Arc::new(Settings::default()),
            }
        }

        /// A harness whose agent asked for `structuredContent`.
        fn structured() -> Self {
            Self {
                settings: Arc::new(Settings {
                    structured_content: true,
                    ..Settings::default()
                }),
                ..Self::new()
            }
        }

        async fn call(&self, name: &str, args: Value) -> CallToolResult {
            let args = args.as_object().cloned();
            let base = ToolContext::new(
                self.browser.clone(),
                self.session.clone(),
                self.settings.clone(),
            );
            call_tool(&self.registry, &base, name, args).await
        }
    }

    fn text(result: &CallToolResult) -> String {
        result
            .content
            .iter()
            .filter_map(|c| c.as_text().map(|t| t.text.clone()))
            .collect()
    }

    #[tokio::test]
    async fn unknown_argument_lists_expected_names() {
        let h = Harness::new();
        let result = h
            .call("evaluate_script", json!({"function": "() => 1", "fn": 2}))
            .await;
        assert_eq!(result.is_error, Some(true));
        let text = text(&result);
        assert!(text.contains("Unknown argument `fn`"), "{text}");
        assert!(text.contains("function (required)"), "{text}");
        assert!(text.contains("pageId"), "{text}");
        assert!(
            h.browser.commands.lock().unwrap().is_empty(),
            "nothing reached the browser"
        );
    }

    #[tokio::test]
    async fn a_reply_of_another_shape_says_the_versions_may_differ() {
        let h = Harness::new();
        // The fake answers a screenshot with `null`, as an extension whose screenshot
        // reply had another shape would be read.
        let result = h.call("take_screenshot", json!({"pageId": 1})).await;
        assert_eq!(result.is_error, Some(true));
        let text = text(&result);
        assert!(
            text.contains("reply to `screenshot` could not be read"),
            "{text}"
        );
        assert!(text.contains("different versions"), "{text}");
        assert!(text.contains("`tabwire install`"), "{text}");
    }

    #[tokio::test]
    async fn unknown_tool_lists_available_tools() {
        let h = Harness::new();
        let text = text(&h.call("take_screenshotz", json!({})).await);
        assert!(text.contains("Unknown tool `take_screenshotz`"), "{text}");
        assert!(text.contains("list_pages"), "{text}");
    }

    #[tokio::test]
    async fn a_switched_off_tool_and_a_reference_tool_say_why_they_are_missing() {
        let h = Harness::new();
        let off = text(&h.call("list_3p_developer_tools", json!({})).await);
        assert!(
            off.contains("--categoryExperimentalThirdParty=true"),
            "{off}"
        );
        let absent = text(&h.call("lighthouse_audit", json!({})).await);
        assert!(absent.contains("does not offer: Lighthouse"), "{absent}");
        assert!(
            absent.contains("Instead: performance_start_trace"),
            "{absent}"
        );
    }

    #[tokio::test]
    async fn page_tools_default_to_the_users_active_tab_and_select_it() {
        let h = Harness::structured();
        let result = h
            .call(
                "evaluate_script",
                json!({"function": "() => 1", "args": [5]}),
            )
            .await;
        assert_eq!(result.is_error, Some(false), "{}", text(&result));
        assert_eq!(h.session.selected(), Some(2));
        let structured = result.structured_content.unwrap();
        assert_eq!(structured["result"], json!([5]));
    }

    #[tokio::test]
    async fn a_selected_page_taken_away_is_said_once_not_swapped_for_another() {
        let h = Harness::new();
        h.session.select(1);
        // The user stopped sharing it (the agent hears the tab as closed).
        h.session.observe(&Event::TabClosed { tab_id: 1 });
        let said = text(&h.call("take_snapshot", json!({})).await);
        assert!(
            said.contains("Page 1, the selected page, is gone"),
            "{said}"
        );
        assert!(said.contains("select_page"), "{said}");
        let sent = h.browser.commands.lock().unwrap().clone();
        assert!(
            sent.iter().all(|c| matches!(c, Command::ListTabs(_))),
            "nothing but the tab list was asked for: {sent:?}"
        );
        // Told once: the next call takes the user's active tab, as before any selection.
        let result = h
            .call("evaluate_script", json!({"function": "() => 1"}))
            .await;
        assert_eq!(result.is_error, Some(false), "{}", text(&result));
        assert_eq!(h.session.selected(), Some(2));

        // A page the agent closed itself is not news to it.
        h.session.select(1);
        let closed = h.call("close_page", json!({"pageId": 1})).await;
        assert_eq!(closed.is_error, Some(false), "{}", text(&closed));
        h.session.observe(&Event::TabClosed { tab_id: 1 });
        let result = h
            .call("evaluate_script", json!({"function": "() => 1"}))
            .await;
        assert_eq!(result.is_error, Some(false), "{}", text(&result));
    }

    #[tokio::test]
    async fn results_carry_no_structured_content_unless_asked() {
        let h = Harness::new();
        for (tool, args) in [
            ("list_pages", json!({})),
            ("evaluate_script", json!({"function": "() => 1"})),
            ("evaluate_script", json!({"function": "() => { throw 1 }"})),
        ] {
            let result = h.call(tool, args).await;
            assert_eq!(result.structured_content, None, "{}", text(&result));
        }
    }

    #[tokio::test]
    async fn results_keep_the_key_order_they_were_given() {
        let h = Harness::structured();
        let value = json!({"z": 1, "a": 2, "m": {"y": 1, "b": 2}});
        let result = h
            .call(
                "evaluate_script",
                json!({"function": "() => 1", "args": [value]}),
            )
            .await;
        let text = text(&result);
        let z = text.find("\"z\"").unwrap();
        let a = text.find("\"a\"").unwrap();
        let y = text.find("\"y\"").unwrap();
        let b = text.find("\"b\"").unwrap();
        assert!(z < a && a < y && y < b, "{text}");
        let structured = result.structured_content.unwrap().to_string();
        assert!(
            structured.contains(r#"{"z":1,"a":2,"m":{"y":1,"b":2}}"#),
            "{structured}"
        );
    }

    #[tokio::test]
    async fn a_snapshot_is_inline_only_when_the_form_a_client_shows_fits() {
        let text_only = Harness::new().call("take_snapshot", json!({})).await;
        assert!(text(&text_only).contains("1_2499 button"));
        // The JSON tree is longer: folded until it fits, every node in a file.
        let structured = Harness::structured().call("take_snapshot", json!({})).await;
        let body = text(&structured);
        assert!(
            body.contains("folded to fit this client's replies"),
            "{body}"
        );
        assert!(!body.contains("1_2499 button"), "{body}");
        let json = structured.structured_content.unwrap();
        assert!(json.to_string().chars().count() <= 60_000);
        let path = json["snapshotFilePath"].as_str().unwrap();
        assert!(std::fs::read_to_string(path)
            .unwrap()
            .contains("1_2499 button"));
        std::fs::remove_file(path).unwrap();
    }

    #[tokio::test]
    async fn each_client_gets_replies_within_its_budget() {
        for (client, budget) in [
            ("codex-mcp-client", 11_000),
            ("gemini-cli-mcp-client", 38_000),
            ("claude-code", 60_000),
        ] {
            for structured in [false, true] {
                let h = if structured {
                    Harness::structured()
                } else {
                    Harness::new()
                };
                h.session.set_client(client);
                let result = h.call("take_snapshot", json!({})).await;
                let body = text(&result);
                assert!(
                    body.chars().count() <= budget,
                    "{client}: {} characters",
                    body.chars().count()
                );
                if let Some(json) = &result.structured_content {
                    let chars = json.to_string().chars().count();
                    assert!(chars <= budget, "{client}: {chars} characters of JSON");
                }
                if budget < 50_000 {
                    assert!(body.contains("folded to fit"), "{client}: {body}");
                    // Folded, not cut blindly: the first rows and the fold line.
                    assert!(body.contains("1_0 "), "{body}");
                    assert!(body.contains("\u{2026} "), "{body}");
                }
            }
        }
    }

    #[tokio::test]
    async fn the_flag_sets_the_budget_for_any_client() {
        let h = Harness {
            settings: Arc::new(Settings {
                max_result_chars: Some(5_000),
                ..Settings::default()
            }),
            ..Harness::new()
        };
        h.session.set_client("claude-code");
        let body = text(&h.call("take_snapshot", json!({})).await);
        assert!(body.chars().count() <= 5_000, "{}", body.chars().count());
        assert!(body.contains("(take_snapshot with unfold"), "{body}");
    }

    #[tokio::test]
    async fn a_tool_list_too_long_for_a_reply_goes_to_a_file() {
        let h = Harness {
            settings: Arc::new(Settings {
                structured_content: true,
                third_party: Some(tabwire_shared::origin::OriginPolicy::new(vec![])),
                ..Settings::default()
            }),
            ..Harness::new()
        };
        let result = h.call("list_pages", json!({})).await;
        let body = text(&result);
        assert!(body.contains("too many to show whole here"), "{body}");
        // Every tool is still named, with the first of its description.
        assert!(body.contains("- talk: word word"), "{body}");
        assert!(body.len() < 10_000, "{}", body.len());
        let json = result.structured_content.unwrap();
        assert!(json.get("thirdPartyDeveloperTools").is_none());
        assert_eq!(json["thirdPartyDeveloperToolNames"][0]["tools"][0], "talk");
        let path = json["thirdPartyDeveloperToolsFile"]["filePath"]
            .as_str()
            .unwrap();
        let list = std::fs::read_to_string(path).unwrap();
        assert!(list.contains("- talk: word word"));
        std::fs::remove_file(path).unwrap();
    }

    #[tokio::test]
    async fn explicit_page_id_wins_and_bad_page_id_is_explained() {
        let h = Harness::new();
        let result = h
            .call(
                "evaluate_script",
                json!({"function": "() => 1", "pageId": 99}),
            )
            .await;
        assert_eq!(result.is_error, Some(true));
        assert!(text(&result).contains("No page with id 99"));
        let result = h
            .call(
                "evaluate_script",
                json!({"function": "() => 1", "pageId": "x"}),
            )
            .await;
        assert!(text(&result).contains("`pageId` must be an integer"));
    }

    #[tokio::test]
    async fn handler_errors_are_rendered_with_context() {
        let h = Harness::structured();
        let result = h
            .call("evaluate_script", json!({"function": "() => { throw 1 }"}))
            .await;
        assert_eq!(result.is_error, Some(true));
        let text = text(&result);
        assert!(text.starts_with("# evaluate_script response"), "{text}");
        assert!(text.contains("## Error\nError: boom"), "{text}");
        assert_eq!(
            result.structured_content.unwrap()["errorMessage"],
            json!("Error: boom\n    at <anonymous>:1:7")
        );
    }

    #[tokio::test]
    async fn a_pending_dialog_blocks_page_tools_and_is_shown() {
        let h = Harness::new();
        h.session.select(1);
        h.session.observe(&Event::DialogOpened {
            tab_id: 1,
            dialog: DialogInfo {
                kind: tabwire_shared::DialogKind::Alert,
                message: "hi".into(),
                default_prompt: None,
            },
        });
        let result = h
            .call("evaluate_script", json!({"function": "() => 1"}))
            .await;
        let text = text(&result);
        assert_eq!(result.is_error, Some(true));
        assert!(text.contains("handle_dialog"), "{text}");
        assert!(text.contains("## Open dialog"), "{text}");
        assert!(!h
            .browser
            .commands
            .lock()
            .unwrap()
            .iter()
            .any(|c| matches!(c, Command::Evaluate(Evaluate { .. }))));
    }

    #[tokio::test]
    async fn list_pages_marks_selected_and_active_in_text_and_json() {
        let h = Harness::structured();
        h.session.select(1);
        let result = h.call("list_pages", json!({})).await;
        let text = text(&result);
        assert!(
            text.contains("1: Tab 1 <http://127.0.0.1/1> [selected]"),
            "{text}"
        );
        assert!(
            text.contains("2: Tab 2 <http://127.0.0.1/2> [user's active tab]"),
            "{text}"
        );
        let pages = &result.structured_content.unwrap()["pages"];
        assert_eq!(pages[0]["id"], json!(1));
        assert_eq!(pages[0]["selected"], json!(true));
        assert_eq!(pages[1]["userActive"], json!(true));
    }

    #[tokio::test(start_paused = true)]
    async fn calls_on_the_same_page_are_serialised() {
        let h = Harness::new();
        h.session.select(1);
        let lock = h.session.page_lock(1);
        let guard = lock.lock().await;
        let call = h.call("evaluate_script", json!({"function": "() => 1"}));
        tokio::pin!(call);
        // While the page is held, the call cannot reach the browser.
        assert!(
            tokio::time::timeout(std::time::Duration::from_millis(50), &mut call)
                .await
                .is_err()
        );
        assert!(h.browser.commands.lock().unwrap().is_empty());
        drop(guard);
        let result = call.await;
        assert_eq!(result.is_error, Some(false));
    }

    #[tokio::test(start_paused = true)]
    async fn the_console_and_network_lists_do_not_wait_for_a_call_holding_the_page() {
        let h = Harness::new();
        h.session.select(1);
        let lock = h.session.page_lock(1);
        let _running = lock.lock().await;
        for tool in [
            "list_console_messages",
            "get_console_message",
            "list_network_requests",
            "get_network_request",
        ] {
            let args = match tool {
                "get_console_message" => json!({"msgid": 1}),
                "get_network_request" => json!({"reqid": 1}),
                _ => json!({}),
            };
            let call = h.call(tool, args);
            let answered = tokio::time::timeout(std::time::Duration::from_secs(1), call).await;
            assert!(answered.is_ok(), "{tool} waited for the page");
        }
        let commands = h.browser.commands.lock().unwrap();
        assert_eq!(commands.len(), 4, "each asked the browser: {commands:?}");
    }

    #[tokio::test]
    async fn close_page_does_not_wait_for_a_call_holding_the_page() {
        let h = Harness::new();
        let lock = h.session.page_lock(1);
        let _running = lock.lock().await;
        let result = h.call("close_page", json!({"pageId": 1})).await;
        assert_eq!(result.is_error, Some(false), "{}", text(&result));
        assert!(h
            .browser
            .commands
            .lock()
            .unwrap()
            .contains(&Command::CloseTab(CloseTab { tab_id: 1 })));
    }

    #[tokio::test]
    async fn a_timeout_past_the_maximum_is_refused_naming_it() {
        let h = Harness::new();
        h.session.select(1);
        let args = json!({"function": "() => 1", "timeout": 1u64 << 63});
        let result = h.call("evaluate_script", args).await;
        assert_eq!(result.is_error, Some(true));
        assert!(
            text(&result).contains("at most 600000 ms"),
            "{}",
            text(&result)
        );
        assert!(h.browser.commands.lock().unwrap().is_empty());
    }

    #[tokio::test]
    async fn after_a_browser_restart_old_pages_are_named_as_gone_until_the_agent_lists() {
        let h = Harness::new();
        let run = |instance: &str| Event::BrowserConnected {
            version: "1".into(),
            instance: instance.into(),
            pieces: 0,
        };
        h.session.observe(&run("first"));
        let result = h
            .call(
                "evaluate_script",
                json!({"function": "() => 1", "pageId": 1}),
            )
            .await;
        assert_eq!(result.is_error, Some(false), "{}", text(&result));
        // A worker restart keeps the run; a browser restart starts another.
        h.session.observe(&run("first"));
        assert_eq!(h.session.selected(), None, "pageId does not select");
        h.session.select(1);
        // A quitting browser closes its tabs before it goes.
        h.session.observe(&Event::TabClosed { tab_id: 1 });
        h.session.observe(&run("second"));
        h.browser.commands.lock().unwrap().clear();

        for args in [
            json!({"function": "() => 1", "pageId": 1}),
            json!({"function": "() => 1"}),
        ] {
            let said = text(&h.call("evaluate_script", args).await);
            assert!(said.contains("The browser restarted, or tabwire"), "{said}");
            assert!(said.contains("share the tab again"), "{said}");
            assert!(said.contains("then call list_pages"), "{said}");
        }
        assert!(
            h.browser.commands.lock().unwrap().is_empty(),
            "nothing reached the new run's tabs"
        );
        let listed = h.call("list_pages", json!({})).await;
        assert_eq!(listed.is_error, Some(false), "{}", text(&listed));
        let result = h
            .call(
                "evaluate_script",
                json!({"function": "() => 1", "pageId": 1}),
            )
            .await;
        assert_eq!(result.is_error, Some(false), "{}", text(&result));
    }

    /// A browser that restarts while a call waits for it: the new run does not know the
    /// agent's tab.
    struct RestartingBrowser {
        session: Arc<Session>,
    }

    impl Browser for RestartingBrowser {
        fn call(&self, _command: Command) -> BoxFuture<'_, Result<Reply, WireError>> {
            Box::pin(async move {
                self.session.observe(&Event::BrowserConnected {
                    version: "1".into(),
                    instance: "second".into(),
                    pieces: 0,
                });
                Err(WireError::new(
                    ErrorCode::NotShared,
                    "Tab 1 is not shared (or no longer exists).",
                ))
            })
        }
    }

    #[tokio::test]
    async fn a_call_that_waited_through_a_browser_restart_says_so() {
        let session = Arc::new(Session::default());
        session.observe(&Event::BrowserConnected {
            version: "1".into(),
            instance: "first".into(),
            pieces: 0,
        });
        session.select(1);
        let base = ToolContext::new(
            Arc::new(RestartingBrowser {
                session: session.clone(),
            }),
            session,
            Arc::new(Settings::default()),
        );
        let registry = Registry::new(&HashMap::new());
        let args = json!({"function": "() => 1"}).as_object().cloned();
        let said = text(&call_tool(&registry, &base, "evaluate_script", args).await);
        assert!(said.contains("(page 1 is from before"), "{said}");
        assert!(!said.contains("not shared"), "{said}");
    }

    #[tokio::test]
    async fn select_page_refuses_an_unknown_page() {
        let h = Harness::new();
        let result = h.call("select_page", json!({"pageId": 7})).await;
        assert!(text(&result).contains("No page with id 7. Open pages: 1, 2"));
        assert_eq!(h.session.selected(), None);
    }

    #[tokio::test]
    async fn navigate_needs_a_url_for_type_url() {
        let h = Harness::new();
        let result = h.call("navigate_page", json!({"type": "url"})).await;
        assert!(text(&result).contains("needs a `url`"));
        let result = h.call("navigate_page", json!({"type": "sideways"})).await;
        assert!(
            text(&result).contains("Invalid arguments for navigate_page"),
            "{}",
            text(&result)
        );
    }
}
