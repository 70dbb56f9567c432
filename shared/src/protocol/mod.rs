//! Messages between `tabwire mcp`, the relay and the extension.
//!
//! Every message on every link is an [`Envelope`]. The relay looks only at the
//! envelope: it rewrites `id` so that many agents' requests never collide, stamps
//! `client` with the connection a request came from (a client cannot choose it), and
//! routes replies back by `id`. It forwards `body` untouched, which is why the envelope
//! is generic: the relay reads bodies as raw JSON, the two ends as typed values.
//!
//! Toward the extension the body is a [`ToExtension`]; back from it, a
//! [`FromExtension`]. A request carries an `id` and gets exactly one reply with the same
//! `id`: a [`Reply`] (the request's own reply type, as JSON) or a [`WireError`]; events
//! carry none. An event with a `client` goes to that client only; one
//! without goes to every client.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::WireError;

mod command;
mod golden;
mod node_state;
mod reply;
pub mod requests;

pub use command::{Command, Request, CAPTURE, PLAIN_CALL, REPLY_MARGIN};
pub use golden::{sample_commands, Golden};
pub use node_state::NodeState;
pub use reply::Reply;
pub use requests::*;

/// A Chrome tab id. It is also the agent-facing `pageId`: stable across navigations.
pub type TabId = i64;

/// The unit of every link: routing information around a body.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Envelope<B> {
    /// Correlates a request and its reply; absent on events and notices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<u64>,
    /// The relay connection this concerns; set by the relay only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<u64>,
    /// The message itself.
    pub body: B,
}

impl<B> Envelope<B> {
    /// A request: a body that expects one reply with the same id.
    pub fn request(id: u64, body: B) -> Self {
        Self {
            id: Some(id),
            client: None,
            body,
        }
    }

    /// A notice or event: a body that expects no reply.
    pub fn notice(body: B) -> Self {
        Self {
            id: None,
            client: None,
            body,
        }
    }
}

/// Whether a count is 0 (left out of the JSON).
fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// What travels toward the extension.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ToExtension {
    /// An agent's server introduces itself (sent once, right after connecting).
    Hello(ClientHello),
    /// A command to carry out; sent with an `id`, answered by one reply.
    Call(Command),
    /// The relay says a client has gone, so its state can be dropped.
    ClientGone,
    /// The native host introduces itself, once, as soon as it starts (before any
    /// client's message): its version and whether this browser belongs to an agent.
    HostReady(HostInfo),
    /// The native host's answer to [`FromExtension::Ping`], with the same number.
    Pong {
        /// The ping's number.
        seq: u64,
    },
    /// A heartbeat, answered at once with [`FromExtension::Pong`] and the same number:
    /// an agent's server pings the native host while it waits for a reply (the host
    /// answers itself and passes nothing on), and the host pings the extension when an
    /// agent asks, to say in that answer whether the extension still answers.
    Ping {
        /// A number the answer repeats.
        seq: u64,
    },
    /// One piece of a message too big for one native message, in an envelope with
    /// that message's `id` and `client` ([`crate::pieces`]). Sent only to an extension
    /// that joins this version of pieces (its `BrowserConnected` says so).
    Piece(crate::pieces::Piece),
}

/// What the native host tells the extension about itself when it starts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HostInfo {
    /// tabwire's version on the host's side.
    pub version: String,
    /// The browser was started by `tabwire mcp --launch` with a profile of its own:
    /// every tab is shared with every agent (there is no user data to protect). False
    /// in the user's own browser, where an agent sees only the tabs the user shared.
    pub agent_profile: bool,
}

/// Who is on the other end of a relay connection, for display to the user.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientHello {
    /// The agent's name as it gave it at MCP initialize (e.g. "claude-code").
    pub client_name: String,
    /// tabwire's version on the agent's side.
    pub version: String,
    /// A random key made when the agent's server starts and kept for its lifetime, so
    /// the extension recognises the same agent after a reconnect (the relay's client id
    /// changes when the native host restarts) and gives it back its shared tabs.
    pub session: String,
    /// A diagnostic connection (`tabwire doctor`), not an agent: never listed in the
    /// popup, never given a tab (not even by auto-share).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub probe: bool,
    /// The project folder the agent works in (the folder its server was started in),
    /// so the user can tell two sessions of one client apart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folder: Option<String>,
}

