//! `DiscoverThirdPartyTools`: asks a page for its third-party developer tools.
//!
//! 1. The origin policy first, on the tab's URL (or, when the debugger is attached and
//!    the document known, on the document's URL as last seen: a document keeps its
//!    origin), before anything is sent to the page: a refused page is not touched at all
//!    (and again on the document's own URL from `Page.getFrameTree` before anything
//!    runs in it).
//! 2. `DOMDebugger.getEventListeners` on `window`: without a `devtoolstooldiscovery`
//!    listener nothing is dispatched.
//! 3. [`page::DISCOVER`], called on the document's [`Kit`]: dispatches the event,
//!    validates what comes back and keeps the tools in the kit's private registry for
//!    `RunThirdPartyTool`; it answers with the names, descriptions and schemas as JSON text,
//!    parsed here as untrusted input.
//!
//! 4. The page's WebMCP tools marked for debugging (`annotations.debugging`) come
//!    first, as the group `WebMCP Tools` ([`super::webmcp`]); they run through WebMCP.
//!    Those of cross-site frames join them when the origin policy allows the frame's
//!    origin as well as the page's.
//!
//! The kit (with the `window` handle) is made once per document, so a repeated
//! discovery costs two steps: the frame tree and the listeners together, then the
//! dispatch. A kit Chrome no longer knows (its context went) is replaced once,
//! transparently.
//!
//! The whole command is bounded by its timeout: a page whose scripts never yield gets
//! an empty discovery with a problem line, not an error and not a hang.

use std::cell::RefCell;
use std::collections::HashMap;

use serde::Deserialize;
use serde_json::{json, Value};
use tabwire_shared::origin::{Origin, OriginPolicy};
use tabwire_shared::webmcp::{WEBMCP_GROUP, WEBMCP_GROUP_DESCRIPTION};
use tabwire_shared::{Discovery, TabId, ToolDefinition, ToolGroup};

use super::document::Kit;
use super::page;
use super::webmcp::webmcp_tools;
use crate::cdp::dom::{DomDebuggerGetEventListeners, EventListeners};
use crate::cdp::{
    CallArgument, CdpCommand, FrameTree, PageGetFrameTree, RuntimeCallFunctionOn, RuntimeEvaluate,
};
use crate::chrome::Chrome;
use crate::engine::context::Cx;
use crate::error::EngineError;
use crate::json_text;
use crate::signals::Subscription;

/// The event pages listen to.
const EVENT: &str = "devtoolstooldiscovery";

/// What [`page::DISCOVER`] answers.
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

impl About {
    fn new(document: String, url: String) -> Self {
        Self {
            document,
            origin: origin_of(&url),
            url,
        }
    }
}

/// How one attempt at discovery ended.
enum Attempt {
    /// With an answer.
    Done(Discovery),
    /// On a kit Chrome no longer knows (dropped): worth one more try.
    KitGone(EngineError),
}

/// Discovers the tools of `tab` if its origin is allowed. An `automatic` discovery
/// (for another tool's reply) does not ask a document that timed out before.
pub(super) async fn discover_tools<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    allowed_origins: Vec<String>,
    timeout_ms: u64,
    automatic: bool,
) -> Result<Discovery, EngineError> {
    let policy = OriginPolicy::from_patterns(allowed_origins);
    let about = match cx.known_document(tab) {
        Some((document, url)) => About::new(document, url),
        None => {
            let state = cx
                .bounded("look up the page", cx.chrome().tab(tab))
                .await??
                .ok_or(EngineError::NoSuchTab(tab))?;
            let document = cx
                .with_document(tab, |d| d.token.clone())
                .unwrap_or_default();
            About::new(document, state.url)
        }
    };
    if !policy.allows(&about.url) {
        return Ok(refused(about));
    }
    if automatic && discovery_timed_out(cx, tab, &about.document) {
        return Ok(not_asked_again(about));
    }
    let about = RefCell::new(about);
    let work = discover_in_page(cx, tab, &policy, timeout_ms, &about);
    match cx.in_time(tab, timeout_ms, work).await? {
        Some(discovery) => Ok(discovery),
        None => {
            let about = about.into_inner();
            cx.with_document(tab, |d| {
                d.discovery_timed_out |= d.token == about.document;
            });
            Ok(Discovery {
                document: about.document,
                url: about.url,
                origin: about.origin,
                refused: false,
                groups: vec![],
                problems: vec![format!(
                    "The page did not answer tool discovery within {timeout_ms} ms: its \
                     scripts may be busy. It is not asked again with every reply (that \
                     would cost the wait each time); call list_3p_developer_tools to ask \
                     it again."
                )],
            })
        }
    }
}

