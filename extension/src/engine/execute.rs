//! `RunThirdPartyTool`: runs one third-party tool of the page's current discovery.
//!
//! The call names the discovery's document; a page that has since navigated or
//! reloaded answers [`EngineError::StaleTools`] (the host discovers again and
//! retries). Elements the agent passes as `{"uid": ...}` are resolved to page objects
//! in the kit's world and put back into the arguments page-side; the tool runs from
//! the document's private kit ([`page::EXECUTE`]), whose answer comes back by value:
//! the result as JSON text and how many nodes it mentions, which are then fetched
//! ([`page::TAKE_NODES`]) and become uids (and pinned snapshot nodes).
//!
//! The document is the one the engine tracks from the page's events: the kit's
//! objects live in it, so Chrome refuses to run a kit whose document is gone (answered
//! as [`EngineError::StaleTools`] or [`EngineError::Navigated`]), and no tool ever
//! runs in a document other than the one it was discovered in.
//!
//! Bounded by the call's timeout (the page keeps running the tool; the engine moves
//! on). The page navigating, the tab closing, the debugger detaching or a dialog
//! opening end the wait at once with their own errors.

use serde::Deserialize;
use serde_json::Value;

use crate::json_text;
use tabwire_shared::{RunThirdPartyTool, TabId};

use super::discovery::is_stale;
use super::document::Kit;
use super::elements::{element_objects, find_uid_refs, insert_uids, uids_of_objects};
use super::page;
use super::session::interruption;
use crate::cdp::refusal::Refusal;
use crate::cdp::{CallArgument, PageEvent, RuntimeCallFunctionOn, RuntimeGetProperties};
use crate::chrome::Chrome;
use crate::engine::context::Cx;
use crate::error::EngineError;
use crate::signals::{Subscription, TabSignal};

/// How a run of [`page::EXECUTE`] ended, as the page script names it.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
enum Status {
    /// The tool returned: `text` is its result.
    Ok,
    /// The tool threw: `text` is what it threw.
    Threw,
    /// No tool of that name (in that group).
    NotFound,
}

/// What [`page::EXECUTE`] answers (by value).
#[derive(Deserialize)]
struct Outcome {
    status: Status,
    #[serde(default)]
    text: String,
    #[serde(default)]
    nodes: u64,
    /// The run's number: [`page::TAKE_NODES`] hands over this run's nodes only.
    #[serde(default)]
    run: u64,
}

/// Runs the tool `call` names; its JSON-safe result and the uids of the elements in
/// it.
pub(super) async fn execute_tool<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    call: RunThirdPartyTool,
) -> Result<(Value, Vec<String>), EngineError> {
    let tab = call.tab_id;
    let group = cx.next_object_group();
    let work = run_tool(cx, tab, &call, &group);
    match cx.in_time(tab, call.timeout_ms, work).await? {
        Some(done) => Ok(done),
        None => {
            // The run was dropped midway, before it could let its objects go.
            cx.release_objects(tab, group);
            Err(EngineError::ToolTimeout {
                tool: call.tool,
                timeout_ms: call.timeout_ms,
            })
        }
    }
}

async fn run_tool<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    call: &RunThirdPartyTool,
    group: &str,
) -> Result<(Value, Vec<String>), EngineError> {
    let mut watch = cx.ready(tab).await?;
    let (token, kit, tools, frame) = cx
        .with_document(tab, |d| {
            (d.token.clone(), d.kit.clone(), d.tools, d.frame_id.clone())
        })
        .ok_or(EngineError::StaleTools(tab))?;
    if token != call.document {
        return Err(EngineError::StaleTools(tab));
    }
    if !tools {
        return Err(EngineError::ToolNotFound(call.tool.clone()));
    }
    // Its context went: the tools went with it.
    let kit = kit.ok_or(EngineError::StaleTools(tab))?;

    let outcome = call_tool(cx, tab, &mut watch, call, &kit, &frame, group).await;
    // Only elements (passed in or handed back) put objects in the group: a plain
    // call's reply goes out without a release racing it to the browser.
    let plain = find_uid_refs(&call.args).uids.is_empty()
        && outcome
            .as_ref()
            .is_ok_and(|(_, elements)| elements.is_empty());
    if !plain {
        cx.release_objects(tab, group.to_owned());
    }
    outcome
}