/// What travels back from the extension (or, for browser status, from the relay).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum FromExtension {
    /// The outcome of the request with the envelope's `id`: on success, the request's
    /// own reply type as JSON (`{"reply": {"Ok": …}}`).
    Reply(Result<Reply, WireError>),
    /// Something happened that nobody asked about directly.
    Event(Event),
    /// The extension's heartbeat to the native host, answered by [`ToExtension::Pong`]
    /// and never forwarded to clients: a port that stops answering is reopened.
    Ping {
        /// A number the answer repeats.
        seq: u64,
    },
    /// The answer to [`ToExtension::Ping`], with the same number: from the extension to
    /// the native host, and from the native host to an agent's server.
    Pong {
        /// The ping's number.
        seq: u64,
        /// Set by the native host answering an agent's server: what it knows of the
        /// extension behind it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        extension: Option<ExtensionHeard>,
    },
}

/// What the native host knows of its extension when it answers an agent's ping
/// ([`FromExtension::Pong`]), so the agent's server can tell a silent extension from a
/// silent host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ExtensionHeard {
    /// The extension answered the host's last ping.
    Answered,
    /// The host's last ping to the extension is still unanswered.
    Waiting,
    /// No extension is connected to the host.
    Absent,
    /// Not known: the extension has answered no ping (a version without them), or a
    /// state added later.
    #[serde(other)]
    Unknown,
}

pub use crate::console::*;
pub use crate::devtools::*;

/// The accessibility tree of a page, flattened in document order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    /// The page's URL when the snapshot was taken.
    pub url: String,
    /// The page's title.
    pub title: String,
    /// Nodes in depth-first order; `depth` gives the nesting (a flat list, so deep
    /// pages never hit a parser's recursion limit).
    pub nodes: Vec<SnapshotNode>,
}

/// Whether `text` has the shape of a snapshot node's uid, `<snapshot>_<n>`: both parts
/// decimal digits. Lets a uid be told from other text wherever one may stand in for an
/// element (a walker's answer, `evaluate_script`'s arguments).
pub fn is_uid(text: &str) -> bool {
    text.split_once('_').is_some_and(|(a, b)| {
        !a.is_empty()
            && !b.is_empty()
            && a.bytes().all(|c| c.is_ascii_digit())
            && b.bytes().all(|c| c.is_ascii_digit())
    })
}

/// One node of a [`Snapshot`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotNode {
    /// The node's uid, `<snapshot>_<n>`; stable for the life of its document.
    pub uid: String,
    /// Nesting depth, 0 for the root.
    pub depth: u32,
    /// Accessibility role (`button`, `link`, `heading`, `RootWebArea`, ...).
    pub role: String,
    /// Accessible name (may be empty).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// Current value, for controls that have one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// States and properties that matter to an agent, each `name` or `name=value` on
    /// the wire (`focused`, `disabled`, `checked`, `checked=mixed`, `expanded`,
    /// `level=2`, `url=…`, `description=…`), in a stable order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub states: Vec<NodeState>,
}

/// What a page answered to third-party tool discovery.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Discovery {
    /// Opaque token naming the document the tools live in; [`RunThirdPartyTool`]
    /// quotes it back so a reload or navigation is noticed.
    pub document: String,
    /// The page's URL.
    pub url: String,
    /// The page's origin (`http://localhost:8080`, `file://`, ...).
    pub origin: String,
    /// The origin is outside the allowed origins: the page was not asked.
    pub refused: bool,
    /// The valid groups, in the order they answered.
    pub groups: Vec<ToolGroup>,
    /// What was wrong with what the page offered: each dropped tool or group and why,
    /// duplicate tool names, listeners that threw. Written for the agent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
}

/// A group of tools a page offers, as its author described it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolGroup {
    /// The group's name.
    pub name: String,
    /// The group's description, if the page gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its valid tools.
    pub tools: Vec<ToolDefinition>,
    /// The group is the page's WebMCP tools marked for debugging
    /// ([`crate::webmcp::WEBMCP_GROUP`]): they run through WebMCP
    /// ([`InvokeWebMcpTool`]), not the page's `devtoolstooldiscovery` listeners.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub webmcp: bool,
}

/// One tool a page offers: what leaves the page (never its code).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolDefinition {
    /// The tool's name.
    pub name: String,
    /// What it does, in the page author's words.
    pub description: String,
    /// Its JSON Schema, as the page gave it (a JSON object).
    pub input_schema: Value,
    /// A WebMCP tool's annotations, as Chrome reports them (a JSON object).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
}

