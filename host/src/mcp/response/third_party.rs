//! The third-party tools section of a reply: in full, by name only when a big set
//! comes with another tool's reply, or a note saying why there is no list.

use serde_json::{json, Value};
use tabwire_shared::{Discovery, TabId};

use super::sections::Sections;
use crate::mcp::render::third_party::{listing, no_tools, refusal, SECTION_TITLE};
use crate::mcp::spill;

/// Past this many tools, a listing that comes with another tool's reply shows names
/// only: their descriptions and schemas are one `list_3p_developer_tools` away.
pub const COMPACT_ABOVE: usize = 20;

/// How many characters of tool names a compact listing shows at most.
pub(super) const COMPACT_NAMES_CHARS: usize = 4_000;

impl Sections {
    /// The tools `page` offers: in full, by name only when `compact` and many, or to a
    /// file when too long to show.
    pub(super) fn third_party_tools(&mut self, page: TabId, discovery: &Discovery, compact: bool) {
        self.heading(SECTION_TITLE);
        if discovery.refused {
            self.third_party_note(&refusal(discovery));
            return;
        }
        if discovery.groups.is_empty() && discovery.problems.is_empty() {
            self.data
                .insert("thirdPartyDeveloperTools".into(), json!([]));
            self.third_party_note(&no_tools(page, discovery));
            return;
        }
        let count: usize = discovery.groups.iter().map(|g| g.tools.len()).sum();
        if compact && count > COMPACT_ABOVE {
            return self.third_party_names(page, discovery, count);
        }
        let groups = serde_json::to_value(&discovery.groups).unwrap_or(Value::Null);
        let list = listing(page, discovery);
        let longest = list.chars().count().max(groups.to_string().chars().count());
        let room = self.room();
        if longest <= room {
            self.text.push_str(&list);
            if discovery.groups.is_empty() {
                self.data.insert(
                    "thirdPartyDeveloperToolsNote".into(),
                    json!(no_tools(page, discovery)),
                );
            }
            self.data.insert("thirdPartyDeveloperTools".into(), groups);
            if !discovery.problems.is_empty() {
                self.data
                    .insert("thirdPartyToolProblems".into(), json!(discovery.problems));
            }
            return;
        }
        // A page offering more than a reply can hold: the list goes to a file.
        match spill::to_private_file("third-party-tools", "txt", list.as_bytes()) {
            Ok(path) => {
                let preview = spill::preview(&list, None);
                self.line(&format!(
                    "Page {page} ({}) offers tools whose descriptions are too long to show \
                     here ({room} characters at most); the list was saved to {}. Read it for \
                     their names and input schemas. {preview}",
                    discovery.url,
                    path.display()
                ));
                self.data.insert(
                    "thirdPartyDeveloperToolsFile".into(),
                    json!({"filePath": path, "preview": preview}),
                );
            }
            Err(e) => self.late_error(&e),
        }
    }

    /// A line about third-party tools that is not a list of them.
    pub(super) fn third_party_note(&mut self, note: &str) {
        self.line(note);
        self.data
            .insert("thirdPartyDeveloperToolsNote".into(), json!(note));
    }

    /// A big tool set, by name only (up to [`COMPACT_NAMES_CHARS`]), and its problems.
    pub(super) fn third_party_names(&mut self, page: TabId, discovery: &Discovery, count: usize) {
        let mut budget = COMPACT_NAMES_CHARS;
        let mut groups = Vec::new();
        let note = format!(
            "Page {page} ({}) exposes {count} tools; their names follow, and \
             list_3p_developer_tools gives their descriptions and input schemas.",
            discovery.url
        );
        self.line(&note);
        // A client that shows only the JSON gets the sentence too.
        self.data
            .insert("thirdPartyDeveloperToolsNote".into(), json!(note));
        for group in &discovery.groups {
            let shown: Vec<&str> = group
                .tools
                .iter()
                .map(|t| t.name.as_str())
                .take_while(|name| {
                    let fits = name.len() + 2 <= budget;
                    if fits {
                        budget -= name.len() + 2;
                    }
                    fits
                })
                .collect();
            let more = group.tools.len() - shown.len();
            let tail = if more > 0 {
                format!(" … and {more} more")
            } else {
                String::new()
            };
            self.line(&format!(
                "### {} ({} tools): {}{tail}",
                group.name,
                group.tools.len(),
                shown.join(", ")
            ));
            groups.push(json!({"group": group.name, "tools": shown, "more": more}));
        }
        self.data
            .insert("thirdPartyDeveloperToolNames".into(), Value::Array(groups));
        if !discovery.problems.is_empty() {
            self.line("Problems with what the page offered:");
            for problem in &discovery.problems {
                self.line(&format!("- {problem}"));
            }
            self.data
                .insert("thirdPartyToolProblems".into(), json!(discovery.problems));
        }
    }
}
