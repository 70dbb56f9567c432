//! The relay's routing state machine, without any I/O.
//!
//! Inputs are frame bodies from the browser or from a client, and connection events;
//! outputs are whole encoded frames to deliver ([`Delivery`]). Keeping it pure is what
//! lets every routing rule be tested on plain values.
//!
//! Rules:
//! - A client's `Ping` is answered by the relay itself, never forwarded: its `Pong`
//!   says whether the extension answered the relay's own last ping
//!   ([`ExtensionHeard`]), and a new ping goes to the extension when none is out. The
//!   extension is pinged as soon as it says `BrowserConnected`; one that never
//!   answered (a version without pings) is pinged only that once.
//! - Client → browser: `client` is stamped with the connection's id (whatever the
//!   client wrote); a request's `id` is replaced by a fresh relay-wide id, remembered
//!   with the client's own. A message over Chrome's 1 MiB limit for one message to
//!   the extension goes in pieces ([`tabwire_shared::pieces`]: one after the other,
//!   never mixed with another message), when the extension said in its
//!   `BrowserConnected` that it joins this version of pieces. One it cannot take —
//!   over the 16 MiB a request may be (the agent-side line limit), or for an extension
//!   that joins no pieces or others — is not forwarded: a request gets an
//!   `InvalidArgument` reply at once saying why (and, for an extension of another
//!   version, the step that makes the two agree), a notice is dropped. The other way,
//!   Chrome takes up to 64 MiB in one message: nothing from the browser is cut.
//! - Browser → client: a reply (with `id`) goes back to the client that owns that id,
//!   with the client's id restored; a message with only `client` goes to that client;
//!   one with neither goes to every client.
//! - The browser's `BrowserConnected` notice is remembered and replayed to clients that
//!   connect later.
//! - A client leaving forgets its pending requests and, if it ever sent the browser
//!   anything, tells it (`ClientGone`); the browser leaving tells every client at once
//!   (why undecided), then, once the host has looked at whether the browser quit, tells
//!   them which and answers every pending request with `BrowserDisconnected`.
//!
//! Bodies are forwarded as raw JSON and never rewritten. This module does not decide
//! when to exit or how to write frames; [`super::server`] does.

use std::collections::{BTreeMap, HashMap};

use serde_json::value::RawValue;
use tabwire_shared::framing::{encode, FrameError, HEADER_LEN, MAX_ON_SOCKET, MAX_TO_BROWSER};
use tabwire_shared::pieces::{self, MAX_JOINED};
use tabwire_shared::version::Mismatch;
use tabwire_shared::{
    Departure, Envelope, ErrorCode, Event, ExtensionHeard, FromExtension, HostInfo, ToExtension,
    WireError,
};

use crate::answers::{not_delivered, unanswered};

/// A relay connection's id, as stamped into `Envelope::client`.
pub type ClientId = u64;

/// One encoded frame (length prefix included) and where it goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Delivery {
    /// To the extension, on Chrome's stdin.
    Browser(Vec<u8>),
    /// To one client connection.
    Client(ClientId, Vec<u8>),
}

/// A request waiting for the browser's reply.
#[derive(Debug, Clone, Copy)]
struct Pending {
    client: ClientId,
    client_id: u64,
    /// The number of its last frame among all those queued for the browser, once
    /// queued ([`Relay::queued_up_to`]): whether that frame was written tells whether
    /// the extension may have received it.
    last_frame: Option<u64>,
}

/// The routing state: connected clients, pending requests, the browser's hello.
#[derive(Debug, Default)]
pub struct Relay {
    /// Connected clients, and whether each has sent the browser anything yet.
    clients: BTreeMap<ClientId, bool>,
    next_client: ClientId,
    next_request: u64,
    pending: HashMap<u64, Pending>,
    browser_hello: Option<Vec<u8>>,
    /// The connected extension: its version, and the version of pieces it joins (0:
    /// none). `None` until its `BrowserConnected`.
    extension: Option<(String, u32)>,
    /// Counts the messages cut into pieces, to name them.
    next_message: u64,
    /// The relay's pings to the extension, for clients' pings.
    extension_pings: ExtensionPings,
}

/// The relay's own pings to the extension: what a client's `Pong` says of it.
#[derive(Debug, Default)]
struct ExtensionPings {
    /// The extension has answered one: it answers pings.
    answers: bool,
    /// The number of the ping still unanswered, if one is.
    out: Option<u64>,
    /// The last ping's number.
    last: u64,
}

type RawEnvelope = Envelope<Box<RawValue>>;

/// What a client may send the browser: its hello, and calls (with an id). Only the
/// kind is read; the content goes through untouched.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
enum ClientMessage {
    Hello(serde::de::IgnoredAny),
    Call(serde::de::IgnoredAny),
    Ping { seq: u64 },
}

impl Relay {
    /// An empty relay.
    pub fn new() -> Self {
        Self::default()
    }

