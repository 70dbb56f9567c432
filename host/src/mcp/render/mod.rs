//! Text written the same way for every section: what a page controls made safe to
//! show, and the accessibility snapshot as an indented tree. Each output section's own
//! words sit in its home, [`super::output`]. Nothing here talks to the browser.
//!
//! - [`page_text`]: the one rule for text a page controls (escaped, quoted or fenced).
//! - [`snapshot`]: the accessibility snapshot as an indented text tree.

pub mod page_text;
pub mod snapshot;
