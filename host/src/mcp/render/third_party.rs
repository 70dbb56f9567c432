//! Third-party developer tools in words: the section's title, a page's tool list, and
//! why a page has none to offer.

use tabwire_shared::{Discovery, TabId};

use super::page_text;

/// Where discovered tools appear in responses.
pub const SECTION_TITLE: &str = "Third-party developer tools";

/// The explanation for a page whose origin may not present tools.
pub fn refusal(discovery: &Discovery) -> String {
    if discovery.origin == "null" {
        // about:blank, data: and sandboxed pages: no origin to allow.
        return format!(
            "The page ({}) has no origin of its own (as about:blank, data: and sandboxed \
             pages), so it may not present third-party developer tools.",
            discovery.url
        );
    }
    let web = ["http://", "https://"]
        .iter()
        .any(|scheme| discovery.origin.starts_with(scheme));
    if !web {
        // The browser's own pages (an error page is chrome-error://chromewebdata):
        // nothing to allow, and nothing that could offer tools.
        return format!(
            "The page ({}) is not a web page, so it offers no third-party developer tools.",
            discovery.url
        );
    }
    format!(
        "The page's origin ({}) may not present third-party developer tools: by default \
         only local pages (localhost, 127.0.0.1, [::1], *.localhost, file:) may. To allow \
         it, start tabwire with --thirdPartyOrigins={}",
        discovery.origin, discovery.origin
    )
}

/// What a page that offers no valid tool is said to expose.
pub fn no_tools(page: TabId, discovery: &Discovery) -> String {
    format!(
        "Page {page} ({}) exposes no third-party developer tools.",
        discovery.url
    )
}

/// The text of a page's tool list: each group and tool with its schema, then what
/// was wrong with what the page offered.
/// How many characters of a tool's description an index of a big tool set shows.
const INDEX_DESCRIPTION_CHARS: usize = 100;

/// The first line of `description`, at most [`INDEX_DESCRIPTION_CHARS`] characters.
pub fn first_line(description: &str) -> String {
    let line = description.lines().next().unwrap_or("").trim();
    if line.chars().count() <= INDEX_DESCRIPTION_CHARS {
        return line.to_owned();
    }
    let cut: String = line.chars().take(INDEX_DESCRIPTION_CHARS).collect();
    format!("{}\u{2026}", cut.trim_end())
}

pub fn listing(page: TabId, discovery: &Discovery) -> String {
    let mut out = String::new();
    // Names and descriptions are the page's: each stays on its line.
    let mut line = |text: &str| {
        out.push_str(&page_text::inline(text));
        out.push('\n');
    };
    if discovery.groups.is_empty() {
        line(&no_tools(page, discovery));
    } else {
        line(&format!("Page {page} ({}) exposes:", discovery.url));
        for group in &discovery.groups {
            if group.webmcp {
                line(&format!("### {} (WebMCP)", group.name));
            } else {
                line(&format!("### {}", group.name));
            }
            if let Some(description) = &group.description {
                line(&format!("Description: {description}"));
            }
            for tool in &group.tools {
                line(&format!("- {}: {}", tool.name, tool.description));
                line(&format!("  inputSchema: {}", tool.input_schema));
                if let Some(annotations) = &tool.annotations {
                    line(&format!("  annotations: {annotations}"));
                }
            }
        }
        line(
            "Call them with execute_3p_developer_tool, or from evaluate_script with \
             window.__dtmcp.executeTool(name, args).",
        );
        if discovery.groups.iter().any(|g| g.webmcp) {
            line(
                "The WebMCP group's tools run through the browser's WebMCP: call them with \
                 execute_3p_developer_tool.",
            );
        }
    }
    if !discovery.problems.is_empty() {
        line("Problems with what the page offered:");
        for problem in &discovery.problems {
            line(&format!("- {problem}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn discovery() -> Discovery {
        Discovery {
            document: "d".into(),
            url: "http://localhost/".into(),
            origin: "http://localhost".into(),
            refused: false,
            groups: vec![],
            problems: vec![],
        }
    }

    #[test]
    fn pages_without_an_origin_are_not_told_to_allow_null() {
        let mut found = discovery();
        found.origin = "null".into();
        found.url = "about:blank".into();
        let text = refusal(&found);
        assert!(
            text.contains("about:blank") && text.contains("no origin"),
            "{text}"
        );
        assert!(!text.contains("--thirdPartyOrigins"), "{text}");
        found.origin = "chrome-error://chromewebdata".into();
        found.url = "chrome-error://chromewebdata/".into();
        let text = refusal(&found);
        assert!(text.contains("not a web page") && !text.contains("--thirdPartyOrigins"));
        found.origin = "https://app.example".into();
        assert!(refusal(&found).contains("--thirdPartyOrigins=https://app.example"));
    }
}
