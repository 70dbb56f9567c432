//! The CDP events the engine reads, typed like the commands it sends.
//!
//! Each event is a params struct implementing [`CdpEvent`]: its `METHOD` and the
//! fields the engine reads. [`Incoming::parse`] is the one place a method name is
//! looked at: it reads an event into what it feeds — the tab's waits and document
//! state ([`PageEvent`]), the console collector ([`ConsoleEvent`]), the network
//! collector ([`NetworkEvent`]) or the tab's child sessions ([`TargetEvent`]). Every
//! other event, and one whose params do not have the expected shape, is ignored.

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;

use super::console::{ConsoleApiCalled, ExceptionThrown, IssueAdded, LogEntryAdded};
use super::css::{StyleSheetAdded, StyleSheetHeader};
use super::network::{ExtraInfo, LoadingEnded, RequestWillBeSent, ResponseReceived};
use super::target::{AttachedToTarget, DetachedFromTarget};
use super::webmcp::{ToolResponded, ToolsAdded, ToolsRemoved};
use super::Frame;

/// A CDP event: its params (this struct) and its method name.
pub trait CdpEvent: DeserializeOwned {
    /// The CDP method, e.g. `Page.frameNavigated`.
    const METHOD: &'static str;
}

macro_rules! event {
    ($name:ident, $method:literal) => {
        impl CdpEvent for $name {
            const METHOD: &'static str = $method;
        }
    };
}

/// An event the engine reads, sorted by what it feeds.
#[derive(Debug)]
pub enum Incoming {
    /// The tab's waits and document state react to it.
    Page(PageEvent),
    /// A console message (or the makings of one).
    Console(ConsoleEvent),
    /// A step of a network request.
    Network(NetworkEvent),
    /// A child session (a cross-site iframe) began or ended.
    Target(TargetEvent),
    /// The user picking an element in inspect mode.
    Pointing(PointingEvent),
}

/// The events of the overlay's inspect mode (the user pointing at an element).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PointingEvent {
    /// `Overlay.inspectNodeRequested`: the user clicked this element.
    Picked {
        /// Its DOM node.
        backend_node_id: i64,
    },
    /// `Overlay.inspectModeCanceled`: inspect mode ended without a pick.
    Canceled,
}

/// `Overlay.inspectNodeRequested`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InspectNodeRequested {
    /// The element clicked.
    pub backend_node_id: i64,
}
event!(InspectNodeRequested, "Overlay.inspectNodeRequested");

/// `Overlay.inspectModeCanceled`.
#[derive(Debug, Deserialize)]
pub struct InspectModeCanceled {}
event!(InspectModeCanceled, "Overlay.inspectModeCanceled");

/// The events child sessions come and go with.
#[derive(Debug)]
pub enum TargetEvent {
    /// `Target.attachedToTarget`.
    Attached(AttachedToTarget),
    /// `Target.detachedFromTarget`.
    Detached(DetachedFromTarget),
}

event!(AttachedToTarget, "Target.attachedToTarget");
event!(DetachedFromTarget, "Target.detachedFromTarget");

/// The events console messages come from.
#[derive(Debug)]
pub enum ConsoleEvent {
    /// `Runtime.consoleAPICalled` (replayed by `Runtime.enable`).
    Called(ConsoleApiCalled),
    /// `Runtime.exceptionThrown`.
    Thrown(Box<ExceptionThrown>),
    /// `Log.entryAdded` (replayed by `Log.enable`).
    Logged(LogEntryAdded),
    /// `Audits.issueAdded` (replayed by `Audits.enable`).
    Issue(IssueAdded),
}

/// The events network requests are collected from.
#[derive(Debug)]
pub enum NetworkEvent {
    /// `Network.requestWillBeSent`.
    RequestWillBeSent(RequestWillBeSent),
    /// `Network.responseReceived`.
    ResponseReceived(ResponseReceived),
    /// `Network.loadingFinished` or `Network.loadingFailed`.
    LoadingEnded(LoadingEnded),
    /// `Network.requestWillBeSentExtraInfo`: the request headers as sent.
    RequestExtraInfo(ExtraInfo),
    /// `Network.responseReceivedExtraInfo`: the response headers as received.
    ResponseExtraInfo(ExtraInfo),
}

event!(ConsoleApiCalled, "Runtime.consoleAPICalled");
event!(ExceptionThrown, "Runtime.exceptionThrown");
event!(LogEntryAdded, "Log.entryAdded");
event!(IssueAdded, "Audits.issueAdded");
event!(RequestWillBeSent, "Network.requestWillBeSent");
event!(ResponseReceived, "Network.responseReceived");

