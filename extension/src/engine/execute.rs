//! `ExecuteTool`: runs one third-party tool of the page's current discovery.
//!
//! The call names the discovery's document; a page that has since navigated or
//! reloaded answers [`EngineError::StaleTools`] (the host discovers again and
//! retries). Elements the agent passes as `{"uid": ...}` are resolved to page objects
//! in the registry's world and put back into the arguments page-side; the tool runs
//! from the private registry ([`page::EXECUTE`]) and its result comes back as JSON
//! text plus the nodes it mentions, which become uids (and pinned snapshot nodes).
//!
//! Bounded by the call's timeout (the page keeps running the tool; the engine moves
//! on). The page navigating, the tab closing, the debugger detaching or a dialog
//! opening end the wait at once with their own errors.

use serde_json::Value;
use tabwire_shared::TabId;

use super::elements::{find_uid_refs, insert_uids};
use super::session::interruption;
use super::{page, Engine};
use crate::cdp::{CallArgument, PageEvent, RuntimeCallFunctionOn, RuntimeGetProperties};
use crate::chrome::Chrome;
use crate::error::EngineError;
use crate::signals::{within, Subscription, TabSignal};

/// One `ExecuteTool` call.
pub struct ToolCall {
    /// The discovery's document token.
    pub document: String,
    /// The tool's name.
    pub tool: String,
    /// The group to take it from, if given.
    pub group: Option<String>,
    /// Its argument.
    pub args: Value,
    /// How long it may run.
    pub timeout_ms: u64,
}

impl<C: Chrome + 'static> Engine<C> {
    /// Runs a tool; its JSON-safe result and the uids of the elements in it.
    pub(super) async fn execute_tool(
        &self,
        tab: TabId,
        call: ToolCall,
    ) -> Result<(Value, Vec<String>), EngineError> {
        let work = self.run_tool(tab, &call);
        match within(self.chrome.sleep(call.timeout_ms), work).await {
            Some(Ok(done)) => Ok(done),
            Some(Err(error)) => Err(self.confirm_closed(tab, error).await),
            None => Err(EngineError::ToolTimeout {
                tool: call.tool,
                timeout_ms: call.timeout_ms,
            }),
        }
    }

    async fn run_tool(
        &self,
        tab: TabId,
        call: &ToolCall,
    ) -> Result<(Value, Vec<String>), EngineError> {
        self.ensure_attached(tab).await?;
        if let Some(dialog) = self.open_dialog(tab) {
            return Err(EngineError::DialogOpen { tab, dialog });
        }
        let mut watch = self.signals.subscribe(tab);
        self.sync_document(tab, &mut watch).await?;
        let (token, registry, frame) = self
            .with_document(tab, |d| {
                (d.token.clone(), d.tools.clone(), d.frame_id.clone())
            })
            .ok_or(EngineError::StaleTools(tab))?;
        if token != call.document {
            return Err(EngineError::StaleTools(tab));
        }
        let Some(registry) = registry else {
            return Err(EngineError::ToolNotFound(call.tool.clone()));
        };

        let group = self.next_object_group();
        let outcome = self
            .call_tool(tab, &mut watch, call, &registry.object_id, &frame, &group)
            .await;
        self.release_objects(tab, group);
        outcome
    }

    async fn call_tool(
        &self,
        tab: TabId,
        watch: &mut Subscription,
        call: &ToolCall,
        registry: &str,
        frame: &str,
        group: &str,
    ) -> Result<(Value, Vec<String>), EngineError> {
        let refs = find_uid_refs(&call.args);
        let context = self.main_world(tab, frame);
        let elements = self
            .watched(
                tab,
                watch,
                self.element_objects(tab, &refs.uids, group, context),
            )
            .await?;
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
            object_id: registry.to_owned(),
            arguments,
            object_group: group.to_owned(),
            return_by_value: false,
            await_promise: true,
            user_gesture: true,
        };
        let ran = match watch
            .watch(self.send(tab, &run), |s| tool_interruption(tab, s))
            .await?
        {
            Ok(ran) => ran,
            Err(error) => {
                let error = self.explain_failure(tab, watch, error).await;
                return Err(explain_refusal(tab, error));
            }
        };
        if let Some(details) = ran.exception_details {
            return Err(EngineError::UnreadablePageData(format!(
                "the tool runner failed in the page: {}",
                details.describe()
            )));
        }
        let Some(outcome) = ran.result.object_id else {
            return Err(EngineError::UnreadablePageData("no outcome".to_owned()));
        };
        let read = RuntimeGetProperties {
            object_id: outcome,
            own_properties: true,
        };
        let properties = self.send_watched(tab, watch, &read).await?;
        let mut slots: Vec<(usize, crate::cdp::RemoteObject)> = properties
            .result
            .into_iter()
            .filter_map(|p| Some((p.name.parse::<usize>().ok()?, p.value?)))
            .collect();
        slots.sort_by_key(|(index, _)| *index);
        let mut slots = slots.into_iter().map(|(_, value)| value);
        let text_of = |slot: Option<crate::cdp::RemoteObject>| match slot.and_then(|s| s.value) {
            Some(Value::String(text)) => Some(text),
            _ => None,
        };
        let status = text_of(slots.next());
        let text = text_of(slots.next()).unwrap_or_default();
        match status.as_deref() {
            Some("ok") => {}
            Some("threw") => {
                return Err(EngineError::ToolThrew {
                    tool: call.tool.clone(),
                    error: text,
                })
            }
            Some("notFound") => {
                let name = match &call.group {
                    Some(group) => format!("{} (in group {group})", call.tool),
                    None => call.tool.clone(),
                };
                return Err(EngineError::ToolNotFound(name));
            }
            _ => {
                return Err(EngineError::UnreadablePageData(
                    "the tool runner's outcome".to_owned(),
                ))
            }
        }
        let objects: Vec<String> = slots.filter_map(|s| s.object_id).collect();
        let uids = self
            .watched(tab, watch, self.uids_of_objects(tab, objects))
            .await?;
        let text = insert_uids(&text, &uids).map_err(EngineError::UnreadablePageData)?;
        let result: Value = serde_json::from_str(&text)
            .map_err(|e| EngineError::UnreadablePageData(format!("the tool's result: {e}")))?;
        let mut elements = Vec::with_capacity(uids.len());
        for uid in uids {
            if !elements.contains(&uid) {
                elements.push(uid);
            }
        }
        Ok((result, elements))
    }
}

/// What ends a running tool early: what ends any command, and the page navigating.
fn tool_interruption(tab: TabId, signal: &TabSignal) -> Option<EngineError> {
    interruption(tab, signal).or(match signal {
        TabSignal::Page(PageEvent::FrameNavigated { is_main: true, .. })
        | TabSignal::Page(PageEvent::ContextsCleared) => Some(EngineError::Navigated(tab)),
        _ => None,
    })
}

/// Chrome refused the call: the page navigated (its objects went with it), or the
/// registry is gone.
fn explain_refusal(tab: TabId, error: EngineError) -> EngineError {
    let EngineError::Cdp { message, .. } = &error else {
        return error;
    };
    let navigated = [
        "context was destroyed",
        "navigated or closed",
        "Cannot find context",
    ];
    if navigated.iter().any(|m| message.contains(m)) {
        EngineError::Navigated(tab)
    } else if message.contains("Could not find object") {
        EngineError::StaleTools(tab)
    } else {
        error
    }
}

#[cfg(test)]
mod tests;