async fn call_tool<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    call: &RunThirdPartyTool,
    kit: &Kit,
    frame: &str,
    group: &str,
) -> Result<(Value, Vec<String>), EngineError> {
    let refs = find_uid_refs(&call.args);
    let context = cx.main_world(tab, frame);
    let elements = element_objects(cx, tab, watch, &refs.uids, group, context).await?;
    let mut arguments = vec![
        CallArgument::value(Value::String(call.tool.clone())),
        // Absent (not null, which chrome.debugger drops anyway) for "any group".
        match &call.group {
            Some(group) => CallArgument::value(Value::String(group.clone())),
            None => CallArgument::value(Value::Bool(false)),
        },
        // As text: chrome.debugger drops the `null` members of objects.
        CallArgument::value(Value::String(refs.value.to_string())),
        CallArgument::value(Value::from(refs.paths)),
        CallArgument::value(page::result_limits()),
    ];
    arguments.extend(elements.into_iter().map(CallArgument::object));
    let run = RuntimeCallFunctionOn {
        function_declaration: page::EXECUTE.to_owned(),
        object_id: kit.object_id.clone(),
        arguments,
        object_group: group.to_owned(),
        return_by_value: true,
        await_promise: true,
        user_gesture: true,
    };
    let ran = match watch
        .watch(cx.send(tab, &run), |s| tool_interruption(tab, s))
        .await?
    {
        Ok(ran) => ran,
        Err(error) => {
            if is_stale(&error) {
                cx.drop_kit(tab, kit);
            }
            let error = cx.explain_failure(tab, watch, error).await;
            return Err(explain_refusal(tab, error));
        }
    };
    if let Some(details) = ran.exception_details {
        return Err(EngineError::UnreadablePageData(format!(
            "the tool runner failed in the page: {}",
            details.describe()
        )));
    }
    let outcome: Outcome = ran
        .result
        .value
        .and_then(|value| serde_json::from_value(value).ok())
        .ok_or_else(|| EngineError::UnreadablePageData("the tool runner's outcome".to_owned()))?;
    page::check_length(
        &outcome.text,
        page::MAX_RESULT_TEXT_READ,
        "the tool's result text",
    )
    .map_err(EngineError::UnreadablePageData)?;
    match outcome.status {
        Status::Ok => {}
        Status::Threw => {
            return Err(EngineError::ToolThrew {
                tool: call.tool.clone(),
                error: outcome.text,
            })
        }
        Status::NotFound => {
            let name = match &call.group {
                Some(group) => format!("{} (in group {group})", call.tool),
                None => call.tool.clone(),
            };
            return Err(EngineError::ToolNotFound(name));
        }
    }
    let uids = if outcome.nodes == 0 {
        vec![]
    } else {
        let objects = result_nodes(cx, tab, watch, kit, group, outcome.run).await?;
        cx.watched(tab, watch, uids_of_objects(cx, tab, objects, group))
            .await?
    };
    let text = insert_uids(&outcome.text, &uids).map_err(EngineError::UnreadablePageData)?;
    let result: Value = json_text::parse(&text)
        .map_err(|e| EngineError::UnreadablePageData(format!("the tool's result: {e}")))?;
    let mut elements = Vec::with_capacity(uids.len());
    for uid in uids {
        if !elements.contains(&uid) {
            elements.push(uid);
        }
    }
    Ok((result, elements))
}

/// The nodes of run `run`'s result, as remote objects in `group`, in order.
async fn result_nodes<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    kit: &Kit,
    group: &str,
    run: u64,
) -> Result<Vec<String>, EngineError> {
    let take = RuntimeCallFunctionOn {
        function_declaration: page::TAKE_NODES.to_owned(),
        object_id: kit.object_id.clone(),
        arguments: vec![CallArgument::value(Value::from(run))],
        object_group: group.to_owned(),
        return_by_value: false,
        await_promise: false,
        user_gesture: false,
    };
    let taken = cx.send_watched(tab, watch, &take).await?;
    let Some(array) = taken.result.object_id else {
        return Err(EngineError::UnreadablePageData(
            "the tool result's elements".to_owned(),
        ));
    };
    let read = RuntimeGetProperties {
        object_id: array,
        own_properties: true,
    };
    let properties = cx.send_watched(tab, watch, &read).await?;
    let mut slots: Vec<(usize, String)> = properties
        .result
        .into_iter()
        .filter_map(|p| Some((p.name.parse::<usize>().ok()?, p.value?.object_id?)))
        .collect();
    slots.sort_by_key(|(index, _)| *index);
    Ok(slots.into_iter().map(|(_, object)| object).collect())
}

/// What ends a running tool early: what ends any command, and the page navigating.
pub(super) fn tool_interruption(tab: TabId, signal: &TabSignal) -> Option<EngineError> {
    interruption(tab, signal).or(match signal {
        TabSignal::Page(PageEvent::FrameNavigated { is_main: true, .. })
        | TabSignal::Page(PageEvent::ContextsCleared) => Some(EngineError::Navigated(tab)),
        _ => None,
    })
}

/// Chrome refused the call: the page navigated (its objects went with it), or the
/// kit is gone.
fn explain_refusal(tab: TabId, error: EngineError) -> EngineError {
    let EngineError::Cdp { message, .. } = &error else {
        return error;
    };
    match Refusal::of(message) {
        Some(Refusal::ContextGone) => EngineError::Navigated(tab),
        Some(Refusal::ObjectGone) => EngineError::StaleTools(tab),
        _ => error,
    }
}

/// Runs the page's tool.
impl super::Handle for RunThirdPartyTool {
    const NEEDS_RENDERER: bool = true;

    async fn handle<C: Chrome + 'static>(self, cx: &Cx<'_, C>) -> Result<Self::Reply, EngineError> {
        let (result, elements) = execute_tool(cx, self).await?;
        Ok(tabwire_shared::ThirdPartyResult { result, elements })
    }
}

#[cfg(test)]
mod tests;
