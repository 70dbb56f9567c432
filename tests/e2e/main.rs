//! End-to-end tests: real headless Chromium, the real extension, the real native host
//! and relay, `tabwire mcp` driven over stdio by a real MCP client.
//!
//! Needs the built extension (`scripts/build`) and Chromium; `scripts/test` does both.
//! Unix only: Chromium runs here on Linux (Windows is covered by `scripts/test-windows`).
#![cfg(unix)]

mod angular;
mod background;
mod big_requests;
mod browser_quit;
mod cdp;
mod chromium;
mod complete;
mod css;
mod devtools;
mod display;
mod doctor;
mod faults;
mod frames;
mod groups;
mod harness;
mod headless;
mod install;
mod lifecycle;
mod lists;
mod memory;
mod memory_bounds;
mod navigation;
mod outside;
mod page_scripts;
mod page_text;
mod page_tools;
mod popup;
mod requests;
mod script;
mod sharing;
mod snapshot;
mod snapshot_walker;
mod steps;
mod third_party;
mod trace;
mod trace_faults;
mod uninstall;
mod webmcp;
