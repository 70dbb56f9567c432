//! `DiscoverTools`: asks a page for its third-party developer tools.
//!
//! 1. The origin policy first, on the tab's URL, before the debugger is even
//!    attached: a refused page is not touched at all (and again on the document's own
//!    URL once attached).
//! 2. `DOMDebugger.getEventListeners` on `window`: without a `devtoolstooldiscovery`
//!    listener nothing is dispatched.
//! 3. [`page::DISCOVER`] in the page's main world: dispatches the event, validates what
//!    comes back and keeps the tools in a private registry, which the document state
//!    holds by reference for `ExecuteTool`; [`page::REPORT`] brings back the names,
//!    descriptions and schemas as JSON text, parsed here as untrusted input.
//!
//! The whole command is bounded by its timeout: a page whose scripts never yield gets
//! an empty discovery with a problem line, not an error and not a hang.

use std::cell::RefCell;
use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;
use tabwire_shared::origin::OriginPolicy;
use tabwire_shared::{Discovery, TabId, ToolGroup};

use super::document::ToolRegistry;
use super::{page, Engine};
use crate::cdp::dom::DomDebuggerGetEventListeners;
use crate::cdp::{CallArgument, CdpCommand, RuntimeCallFunctionOn, RuntimeEvaluate};
use crate::chrome::Chrome;
use crate::error::EngineError;
use crate::signals::within;

/// The event pages listen to.
const EVENT: &str = "devtoolstooldiscovery";

/// What [`page::REPORT`] answers.
#[derive(Deserialize)]
struct Report {
    groups: Vec<ToolGroup>,
    #[serde(default)]
    problems: Vec<String>,
}

/// Which document a discovery is about, as far as it got.
#[derive(Default, Clone)]
struct About {
    document: String,
    url: String,
    origin: String,
}

