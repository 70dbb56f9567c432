//! tabwire's host side: the one `tabwire` binary and everything it runs.
//!
//! - [`mcp`]: the MCP server an agent starts (`tabwire mcp`): tool catalog, the call
//!   pipeline, response rendering.
//! - [`link`]: the MCP server's connection to the relay, with reconnects.
//! - [`native_host`]: the process Chrome starts for the extension
//!   (`tabwire native-host`): native-messaging framing on stdio and the relay that
//!   multiplexes any number of MCP servers over a per-user Unix socket.
//! - [`launch`]: `tabwire mcp --launch`: a dedicated Chromium with the extension loaded.
//! - [`install`] / [`doctor`]: registering the native host with real browsers, and
//!   checking each link of the chain.
//! - [`owned`]: folders a session owns, removed when it ends or, after a crash, by
//!   the next session.
//! - [`paths`]: where sockets, manifests and the built extension live.
//! - [`running`]: browsers and native hosts running as this user, read from `/proc`.

pub mod doctor;
pub mod install;
pub mod launch;
pub mod link;
pub mod mcp;
pub mod native_host;
pub mod owned;
pub mod paths;
pub mod running;
