//! The small, hand-written subset of the Chrome DevTools Protocol the engine uses.
//!
//! Each command is a params struct implementing [`CdpCommand`]: its `METHOD` and the
//! type its result deserialises into. Each event the engine reads is a params struct
//! implementing [`CdpEvent`](events::CdpEvent), read in one place ([`events`]); every
//! other event is ignored. Only the fields the engine reads are declared — serde skips
//! the rest — so Chrome adding fields never breaks us.
//!
//! The page and runtime commands live here; [`world`] makes tabwire's isolated world
//! in a frame and runs code there (the snapshot walker); [`dom`] holds the element
//! commands used by snapshots, input and third-party tools, [`accessibility`] Chrome's
//! own accessibility tree (to compare snapshots with); [`input`] the input events and
//! element geometry; [`capture`] screenshots and dialogs; [`emulation`] the emulated
//! settings; [`css`] an element's matched rules; [`network`] and [`console`] what the
//! collectors enable and read; [`target`] the child sessions of cross-site iframes;
//! [`tracing`] performance traces.

pub mod accessibility;
pub mod capture;
pub mod console;
pub mod css;
pub mod dom;
pub mod emulation;
pub mod events;
pub mod input;
pub mod memory;
pub mod network;
pub mod refusal;
pub mod target;
pub mod tracing;
pub mod webmcp;
pub mod world;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A CDP command: its params (this struct), its method name and its result type.
pub trait CdpCommand: Serialize {
    /// The CDP method, e.g. `Page.navigate`.
    const METHOD: &'static str;
    /// What the command returns.
    type Returns: DeserializeOwned;
}

/// A result the engine does not look at.
#[derive(Debug, Default, Deserialize)]
pub struct Empty {}

macro_rules! command {
    ($name:ident, $method:literal, $returns:ty) => {
        impl $crate::cdp::CdpCommand for $name {
            const METHOD: &'static str = $method;
            type Returns = $returns;
        }
    };
}
pub(crate) use command;

pub use events::PageEvent;

/// `Page.enable`: start page events (load, navigation, dialogs).
#[derive(Debug, Serialize)]
pub struct PageEnable {}
command!(PageEnable, "Page.enable", Empty);

/// `Inspector.enable`: start inspector events (a renderer crash among them).
#[derive(Debug, Serialize)]
pub struct InspectorEnable {}
command!(InspectorEnable, "Inspector.enable", Empty);

/// `Runtime.enable`: start runtime events (execution contexts, console).
#[derive(Debug, Serialize)]
pub struct RuntimeEnable {}
command!(RuntimeEnable, "Runtime.enable", Empty);

/// `Page.navigate`: load a URL in the main frame.
#[derive(Debug, Serialize)]
pub struct PageNavigate {
    /// Where to go.
    pub url: String,
}
command!(PageNavigate, "Page.navigate", Navigated);

/// What `Page.navigate` answers.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Navigated {
    /// The frame that navigates (the main frame).
    pub frame_id: String,
    /// The new document's loader; absent for a same-document navigation.
    pub loader_id: Option<String>,
    /// Why the URL could not be loaded (e.g. `net::ERR_CONNECTION_REFUSED`).
    pub error_text: Option<String>,
    /// Whether the URL turned out to be a download (which ends as `net::ERR_ABORTED`).
    #[serde(default)]
    pub is_download: bool,
}

/// `Page.reload`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PageReload {
    /// Bypass the cache.
    pub ignore_cache: bool,
}
command!(PageReload, "Page.reload", Empty);

/// `Page.getNavigationHistory`.
#[derive(Debug, Serialize)]
pub struct PageGetNavigationHistory {}
command!(
    PageGetNavigationHistory,
    "Page.getNavigationHistory",
    NavigationHistory
);

/// The tab's session history.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NavigationHistory {
    /// Index of the current entry in `entries`.
    pub current_index: i64,
    /// The entries, oldest first.
    pub entries: Vec<NavigationEntry>,
}

/// One session history entry.
#[derive(Debug, Deserialize)]
pub struct NavigationEntry {
    /// The entry's id, for `Page.navigateToHistoryEntry`.
    pub id: i64,
    /// The entry's URL.
    #[serde(default)]
    pub url: String,
}

