//! One home per output section: what a reply's `structuredContent` may hold, and where
//! each part of it is made.
//!
//! A reply is written section by section ([`super::response`]); each section's
//! `structuredContent` keys are the fields of one `Serialize + JsonSchema` struct in
//! its file here (`Keys`), and the section's value is that struct serialised. The
//! `outputSchema` every tool declares is assembled from those same structs
//! ([`schema::output_schema`]), and docs/results.md's table of keys is written from
//! them ([`docs`]): the value, its schema and its documentation cannot drift apart.
//!
//! [`HOMES`] is the one ordered list of sections. Adding a section is a file here, its
//! line in [`HOMES`], and its writer calling [`entries`]. What the text of a section
//! says is written beside its data, by the writer that builds the struct; the snapshot,
//! the largest, is a folder ([`snapshot`]: its keys, its text lines, its JSON tree and
//! the section's content made from them). [`page_text`] is the one rule every section's
//! words follow for text a page controls. Where a section goes within the reply's
//! budget (inline, folded, or to a file) is [`super::response`]'s business.

pub mod console;
pub mod css;
pub mod dialog;
pub mod docs;
pub mod emulation;
pub mod image;
pub mod lists;
pub mod memory;
pub mod message;
pub mod network;
pub mod page_text;
pub mod pages;
pub mod performance;
pub mod pointed;
pub mod results;
pub mod saved_file;
pub mod schema;
pub mod snapshot;
pub mod third_party;
pub mod webmcp;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Serialize;
use serde_json::{Map, Value};

pub use saved_file::SavedFile;
pub use schema::output_schema;

/// One output section's home: the struct its keys come from, and the file that holds
/// it (for docs/results.md).
pub struct Home {
    /// The section, as docs/results.md names it.
    pub name: &'static str,
    /// Its file, from the repository's root.
    pub file: &'static str,
    /// The schema of its keys: an object whose properties (and pattern properties) are
    /// the `structuredContent` keys the section writes.
    pub keys: fn(&mut SchemaGenerator) -> Schema,
    /// Entries its writer makes, every optional field set: checked against the schema.
    #[cfg(test)]
    pub sample: fn() -> Map<String, Value>,
}

/// The schema of a section's `Keys` struct itself (not a `$ref` to it).
fn keys<T: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    T::json_schema(generator)
}

macro_rules! home {
    ($name:literal, $module:ident) => {
        home!($name, $module, concat!(stringify!($module), ".rs"))
    };
    // A home that is a folder: its path under `output/`.
    ($name:literal, $module:ident, $file:expr) => {
        Home {
            name: $name,
            file: concat!("host/src/mcp/output/", $file),
            keys: keys::<$module::Keys>,
            #[cfg(test)]
            sample: $module::sample,
        }
    };
}

/// Every output section, in the order a reply writes them.
pub const HOMES: &[Home] = &[
    home!("message and error", message),
    Home {
        name: "script and tool results",
        file: "host/src/mcp/output/results.rs",
        keys: results::keys,
        #[cfg(test)]
        sample: results::sample,
    },
    home!("console", console),
    home!("network", network),
    home!("list position", lists),
    home!("performance trace", performance),
    home!("CSS", css),
    home!("memory", memory),
    home!("WebMCP tools", webmcp),
    home!("open dialog", dialog),
    home!("emulation", emulation),
    home!("element the user pointed at", pointed),
    home!("pages", pages),
    home!("third-party developer tools", third_party),
    home!("snapshot", snapshot, "snapshot/"),
    home!("image", image),
];

/// The `structuredContent` entries of a section: its `Keys` struct serialised, keys in
/// the struct's order, absent ones left out.
pub fn entries<T: Serialize>(keys: &T) -> Map<String, Value> {
    match serde_json::to_value(keys) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    }
}
