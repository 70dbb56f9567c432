//! WebMCP: the tools a page registers with the browser (`document.modelContext`),
//! through Chrome's experimental `WebMCP` DevTools domain.
//!
//! The domain is enabled once per debugging session, the first time something asks
//! for the page's WebMCP tools ([`Engine::webmcp_tools`]); Chrome then announces the
//! tools registered so far before it answers, and every later change. What the events
//! say is kept in [`WebMcpState`] (`engine/state/webmcp.rs`), bounded, and dropped with the document that
//! registered the tools (Chrome sends no removal when a document goes). A change is
//! told to the agents as [`Event::WebMcpChanged`], once until they ask again.
//!
//! A run ([`Engine::invoke_webmcp`]) is `WebMCP.invokeTool` and a wait for its
//! `WebMCP.toolResponded`, bounded: a tool that does not answer in time is cancelled
//! (`WebMCP.cancelInvocation`), and the page navigating or the tab closing ends the
//! wait at once with their own errors.
//!
//! The domain is per renderer: a cross-site iframe's tools are reported in its own
//! child session only (`super::oopif`), never in the tab's. So it is enabled in each
//! child session too (on the first listing, and in a frame attached after it), each
//! child keeps its own [`WebMcpState`], the listing puts the tab's tools first and
//! then each frame's, marked with the frame's origin
//! ([`WebMcpTool::cross_site_origin`]), and a frame's tool is run, and answers, in
//! its session. A frame's tools go with its session.
//!
//! A browser without WebMCP is refused with an error naming the feature to turn on:
//! either the domain is missing, or it is there but the page has no
//! `document.modelContext` (asked in tabwire's isolated world, out of the page's
//! reach) — nothing is made up in its place.

use std::cell::RefCell;

use futures::future::join_all;
use serde_json::Value;
use tabwire_shared::origin::Origin;
use tabwire_shared::webmcp::{WebMcpOutcome, WebMcpTool, WebMcpTools};
use tabwire_shared::TabId;

use super::execute::tool_interruption;
#[cfg(doc)]
use super::state::webmcp::WebMcpState;
use super::state::webmcp::{MAX_PROBLEMS, MAX_TOOLS};
use super::uids::FrameKey;
use crate::cdp::webmcp::{WebMcpCancelInvocation, WebMcpEnable, WebMcpInvokeTool};
use crate::cdp::world::RuntimeEvaluateIn;
use crate::cdp::PageEvent;
use crate::chrome::Chrome;
use crate::engine::context::Cx;
use crate::error::EngineError;
use crate::signals::{Subscription, TabSignal};

/// The page's WebMCP tools (all of them, debugging ones included, the tab's own
/// session's first, then each cross-site frame's), with the document they belong
/// to; the domain is enabled first in each session that has not.
pub(super) async fn webmcp_tools<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
) -> Result<WebMcpTools, EngineError> {
    if !cx.webmcp_enabled(tab) {
        match cx.send_watched(tab, watch, &WebMcpEnable {}).await {
            Ok(_) => {}
            Err(EngineError::Cdp { message, .. }) if domain_missing(&message) => {
                return Err(EngineError::WebMcpUnavailable(format!(
                    "Chrome has no WebMCP DevTools domain: {message}"
                )))
            }
            Err(error) => return Err(error),
        }
        cx.update_attachment(tab, |a| a.webmcp.enabled = true);
    }
    let frames = cx.cross_site_frames(tab);
    let off = (frames.iter())
        .filter(|(_, child)| !child.webmcp.enabled)
        .map(|(session, _)| cx.enable_child_webmcp(tab, session));
    cx.watched(tab, watch, async {
        join_all(off).await;
        Ok(())
    })
    .await?;
    let document = match cx.with_document(tab, |d| d.token.clone()) {
        Some(token) => token,
        None => {
            cx.sync_document(tab, watch).await?;
            cx.with_document(tab, |d| d.token.clone())
                .unwrap_or_default()
        }
    };
    let (tools, problems) = cx
        .update_attachment(tab, |attachment| {
            attachment.webmcp.announced = false;
            let mut tools = attachment.webmcp.tools.clone();
            let mut problems = attachment.webmcp.problems.clone();
            for child in attachment.children.values() {
                let origin = Origin::of(&child.url).to_string();
                for tool in &child.webmcp.tools {
                    if tools.len() == MAX_TOOLS {
                        problems.push(format!(
                            "WebMCP tools of the frame {origin} left out: the page and \
                             its frames registered more than {MAX_TOOLS} tools."
                        ));
                        break;
                    }
                    tools.push(WebMcpTool {
                        cross_site_origin: Some(origin.clone()),
                        ..tool.clone()
                    });
                }
                let room = MAX_PROBLEMS.saturating_sub(problems.len());
                problems.extend(child.webmcp.problems.iter().take(room).cloned());
            }
            problems.truncate(MAX_PROBLEMS);
            (tools, problems)
        })
        .unwrap_or_default();
    Ok(WebMcpTools {
        document,
        tools,
        problems,
    })
}

