//! State the core holds for the commands that read it: kept here, apart from both the
//! core and the commands' files, so that the core never imports a command's module.
//! Each type owns its data and its rules; the commands that fill or read it live in
//! their own files (the console and network collectors feed `console_log` and
//! `network_log`, `engine/trace.rs` drives `traces`, `engine/webmcp.rs` reads
//! `webmcp`, `engine/snapshot.rs` reads each frame's `walk`).

pub(super) mod console_log;
pub(super) mod network_log;
pub(super) mod traces;
pub(super) mod walk;
pub(super) mod webmcp;
