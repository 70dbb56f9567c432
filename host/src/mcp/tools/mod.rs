//! The tools, one file per category; one unit struct per tool.

pub mod console;
pub mod emulation;
pub mod input;
pub mod network;
pub mod pages;
pub mod screenshot;
pub mod script;
pub mod snapshot;
pub mod third_party;

/// Default time limit for loads and scripts, in milliseconds.
pub const DEFAULT_TIMEOUT_MS: u64 = 30_000;