/// `Network.loadingFinished`.
#[derive(Debug, Deserialize)]
#[serde(transparent)]
pub struct LoadingFinished(pub LoadingEnded);
event!(LoadingFinished, "Network.loadingFinished");

/// `Network.loadingFailed`.
#[derive(Debug, Deserialize)]
#[serde(transparent)]
pub struct LoadingFailed(pub LoadingEnded);
event!(LoadingFailed, "Network.loadingFailed");

/// `Network.requestWillBeSentExtraInfo`.
#[derive(Debug, Deserialize)]
#[serde(transparent)]
pub struct RequestExtraInfo(pub ExtraInfo);
event!(RequestExtraInfo, "Network.requestWillBeSentExtraInfo");

/// `Network.responseReceivedExtraInfo`.
#[derive(Debug, Deserialize)]
#[serde(transparent)]
pub struct ResponseExtraInfo(pub ExtraInfo);
event!(ResponseExtraInfo, "Network.responseReceivedExtraInfo");

/// `Page.loadEventFired`.
#[derive(Debug, Deserialize)]
pub struct LoadEventFired {}
event!(LoadEventFired, "Page.loadEventFired");

/// `Page.frameNavigated`.
#[derive(Debug, Deserialize)]
pub struct FrameNavigated {
    /// The frame and its new document.
    pub frame: Frame,
    /// `Navigation` or `BackForwardCacheRestore`.
    #[serde(rename = "type", default)]
    pub kind: String,
}
event!(FrameNavigated, "Page.frameNavigated");

/// `Page.navigatedWithinDocument`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NavigatedWithinDocument {
    /// The frame.
    pub frame_id: String,
}
event!(NavigatedWithinDocument, "Page.navigatedWithinDocument");

/// `Page.javascriptDialogOpening`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DialogOpening {
    /// The dialog's text.
    #[serde(default)]
    pub message: String,
    /// `alert`, `confirm`, `prompt` or `beforeunload`.
    #[serde(rename = "type")]
    pub kind: tabwire_shared::DialogKind,
    /// A prompt's default answer (Chrome sends an empty one for every kind).
    pub default_prompt: Option<String>,
}
event!(DialogOpening, "Page.javascriptDialogOpening");

/// `Page.javascriptDialogClosed`.
#[derive(Debug, Deserialize)]
pub struct DialogClosed {}
event!(DialogClosed, "Page.javascriptDialogClosed");

/// `Runtime.executionContextCreated`.
#[derive(Debug, Deserialize)]
pub struct ContextCreated {
    /// The new context.
    pub context: ContextDescription,
}
event!(ContextCreated, "Runtime.executionContextCreated");

/// A JavaScript context, as `Runtime.executionContextCreated` describes it.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextDescription {
    /// The context id.
    pub id: i64,
    /// The world's name (empty for the main world).
    #[serde(default)]
    pub name: String,
    /// Which frame and world it belongs to.
    #[serde(default)]
    pub aux_data: ContextAuxData,
}

/// The frame and world of a JavaScript context.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextAuxData {
    /// The frame.
    #[serde(default)]
    pub frame_id: String,
    /// Whether it is the frame's main world (not an isolated world).
    #[serde(default)]
    pub is_default: bool,
}

/// `Runtime.executionContextDestroyed`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextDestroyed {
    /// The context id.
    pub execution_context_id: i64,
}
event!(ContextDestroyed, "Runtime.executionContextDestroyed");

/// `Runtime.executionContextsCleared`.
#[derive(Debug, Deserialize)]
pub struct ContextsCleared {}
event!(ContextsCleared, "Runtime.executionContextsCleared");

/// `Page.frameRequestedNavigation`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameRequestedNavigation {
    /// The frame.
    pub frame_id: String,
    /// `currentTab`, `newTab`, `newWindow` or `download`.
    #[serde(default)]
    pub disposition: String,
}
event!(FrameRequestedNavigation, "Page.frameRequestedNavigation");

/// `Page.frameStartedNavigating`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameStartedNavigating {
    /// The frame.
    pub frame_id: String,
    /// `differentDocument`, `sameDocument`, `historySameDocument`, ...
    #[serde(default)]
    pub navigation_type: String,
}
event!(FrameStartedNavigating, "Page.frameStartedNavigating");

/// `Page.frameStartedLoading`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameStartedLoading {
    /// The frame.
    pub frame_id: String,
}
event!(FrameStartedLoading, "Page.frameStartedLoading");