/// `Page.navigateToHistoryEntry`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PageNavigateToHistoryEntry {
    /// The entry to go to.
    pub entry_id: i64,
}
command!(
    PageNavigateToHistoryEntry,
    "Page.navigateToHistoryEntry",
    Empty
);

/// `Page.getFrameTree`: the main frame (its id, document and URL) and its children.
#[derive(Debug, Serialize)]
pub struct PageGetFrameTree {}
command!(PageGetFrameTree, "Page.getFrameTree", FrameTreeResult);

/// What `Page.getFrameTree` answers.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameTreeResult {
    /// The tree, rooted at the main frame.
    pub frame_tree: FrameTree,
}

/// A frame tree node. Frames in another renderer process (cross-site iframes) are
/// not listed.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameTree {
    /// The node's frame.
    pub frame: Frame,
    /// Its child frames.
    #[serde(default)]
    pub child_frames: Vec<FrameTree>,
}

/// A frame, as CDP describes it.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Frame {
    /// The frame id.
    pub id: String,
    /// The parent frame; absent for the main frame.
    pub parent_id: Option<String>,
    /// The loader of the frame's current document.
    #[serde(default)]
    pub loader_id: String,
    /// The document's URL, without its fragment.
    #[serde(default)]
    pub url: String,
    /// The URL's fragment, with its `#`.
    #[serde(default)]
    pub url_fragment: Option<String>,
    /// The document's origin (`http://localhost:8080`, `file://`, `null`).
    #[serde(default)]
    pub security_origin: String,
}

impl Frame {
    /// The document's full URL, fragment included.
    pub fn full_url(&self) -> String {
        match &self.url_fragment {
            Some(fragment) => format!("{}{fragment}", self.url),
            None => self.url.clone(),
        }
    }
}

/// `Page.addScriptToEvaluateOnNewDocument`: runs `source` in the main world of every
/// new document (and frame) before its own scripts.
#[derive(Debug, Serialize)]
pub struct PageAddScriptToEvaluateOnNewDocument {
    /// The script.
    pub source: String,
}
command!(
    PageAddScriptToEvaluateOnNewDocument,
    "Page.addScriptToEvaluateOnNewDocument",
    Empty
);

/// `Runtime.compileScript`: checks syntax without running anything.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RuntimeCompileScript {
    /// The source to compile.
    pub expression: String,
    /// The script's name in stack traces.
    #[serde(rename = "sourceURL")]
    pub source_url: String,
    /// Keep the compiled script (we never do).
    pub persist_script: bool,
}
command!(RuntimeCompileScript, "Runtime.compileScript", Compiled);

/// What `Runtime.compileScript` answers.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Compiled {
    /// Set when the source does not compile.
    pub exception_details: Option<ExceptionDetails>,
}

/// `Runtime.evaluate`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RuntimeEvaluate {
    /// The expression.
    pub expression: String,
    /// Group for the remote objects the result creates, so they can be released.
    pub object_group: String,
    /// Return the value as JSON instead of a remote object.
    pub return_by_value: bool,
}
command!(RuntimeEvaluate, "Runtime.evaluate", Evaluated);

/// `Runtime.callFunctionOn`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RuntimeCallFunctionOn {
    /// The function declaration.
    pub function_declaration: String,
    /// The object that is `this` during the call.
    pub object_id: String,
    /// The arguments.
    pub arguments: Vec<CallArgument>,
    /// Group for remote objects the call creates.
    pub object_group: String,
    /// Return the value as JSON instead of a remote object.
    pub return_by_value: bool,
    /// Await the result if it is a promise.
    pub await_promise: bool,
    /// Run as if the user had just interacted with the page.
    pub user_gesture: bool,
}
command!(RuntimeCallFunctionOn, "Runtime.callFunctionOn", Evaluated);

/// One argument of `Runtime.callFunctionOn`: a JSON value, or a remote object.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CallArgument {
    /// The JSON value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
    /// A remote object (of the same JavaScript world as the call's target).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object_id: Option<String>,
}

impl CallArgument {
    /// An argument passed by value.
    pub fn value(value: Value) -> Self {
        Self {
            value: Some(value),
            object_id: None,
        }
    }

    /// A remote object passed by reference.
    pub fn object(object_id: String) -> Self {
        Self {
            value: None,
            object_id: Some(object_id),
        }
    }
}

