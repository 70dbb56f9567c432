//! The protocol every tabwire process speaks.
//!
//! tabwire is three processes: `tabwire mcp` (one per agent), `tabwire native-host`
//! (started by Chrome, a relay that multiplexes agents) and the browser extension.
//! This crate is the one place their wire format is defined, so the two Rust sides
//! cannot disagree about it:
//!
//! - [`framing`]: the length-prefixed JSON frames of native messaging, reused on the
//!   relay's Unix socket, with the size limits Chrome enforces.
//! - [`pieces`]: messages over Chrome's 1 MiB toward the extension, cut into pieces
//!   and joined again.
//! - [`protocol`]: the envelope the relay routes, the commands an agent's server sends
//!   to the extension, the replies and events it gets back.
//! - [`console`]: what a console listing asks for and gets back.
//! - [`error`]: the error a command can fail with, as it crosses the wire.
//! - [`keys`]: key names and combinations (`Control+Shift+R`) for keyboard input.
//! - [`sharing`]: how the user shares a tab, in the words every message uses.
//! - [`page_text`]: page text kept inside its line, for every reply and report.
//! - [`webmcp`]: tools pages register with the browser's WebMCP, and their runs.
//! - [`version`]: whether the extension and the tabwire program are the same version,
//!   and what to do when not.
//!
//! It depends on serde, url and semver only (no tokio, no wasm), so it builds for the host and for
//! `wasm32-unknown-unknown` alike.

pub mod backoff;
pub mod console;
pub mod css;
pub mod devtools;
pub mod error;
pub mod framing;
pub mod keys;
pub mod names;
pub mod origin;
pub mod page_text;
pub mod pieces;
pub mod protocol;
pub mod sharing;
pub mod version;
pub mod webmcp;

pub use error::{ErrorCode, WireError};
pub use protocol::*;

/// Name under which the native host is registered with Chrome (`chrome.runtime.connectNative`).
pub const NATIVE_HOST_NAME: &str = "dev.tabwire";

/// The extension's fixed id, derived from the public `key` in its manifest.json.
pub const EXTENSION_ID: &str = "dcajeejnfbomekihgncnkkogenbcoklk";

/// The only caller origin the native host accepts.
pub const EXTENSION_ORIGIN: &str = "chrome-extension://dcajeejnfbomekihgncnkkogenbcoklk/";