/// `Page.frameStoppedLoading`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameStoppedLoading {
    /// The frame.
    pub frame_id: String,
}
event!(FrameStoppedLoading, "Page.frameStoppedLoading");

/// `Page.fileChooserOpened`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileChooserOpened {
    /// The file input behind the chooser.
    pub backend_node_id: Option<i64>,
}
event!(FileChooserOpened, "Page.fileChooserOpened");

/// `Inspector.targetCrashed`.
#[derive(Debug, Deserialize)]
pub struct TargetCrashed {}
event!(TargetCrashed, "Inspector.targetCrashed");

/// `Inspector.targetReloadedAfterCrash`.
#[derive(Debug, Deserialize)]
pub struct TargetReloadedAfterCrash {}
event!(
    TargetReloadedAfterCrash,
    "Inspector.targetReloadedAfterCrash"
);

/// `Input.dragIntercepted`.
#[derive(Debug, Deserialize)]
pub struct DragIntercepted {
    /// The drag data, for `Input.dispatchDragEvent`.
    pub data: Value,
}
event!(DragIntercepted, "Input.dragIntercepted");
event!(StyleSheetAdded, "CSS.styleSheetAdded");

/// `Tracing.tracingComplete`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TracingComplete {
    /// The stream holding the trace (stream transfer).
    pub stream: Option<String>,
    /// Events were lost (the buffer filled).
    #[serde(default)]
    pub data_loss_occurred: bool,
}
event!(TracingComplete, "Tracing.tracingComplete");
event!(ToolsAdded, "WebMCP.toolsAdded");
event!(ToolsRemoved, "WebMCP.toolsRemoved");
event!(ToolResponded, "WebMCP.toolResponded");