async fn discover_in_page<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    policy: &OriginPolicy,
    timeout_ms: u64,
    about: &RefCell<About>,
) -> Result<Discovery, EngineError> {
    let mut watch = cx.ready(tab).await?;
    let mut discovery = match attempt(cx, tab, &mut watch, policy, timeout_ms, about).await? {
        Attempt::Done(discovery) => discovery,
        Attempt::KitGone(_) => {
            match attempt(cx, tab, &mut watch, policy, timeout_ms, about).await? {
                Attempt::Done(discovery) => discovery,
                Attempt::KitGone(error) => return Err(error),
            }
        }
    };
    if !discovery.refused {
        add_webmcp_group(cx, tab, &mut watch, policy, &mut discovery).await;
    }
    Ok(discovery)
}

/// Puts the page's WebMCP tools marked for debugging first, as the group
/// [`WEBMCP_GROUP`]; a browser without WebMCP adds nothing. Those of a cross-site
/// frame say so in their description, and are offered only when the origin policy
/// allows the frame's origin too (a problem line says which were not).
async fn add_webmcp_group<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    policy: &OriginPolicy,
    discovery: &mut Discovery,
) {
    let listed = match webmcp_tools(cx, tab, watch).await {
        Ok(listed) => listed,
        Err(EngineError::WebMcpUnavailable(_)) => return,
        Err(error) => {
            discovery.problems.push(format!(
                "The page's WebMCP tools could not be read: {error}"
            ));
            return;
        }
    };
    if listed.document != discovery.document {
        return;
    }
    let mut refused = Vec::new();
    let tools: Vec<ToolDefinition> = listed
        .tools
        .into_iter()
        .filter(|t| t.is_debugging())
        .filter(|t| match &t.cross_site_origin {
            Some(origin) if !policy.allows(origin) => {
                refused.push(format!(
                    "WebMCP tool {:?} of the cross-site frame {origin} left out: the \
                     origin policy does not allow that origin (--thirdPartyOrigins).",
                    t.name.chars().take(80).collect::<String>()
                ));
                false
            }
            _ => true,
        })
        .map(|t| ToolDefinition {
            description: match &t.cross_site_origin {
                Some(origin) => {
                    format!(
                        "{} (registered by the cross-site frame {origin})",
                        t.description
                    )
                }
                None => t.description,
            },
            name: t.name,
            input_schema: t.input_schema.unwrap_or_else(|| json!({})),
            annotations: Some(t.annotations),
        })
        .collect();
    discovery.problems.extend(listed.problems);
    discovery.problems.extend(refused);
    if tools.is_empty() {
        return;
    }
    discovery.groups.insert(
        0,
        ToolGroup {
            name: WEBMCP_GROUP.to_owned(),
            description: Some(WEBMCP_GROUP_DESCRIPTION.to_owned()),
            tools,
            webmcp: true,
        },
    );
}

/// One go at discovery, with the document's kit if it has one, else a new kit.
async fn attempt<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    policy: &OriginPolicy,
    timeout_ms: u64,
    about: &RefCell<About>,
) -> Result<Attempt, EngineError> {
    let cached = cx.with_document(tab, |d| d.kit.clone()).flatten();
    let (tree, listeners) = frame_tree_and_listeners(cx, tab, watch, &cached).await?;
    cx.adopt_frame_tree(tab, &tree);
    let about = update_about(cx, tab, &tree, about);
    if !policy.allows(&about.url) {
        return Ok(Attempt::Done(refused(about)));
    }
    let ready = kit_and_listeners(cx, tab, watch, cached, listeners).await;
    let (kit, listeners) = match ready {
        Ok(ready) => ready,
        Err(error) if is_stale(&error) => return Ok(Attempt::KitGone(error)),
        Err(error) => return Err(error),
    };
    let listening = listeners
        .listeners
        .iter()
        .filter(|l| l.kind == EVENT)
        .count();
    let found = |groups: Vec<ToolGroup>, problems: Vec<String>| Discovery {
        document: about.document.clone(),
        url: about.url.clone(),
        origin: about.origin.clone(),
        refused: false,
        groups,
        problems,
    };
    if listening == 0 {
        set_tools(cx, tab, &kit, false);
        return Ok(Attempt::Done(found(vec![], vec![])));
    }
    let report = match dispatch(cx, tab, watch, &kit, listening, timeout_ms).await {
        Ok(report) => report,
        Err(error) if is_stale(&error) => return Ok(Attempt::KitGone(error)),
        Err(error) => return Err(error),
    };
    // Measured before it is parsed: the page may have broken its own limit.
    let limit = page::check_length(
        &report,
        page::MAX_REPORT_TEXT_READ,
        "the tool discovery report",
    );
    if let Err(error) = limit {
        set_tools(cx, tab, &kit, false);
        return Err(EngineError::UnreadablePageData(error));
    }
    let report: Report = match json_text::parse(&report) {
        Ok(report) => report,
        Err(error) => {
            set_tools(cx, tab, &kit, false);
            return Err(EngineError::UnreadablePageData(format!(
                "tool discovery report: {error}"
            )));
        }
    };
    let mut problems = report.problems;
    problems.extend(duplicates(&report.groups));
    set_tools(cx, tab, &kit, true);
    Ok(Attempt::Done(found(report.groups, problems)))
}

