//! The third-party tools section of a reply: in full, by name only when a big set
//! comes with another tool's reply, or a note saying why there is no list.

use tabwire_shared::{Discovery, TabId};

use super::sections::Sections;
use crate::mcp::output::third_party::{first_line, listing, no_tools, refusal, SECTION_TITLE};
use crate::mcp::output::third_party::{Keys, Names};
use crate::mcp::output::SavedFile;
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
            self.data.extend(
                Keys {
                    third_party_developer_tools: Some(&[]),
                    ..Keys::default()
                }
                .entries(),
            );
            self.third_party_note(&no_tools(page, discovery));
            return;
        }
        let count: usize = discovery.groups.iter().map(|g| g.tools.len()).sum();
        if compact && count > COMPACT_ABOVE {
            return self.third_party_names(page, discovery, count);
        }
        let groups = Keys {
            third_party_developer_tools: Some(&discovery.groups),
            ..Keys::default()
        };
        let groups_chars =
            serde_json::to_string(&discovery.groups).map_or(4, |json| json.chars().count());
        let list = listing(page, discovery);
        let longest = list.chars().count().max(groups_chars);
        let room = self.room();
        if longest <= room {
            self.text.push_str(&list);
            if discovery.groups.is_empty() {
                let note = no_tools(page, discovery);
                self.data.extend(
                    Keys {
                        third_party_developer_tools_note: Some(&note),
                        ..Keys::default()
                    }
                    .entries(),
                );
            }
            self.data.extend(groups.entries());
            self.problems(discovery, false);
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
        let names = discovery
            .groups
            .iter()
            .map(|group| Names {
                group: &group.name,
                tools: group.tools.iter().map(|t| t.name.as_str()).collect(),
                more: 0,
            })
            .collect();
        // In the order a client reads them: the sentence, the names, the file.
        for keys in [
            Keys {
                third_party_developer_tools_note: Some(&note),
                ..Keys::default()
            },
            Keys {
                third_party_developer_tool_names: Some(names),
                ..Keys::default()
            },
            Keys {
                third_party_developer_tools_file: Some(SavedFile {
                    file_path: path.to_path_buf(),
                    preview: spill::preview(list, None),
                }),
                ..Keys::default()
            },
        ] {
            self.data.extend(keys.entries());
        }
        self.problems(discovery, true);
    }

    /// What was wrong with what the page offered, if anything; said in the text too
    /// when `say` (a full listing says it in its own text).
    fn problems(&mut self, discovery: &Discovery, say: bool) {
        if discovery.problems.is_empty() {
            return;
        }
        if say {
            self.line("Problems with what the page offered:");
            for problem in &discovery.problems {
                self.line(&format!("- {problem}"));
            }
        }
        self.data.extend(
            Keys {
                third_party_tool_problems: Some(&discovery.problems),
                ..Keys::default()
            }
            .entries(),
        );
    }

    /// A line about third-party tools that is not a list of them.
    pub(super) fn third_party_note(&mut self, note: &str) {
        self.line(note);
        self.data.extend(
            Keys {
                third_party_developer_tools_note: Some(note),
                ..Keys::default()
            }
            .entries(),
        );
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
        self.data.extend(
            Keys {
                third_party_developer_tools_note: Some(&note),
                ..Keys::default()
            }
            .entries(),
        );
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
            groups.push(Names {
                group: &group.name,
                tools: shown,
                more,
            });
        }
        self.data.extend(
            Keys {
                third_party_developer_tool_names: Some(groups),
                ..Keys::default()
            }
            .entries(),
        );
        self.problems(discovery, true);
    }
}
