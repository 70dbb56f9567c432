//! The third-party tools section of a reply: in full, by name only when a big set
//! comes with another tool's reply, or a note saying why there is no list.

use serde_json::{json, Value};
use tabwire_shared::{Discovery, TabId};

use super::sections::Sections;
use crate::mcp::render::third_party::{first_line, listing, no_tools, refusal, SECTION_TITLE};
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
        // A page offering more than a reply can hold: every description and schema goes
        // to a file, and every tool is still named here.
        match spill::to_private_file("third-party-tools", "txt", list.as_bytes()) {
            Ok(path) => self.third_party_index(page, discovery, count, room, &path, &list),
            Err(e) => self.late_error(&e),
        }
    }

    /// A tool set too long to show whole: every tool by name with the first line of
    /// its description (by name only if even that is too long), and the file holding
    /// the whole listing.
    fn third_party_index(
        &mut self,
        page: TabId,
        discovery: &Discovery,
        count: usize,
        room: usize,
        path: &std::path::Path,
        list: &str,
    ) {
        let note = format!(
            "Page {page} ({}) offers {count} tools, too many to show whole here ({room} \
             characters at most): each is named below with the first line of its \
             description, and every description and input schema was saved to {}. Call \
             them with execute_3p_developer_tool.",
            discovery.url,
            path.display()
        );
        let described: Vec<String> = discovery
            .groups
            .iter()
            .flat_map(|group| {
                let head = format!("### {} ({} tools)", group.name, group.tools.len());
                std::iter::once(head).chain(
                    group
                        .tools
                        .iter()
                        .map(|tool| format!("- {}: {}", tool.name, first_line(&tool.description))),
                )
            })
            .collect();
        let described_chars: usize = described.iter().map(|l| l.chars().count() + 1).sum();
        let lines = if note.chars().count() + described_chars <= room {
            described
        } else {
            discovery
                .groups
                .iter()
                .map(|group| {
                    let names: Vec<&str> = group.tools.iter().map(|t| t.name.as_str()).collect();
                    format!(
                        "### {} ({} tools): {}",
                        group.name,
                        group.tools.len(),
                        names.join(", ")
                    )
                })
                .collect()
        };
        self.line(&note);
        for line in &lines {
            self.line(line);
        }
        let names: Vec<Value> = discovery
            .groups
            .iter()
            .map(|group| {
                let tools: Vec<&str> = group.tools.iter().map(|t| t.name.as_str()).collect();
                json!({"group": group.name, "tools": tools, "more": 0})
            })
            .collect();
        self.data
            .insert("thirdPartyDeveloperToolsNote".into(), json!(note));
        self.data
            .insert("thirdPartyDeveloperToolNames".into(), Value::Array(names));
        self.data.insert(
            "thirdPartyDeveloperToolsFile".into(),
            json!({"filePath": path, "preview": spill::preview(list, None)}),
        );
        if !discovery.problems.is_empty() {
            self.line("Problems with what the page offered:");
            for problem in &discovery.problems {
                self.line(&format!("- {problem}"));
            }
            self.data
                .insert("thirdPartyToolProblems".into(), json!(discovery.problems));
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