/// The main frame's tree and, with a kit, the listeners on its `window`, fetched
/// together; a failure to get the listeners is left to the caller.
async fn frame_tree_and_listeners<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    kit: &Option<Kit>,
) -> Result<(FrameTree, Option<Result<EventListeners, EngineError>>), EngineError> {
    let Some(kit) = kit else {
        let tree = cx.send_watched(tab, watch, &PageGetFrameTree {}).await?;
        return Ok((tree.frame_tree, None));
    };
    let both = async {
        let listeners = listeners_of(kit);
        let (tree, listeners) =
            futures::join!(cx.send(tab, &PageGetFrameTree {}), cx.send(tab, &listeners));
        Ok((tree?.frame_tree, Some(listeners)))
    };
    cx.watched(tab, watch, both).await
}

/// The kit to dispatch through and the listeners on its `window`: the cached kit's
/// (fetched along with the frame tree) if it is still the document's, else a new
/// kit's. A kit Chrome no longer knows is dropped, and the error says so
/// ([`is_stale`]).
async fn kit_and_listeners<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    cached: Option<Kit>,
    listeners: Option<Result<EventListeners, EngineError>>,
) -> Result<(Kit, EventListeners), EngineError> {
    if let (Some(kit), Some(listeners)) = (cached, listeners) {
        match listeners {
            Ok(listeners) if is_current_kit(cx, tab, &kit) => return Ok((kit, listeners)),
            // The document changed meanwhile: its new kit is made below.
            Ok(_) => {}
            Err(error) if is_stale(&error) => {
                cx.drop_kit(tab, &kit);
                return Err(error);
            }
            Err(error) => return Err(cx.explain_failure(tab, watch, error).await),
        }
    }
    let kit = make_kit(cx, tab, watch).await?;
    match cx.send_watched(tab, watch, &listeners_of(&kit)).await {
        Ok(listeners) => Ok((kit, listeners)),
        Err(error) => {
            if is_stale(&error) {
                cx.drop_kit(tab, &kit);
            }
            Err(error)
        }
    }
}

/// Whether `kit` is the kit of the tab's document.
fn is_current_kit<C: Chrome + 'static>(cx: &Cx<'_, C>, tab: TabId, kit: &Kit) -> bool {
    cx.with_document(tab, |d| d.kit.as_ref() == Some(kit))
        .unwrap_or(false)
}

/// Notes what the frame tree says about the document; the updated account.
fn update_about<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    tree: &FrameTree,
    about: &RefCell<About>,
) -> About {
    let mut about = about.borrow_mut();
    about.url = tree.frame.full_url();
    about.origin = match tree.frame.security_origin.as_str() {
        "" | "null" | "://" => origin_of(&about.url),
        origin => origin.to_owned(),
    };
    about.document = cx
        .with_document(tab, |d| d.token.clone())
        .unwrap_or_default();
    about.clone()
}

/// Makes the document's kit and keeps it (with the `window` handle) in the
/// document state.
pub(super) async fn make_kit<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
) -> Result<Kit, EngineError> {
    let group = format!("tabwire-kit-{}", cx.next_object_group());
    let evaluate = |expression: &str| RuntimeEvaluate {
        expression: expression.to_owned(),
        object_group: group.clone(),
        return_by_value: false,
    };
    // Released if the kit is not kept: on failure, and when the call's timeout
    // drops this future midway.
    let mut unkept = ReleaseOnDrop {
        cx,
        tab,
        group: Some(group.clone()),
    };
    let (make, window) = (evaluate(page::KIT), evaluate("this"));
    let both = async {
        let (made, window) = futures::join!(cx.send(tab, &make), cx.send(tab, &window));
        Ok((made?, window?))
    };
    let (made, window) = cx.watched(tab, watch, both).await?;
    let (object_id, window_id) = match (made.exception_details, made.result.object_id) {
        (None, Some(kit)) => match window.result.object_id {
            Some(window) => (kit, window),
            None => {
                return Err(EngineError::UnexpectedAnswer {
                    method: RuntimeEvaluate::METHOD,
                    detail: "no global object".to_owned(),
                });
            }
        },
        (details, _) => {
            let why = details.map_or_else(|| "no kit".to_owned(), |d| d.describe());
            return Err(EngineError::UnreadablePageData(format!(
                "tabwire's page scripts failed to start: {why}"
            )));
        }
    };
    let frame = cx
        .with_document(tab, |d| d.frame_id.clone())
        .unwrap_or_default();
    unkept.group = None;
    let kit = Kit {
        object_id,
        window_id,
        object_group: group,
        context: cx.main_world(tab, &frame),
    };
    let old = cx
        .with_document(tab, |d| d.kit.replace(kit.clone()))
        .flatten();
    if let Some(old) = old {
        cx.release_objects(tab, old.object_group);
    }
    Ok(kit)
}

