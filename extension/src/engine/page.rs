//! The JavaScript tabwire runs in pages, composed from the commented `.js` files in
//! `src/page/` (each one function expression with one job).
//!
//! - [`PRISTINE_INSTALL`] runs before every new document's own scripts and keeps the
//!   builtins the other scripts use out of the page's reach (`pristine.js`).
//! - [`KIT`] makes a document's private kit (`kit.js`) once: [`DISCOVER`], called on
//!   it, dispatches the discovery event and keeps the tools in its registry
//!   (`discover.js`, validating schemas with `schema.js`); [`EXECUTE`] runs a tool from
//!   the registry and makes its result JSON-safe (`execute.js`, its input built by
//!   `splice.js`, its result by `serialize.js`);
//!   [`TAKE_NODES`] hands over the nodes of that result.
//! - [`SPLICE`] puts elements into an `evaluate_script` argument (`splice.js`).
//! - [`WATCH`], [`SINCE`] and [`STOP`] watch the DOM settle after input (`watch.js`).
//! - [`WAIT_TEXT`] waits for text to appear (`wait-text.js`).
//! - [`CONTROL`] reads and sets form controls for `fill` (`control.js`).
//! - [`KEYCLICK`], [`KEYCLICK_READ`] and [`KEYCLICK_DONE`] click from the keyboard
//!   where a mouse press would raise the user's window (`keyclick.js`).
//! - [`SNAPSHOT_WALKER`] computes the snapshot from the DOM in tabwire's isolated world
//!   and keeps its uids there (`snapshot.js`).
//!
//! Every script catches what the page can throw at it and hands back plain data (JSON
//! text, or arrays of our own making read by reference); the engine bounds every call
//! in time and parses what comes back as untrusted input.

use serde_json::{json, Value};

/// Installed with `Page.addScriptToEvaluateOnNewDocument`.
pub const PRISTINE_INSTALL: &str = concat!(include_str!("../page/pristine.js"), "(this);\n");

/// A `Runtime.evaluate` expression, in the page's main world: makes the document's
/// kit (`kit.js`), tabwire's private object holding tool discovery (`discover.js`,
/// validating schemas with `schema.js`), the tool runner (`execute.js`, `splice.js`,
/// `serialize.js`) and the registry of the last discovery. Keep it by reference.
pub const KIT: &str = concat!(
    "((global) => {\n'use strict';\nconst pristine = ",
    include_str!("../page/pristine.js"),
    ";\nconst helpers = ",
    include_str!("../page/helpers.js"),
    ";\nconst schema = ",
    include_str!("../page/schema.js"),
    ";\nconst discover = ",
    include_str!("../page/discover.js"),
    ";\nconst serialize = ",
    include_str!("../page/serialize.js"),
    ";\nconst splice = ",
    include_str!("../page/splice.js"),
    ";\nconst execute = ",
    include_str!("../page/execute.js"),
    ";\nconst kit = ",
    include_str!("../page/kit.js"),
    ";\nreturn kit(global, pristine(global), helpers, schema, discover, serialize, splice, execute);\n})(this)"
);

/// `async function (budgetMs, listeners, limits)`, called on the kit: dispatches the
/// discovery event, keeps the tools in the kit and resolves to the report (JSON
/// text; read it by value).
pub const DISCOVER: &str =
    "function (budgetMs, listeners, limits) { return this.discover(budgetMs, listeners, limits); }";

/// `async function (toolName, groupName, argsJson, paths, limits, ...elements)`, called
/// on the kit: runs a tool and resolves to `{status, text, nodes, run}` (read it by
/// value; `nodes` counts the nodes [`TAKE_NODES`] hands over for run number `run`).
pub const EXECUTE: &str = "function (toolName, groupName, argsJson, paths, limits, ...elements) { \
    return this.execute(toolName, groupName, argsJson, paths, limits, elements); }";

/// `function (run)`, called on the kit: the nodes of run `run`'s tool result, as an
/// array (read it by reference); never another run's.
pub const TAKE_NODES: &str = "function (run) { return this.takeNodes(run); }";

/// `function (json, paths, ...elements)`, called on the page's global object: the
/// value of the JSON text with the elements put in.
pub const SPLICE: &str = concat!(
    "function (json, paths, ...elements) {\nconst pristine = ",
    include_str!("../page/pristine.js"),
    ";\nconst splice = ",
    include_str!("../page/splice.js"),
    // The page's own JSON.parse only if it broke it before tabwire attached.
    ";\nconst T = pristine(this);\nreturn splice(T.parse || JSON.parse, json, paths, elements);\n}"
);