impl Incoming {
    /// Reads an event the engine reads; `None` for any other event or for params that
    /// do not have the expected shape.
    pub fn parse(method: &str, params: &Value) -> Option<Self> {
        /// Tries each event type in turn: the one whose method this is reads the params.
        macro_rules! read {
            ($($event:ty => $into:expr,)*) => {
                $(if method == <$event>::METHOD {
                    return <$event>::deserialize(params).ok().map($into);
                })*
            };
        }
        use ConsoleEvent as C;
        use Incoming::{Console, Network, Page, Pointing, Target};
        use NetworkEvent as N;
        read! {
            InspectNodeRequested => |e: InspectNodeRequested| {
                Pointing(PointingEvent::Picked { backend_node_id: e.backend_node_id })
            },
            InspectModeCanceled => |_| Pointing(PointingEvent::Canceled),
            LoadEventFired => |_| Page(PageEvent::LoadEventFired),
            FrameNavigated => |e: FrameNavigated| Page(PageEvent::FrameNavigated {
                is_main: e.frame.parent_id.is_none(),
                frame_id: e.frame.id,
                loader_id: e.frame.loader_id,
                kind: e.kind,
                url: e.frame.url,
            }),
            NavigatedWithinDocument => |e: NavigatedWithinDocument| {
                Page(PageEvent::NavigatedWithinDocument { frame_id: e.frame_id })
            },
            DialogOpening => |e: DialogOpening| {
                // Chrome sends an empty default for every kind; only a prompt has one.
                let is_prompt = e.kind == tabwire_shared::DialogKind::Prompt;
                Page(PageEvent::DialogOpening(tabwire_shared::DialogInfo {
                    kind: e.kind,
                    message: e.message,
                    default_prompt: e.default_prompt.filter(|_| is_prompt),
                }))
            },
            DialogClosed => |_| Page(PageEvent::DialogClosed),
            ContextCreated => |e: ContextCreated| Page(PageEvent::ContextCreated {
                id: e.context.id,
                frame_id: e.context.aux_data.frame_id,
                is_default: e.context.aux_data.is_default,
                name: e.context.name,
            }),
            ContextDestroyed => |e: ContextDestroyed| {
                Page(PageEvent::ContextDestroyed { id: e.execution_context_id })
            },
            ContextsCleared => |_| Page(PageEvent::ContextsCleared),
            FrameRequestedNavigation => |e: FrameRequestedNavigation| {
                Page(PageEvent::FrameRequestedNavigation {
                    frame_id: e.frame_id,
                    disposition: e.disposition,
                })
            },
            FrameStartedNavigating => |e: FrameStartedNavigating| {
                Page(PageEvent::FrameStartedNavigating {
                    frame_id: e.frame_id,
                    same_document: matches!(
                        e.navigation_type.as_str(),
                        "sameDocument" | "historySameDocument"
                    ),
                })
            },
            FrameStartedLoading => |e: FrameStartedLoading| {
                Page(PageEvent::FrameStartedLoading { frame_id: e.frame_id })
            },
            FrameStoppedLoading => |e: FrameStoppedLoading| {
                Page(PageEvent::FrameStoppedLoading { frame_id: e.frame_id })
            },
            FileChooserOpened => |e: FileChooserOpened| {
                Page(PageEvent::FileChooserOpened { backend_node_id: e.backend_node_id })
            },
            TargetCrashed => |_| Page(PageEvent::TargetCrashed),
            TargetReloadedAfterCrash => |_| Page(PageEvent::ReloadedAfterCrash),
            DragIntercepted => |e: DragIntercepted| Page(PageEvent::DragIntercepted { data: e.data }),
            TracingComplete => |e: TracingComplete| Page(PageEvent::TracingComplete {
                stream: e.stream,
                data_loss: e.data_loss_occurred,
            }),
            StyleSheetAdded => |e: StyleSheetAdded| Page(PageEvent::StyleSheetAdded(Box::new(e.header))),
            ToolsAdded => |e: ToolsAdded| Page(PageEvent::WebMcpAdded(
                e.tools.into_iter().map(super::webmcp::AddedTool::into_tool).collect()
            )),
            ToolsRemoved => |e: ToolsRemoved| Page(PageEvent::WebMcpRemoved(
                e.tools.into_iter().map(|t| (t.frame_id, t.name)).collect()
            )),
            ToolResponded => |e: ToolResponded| Page(PageEvent::WebMcpResponded {
                invocation: e.invocation_id.clone(),
                outcome: e.into_outcome(),
            }),
            ConsoleApiCalled => |e| Console(C::Called(e)),
            ExceptionThrown => |e| Console(C::Thrown(Box::new(e))),
            LogEntryAdded => |e| Console(C::Logged(e)),
            IssueAdded => |e| Console(C::Issue(e)),
            RequestWillBeSent => |e| Network(N::RequestWillBeSent(e)),
            ResponseReceived => |e| Network(N::ResponseReceived(e)),
            LoadingFinished => |e: LoadingFinished| Network(N::LoadingEnded(e.0)),
            LoadingFailed => |e: LoadingFailed| Network(N::LoadingEnded(e.0)),
            RequestExtraInfo => |e: RequestExtraInfo| Network(N::RequestExtraInfo(e.0)),
            ResponseExtraInfo => |e: ResponseExtraInfo| Network(N::ResponseExtraInfo(e.0)),
            AttachedToTarget => |e| Target(TargetEvent::Attached(e)),
            DetachedFromTarget => |e| Target(TargetEvent::Detached(e)),
        }
        None
    }
}