/// A tab as the agent sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TabInfo {
    /// The tab id, used as `pageId`.
    pub id: TabId,
    /// The window holding the tab.
    pub window_id: i64,
    /// The URL the tab shows (or is loading).
    pub url: String,
    /// The document's title.
    pub title: String,
    /// The active tab of the last focused window: what the user is looking at.
    pub user_active: bool,
    /// A JavaScript dialog is open in the tab and blocks its scripts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialog: Option<DialogInfo>,
    /// The tab's renderer crashed: it shows Chrome's error page and runs nothing until
    /// it is reloaded or navigated.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub crashed: bool,
}

/// An open `alert`, `confirm`, `prompt` or `beforeunload` dialog.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DialogInfo {
    /// Which of the four it is.
    pub kind: DialogKind,
    /// The text the page shows.
    pub message: String,
    /// The default answer of a `prompt`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_prompt: Option<String>,
}

/// The kinds of JavaScript dialog (CDP's `Page.DialogType`), named as on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DialogKind {
    /// `alert()`: a message and OK.
    Alert,
    /// `confirm()`: OK or Cancel.
    Confirm,
    /// `prompt()`: a line of text, OK or Cancel.
    Prompt,
    /// The page asks whether to leave it (a `beforeunload` handler).
    Beforeunload,
}

impl DialogKind {
    /// The name as on the wire and in messages (`alert`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            DialogKind::Alert => "alert",
            DialogKind::Confirm => "confirm",
            DialogKind::Prompt => "prompt",
            DialogKind::Beforeunload => "beforeunload",
        }
    }
}

impl std::fmt::Display for DialogKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why the browser went away ([`Event::BrowserDisconnected`]), as the native host saw
/// it when Chrome closed its port.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Departure {
    /// The browser process is gone: it quit (or crashed), and its tabs, tab ids and
    /// shares went with it. Nothing comes back until someone starts it again.
    BrowserQuit,
    /// The browser still runs: the extension's service worker stopped, the extension
    /// was reloaded or disabled, or the native host alone was stopped. The extension
    /// normally reconnects within seconds (a stopped worker: when its waker starts it).
    BrowserRunning,
    /// Not decided yet: Chrome closed the port, and the native host is looking whether
    /// the browser quit. Nothing is forwarded any more; requests it holds are answered,
    /// and a second notice says which, within seconds.
    Undecided,
    /// Not known, or not said (an older native host; a cause added later).
    #[default]
    #[serde(other)]
    Unknown,
}