/// `function (value, limit)`, called on the page's global object: `value` as JSON
/// text, written with the builtins captured before the page's own scripts ran; the
/// text's length instead when it is longer than `limit`; `undefined` if the page broke
/// `JSON.stringify` before tabwire attached. chrome.debugger sorts the keys of objects
/// it hands over by value; text keeps the page's order.
pub const STRINGIFY: &str = concat!(
    "function (value, limit) {\nconst T = (",
    include_str!("../page/pristine.js"),
    ")(this);\nif (!T.stringify || !T.apply) return undefined;\n",
    "const text = T.apply(T.stringify, null, [value]);\n",
    "return typeof text === 'string' && text.length > limit ? text.length : text;\n}"
);

/// `function ()`, called on an object: the object itself, to be read by value.
pub const ITSELF: &str = "function () { return this; }";

/// A `Runtime.evaluate` expression: starts watching the DOM for changes and evaluates
/// to the watcher (keep it by reference; see `watch.js`).
pub const WATCH: &str = concat!(
    "((g) => {\n'use strict';\nconst pristine = ",
    include_str!("../page/pristine.js"),
    ";\nconst watch = ",
    include_str!("../page/watch.js"),
    ";\nreturn watch(pristine(g), g);\n})(this)"
);

/// Called on a watcher: milliseconds since the DOM last changed, by value.
pub const SINCE: &str = "function () { return this.since(); }";

/// Called on a watcher: `[painted, mousedowns, mousemoves, keydowns]` by value (see
/// `watch.js`).
pub const RECEIVED: &str = "function () { return this.received(); }";

/// Called on a watcher: stops it.
pub const STOP: &str = "function () { this.stop(); }";

/// `function (texts, budgetMs)`, called on the page's global object: a promise of
/// the first of `texts` visible in the page, or `undefined` after `budgetMs`.
pub const WAIT_TEXT: &str = concat!(
    "function (texts, budgetMs) {\n'use strict';\nconst pristine = ",
    include_str!("../page/pristine.js"),
    ";\nconst helpers = ",
    include_str!("../page/helpers.js"),
    ";\nconst waitText = ",
    include_str!("../page/wait-text.js"),
    // A promise of ours, guarded (helpers.js) before it is handed to Chrome.
    ";\nconst T = pristine(this);\nreturn helpers(T).guard(waitText(T, this, texts, budgetMs));\n}"
);

/// `function (op, value)`, called on a form control (see `control.js`). The function
/// itself is not strict: a plain call of an inner function then hands that function
/// the element's global object as `this`, found without reading anything the page
/// can replace.
pub const CONTROL: &str = concat!(
    "function (op, value) {\nconst global = (function () { return this; })();\nconst pristine = ",
    include_str!("../page/pristine.js"),
    ";\nconst helpers = ",
    include_str!("../page/helpers.js"),
    ";\nconst control = ",
    include_str!("../page/control.js"),
    ";\nconst T = pristine(global);\nreturn control(T, helpers(T), this, op, value);\n}"
);

/// `function ()`, called on an element where a mouse press would raise the user's
/// window: finds what the keyboard can click in its place, focuses it and counts the
/// clicks reaching it; evaluates to the clicker (keep it by reference; see
/// `keyclick.js`). Not strict, for the same reason as [`CONTROL`].
pub const KEYCLICK: &str = concat!(
    "function () {\nconst global = (function () { return this; })();\nconst pristine = ",
    include_str!("../page/pristine.js"),
    ";\nconst helpers = ",
    include_str!("../page/helpers.js"),
    ";\nconst keyclick = ",
    include_str!("../page/keyclick.js"),
    ";\nconst T = pristine(global);\nreturn keyclick(T, helpers(T), this);\n}"
);

/// Called on a clicker: `[key, what, native, trusted, clicks]` by value (see
/// `keyclick.js`).
pub const KEYCLICK_READ: &str = "function () { return this.read(); }";

/// Called on a clicker: what [`KEYCLICK_READ`] answers, and stops it.
pub const KEYCLICK_DONE: &str =
    "function () { const read = this.read(); this.stop(); return read; }";

