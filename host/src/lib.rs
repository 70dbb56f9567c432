//! tabwire's host side: the one `tabwire` binary and everything it runs.
//!
//! - [`mcp`]: the MCP server an agent starts (`tabwire mcp`): tool catalog, the call
//!   pipeline, response rendering.
//! - [`link`]: the MCP server's connection to the relay, with reconnects.
//! - [`native_host`]: the process Chrome starts for the extension
//!   (`tabwire native-host`): native-messaging framing on stdio and the relay that
//!   multiplexes any number of MCP servers over a per-user Unix socket (a named pipe
//!   on Windows).
//! - [`transport`]: that socket or pipe: claiming it, connecting, checking peers.
//! - [`frames`] / [`answers`]: what both ends of the relay socket share (whole frames
//!   on async streams; what a call the browser left unanswered answers), so that
//!   [`link`] and [`native_host`] do not depend on each other.
//! - [`launch`]: `tabwire mcp --launch`: a dedicated Chromium with the extension loaded;
//!   [`launch_mark`]: the mark in its profile folder that tells it from the user's browsers.
//! - [`install`] / [`doctor`]: registering the native host with real browsers, and
//!   checking each link of the chain; [`leftovers`]: what uninstalling cannot undo.
//! - [`owned`]: folders a session owns, removed when it ends or, after a crash, by
//!   the next session.
//! - [`bundled_extension`]: the browser extension the binary carries, written out for
//!   the user to load (`install`) or for a launched browser.
//! - [`paths`]: where sockets, manifests and tabwire's per-user folder live.
//! - [`running`]: browsers and native hosts running as this user, read from `/proc`.
//! - [`platform`]: the rest of what differs by operating system (file modes, processes,
//!   stop requests); [`registry`]: the Windows registry keys that register the host.

pub mod answers;
pub mod bundled_extension;
pub mod doctor;
pub mod frames;
pub mod install;
pub mod launch;
pub mod launch_mark;
pub mod leftovers;
pub mod link;
pub mod mcp;
pub mod native_host;
pub mod owned;
pub mod paths;
pub mod platform;
pub mod registry;
pub mod running;
pub mod transport;