    /// Ids of the connected clients.
    pub fn clients(&self) -> impl Iterator<Item = ClientId> + '_ {
        self.clients.keys().copied()
    }

    /// Requests still waiting for the browser.
    pub fn pending_count(&self) -> usize {
        self.pending.len()
    }

    /// Lets go of the room its maps kept for entries gone (after a burst of clients).
    pub fn shrink_to_fit(&mut self) {
        self.pending.shrink_to_fit();
    }

    /// Registers a new client; returns its id and what to send it (the browser's
    /// hello, when the browser has said it).
    pub fn client_connected(&mut self) -> (ClientId, Vec<Delivery>) {
        self.next_client += 1;
        let id = self.next_client;
        self.clients.insert(id, false);
        let out = self
            .browser_hello
            .iter()
            .map(|frame| Delivery::Client(id, frame.clone()))
            .collect();
        (id, out)
    }

    /// A frame body from client `from`.
    pub fn from_client(&mut self, from: ClientId, body: &[u8]) -> Vec<Delivery> {
        if !self.clients.contains_key(&from) {
            tracing::warn!(client = from, "message from an unknown client dropped");
            return Vec::new();
        }
        let envelope: RawEnvelope = match serde_json::from_slice(body) {
            Ok(e) => e,
            Err(e) => {
                tracing::warn!(client = from, error = %e, "malformed message from a client skipped");
                return Vec::new();
            }
        };
        match serde_json::from_str::<ClientMessage>(envelope.body.get()) {
            Ok(ClientMessage::Hello(_)) => {}
            Ok(ClientMessage::Call(_)) if envelope.id.is_some() => {}
            Ok(ClientMessage::Ping { seq }) => return self.answer_ping(from, seq),
            _ => {
                // The host's own messages (HostReady, Pong, ClientGone) are the relay's to
                // send: a client passing one off as the host's is dropped.
                tracing::warn!(
                    client = from,
                    "a client sent something other than a hello or a call; dropped"
                );
                return Vec::new();
            }
        }
        let client_id = envelope.id;
        let global = client_id.map(|_| {
            self.next_request += 1;
            self.next_request
        });
        let outgoing = Envelope {
            id: global,
            client: Some(from),
            body: envelope.body,
        };
        match self.frames_for_browser(&outgoing) {
            Ok(frames) => {
                if let Some(spoke) = self.clients.get_mut(&from) {
                    *spoke = true;
                }
                if let (Some(global), Some(client_id)) = (global, client_id) {
                    self.pending.insert(
                        global,
                        Pending {
                            client: from,
                            client_id,
                            last_frame: None,
                        },
                    );
                }
                frames.into_iter().map(Delivery::Browser).collect()
            }
            Err(message) => {
                tracing::warn!(client = from, %message, "message for the browser not forwarded");
                match client_id {
                    Some(client_id) => {
                        let err = WireError::new(ErrorCode::InvalidArgument, message);
                        self.reply_error(from, client_id, err).into_iter().collect()
                    }
                    None => Vec::new(),
                }
            }
        }
    }

    /// The frames that carry a client's message to the browser: one when it fits in
    /// one native message, else its pieces; or, when it cannot go, why (for the agent).
    fn frames_for_browser(&mut self, message: &RawEnvelope) -> Result<Vec<Vec<u8>>, String> {
        let frame = encode(message, MAX_JOINED).map_err(|e| match e {
            FrameError::TooLarge { size, limit } => format!(
                "The request is too large for the browser: {size} bytes, over the {limit} \
                 bytes a request may be. Send less data (e.g. a shorter script or fewer \
                 arguments)."
            ),
            FrameError::Malformed(e) => format!("The request could not be encoded: {e}"),
        })?;
        let size = frame.len() - HEADER_LEN;
        if size <= MAX_TO_BROWSER {
            return Ok(vec![frame]);
        }
        self.joins_pieces(size)?;
        self.next_message += 1;
        let text = std::str::from_utf8(&frame[HEADER_LEN..])
            .map_err(|e| format!("The request could not be encoded: {e}"))?;
        pieces::frames(text, message.id, message.client, self.next_message)
            .map_err(|e| format!("The request could not be cut into pieces for the browser: {e}"))
    }

    /// Whether the extension joins the pieces this relay cuts; if not, why a message of
    /// `size` bytes cannot reach it.
    fn joins_pieces(&self, size: usize) -> Result<(), String> {
        let over = format!(
            "The request is {size} bytes, over Chrome's {MAX_TO_BROWSER}-byte limit for one \
             message to the browser extension"
        );
        match &self.extension {
            Some((_, joins)) if *joins == pieces::VERSION => Ok(()),
            Some((version, joins)) => {
                let step = Mismatch::between(version, env!("CARGO_PKG_VERSION"))
                    .map(|m| m.line())
                    .unwrap_or_else(|| {
                        "Run `tabwire install`, then reload the extension at \
                         chrome://extensions."
                            .to_owned()
                    });
                let joins = match joins {
                    0 => "none".to_owned(),
                    v => format!("version {v}"),
                };
                Err(format!(
                    "{over}, and the extension cannot take it in pieces (it joins {joins}, \
                     tabwire sends version {}). {step}",
                    pieces::VERSION
                ))
            }
            None => Err(format!(
                "{over}, and the extension has not said yet whether it can take it in \
                 pieces (it has not connected). Try again in a moment."
            )),
        }
    }

    /// A client's ping: answered at once with what is known of the extension, and the
    /// extension pinged in turn when no ping to it is out.
    fn answer_ping(&mut self, from: ClientId, seq: u64) -> Vec<Delivery> {
        let pings = &mut self.extension_pings;
        let heard = match (&self.extension, pings.answers, pings.out) {
            (None, _, _) => ExtensionHeard::Absent,
            (Some(_), false, _) => ExtensionHeard::Unknown,
            (Some(_), true, Some(_)) => ExtensionHeard::Waiting,
            (Some(_), true, None) => ExtensionHeard::Answered,
        };
        let pong = Envelope::notice(FromExtension::Pong {
            seq,
            extension: Some(heard),
        });
        let mut out: Vec<Delivery> = encode_logged(&pong)
            .map(|frame| Delivery::Client(from, frame))
            .into_iter()
            .collect();
        out.extend(self.ping_extension());
        out
    }

    /// A ping for the extension, when one is connected and none is out. One that has
    /// not answered a ping is sent only its first (it may be of a version without
    /// them).
    fn ping_extension(&mut self) -> Vec<Delivery> {
        let pings = &mut self.extension_pings;
        if self.extension.is_none() || pings.out.is_some() || (!pings.answers && pings.last > 0) {
            return Vec::new();
        }
        pings.last += 1;
        pings.out = Some(pings.last);
        let ping = Envelope::notice(ToExtension::Ping { seq: pings.last });
        encode_for_browser(&ping).into_iter().collect()
    }

    /// Client `gone` disconnected: forget its requests and tell the browser (if the
    /// client ever sent it anything).
    pub fn client_gone(&mut self, gone: ClientId) -> Vec<Delivery> {
        let Some(spoke) = self.clients.remove(&gone) else {
            return Vec::new();
        };
        self.pending.retain(|_, p| p.client != gone);
        if !spoke {
            // The browser never heard of it (e.g. a probe that only connected).
            return Vec::new();
        }
        let notice = Envelope {
            id: None,
            client: Some(gone),
            body: ToExtension::ClientGone,
        };
        encode(&notice, MAX_TO_BROWSER)
            .map(Delivery::Browser)
            .into_iter()
            .collect()
    }

    /// The first message for the browser: who the host is and whether the browser
    /// belongs to an agent ([`ToExtension::HostReady`]).
    pub fn host_ready(&self, info: HostInfo) -> Vec<Delivery> {
        encode_for_browser(&Envelope::notice(ToExtension::HostReady(info)))
            .into_iter()
            .collect()
    }

    /// A frame body from the browser.
    pub fn from_browser(&mut self, body: &[u8]) -> Vec<Delivery> {
        let envelope: RawEnvelope = match serde_json::from_slice(body) {
            Ok(e) => e,
            Err(e) => {
                tracing::warn!(error = %e, "malformed message from the browser skipped");
                return Vec::new();
            }
        };
        // Anything from the extension shows it answers.
        self.extension_pings.out = None;
        match (envelope.id, envelope.client) {
            (Some(global), _) => self.route_reply(global, envelope.body),
            (None, Some(client)) => {
                if !self.clients.contains_key(&client) {
                    tracing::debug!(client, "event for a client that has gone dropped");
                    return Vec::new();
                }
                self.encode_for_client(client, &envelope)
                    .map(|f| Delivery::Client(client, f))
                    .into_iter()
                    .collect()
            }
            (None, None) => {
                let notice = serde_json::from_str::<FromExtension>(envelope.body.get()).ok();
                match notice {
                    Some(FromExtension::Ping { seq }) => {
                        let pong = Envelope::notice(ToExtension::Pong { seq });
                        return encode_for_browser(&pong).into_iter().collect();
                    }
                    Some(FromExtension::Pong { .. }) => {
                        self.extension_pings.answers = true;
                        return Vec::new();
                    }
                    _ => {}
                }
                let Some(frame) = encode_logged(&envelope) else {
                    return Vec::new();
                };
                if let Some(FromExtension::Event(Event::BrowserConnected {
                    version, pieces, ..
                })) = notice
                {
                    self.browser_hello = Some(frame.clone());
                    self.extension = Some((version, pieces));
                    // Pinged at once, so that whether it answers pings is known before
                    // an agent asks.
                    self.extension_pings = ExtensionPings::default();
                    let mut out = self.ping_extension();
                    out.extend(self.clients().map(|c| Delivery::Client(c, frame.clone())));
                    return out;
                }
                self.clients()
                    .map(|c| Delivery::Client(c, frame.clone()))
                    .collect()
            }
        }
    }

    /// Chrome closed the port: tell every client at once that the browser is gone, and
    /// that why is yet to be decided ([`Departure::Undecided`]), so that none sends
    /// anything more. Pending requests are held for [`Relay::browser_gone`].
    pub fn browser_closing(&mut self, reason: &str) -> Vec<Delivery> {
        self.browser_hello = None;
        self.extension = None;
        self.extension_pings = ExtensionPings::default();
        self.notify_all(reason, Departure::Undecided)
    }

    /// The frames queued for the browser so far number `queued`: the requests just
    /// passed on are among them.
    pub fn queued_up_to(&mut self, queued: u64) {
        for pending in self.pending.values_mut() {
            pending.last_frame.get_or_insert(queued);
        }
    }

    /// The browser went away (`cause`: quit, or still running), after the first
    /// `written` frames queued for it were written: tell every client, then answer
    /// every pending request — as never delivered when its frames were not all
    /// written (the client may send it again), else as unanswered (it may have run).
    /// The notice goes first, so a client knows why before any of its calls wakes up.
    pub fn browser_gone(&mut self, reason: &str, cause: Departure, written: u64) -> Vec<Delivery> {
        self.browser_hello = None;
        self.extension = None;
        self.extension_pings = ExtensionPings::default();
        let mut pending: Vec<_> = self.pending.drain().collect();
        pending.sort_by_key(|(global, _)| *global);
        let (written, not_written): (Vec<_>, Vec<_>) = pending
            .into_iter()
            .map(|(_, p)| p)
            .partition(|p| p.last_frame.is_some_and(|last| last <= written));
        // Those that did not run are answered before the notice, which ends a client's
        // other calls as ones that may have run.
        let mut out: Vec<Delivery> = not_written
            .into_iter()
            .filter_map(|p| self.reply_error(p.client, p.client_id, not_delivered(reason)))
            .collect();
        out.extend(self.notify_all(reason, cause));
        let unanswered = unanswered(reason, cause);
        out.extend(
            written
                .into_iter()
                .filter_map(|p| self.reply_error(p.client, p.client_id, unanswered.clone())),
        );
        out
    }

    /// A frame from client `from` that came after the browser went: a call in it is
    /// answered as never delivered (nothing more is passed on).
    pub fn too_late(&self, from: ClientId, body: &[u8], reason: &str) -> Vec<Delivery> {
        let Ok(envelope) = serde_json::from_slice::<RawEnvelope>(body) else {
            return Vec::new();
        };
        match (
            serde_json::from_str::<ClientMessage>(envelope.body.get()),
            envelope.id,
        ) {
            (Ok(ClientMessage::Call(_)), Some(id)) if self.clients.contains_key(&from) => self
                .reply_error(from, id, not_delivered(reason))
                .into_iter()
                .collect(),
            _ => Vec::new(),
        }
    }

    /// `BrowserDisconnected` for every client.
    fn notify_all(&self, reason: &str, cause: Departure) -> Vec<Delivery> {
        let event = Envelope::notice(FromExtension::Event(Event::BrowserDisconnected {
            reason: reason.to_owned(),
            cause,
        }));
        match encode_logged(&event) {
            Some(frame) => self
                .clients()
                .map(|c| Delivery::Client(c, frame.clone()))
                .collect(),
            None => Vec::new(),
        }
    }

    fn route_reply(&mut self, global: u64, body: Box<RawValue>) -> Vec<Delivery> {
        let Some(p) = self.pending.remove(&global) else {
            tracing::warn!(id = global, "reply to no pending request dropped");
            return Vec::new();
        };
        if !self.clients.contains_key(&p.client) {
            tracing::info!(
                client = p.client,
                "reply for a client that has gone dropped"
            );
            return Vec::new();
        }
        let reply = Envelope {
            id: Some(p.client_id),
            client: None,
            body,
        };
        match encode(&reply, MAX_ON_SOCKET) {
            Ok(frame) => vec![Delivery::Client(p.client, frame)],
            Err(e) => {
                tracing::warn!(error = %e, "reply could not be passed on");
                let err = WireError::new(
                    ErrorCode::Internal,
                    format!("The browser's reply could not be passed on: {e}"),
                );
                self.reply_error(p.client, p.client_id, err)
                    .into_iter()
                    .collect()
            }
        }
    }

    fn encode_for_client(&self, client: ClientId, envelope: &RawEnvelope) -> Option<Vec<u8>> {
        let frame = encode_logged(envelope);
        if frame.is_none() {
            tracing::warn!(client, "event for a client could not be passed on");
        }
        frame
    }

    fn reply_error(&self, client: ClientId, client_id: u64, err: WireError) -> Option<Delivery> {
        let reply = Envelope::<FromExtension>::request(client_id, FromExtension::Reply(Err(err)));
        encode_logged(&reply).map(|f| Delivery::Client(client, f))
    }
}

