//! The tools of chrome-devtools-mcp tabwire does not offer, and why.
//!
//! Agent configurations written for the reference may name them; a call gets this
//! reason and what to use instead rather than a bare "unknown tool", and
//! docs/tool-reference.md lists them from the same table.

/// Tools tabwire does not offer, for one reason.
#[derive(Debug)]
pub struct NotOffered {
    /// The reference's names for them.
    pub tools: &'static [&'static str],
    /// Why tabwire has them not.
    pub why: &'static str,
    /// What an agent can do instead.
    pub instead: &'static str,
}

/// Every tool of the reference tabwire does not offer.
pub const NOT_OFFERED: &[NotOffered] = &[
    NotOffered {
        tools: &[
            "take_heapsnapshot",
            "get_heapsnapshot_summary",
            "get_heapsnapshot_details",
            "get_heapsnapshot_class_nodes",
            "get_heapsnapshot_retainers",
            "get_heapsnapshot_retaining_paths",
            "get_heapsnapshot_edges",
            "get_heapsnapshot_dominators",
            "get_heapsnapshot_duplicate_strings",
            "get_heapsnapshot_object_details",
            "query_heapsnapshot_objects",
            "analyze_heapsnapshot_contexts",
            "compare_heapsnapshots",
            "close_heapsnapshot",
        ],
        why: "Chrome keeps the HeapProfiler domain from extensions, so tabwire cannot take a \
              heap snapshot (and does not read snapshot files)",
        instead: "get_memory_usage shows the heap's size and the DOM's counts, and what changed \
                  since the previous reading; for a snapshot, use the Memory panel of DevTools",
    },
    NotOffered {
        tools: &["lighthouse_audit"],
        why: "Lighthouse's runner is a Node program that drives the browser over a debugging \
              connection of its own, which the user's browser does not give",
        instead: "performance_start_trace for load performance and its insights; take_snapshot \
                  for the accessibility tree",
    },
    NotOffered {
        tools: &["screencast_start", "screencast_stop"],
        why: "recordings are encoded with ffmpeg, which tabwire does not bundle",
        instead: "take_screenshot after each step",
    },
    NotOffered {
        tools: &[
            "install_extension",
            "uninstall_extension",
            "list_extensions",
            "reload_extension",
            "trigger_extension_action",
            "install_pwa",
            "uninstall_pwa",
            "launch_pwa",
            "get_os_app_state",
        ],
        why: "managing the browser's extensions and installed apps needs a connection to the \
              browser itself; tabwire reaches tabs only, through its extension",
        instead: "chrome://extensions and the browser's app menu, by the user",
    },
    NotOffered {
        tools: &[
            "open_devtools",
            "get_devtools_comments",
            "resolve_devtools_comment",
            "reveal_in_devtools",
        ],
        why: "tabwire does not open or read DevTools windows in the user's browser",
        instead: "the tools of the Debugging category read the same page state",
    },
    NotOffered {
        tools: &["get_tab_id"],
        why: "it is not needed: a page's pageId in list_pages is its Chrome tab id",
        instead: "list_pages",
    },
];

/// Why tabwire has no tool `name`, when it is one of the reference's.
pub fn reason(name: &str) -> Option<String> {
    NOT_OFFERED
        .iter()
        .find(|entry| entry.tools.contains(&name))
        .map(|entry| {
            format!(
                "`{name}` is a chrome-devtools-mcp tool tabwire does not offer: {}. Instead: {}.",
                entry.why, entry.instead
            )
        })
}

/// The section of docs/tool-reference.md that lists them.
pub fn markdown() -> String {
    let mut out = String::from(
        "## chrome-devtools-mcp tools tabwire does not offer\n\n\
         A call to one of these answers with the reason and what to use instead.\n\n\
         | Tools | Why not | Instead |\n|---|---|---|\n",
    );
    for entry in NOT_OFFERED {
        let tools: Vec<String> = entry.tools.iter().map(|t| format!("`{t}`")).collect();
        out.push_str(&format!(
            "| {} | {} | {} |\n",
            tools.join(", "),
            entry.why,
            entry.instead
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::registry::Registry;

    #[test]
    fn no_tool_tabwire_offers_is_listed_as_not_offered() {
        for tool in Registry::every_tool() {
            assert!(reason(tool.spec().name).is_none(), "{}", tool.spec().name);
        }
    }

    #[test]
    fn a_reference_tool_gets_its_reason_and_what_to_use_instead() {
        let text = reason("take_heapsnapshot").unwrap_or_default();
        assert!(text.contains("HeapProfiler"), "{text}");
        assert!(text.contains("Instead: get_memory_usage"), "{text}");
        assert_eq!(reason("no_such_tool"), None);
    }
}