/// Dispatches the discovery event through the kit; the report text.
async fn dispatch<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    kit: &Kit,
    listening: usize,
    timeout_ms: u64,
) -> Result<String, EngineError> {
    // The page's own waits end well before ours, so what did arrive is reported.
    let budget_ms = timeout_ms.saturating_mul(3) / 4;
    let discover = RuntimeCallFunctionOn {
        function_declaration: page::DISCOVER.to_owned(),
        object_id: kit.object_id.clone(),
        arguments: vec![
            CallArgument::value(Value::from(budget_ms)),
            CallArgument::value(Value::from(listening)),
            CallArgument::value(page::discovery_limits()),
        ],
        object_group: kit.object_group.clone(),
        return_by_value: true,
        await_promise: true,
        user_gesture: false,
    };
    let ran = match cx.send_watched(tab, watch, &discover).await {
        Ok(ran) => ran,
        Err(error) => {
            if is_stale(&error) {
                cx.drop_kit(tab, kit);
            }
            return Err(error);
        }
    };
    if let Some(details) = ran.exception_details {
        return Err(EngineError::UnreadablePageData(format!(
            "tool discovery failed in the page: {}",
            details.describe()
        )));
    }
    match ran.result.value {
        Some(Value::String(text)) => Ok(text),
        _ => Err(EngineError::UnreadablePageData(
            "the tool discovery report is not text".to_owned(),
        )),
    }
}

/// Records whether the kit's registry holds tools, if `kit` is still the
/// document's.
fn set_tools<C: Chrome + 'static>(cx: &Cx<'_, C>, tab: TabId, kit: &Kit, tools: bool) {
    cx.with_document(tab, |d| {
        if d.kit.as_ref() == Some(kit) {
            d.tools = tools;
        }
    });
}

/// Releases an object group when dropped, unless its `group` was taken back.
struct ReleaseOnDrop<'a, 'c, C: Chrome + 'static> {
    cx: &'a Cx<'c, C>,
    tab: TabId,
    group: Option<String>,
}

impl<C: Chrome + 'static> Drop for ReleaseOnDrop<'_, '_, C> {
    fn drop(&mut self) {
        if let Some(group) = self.group.take() {
            self.cx.release_objects(self.tab, group);
        }
    }
}

/// `DOMDebugger.getEventListeners` on the kit's `window`.
fn listeners_of(kit: &Kit) -> DomDebuggerGetEventListeners {
    DomDebuggerGetEventListeners {
        object_id: kit.window_id.clone(),
        depth: 0,
    }
}

/// Whether Chrome refused a call because it no longer knows the objects it names (their
/// JavaScript context is gone).
pub(super) fn is_stale(error: &EngineError) -> bool {
    let EngineError::Cdp { message, .. } = error else {
        return false;
    };
    [
        "Could not find object",
        "Cannot find context",
        "context was destroyed",
    ]
    .iter()
    .any(|m| message.contains(m))
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
    Origin::of(url).to_string()
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

/// Whether a discovery in `tab`'s document `token` (still its current one) timed
/// out before.
fn discovery_timed_out<C: Chrome + 'static>(cx: &Cx<'_, C>, tab: TabId, token: &str) -> bool {
    cx.with_document(tab, |d| d.token == token && d.discovery_timed_out)
        .unwrap_or(false)
}

/// The discovery of a document that timed out before, not asked again automatically.
fn not_asked_again(about: About) -> Discovery {
    Discovery {
        document: about.document,
        url: about.url,
        origin: about.origin,
        refused: false,
        groups: vec![],
        problems: vec![
            "This page did not answer tool discovery in time when last asked, so it is not \
             asked again with every reply (that would cost the whole wait each time). Call \
             list_3p_developer_tools to ask it again."
                .to_owned(),
        ],
    }
}

/// Asks the page for its tools.
impl super::Handle for tabwire_shared::DiscoverThirdPartyTools {
    const NEEDS_RENDERER: bool = true;

    async fn handle<C: Chrome + 'static>(self, cx: &Cx<'_, C>) -> Result<Self::Reply, EngineError> {
        cx.tabs_read();
        discover_tools(
            cx,
            self.tab_id,
            self.allowed_origins,
            self.timeout_ms,
            self.automatic,
        )
        .await
    }
}

#[cfg(test)]
mod tests;