/// The page events the engine reacts to.
#[derive(Debug, Clone, PartialEq)]
pub enum PageEvent {
    /// `Page.loadEventFired`: the main frame's document finished loading.
    LoadEventFired,
    /// `Page.frameNavigated`: a frame committed a new document.
    FrameNavigated {
        /// The frame.
        frame_id: String,
        /// Whether it is the main frame.
        is_main: bool,
        /// The new document's loader.
        loader_id: String,
        /// `Navigation` or `BackForwardCacheRestore`.
        kind: String,
        /// The document's URL, without its fragment.
        url: String,
    },
    /// `Page.navigatedWithinDocument`: a fragment or History API navigation.
    NavigatedWithinDocument {
        /// The frame.
        frame_id: String,
    },
    /// `Page.javascriptDialogOpening`.
    DialogOpening(tabwire_shared::DialogInfo),
    /// `Page.javascriptDialogClosed`.
    DialogClosed,
    /// `WebMCP.toolsAdded`: the page registered tools (or `WebMCP.enable` announced
    /// those registered before).
    WebMcpAdded(Vec<tabwire_shared::webmcp::WebMcpTool>),
    /// `WebMCP.toolsRemoved`: tools went, each named by its frame and name.
    WebMcpRemoved(Vec<(String, String)>),
    /// `WebMCP.toolResponded`: a run ended.
    WebMcpResponded {
        /// The run.
        invocation: String,
        /// How it ended.
        outcome: tabwire_shared::webmcp::WebMcpOutcome,
    },
    /// `Runtime.executionContextCreated`: a frame's world got a JavaScript context.
    ContextCreated {
        /// The context id.
        id: i64,
        /// The frame it belongs to.
        frame_id: String,
        /// Whether it is the frame's main world (not an isolated world).
        is_default: bool,
        /// The world's name (empty for the main world).
        name: String,
    },
    /// `Runtime.executionContextDestroyed`.
    ContextDestroyed {
        /// The context id.
        id: i64,
    },
    /// `Runtime.executionContextsCleared`: every context is gone (a new main document).
    ContextsCleared,
    /// `Page.frameRequestedNavigation`: the page asked to navigate a frame (a link,
    /// a form, `location = ...`), before the navigation starts.
    FrameRequestedNavigation {
        /// The frame.
        frame_id: String,
        /// `currentTab`, `newTab`, `newWindow` or `download`.
        disposition: String,
    },
    /// `Page.frameStartedNavigating`: the browser started a navigation.
    FrameStartedNavigating {
        /// The frame.
        frame_id: String,
        /// It stays in the same document (fragment, History API).
        same_document: bool,
    },
    /// `Page.frameStartedLoading`.
    FrameStartedLoading {
        /// The frame.
        frame_id: String,
    },
    /// `Page.frameStoppedLoading`.
    FrameStoppedLoading {
        /// The frame.
        frame_id: String,
    },
    /// `Page.fileChooserOpened` (while file choosers are intercepted).
    FileChooserOpened {
        /// The file input behind the chooser.
        backend_node_id: Option<i64>,
    },
    /// `Input.dragIntercepted` (while drags are intercepted): a drag began.
    DragIntercepted {
        /// The drag data, for `Input.dispatchDragEvent`.
        data: Value,
    },
    /// `Inspector.targetCrashed`: the tab's renderer crashed (or was killed); the tab
    /// shows nothing and runs nothing until it is reloaded or navigated.
    TargetCrashed,
    /// `Inspector.targetReloadedAfterCrash`: a crashed tab has a renderer again.
    ReloadedAfterCrash,
    /// `Tracing.tracingComplete`: a stopped trace is ready to read.
    TracingComplete {
        /// Its stream.
        stream: Option<String>,
        /// Events were lost.
        data_loss: bool,
    },
    /// `CSS.styleSheetAdded` (while the CSS domain is on, for `get_css_styles`).
    StyleSheetAdded(Box<StyleSheetHeader>),
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn page(method: &str, params: Value) -> Option<PageEvent> {
        match Incoming::parse(method, &params) {
            Some(Incoming::Page(event)) => Some(event),
            _ => None,
        }
    }

    #[test]
    fn main_frame_navigation_is_recognised() {
        let event = page(
            FrameNavigated::METHOD,
            json!({"frame": {"id": "F", "loaderId": "L", "url": "x"}, "type": "Navigation"}),
        );
        assert_eq!(
            event,
            Some(PageEvent::FrameNavigated {
                frame_id: "F".into(),
                is_main: true,
                loader_id: "L".into(),
                kind: "Navigation".into(),
                url: "x".into(),
            })
        );
    }

    #[test]
    fn execution_contexts_are_read_with_their_frame() {
        let created = page(
            ContextCreated::METHOD,
            json!({"context": {"id": 3, "origin": "x", "name": "",
                "auxData": {"isDefault": true, "type": "default", "frameId": "F"}}}),
        );
        assert_eq!(
            created,
            Some(PageEvent::ContextCreated {
                id: 3,
                frame_id: "F".into(),
                is_default: true,
                name: String::new(),
            })
        );
        let destroyed = page(
            ContextDestroyed::METHOD,
            json!({"executionContextId": 3, "executionContextUniqueId": "u"}),
        );
        assert_eq!(destroyed, Some(PageEvent::ContextDestroyed { id: 3 }));
    }

    #[test]
    fn malformed_or_unknown_events_are_ignored() {
        assert!(Incoming::parse(FrameNavigated::METHOD, &json!(3)).is_none());
        assert!(Incoming::parse("Network.dataReceived", &json!({})).is_none());
    }

    #[test]
    fn collector_events_are_sorted_by_collector() {
        let logged = json!({"entry": {"source": "network", "level": "error", "text": "x"}});
        assert!(matches!(
            Incoming::parse(LogEntryAdded::METHOD, &logged),
            Some(Incoming::Console(ConsoleEvent::Logged(_)))
        ));
        let failed = json!({"requestId": "1", "timestamp": 2.0, "errorText": "net::ERR"});
        assert!(matches!(
            Incoming::parse(LoadingFailed::METHOD, &failed),
            Some(Incoming::Network(NetworkEvent::LoadingEnded(_)))
        ));
    }
}