/// The child session whose WebMCP reported `tool` (`None`: the tab's own).
fn webmcp_session_of<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    tool: &WebMcpTool,
) -> Option<String> {
    tool.cross_site_origin.as_ref()?;
    cx.attachment(tab, |a| {
        (a.children.iter())
            .find(|(_, child)| {
                (child.webmcp.tools.iter())
                    .any(|known| known.frame_id == tool.frame_id && known.name == tool.name)
            })
            .map(|(session, _)| session.clone())
    })
    .flatten()
}

/// Refuses a page without `document.modelContext`: the domain answers in any
/// browser, the feature is what may be off. Asked in tabwire's world (the page
/// cannot fake it there); a world that cannot be asked does not refuse.
async fn check_webmcp_feature<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
) -> Result<(), EngineError> {
    let Some(frame) = cx.with_document(tab, |d| d.frame_id.clone()) else {
        return Ok(());
    };
    let Ok(context) = cx.ready_world(tab, &FrameKey::tab(frame)).await else {
        return Ok(());
    };
    let ask = RuntimeEvaluateIn {
        expression: "typeof document.modelContext".to_owned(),
        context_id: context,
        return_by_value: true,
        silent: true,
    };
    let answer = cx.send(tab, &ask).await;
    match answer.ok().and_then(|a| a.result.value) {
        Some(Value::String(kind)) if kind == "undefined" => Err(EngineError::WebMcpUnavailable(
            "the page has no document.modelContext".to_owned(),
        )),
        _ => Ok(()),
    }
}