/// Something that happened in the browser, pushed to agents' servers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "event",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Event {
    /// The browser (its extension) is connected; sent by the relay to each new client
    /// and to every client when the extension says hello.
    BrowserConnected {
        /// The extension's version.
        version: String,
        /// Names this run of the browser: the same after the extension's service worker
        /// restarts, different after the browser itself restarts (when tab ids start
        /// over). Empty if unknown.
        #[serde(default)]
        instance: String,
        /// The version of the piece envelope the extension joins
        /// ([`crate::pieces::VERSION`]): the relay sends it messages over Chrome's 1 MiB
        /// in pieces only when this is its own. 0 (absent) from an extension older than
        /// pieces, which takes every message whole.
        #[serde(default, skip_serializing_if = "is_zero")]
        pieces: u32,
    },
    /// The browser went away (closed, or the extension was disabled or reloaded).
    /// Sent by the relay; outstanding requests will not be answered by the browser (a
    /// relay that says [`Departure::Undecided`] answers them itself, with the second
    /// notice).
    BrowserDisconnected {
        /// Why, as far as is known.
        reason: String,
        /// Whether the browser itself quit or still runs, as the native host saw it
        /// (absent from an older host: [`Departure::Unknown`]).
        #[serde(default)]
        cause: Departure,
    },
    /// The debugger was detached from a tab (the user cancelled the debugging bar, the
    /// tab crashed or closed). The next command re-attaches if the tab still exists.
    TabDetached {
        /// The tab.
        tab_id: TabId,
        /// Chrome's reason (`canceled_by_user`, `target_closed`, ...).
        reason: String,
    },
    /// What [`ListTabs`] answers, or a page's document (and so what
    /// [`DiscoverThirdPartyTools`] would find), may have changed: a tab opened, closed,
    /// moved, navigated, was retitled or activated, a window took focus, or what is
    /// shared changed. Sent to every client, at most once between two such commands
    /// from any client (a client that heard it holds nothing current until it asks).
    TabsChanged,
    /// New console messages were collected for a tab: what [`ListConsole`]
    /// answers for it may have changed. Sent to the agents that share the tab, at most
    /// once between two `ListConsole` on it from any client.
    ConsoleChanged {
        /// The tab.
        tab_id: TabId,
    },
    /// The tools a tab's page registered with WebMCP changed (`WebMCP.toolsAdded` or
    /// `toolsRemoved`): what [`DiscoverThirdPartyTools`] and [`ListWebMcpTools`] answer for it
    /// may have changed. Sent to the agents that share the tab, at most once between
    /// two of those commands on it from any client.
    WebMcpChanged {
        /// The tab.
        tab_id: TabId,
    },
    /// A tab was closed.
    TabClosed {
        /// The tab.
        tab_id: TabId,
    },
    /// A JavaScript dialog opened in a tab.
    DialogOpened {
        /// The tab.
        tab_id: TabId,
        /// The dialog.
        dialog: DialogInfo,
    },
    /// The dialog in a tab was closed (by the agent, the user or the page going away).
    DialogClosed {
        /// The tab.
        tab_id: TabId,
    },
    /// The user disconnected this agent (the popup's "Disconnect"): sent to that client
    /// alone. Its server stops reconnecting and tells the agent why on every call.
    Revoked {
        /// Why, in words for the agent.
        reason: String,
    },
    /// The user pointed at an element for this agent (the popup's "Point at an
    /// element", then a click in the page): sent to that agent's clients alone. The
    /// agent's next reply names it.
    UserPointed {
        /// The tab.
        tab_id: TabId,
        /// The element's snapshot uid (as `click` takes it).
        uid: String,
        /// Its accessibility role.
        role: String,
        /// Its accessible name.
        name: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn command_wire_shape_is_tagged_and_camel_case() {
        let cmd = Evaluate {
            tab_id: 7,
            function: "() => 1".into(),
            args: vec![],
            timeout_ms: 5,
        };
        let wire =
            serde_json::to_value(Envelope::request(3, ToExtension::Call(cmd.into()))).unwrap();
        assert_eq!(
            wire,
            json!({"id": 3, "body": {"call": {"command": "evaluate", "tabId": 7,
                "function": "() => 1", "args": [], "timeoutMs": 5}}})
        );
    }

    #[test]
    fn reply_round_trips_through_a_raw_envelope() {
        // The relay's view: the body stays raw JSON, only the envelope is read.
        let reply: Envelope<FromExtension> = Envelope {
            id: Some(9),
            client: None,
            body: FromExtension::Reply(Ok(Reply::new(&json!([1, 2])).unwrap())),
        };
        let text = serde_json::to_string(&reply).unwrap();
        let raw: Envelope<Box<serde_json::value::RawValue>> = serde_json::from_str(&text).unwrap();
        assert_eq!(raw.id, Some(9));
        let again = serde_json::to_string(&raw).unwrap();
        assert_eq!(again, r#"{"id":9,"body":{"reply":{"Ok":[1,2]}}}"#);
        let typed: Envelope<FromExtension> = serde_json::from_str(&again).unwrap();
        let FromExtension::Reply(Ok(reply)) = typed.body else {
            panic!("{:?}", typed.body);
        };
        assert_eq!(reply.read::<Value>().unwrap(), json!([1, 2]));
    }

    #[test]
    fn a_departure_is_optional_and_unknown_causes_are_tolerated() {
        let old: Event =
            serde_json::from_value(json!({"event": "browserDisconnected", "reason": "r"})).unwrap();
        assert_eq!(
            old,
            Event::BrowserDisconnected {
                reason: "r".into(),
                cause: Departure::Unknown
            }
        );
        let later: Event = serde_json::from_value(
            json!({"event": "browserDisconnected", "reason": "r", "cause": "someday"}),
        )
        .unwrap();
        assert!(matches!(
            later,
            Event::BrowserDisconnected {
                cause: Departure::Unknown,
                ..
            }
        ));
        let quit = Event::BrowserDisconnected {
            reason: "r".into(),
            cause: Departure::BrowserQuit,
        };
        assert_eq!(
            serde_json::to_value(&quit).unwrap(),
            json!({"event": "browserDisconnected", "reason": "r", "cause": "browserQuit"})
        );
    }

    #[test]
    fn errors_cross_the_wire_with_their_code() {
        let err = WireError::new(crate::ErrorCode::NoSuchTab, "no tab 4");
        let text = serde_json::to_string(&FromExtension::Reply(Err(err.clone()))).unwrap();
        let back: FromExtension = serde_json::from_str(&text).unwrap();
        assert!(matches!(back, FromExtension::Reply(Err(e)) if e == err));
    }
}