impl<C: Chrome + 'static> Engine<C> {
    /// Discovers the tools of `tab` if its origin is allowed.
    pub(super) async fn discover_tools(
        &self,
        tab: TabId,
        allowed_origins: Vec<String>,
        timeout_ms: u64,
    ) -> Result<Discovery, EngineError> {
        let policy = OriginPolicy::from_patterns(allowed_origins);
        let state = self
            .bounded("look up the page", self.chrome.tab(tab))
            .await??
            .ok_or(EngineError::NoSuchTab(tab))?;
        let document = self
            .with_document(tab, |d| d.token.clone())
            .unwrap_or_default();
        let about = RefCell::new(About {
            document,
            origin: origin_of(&state.url),
            url: state.url,
        });
        if !policy.allows(&about.borrow().url) {
            return Ok(refused(about.into_inner()));
        }
        let work = self.discover_in_page(tab, &policy, timeout_ms, &about);
        match within(self.chrome.sleep(timeout_ms), work).await {
            Some(Ok(discovery)) => Ok(discovery),
            Some(Err(error)) => Err(self.confirm_closed(tab, error).await),
            None => {
                let about = about.into_inner();
                Ok(Discovery {
                    document: about.document,
                    url: about.url,
                    origin: about.origin,
                    refused: false,
                    groups: vec![],
                    problems: vec![format!(
                        "The page did not answer tool discovery within {timeout_ms} ms: its \
                         scripts may be busy. Try again later."
                    )],
                })
            }
        }
    }

    async fn discover_in_page(
        &self,
        tab: TabId,
        policy: &OriginPolicy,
        timeout_ms: u64,
        about: &RefCell<About>,
    ) -> Result<Discovery, EngineError> {
        self.ensure_attached(tab).await?;
        if let Some(dialog) = self.open_dialog(tab) {
            return Err(EngineError::DialogOpen { tab, dialog });
        }
        let mut watch = self.signals.subscribe(tab);
        let tree = self.sync_document(tab, &mut watch).await?;
        {
            let mut about = about.borrow_mut();
            about.url = tree.frame.full_url();
            about.origin = match tree.frame.security_origin.as_str() {
                "" | "null" | "://" => origin_of(&about.url),
                origin => origin.to_owned(),
            };
            about.document = self
                .with_document(tab, |d| d.token.clone())
                .unwrap_or_default();
        }
        let about = about.borrow().clone();
        if !policy.allows(&about.url) {
            return Ok(refused(about));
        }
        let found = |groups: Vec<ToolGroup>, problems: Vec<String>| Discovery {
            document: about.document.clone(),
            url: about.url.clone(),
            origin: about.origin.clone(),
            refused: false,
            groups,
            problems,
        };

        let scratch = self.next_object_group();
        let outcome = self
            .run_discovery(tab, &mut watch, &scratch, timeout_ms)
            .await;
        self.release_objects(tab, scratch);
        let Some((registry, report)) = outcome? else {
            self.replace_registry(tab, None);
            return Ok(found(vec![], vec![]));
        };
        let report: Report = match serde_json::from_str(&report) {
            Ok(report) => report,
            Err(error) => {
                self.release_objects(tab, registry.object_group);
                self.replace_registry(tab, None);
                return Err(EngineError::UnreadablePageData(format!(
                    "tool discovery report: {error}"
                )));
            }
        };
        let mut problems = report.problems;
        problems.extend(duplicates(&report.groups));
        self.replace_registry(tab, Some(registry));
        Ok(found(report.groups, problems))
    }

    /// Dispatches the event if the page listens for it; the registry and its report.
    async fn run_discovery(
        &self,
        tab: TabId,
        watch: &mut crate::signals::Subscription,
        scratch: &str,
        timeout_ms: u64,
    ) -> Result<Option<(ToolRegistry, String)>, EngineError> {
        let global = RuntimeEvaluate {
            expression: "this".to_owned(),
            object_group: scratch.to_owned(),
            return_by_value: false,
        };
        let global = self.send_watched(tab, watch, &global).await?;
        let global = global
            .result
            .object_id
            .ok_or_else(|| EngineError::UnexpectedAnswer {
                method: RuntimeEvaluate::METHOD,
                detail: "no global object".to_owned(),
            })?;
        let listeners = DomDebuggerGetEventListeners {
            object_id: global.clone(),
            depth: 0,
        };
        let listeners = self.send_watched(tab, watch, &listeners).await?;
        let listening = listeners
            .listeners
            .iter()
            .filter(|l| l.kind == EVENT)
            .count();
        if listening == 0 {
            return Ok(None);
        }

        let group = format!("tabwire-tools-{}", self.next_object_group());
        // The page's own waits end well before ours, so what did arrive is reported.
        let budget_ms = timeout_ms.saturating_mul(3) / 4;
        let discover = RuntimeCallFunctionOn {
            function_declaration: page::DISCOVER.to_owned(),
            object_id: global,
            arguments: vec![
                CallArgument::value(Value::from(budget_ms)),
                CallArgument::value(Value::from(listening)),
                CallArgument::value(page::discovery_limits()),
            ],
            object_group: group.clone(),
            return_by_value: false,
            await_promise: true,
            user_gesture: false,
        };
        let ran = self.send_watched(tab, watch, &discover).await;
        let ran = match ran {
            Ok(ran) => ran,
            Err(error) => {
                self.release_objects(tab, group);
                return Err(error);
            }
        };
        let registry = match (ran.exception_details, ran.result.object_id) {
            (None, Some(object_id)) => ToolRegistry {
                object_id,
                object_group: group,
            },
            (details, _) => {
                self.release_objects(tab, group);
                let why = details.map_or_else(|| "no registry".to_owned(), |d| d.describe());
                return Err(EngineError::UnreadablePageData(format!(
                    "tool discovery failed in the page: {why}"
                )));
            }
        };
        let report = RuntimeCallFunctionOn {
            function_declaration: page::REPORT.to_owned(),
            object_id: registry.object_id.clone(),
            arguments: vec![],
            object_group: registry.object_group.clone(),
            return_by_value: true,
            await_promise: false,
            user_gesture: false,
        };
        let report = self.send_watched(tab, watch, &report).await;
        match report.map(|r| r.result.value) {
            Ok(Some(Value::String(text))) => Ok(Some((registry, text))),
            Ok(_) => {
                self.release_objects(tab, registry.object_group);
                Err(EngineError::UnreadablePageData(
                    "the tool discovery report is not text".to_owned(),
                ))
            }
            Err(error) => {
                self.release_objects(tab, registry.object_group);
                Err(error)
            }
        }
    }

    /// Makes `registry` the tab's current one, releasing the one it replaces.
    fn replace_registry(&self, tab: TabId, registry: Option<ToolRegistry>) {
        let old = self
            .with_document(tab, |d| std::mem::replace(&mut d.tools, registry.clone()))
            .flatten();
        if let Some(old) = old {
            self.release_objects(tab, old.object_group);
        }
    }
}

fn refused(about: About) -> Discovery {
    Discovery {
        document: about.document,
        url: about.url,
        origin: about.origin,
        refused: true,
        groups: vec![],
        problems: vec![],
    }
}

/// The origin of a URL as the agent reads it: `http://localhost:8080`, `file://`.
fn origin_of(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return "null".to_owned();
    };
    if scheme.eq_ignore_ascii_case("file") {
        return "file://".to_owned();
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let authority = authority.rsplit('@').next().unwrap_or_default();
    format!("{}://{authority}", scheme.to_ascii_lowercase())
}

/// A problem line for each tool name offered more than once.
fn duplicates(groups: &[ToolGroup]) -> Vec<String> {
    let mut first: HashMap<&str, &str> = HashMap::new();
    let mut problems = Vec::new();
    for group in groups {
        let mut in_group: HashMap<&str, usize> = HashMap::new();
        for tool in &group.tools {
            let seen = in_group.entry(&tool.name).or_default();
            *seen += 1;
            if *seen == 2 {
                problems.push(format!(
                    "Tool '{}' appears more than once in group '{}'; only the first one runs.",
                    tool.name, group.name
                ));
            }
            if *seen > 1 {
                continue;
            }
            match first.get(tool.name.as_str()) {
                Some(earlier) => problems.push(format!(
                    "Tool '{}' is offered by both group '{earlier}' and group '{}'; the one in \
                     '{earlier}' runs unless a group is given.",
                    tool.name, group.name
                )),
                None => {
                    first.insert(&tool.name, &group.name);
                }
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests;