/// Runs the WebMCP tool `tool` of document `document` with `input`: the one of
/// frame `frame` if given, else the main frame's, else the first registered.
pub(super) async fn invoke_webmcp<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    document: &str,
    tool: &str,
    frame: Option<&str>,
    input: Value,
    timeout_ms: u64,
) -> Result<WebMcpOutcome, EngineError> {
    // The run under way, and the session it runs in.
    let started: RefCell<Option<(Option<String>, String)>> = RefCell::new(None);
    let work = async {
        let mut watch = cx.ready(tab).await?;
        let tools = webmcp_tools(cx, tab, &mut watch).await?;
        if tools.document != document {
            return Err(EngineError::StaleTools(tab));
        }
        let main = cx.with_document(tab, |d| d.frame_id.clone());
        let found = tools
            .tools
            .iter()
            .filter(|t| t.name == tool && frame.is_none_or(|f| t.frame_id == f))
            .min_by_key(|t| Some(&t.frame_id) != main.as_ref())
            .ok_or_else(|| EngineError::WebMcpToolNotFound(tool.to_owned()))?;
        let session = webmcp_session_of(cx, tab, found);
        if found.cross_site_origin.is_some() && session.is_none() {
            // The frame went away since the listing.
            return Err(EngineError::WebMcpToolNotFound(tool.to_owned()));
        }
        let invoke = WebMcpInvokeTool {
            frame_id: found.frame_id.clone(),
            tool_name: tool.to_owned(),
            input,
        };
        let invocation = cx
            .send_watched_in(tab, session.as_deref(), &mut watch, &invoke)
            .await?;
        let id = invocation.invocation_id;
        *started.borrow_mut() = Some((session.clone(), id.clone()));
        let outcome = answer_of(tab, &mut watch, session.as_deref(), &id)
            .await
            .map_err(|error| match error {
                // The frame's document went (or the frame did), and the run with it.
                EngineError::Navigated(_) if session.is_some() => {
                    EngineError::WebMcpFrameGone(tool.to_owned())
                }
                other => other,
            });
        if outcome.is_ok() {
            started.borrow_mut().take();
        }
        outcome
    };
    let ended = cx.in_time(tab, timeout_ms, work).await;
    let unanswered = started.borrow_mut().take();
    if let Some((session, invocation_id)) = unanswered {
        // Best effort: the page may be gone already.
        let cancel = WebMcpCancelInvocation { invocation_id };
        let _ = cx
            .bounded(
                "cancel the WebMCP run",
                cx.send_in(tab, session.as_deref(), &cancel),
            )
            .await;
    }
    ended?.ok_or_else(|| EngineError::WebMcpTimeout {
        tool: tool.to_owned(),
        timeout_ms,
    })
}

/// Waits for run `id`'s answer, told in `session` (a cross-site frame's, or the
/// tab's own: `None`); what ends any tool run ends this wait too, and so does the
/// frame's document going ([`EngineError::Navigated`]).
async fn answer_of(
    tab: TabId,
    watch: &mut Subscription,
    session: Option<&str>,
    id: &str,
) -> Result<WebMcpOutcome, EngineError> {
    loop {
        let signal = watch.next().await;
        if let Some(error) = tool_interruption(tab, &signal) {
            return Err(error);
        }
        let (event, from) = match signal {
            TabSignal::Page(event) => (event, None),
            TabSignal::InFrame { session, event } => (event, Some(session)),
            _ => continue,
        };
        let in_frame = session.is_some() && from.as_deref() == session;
        if in_frame && matches!(event, PageEvent::ContextsCleared) {
            return Err(EngineError::Navigated(tab));
        }
        if let PageEvent::WebMcpResponded {
            invocation,
            outcome,
        } = event
        {
            if invocation == id && from.as_deref() == session {
                return Ok(outcome);
            }
        }
    }
}

/// Whether Chrome's error says the domain does not exist.
fn domain_missing(message: &str) -> bool {
    message.contains("wasn't found") || message.contains("not found")
}

/// Lists the page's WebMCP tools.
impl super::Handle for tabwire_shared::ListWebMcpTools {
    const NEEDS_RENDERER: bool = true;

    async fn handle<C: Chrome + 'static>(self, cx: &Cx<'_, C>) -> Result<Self::Reply, EngineError> {
        let mut watch = cx.ready(self.tab_id).await?;
        let tools = webmcp_tools(cx, self.tab_id, &mut watch).await?;
        if tools.tools.is_empty() {
            check_webmcp_feature(cx, self.tab_id).await?;
        }
        Ok(tools)
    }
}

/// Runs one of the page's WebMCP tools.
impl super::Handle for tabwire_shared::InvokeWebMcpTool {
    const NEEDS_RENDERER: bool = true;

    async fn handle<C: Chrome + 'static>(self, cx: &Cx<'_, C>) -> Result<Self::Reply, EngineError> {
        invoke_webmcp(
            cx,
            self.tab_id,
            &self.document,
            &self.tool,
            self.frame_id.as_deref(),
            self.input,
            self.timeout_ms,
        )
        .await
    }
}

#[cfg(test)]
mod tests;