/// A `Runtime.evaluate` expression for tabwire's isolated world (`Page.createIsolatedWorld
/// {worldName: "tabwire"}`): installs the snapshot walker once per world as the global
/// `__tabwireSnapshot` and evaluates to it (`take`, `resolve`, `uidOf`, `pin`, `unpin`;
/// see `snapshot.js`).
pub const SNAPSHOT_WALKER: &str = include_str!("../page/snapshot.js");

/// Cap on a tool result's JSON text (UTF-16 units). At most three UTF-8 bytes each,
/// so even with its envelope a reply stays far below native messaging's 64 MiB.
pub const MAX_RESULT_TEXT: u64 = 16 << 20;

/// Deepest nesting a result or schema keeps.
pub const MAX_DEPTH: u64 = 64;

/// Cap on a discovery's report (all names, descriptions and schemas).
pub const MAX_REPORT_TEXT: u64 = 4 << 20;

/// Room for the problem lines of a discovery's report, past [`MAX_REPORT_TEXT`].
pub const MAX_REPORT_PROBLEMS: u64 = 1 << 20;

/// Most tools kept from one group.
pub const MAX_TOOLS_PER_GROUP: u64 = 1_000;

/// How far past its cap a page script's text may go: it stops near the cap, and its
/// last marker (a "<Truncated: ...>" string, a line counting what was left out) and the
/// brackets closing what was open are written after.
const SLACK: u64 = 4096;

/// The longest tool result text the engine reads (UTF-16 units, as the page counts).
pub const MAX_RESULT_TEXT_READ: u64 = MAX_RESULT_TEXT + SLACK;

/// The longest discovery report the engine reads (UTF-16 units, as the page counts).
pub const MAX_REPORT_TEXT_READ: u64 = MAX_REPORT_TEXT + MAX_REPORT_PROBLEMS + SLACK;

/// Checks the length of text from the page before it is parsed: the page scripts keep
/// to their limits, but the page may have broken them. `Err` names the limit.
pub fn check_length(text: &str, limit: u64, what: &str) -> Result<(), String> {
    // UTF-8 takes at least as many bytes as UTF-16 takes units: most texts are
    // cleared without counting.
    if text.len() as u64 <= limit || text.encode_utf16().count() as u64 <= limit {
        Ok(())
    } else {
        Err(format!(
            "{what} is longer than the limit of {limit} characters"
        ))
    }
}

/// The limits `serialize.js` works to.
pub fn result_limits() -> Value {
    json!({"depth": MAX_DEPTH, "total": MAX_RESULT_TEXT})
}

/// The limits `discover.js` and `schema.js` work to.
pub fn discovery_limits() -> Value {
    json!({
        "depth": MAX_DEPTH,
        "total": MAX_REPORT_TEXT,
        "problems": MAX_REPORT_PROBLEMS,
        "tools": MAX_TOOLS_PER_GROUP,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_are_composed_around_their_files() {
        assert!(PRISTINE_INSTALL.contains("tabwire:pristine"));
        assert!(PRISTINE_INSTALL.trim_end().ends_with("(this);"));
        for (script, part) in [
            (KIT, "tabwire:discover"),
            (KIT, "tabwire:schema"),
            (KIT, "tabwire:serialize"),
            (KIT, "tabwire:execute"),
            (KIT, "tabwire:splice"),
            (KIT, "tabwire:kit"),
            (KIT, "tabwire:pristine"),
            (SPLICE, "tabwire:splice"),
            (WATCH, "tabwire:watch"),
            (WAIT_TEXT, "tabwire:wait-text"),
            (CONTROL, "tabwire:control"),
            (CONTROL, "tabwire:pristine"),
            (KEYCLICK, "tabwire:keyclick"),
            (KEYCLICK, "tabwire:helpers"),
            (SNAPSHOT_WALKER, "tabwire:snapshot"),
        ] {
            assert!(script.contains(part), "{part}");
        }
    }

    #[test]
    fn text_past_its_limit_is_refused_naming_it() {
        assert!(check_length("abc", 3, "the text").is_ok());
        // Two UTF-8 bytes, one UTF-16 unit each: counted as the page counts.
        assert!(check_length("ééé", 3, "the text").is_ok());
        let error = check_length("abcd", 3, "the text").unwrap_err();
        assert_eq!(error, "the text is longer than the limit of 3 characters");
        const {
            assert!(MAX_RESULT_TEXT_READ > MAX_RESULT_TEXT);
            assert!(MAX_REPORT_TEXT_READ > MAX_REPORT_TEXT + MAX_REPORT_PROBLEMS);
        }
    }
}