fn encode_logged<T: serde::Serialize>(msg: &T) -> Option<Vec<u8>> {
    encode(msg, MAX_ON_SOCKET)
        .map_err(|e| tracing::warn!(error = %e, "message could not be encoded"))
        .ok()
}

/// A message of the relay's own for the browser, as a delivery.
fn encode_for_browser(message: &Envelope<ToExtension>) -> Option<Delivery> {
    match encode(message, MAX_TO_BROWSER) {
        Ok(frame) => Some(Delivery::Browser(frame)),
        Err(error) => {
            tracing::error!(%error, "cannot encode a message for the browser");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};
    use tabwire_shared::framing::{try_decode, Frame};
    use tabwire_shared::requests::*;
    use tabwire_shared::{Command, Reply};

    fn body(frame: &[u8]) -> Value {
        match try_decode(frame, usize::MAX).unwrap() {
            Frame::Complete { body, consumed } => {
                assert_eq!(consumed, frame.len(), "exactly one frame");
                serde_json::from_slice(body).unwrap()
            }
            Frame::Incomplete => panic!("incomplete frame"),
        }
    }

    /// Sends client `client`'s request `id` through the relay; the relay-wide id it got.
    fn forward(relay: &mut Relay, client: u64, id: u64) -> u64 {
        to_browser(&relay.from_client(client, &request(id)))[0]["id"]
            .as_u64()
            .expect("the request reaches the browser with an id")
    }

    fn to_browser(out: &[Delivery]) -> Vec<Value> {
        out.iter()
            .filter_map(|d| match d {
                Delivery::Browser(f) => Some(body(f)),
                Delivery::Client(..) => None,
            })
            .collect()
    }

    fn to_client(out: &[Delivery], who: ClientId) -> Vec<Value> {
        out.iter()
            .filter_map(|d| match d {
                Delivery::Client(c, f) if *c == who => Some(body(f)),
                _ => None,
            })
            .collect()
    }

    fn request(id: u64) -> Vec<u8> {
        serde_json::to_vec(&Envelope::request(
            id,
            ToExtension::Call(Command::ListTabs(ListTabs)),
        ))
        .unwrap()
    }

    fn reply(global: u64, value: Value) -> Vec<u8> {
        serde_json::to_vec(&Envelope::<FromExtension>::request(
            global,
            FromExtension::Reply(Ok(Reply::new(&value).unwrap())),
        ))
        .unwrap()
    }

    fn event(client: Option<u64>, event: Event) -> Vec<u8> {
        serde_json::to_vec(&Envelope {
            id: None,
            client,
            body: FromExtension::Event(event),
        })
        .unwrap()
    }

    #[test]
    fn requests_get_a_fresh_id_and_the_senders_client_stamp() {
        let mut relay = Relay::new();
        let (c, _) = relay.client_connected();
        let mut forged: Value = serde_json::from_slice(&request(5)).unwrap();
        forged["client"] = json!(999);
        let out = relay.from_client(c, forged.to_string().as_bytes());
        let sent = to_browser(&out);
        assert_eq!(sent.len(), 1);
        assert_eq!(
            sent[0]["client"],
            json!(c),
            "a client cannot impersonate another"
        );
        assert_eq!(sent[0]["body"], json!({"call": {"command": "listTabs"}}));
        assert_eq!(relay.pending_count(), 1);
    }

    #[test]
    fn two_clients_with_same_ids_get_their_own_replies() {
        let mut relay = Relay::new();
        let (a, _) = relay.client_connected();
        let (b, _) = relay.client_connected();
        let ga = forward(&mut relay, a, 1);
        let gb = forward(&mut relay, b, 1);
        assert_ne!(ga, gb);

        let out = relay.from_browser(&reply(gb, json!("for b")));
        assert!(to_client(&out, a).is_empty());
        let got = to_client(&out, b);
        assert_eq!(got[0]["id"], json!(1));
        assert_eq!(got[0]["body"]["reply"]["Ok"], json!("for b"));

        let out = relay.from_browser(&reply(ga, json!("for a")));
        assert_eq!(to_client(&out, a)[0]["body"]["reply"]["Ok"], json!("for a"));
        assert_eq!(relay.pending_count(), 0);
    }

    #[test]
    fn notices_from_clients_are_forwarded_without_an_id() {
        let mut relay = Relay::new();
        let (c, _) = relay.client_connected();
        let hello = Envelope::notice(ToExtension::Hello(tabwire_shared::ClientHello {
            client_name: "agent".into(),
            version: "1".into(),
            session: "s1".into(),
            probe: false,
            folder: None,
        }));
        let sent = to_browser(&relay.from_client(c, &serde_json::to_vec(&hello).unwrap()));
        assert_eq!(sent[0].get("id"), None);
        assert_eq!(sent[0]["client"], json!(c));
        assert_eq!(relay.pending_count(), 0);
    }

    #[test]
    fn events_without_a_client_fan_out_to_everyone() {
        let mut relay = Relay::new();
        let (a, _) = relay.client_connected();
        let (b, _) = relay.client_connected();
        let out = relay.from_browser(&event(None, Event::TabClosed { tab_id: 3 }));
        assert_eq!(to_client(&out, a).len(), 1);
        assert_eq!(to_client(&out, b).len(), 1);
    }

    #[test]
    fn events_with_a_client_go_to_that_client_only() {
        let mut relay = Relay::new();
        let (a, _) = relay.client_connected();
        let (b, _) = relay.client_connected();
        let out = relay.from_browser(&event(Some(b), Event::TabClosed { tab_id: 3 }));
        assert!(to_client(&out, a).is_empty());
        assert_eq!(to_client(&out, b)[0]["body"]["event"]["tabId"], json!(3));
        assert!(relay
            .from_browser(&event(Some(77), Event::TabClosed { tab_id: 3 }))
            .is_empty());
    }

    #[test]
    fn clients_cannot_send_the_hosts_own_messages() {
        let mut relay = Relay::new();
        let (c, _) = relay.client_connected();
        let forged = [
            json!({"body": {"hostReady": {"version": "x", "agentProfile": true}}}),
            json!({"body": {"pong": {"seq": 1}}}),
            json!({"body": "clientGone"}),
            json!({"body": {"call": {"command": "listTabs"}}}),
            json!({"body": {"somethingElse": {}}}),
        ];
        for message in forged {
            let out = relay.from_client(c, &serde_json::to_vec(&message).unwrap());
            assert!(out.is_empty(), "{message} was forwarded");
        }
        let call = json!({"id": 1, "body": {"call": {"command": "listTabs"}}});
        assert_eq!(
            to_browser(&relay.from_client(c, &serde_json::to_vec(&call).unwrap())).len(),
            1
        );
    }

    #[test]
    fn heartbeats_are_answered_by_the_relay_and_never_reach_clients() {
        let mut relay = Relay::new();
        let (a, _) = relay.client_connected();
        let ping = Envelope::notice(FromExtension::Ping { seq: 41 });
        let out = relay.from_browser(&serde_json::to_vec(&ping).unwrap());
        assert!(to_client(&out, a).is_empty());
        assert_eq!(
            to_browser(&out),
            vec![json!({"body": {"pong": {"seq": 41}}})]
        );
    }

    /// Client `c`'s ping number `seq`, as the relay handles it.
    fn client_ping(relay: &mut Relay, c: ClientId, seq: u64) -> Vec<Delivery> {
        let ping = Envelope::notice(ToExtension::Ping { seq });
        relay.from_client(c, &serde_json::to_vec(&ping).unwrap())
    }

    /// What the relay's pong to client `c` says of the extension.
    fn said_of_extension(out: &[Delivery], c: ClientId) -> Value {
        let pongs = to_client(out, c);
        assert_eq!(pongs.len(), 1, "{pongs:?}");
        pongs[0]["body"]["pong"]["extension"].clone()
    }

    #[test]
    fn a_clients_ping_is_answered_with_what_the_relay_knows_of_the_extension() {
        let mut relay = Relay::new();
        let (c, _) = relay.client_connected();
        let out = client_ping(&mut relay, c, 1);
        assert_eq!(
            to_client(&out, c),
            vec![json!({"body": {"pong": {"seq": 1, "extension": "absent"}}})]
        );
        assert!(to_browser(&out).is_empty(), "no extension to ping");

        // As soon as it connects, the extension is pinged to see whether it answers.
        let connected = event(
            None,
            Event::BrowserConnected {
                version: "1".into(),
                instance: String::new(),
                pieces: pieces::VERSION,
            },
        );
        let out = relay.from_browser(&connected);
        assert_eq!(
            to_browser(&out),
            vec![json!({"body": {"ping": {"seq": 1}}})]
        );
        let out = client_ping(&mut relay, c, 2);
        assert_eq!(said_of_extension(&out, c), json!("unknown"));
        assert!(to_browser(&out).is_empty(), "its first is still out");
        let pong = Envelope::notice(FromExtension::Pong {
            seq: 1,
            extension: None,
        });
        let out = relay.from_browser(&serde_json::to_vec(&pong).unwrap());
        assert!(out.is_empty(), "the extension's pong goes to no client");

        // It answers pings: each client ping sends one when none is out.
        let out = client_ping(&mut relay, c, 3);
        assert_eq!(said_of_extension(&out, c), json!("answered"));
        assert_eq!(
            to_browser(&out),
            vec![json!({"body": {"ping": {"seq": 2}}})]
        );
        let out = client_ping(&mut relay, c, 4);
        assert_eq!(said_of_extension(&out, c), json!("waiting"));
        assert!(to_browser(&out).is_empty(), "one ping out at a time");
        // Anything from the extension shows it answers.
        relay.from_browser(&event(None, Event::TabClosed { tab_id: 1 }));
        let out = client_ping(&mut relay, c, 5);
        assert_eq!(said_of_extension(&out, c), json!("answered"));
        assert_eq!(relay.pending_count(), 0, "pings are not requests");
    }

    #[test]
    fn an_extension_that_answers_no_ping_is_sent_only_one() {
        let mut relay = Relay::new();
        let (c, _) = relay.client_connected();
        // Its one ping goes when it connects.
        extension_connects(&mut relay, "0.0.1", 0);
        relay.from_browser(&event(None, Event::TabClosed { tab_id: 1 }));
        for seq in 1..5 {
            let out = client_ping(&mut relay, c, seq);
            assert_eq!(said_of_extension(&out, c), json!("unknown"));
            assert!(to_browser(&out).is_empty());
        }
    }

    #[test]
    fn the_host_introduces_itself_to_the_browser() {
        let relay = Relay::new();
        let out = relay.host_ready(HostInfo {
            version: "9".into(),
            agent_profile: false,
        });
        assert_eq!(
            to_browser(&out),
            vec![json!({"body": {"hostReady": {"version": "9", "agentProfile": false}}})]
        );
    }

    #[test]
    fn browser_hello_is_replayed_to_clients_that_connect_later() {
        let mut relay = Relay::new();
        let (early, none) = relay.client_connected();
        assert!(none.is_empty());
        let connected = event(
            None,
            Event::BrowserConnected {
                version: "0.3".into(),
                instance: String::new(),
                pieces: 0,
            },
        );
        assert_eq!(to_client(&relay.from_browser(&connected), early).len(), 1);
        let (late, out) = relay.client_connected();
        assert_eq!(
            to_client(&out, late)[0]["body"]["event"]["version"],
            json!("0.3")
        );
    }

    #[test]
    fn client_gone_tells_the_browser_and_drops_its_replies() {
        let mut relay = Relay::new();
        let (a, _) = relay.client_connected();
        let (b, _) = relay.client_connected();
        let ga = forward(&mut relay, a, 1);
        let gb = forward(&mut relay, b, 1);
        let sent = to_browser(&relay.client_gone(a));
        assert_eq!(sent, vec![json!({"client": a, "body": "clientGone"})]);
        assert_eq!(relay.pending_count(), 1);
        assert!(relay.from_browser(&reply(ga, json!(0))).is_empty());
        assert_eq!(
            to_client(&relay.from_browser(&reply(gb, json!(0))), b).len(),
            1
        );
        assert!(relay.client_gone(a).is_empty(), "gone only once");
        assert!(relay.from_client(a, &request(2)).is_empty());
    }

    #[test]
    fn a_client_that_never_spoke_leaves_silently() {
        let mut relay = Relay::new();
        let (c, _) = relay.client_connected();
        assert!(relay.client_gone(c).is_empty());
        assert_eq!(relay.clients().count(), 0);
    }

    #[test]
    fn browser_gone_tells_every_client_then_answers_pending_requests() {
        let mut relay = Relay::new();
        let (a, _) = relay.client_connected();
        let (b, _) = relay.client_connected();
        relay.from_client(a, &request(10));
        relay.queued_up_to(1);
        relay.from_client(a, &request(11));
        relay.queued_up_to(2);
        let out = relay.browser_gone("Chrome closed the port", Departure::BrowserRunning, 2);
        let got_a = to_client(&out, a);
        assert_eq!(got_a.len(), 3);
        assert_eq!(
            got_a[0]["body"]["event"],
            json!({"event": "browserDisconnected", "reason": "Chrome closed the port",
                "cause": "browserRunning"})
        );
        assert_eq!(got_a[1]["id"], json!(10));
        assert_eq!(got_a[2]["id"], json!(11));
        let error = &got_a[1]["body"]["reply"]["Err"];
        assert_eq!(error["code"], json!("browserDisconnected"));
        let message = error["message"].as_str().unwrap();
        assert!(message.contains("still runs"), "{message}");
        assert_eq!(to_client(&out, b).len(), 1);
        assert_eq!(relay.pending_count(), 0);
    }

    #[test]
    fn a_request_whose_frames_were_never_written_is_answered_as_not_delivered() {
        let mut relay = Relay::new();
        let (a, _) = relay.client_connected();
        relay.from_client(a, &request(10));
        relay.queued_up_to(1);
        relay.from_client(a, &request(11));
        relay.queued_up_to(2);
        // The pipe to Chrome broke after the first frame.
        let out = relay.browser_gone("Chrome closed the port", Departure::BrowserRunning, 1);
        let got = to_client(&out, a);
        assert_eq!(got.len(), 3);
        // Never written, so it did not run: answered before the notice.
        assert_eq!(got[0]["id"], json!(11));
        let error = &got[0]["body"]["reply"]["Err"];
        assert_eq!(error["code"], json!("notDelivered"));
        let message = error["message"].as_str().unwrap();
        assert!(message.contains("did not run"), "{message}");
        assert_eq!(got[1]["body"]["event"]["cause"], json!("browserRunning"));
        assert_eq!(got[2]["id"], json!(10));
        assert_eq!(
            got[2]["body"]["reply"]["Err"]["code"],
            json!("browserDisconnected"),
            "written: it may have run"
        );
    }

    #[test]
    fn a_call_that_comes_after_the_browser_went_is_answered_as_not_delivered() {
        let mut relay = Relay::new();
        let (a, _) = relay.client_connected();
        relay.from_client(a, &request(1));
        relay.browser_closing("Chrome closed the port");
        let out = relay.too_late(a, &request(4), "Chrome closed the port");
        let got = to_client(&out, a);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0]["id"], json!(4));
        assert_eq!(
            got[0]["body"]["reply"]["Err"]["code"],
            json!("notDelivered")
        );
        assert!(relay.too_late(a, b"not json", "gone").is_empty());
    }

    #[test]
    fn a_closing_browser_is_announced_at_once_and_its_requests_held() {
        let mut relay = Relay::new();
        let (a, _) = relay.client_connected();
        relay.from_client(a, &request(10));
        relay.queued_up_to(1);
        let out = relay.browser_closing("Chrome closed the port");
        let got = to_client(&out, a);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0]["body"]["event"]["cause"], json!("undecided"));
        assert_eq!(relay.pending_count(), 1, "answered with the second word");
        let out = relay.browser_gone("the browser quit", Departure::BrowserQuit, 1);
        assert_eq!(to_client(&out, a).len(), 2);
        assert_eq!(relay.pending_count(), 0);
    }

    #[test]
    fn a_call_the_quitting_browser_left_unanswered_says_it_quit() {
        let mut relay = Relay::new();
        let (a, _) = relay.client_connected();
        relay.from_client(a, &request(3));
        relay.queued_up_to(1);
        let out = relay.browser_gone("the browser quit", Departure::BrowserQuit, 1);
        let got = to_client(&out, a);
        assert_eq!(got[0]["body"]["event"]["cause"], json!("browserQuit"));
        let message = got[1]["body"]["reply"]["Err"]["message"].as_str().unwrap();
        assert!(message.starts_with("The browser quit"), "{message}");
        assert!(message.contains("shares a tab again"), "{message}");
    }

    /// The extension says hello, joining pieces of version `pieces`.
    fn extension_connects(relay: &mut Relay, version: &str, pieces: u32) {
        relay.from_browser(&event(
            None,
            Event::BrowserConnected {
                version: version.into(),
                instance: String::new(),
                pieces,
            },
        ));
    }

    /// Client `id`'s evaluate call with a script of at least `size` bytes as written.
    fn big_request(id: u64, size: usize) -> Vec<u8> {
        // Quotes and non-ASCII chars, so that pieces are cut among escapes and
        // multibyte chars.
        let function = "\"é😀x".repeat(size / 9 + 1);
        serde_json::to_vec(&Envelope::request(
            id,
            ToExtension::Call(Command::Evaluate(Evaluate {
                tab_id: 1,
                function,
                args: vec![],
                timeout_ms: 1,
            })),
        ))
        .unwrap()
    }

    fn error_message(got: &Value) -> &str {
        assert_eq!(
            got["body"]["reply"]["Err"]["code"],
            json!("invalidArgument")
        );
        got["body"]["reply"]["Err"]["message"].as_str().unwrap()
    }

    #[test]
    fn a_request_over_one_native_message_goes_in_pieces_the_extension_joins() {
        let mut relay = Relay::new();
        extension_connects(&mut relay, env!("CARGO_PKG_VERSION"), pieces::VERSION);
        let (c, _) = relay.client_connected();
        let out = relay.from_client(c, &big_request(4, 3 * MAX_TO_BROWSER));
        assert!(out.len() >= 3, "{} frames", out.len());
        let mut joiner = pieces::Joiner::new();
        let mut joined = None;
        let mut names = std::collections::BTreeSet::new();
        for delivery in &out {
            let Delivery::Browser(frame) = delivery else {
                panic!("a piece for a client");
            };
            assert!(frame.len() - HEADER_LEN <= MAX_TO_BROWSER);
            let piece: Envelope<ToExtension> =
                serde_json::from_slice(&frame[HEADER_LEN..]).unwrap();
            assert_eq!(piece.client, Some(c));
            let ToExtension::Piece(p) = piece.body else {
                panic!("not a piece");
            };
            names.insert(p.message);
            match joiner.take(piece.id, piece.client, p) {
                pieces::Joined::Waiting => {}
                pieces::Joined::Whole(text) => joined = Some(text),
                pieces::Joined::Refused(r) => panic!("{r:?}"),
            }
        }
        let whole: Value = serde_json::from_str(&joined.expect("the last piece")).unwrap();
        let global = whole["id"].as_u64().unwrap();
        assert_eq!(whole["client"], json!(c));
        assert_eq!(whole["body"]["call"]["command"], json!("evaluate"));
        let sent: Value = serde_json::from_slice(&big_request(4, 3 * MAX_TO_BROWSER)).unwrap();
        assert_eq!(whole["body"], sent["body"], "the body arrives untouched");
        // The reply comes back as any other.
        assert_eq!(relay.pending_count(), 1);
        let got = to_client(&relay.from_browser(&reply(global, json!(7))), c);
        assert_eq!(got[0]["id"], json!(4));
        // The next message is whole again, and the next cut one has another name.
        assert_eq!(to_browser(&relay.from_client(c, &request(5))).len(), 1);
        let again = to_browser(&relay.from_client(c, &big_request(6, 2 * MAX_TO_BROWSER)));
        assert_eq!(names.len(), 1, "one name for all the pieces of a message");
        let first = names.pop_first().unwrap();
        assert!(again.len() >= 2);
        assert_ne!(again[0]["body"]["piece"]["message"], json!(first));
    }

    #[test]
    fn a_request_within_one_message_travels_whole_as_ever() {
        let mut relay = Relay::new();
        extension_connects(&mut relay, env!("CARGO_PKG_VERSION"), pieces::VERSION);
        let (c, _) = relay.client_connected();
        let out = relay.from_client(c, &big_request(4, MAX_TO_BROWSER - 1024));
        let sent = to_browser(&out);
        assert_eq!(sent.len(), 1);
        assert_eq!(sent[0]["body"]["call"]["command"], json!("evaluate"));
    }

    #[test]
    fn a_request_over_the_agent_side_limit_is_answered_not_forwarded() {
        let mut relay = Relay::new();
        extension_connects(&mut relay, env!("CARGO_PKG_VERSION"), pieces::VERSION);
        let (c, _) = relay.client_connected();
        let out = relay.from_client(c, &big_request(4, MAX_JOINED + 3));
        assert!(to_browser(&out).is_empty());
        let got = to_client(&out, c);
        assert_eq!(got[0]["id"], json!(4));
        let message = error_message(&got[0]);
        assert!(message.contains("too large"), "{message}");
        assert!(
            message.contains(&format!("over the {MAX_JOINED} bytes a request may be")),
            "{message}"
        );
        assert_eq!(relay.pending_count(), 0);
    }

    #[test]
    fn an_extension_that_joins_no_pieces_is_sent_none() {
        let mut relay = Relay::new();
        let (c, _) = relay.client_connected();
        let message = |relay: &mut Relay| {
            let out = relay.from_client(c, &big_request(4, 2 * MAX_TO_BROWSER));
            assert!(to_browser(&out).is_empty());
            assert_eq!(relay.pending_count(), 0);
            error_message(&to_client(&out, c)[0]).to_owned()
        };
        let early = message(&mut relay);
        assert!(
            early.contains("over Chrome's 1048576-byte limit"),
            "{early}"
        );
        assert!(early.contains("has not connected"), "{early}");

        extension_connects(&mut relay, "0.0.1", 0);
        let older = message(&mut relay);
        assert!(
            older.contains("cannot take it in pieces (it joins none"),
            "{older}"
        );
        assert!(older.contains("Version mismatch"), "{older}");
        assert!(older.contains("`tabwire install`"), "{older}");

        extension_connects(&mut relay, "99.0.0", pieces::VERSION + 1);
        let newer = message(&mut relay);
        assert!(
            newer.contains(&format!("it joins version {}", pieces::VERSION + 1)),
            "{newer}"
        );

        // The browser leaving forgets what its extension joined.
        extension_connects(&mut relay, env!("CARGO_PKG_VERSION"), pieces::VERSION);
        relay.browser_closing("gone");
        assert!(message(&mut relay).contains("has not connected"));
        // Small requests go as ever.
        assert_eq!(to_browser(&relay.from_client(c, &request(1))).len(), 1);
    }

    #[test]
    fn malformed_messages_are_skipped_from_either_side() {
        let mut relay = Relay::new();
        let (c, _) = relay.client_connected();
        assert!(relay.from_client(c, b"{nope").is_empty());
        assert!(relay.from_client(c, b"[1,2]").is_empty());
        assert!(relay.from_client(c, &[0xff, 0xfe]).is_empty());
        assert!(relay.from_browser(b"not json").is_empty());
        assert!(relay.from_browser(br#"{"id": "x", "body": 1}"#).is_empty());
        assert!(relay.from_browser(&reply(12345, json!(1))).is_empty());
        // Still routes afterwards.
        assert_eq!(to_browser(&relay.from_client(c, &request(1))).len(), 1);
    }

    #[test]
    fn bodies_pass_through_untouched() {
        let mut relay = Relay::new();
        let (c, _) = relay.client_connected();
        let raw = br#"{"id":1,"body":{"call":{"command":"futureThing","x":[1,2.50,"\u00e9"]}}}"#;
        let out = relay.from_client(c, raw);
        let Delivery::Browser(frame) = &out[0] else {
            panic!("not for the browser")
        };
        let text = String::from_utf8(frame[4..].to_vec()).unwrap();
        assert!(text.contains(r#""body":{"call":{"command":"futureThing","x":[1,2.50,"\u00e9"]}}"#));
    }
}