/// `Runtime.getProperties`: the own properties of a remote object.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RuntimeGetProperties {
    /// The object.
    pub object_id: String,
    /// Own properties only (not the prototype chain's).
    pub own_properties: bool,
}
command!(RuntimeGetProperties, "Runtime.getProperties", Properties);

/// What `Runtime.getProperties` answers.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Properties {
    /// The properties.
    #[serde(default)]
    pub result: Vec<PropertyDescriptor>,
}

/// One property of a remote object.
#[derive(Debug, Deserialize)]
pub struct PropertyDescriptor {
    /// The property's name (an array index as a decimal string).
    pub name: String,
    /// Its value, for a data property.
    pub value: Option<RemoteObject>,
}

/// `Runtime.releaseObjectGroup`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RuntimeReleaseObjectGroup {
    /// The group to release.
    pub object_group: String,
}
command!(
    RuntimeReleaseObjectGroup,
    "Runtime.releaseObjectGroup",
    Empty
);

/// What `Runtime.evaluate` and `Runtime.callFunctionOn` answer.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Evaluated {
    /// The result (the thrown value when `exception_details` is set).
    pub result: RemoteObject,
    /// Set when the script threw.
    pub exception_details: Option<ExceptionDetails>,
}

/// A JavaScript value in the page.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RemoteObject {
    /// `object`, `function`, `undefined`, `string`, `number`, `boolean`, `symbol`, `bigint`.
    #[serde(rename = "type", default)]
    pub kind: String,
    /// For objects: `node`, `array`, `error`, `promise`, ...
    pub subtype: Option<String>,
    /// The value, when returned by value and JSON can hold it.
    pub value: Option<Value>,
    /// `NaN`, `Infinity`, `-0`, bigint literals: values JSON cannot hold.
    pub unserializable_value: Option<String>,
    /// A human-readable description (an error's message and stack).
    pub description: Option<String>,
    /// The handle of a value returned by reference.
    pub object_id: Option<String>,
}

/// Why a script threw or failed to compile.
#[derive(Debug, Default, Deserialize)]
pub struct ExceptionDetails {
    /// A short summary, e.g. `Uncaught`.
    #[serde(default)]
    pub text: String,
    /// The thrown value.
    pub exception: Option<RemoteObject>,
}

impl ExceptionDetails {
    /// The best human-readable account: the error's description (message and stack),
    /// else the thrown value, else the summary.
    pub fn describe(&self) -> String {
        let thrown = self.exception.as_ref();
        if let Some(description) = thrown.and_then(|e| e.description.clone()) {
            return description;
        }
        if let Some(value) = thrown.and_then(|e| e.value.as_ref()) {
            return format!("{} {}", self.text, value).trim().to_owned();
        }
        self.text.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn commands_serialise_to_camel_case_params() {
        let call = RuntimeCallFunctionOn {
            function_declaration: "() => 1".into(),
            object_id: "g".into(),
            arguments: vec![
                CallArgument::value(json!(2)),
                CallArgument::object("o".into()),
            ],
            object_group: "x".into(),
            return_by_value: true,
            await_promise: true,
            user_gesture: true,
        };
        let wire = serde_json::to_value(&call).unwrap();
        assert_eq!(wire["functionDeclaration"], "() => 1");
        assert_eq!(wire["arguments"], json!([{"value": 2}, {"objectId": "o"}]));
        assert_eq!(serde_json::to_value(PageEnable {}).unwrap(), json!({}));
        let compile = RuntimeCompileScript {
            expression: "1".into(),
            source_url: String::new(),
            persist_script: false,
        };
        assert!(serde_json::to_value(compile).unwrap()["sourceURL"].is_string());
    }

    #[test]
    fn exception_description_prefers_the_stack() {
        let details: ExceptionDetails = serde_json::from_value(json!({
            "text": "Uncaught",
            "exception": {"type": "object", "description": "Error: boom\n    at f"}
        }))
        .unwrap();
        assert_eq!(details.describe(), "Error: boom\n    at f");
        let thrown: ExceptionDetails = serde_json::from_value(json!({
            "text": "Uncaught",
            "exception": {"type": "string", "value": "oops"}
        }))
        .unwrap();
        assert_eq!(thrown.describe(), "Uncaught \"oops\"");
    }
}
