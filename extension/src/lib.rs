//! tabwire's browser extension.
//!
//! The extension lets an agent drive the user's tabs through `chrome.debugger`. Its
//! logic is plain Rust, testable off-browser; only a thin shell touches JavaScript.
//!
//! - [`chrome`]: the [`Chrome`] trait, everything the engine needs from the browser.
//! - [`engine`]: the page engine — host messages in, browser actions and events out.
//! - [`cdp`]: the typed subset of the Chrome DevTools Protocol the engine speaks.
//! - [`signals`]: waiting on a tab's events, and bounding every wait.
//! - [`error`]: every way a command fails, in words for the agent.
//! - [`json_text`]: JSON text JavaScript wrote, read so a lone surrogate costs nothing.
//! - `shell` (WASM only): implements [`Chrome`] with `chrome.*`, owns the native port,
//!   and exports the entry points `background.js` calls.

pub mod cdp;
pub mod chrome;
pub mod engine;
pub mod error;
pub mod json_text;
pub mod signals;

#[cfg(target_arch = "wasm32")]
pub mod shell;

pub use chrome::{Chrome, ChromeError, StorageArea, TabState, WindowState};
pub use engine::Engine;
pub use error::EngineError;
