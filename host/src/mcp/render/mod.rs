//! How what the browser answered is shown to the agent: text (and its structured
//! form), made from data already fetched. Nothing here talks to the browser.
//!
//! - [`console`]: a page of console messages, and one message in full.
//! - [`css`]: an element's CSS rules, written as CSS, one page at a time.
//! - [`network`]: request lists, and one request with its sensitive headers redacted.
//! - [`page_text`]: the one rule for text a page controls (escaped, quoted or fenced).
//! - [`snapshot`]: the accessibility snapshot as an indented text tree.
//! - [`third_party`]: a page's third-party tools, or why it offers none.
//! - [`emulation`]: emulated settings in words.
//! - [`webmcp`]: a page's WebMCP tools, and how a run of one ended.
//! - [`memory`]: a page's memory figures, and what changed since the last reading.

pub mod console;
pub mod css;
pub mod emulation;
pub mod memory;
pub mod network;
pub mod page_text;
pub mod snapshot;
pub mod third_party;
pub mod webmcp;
