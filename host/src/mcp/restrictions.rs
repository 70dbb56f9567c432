//! The limits an agent's configuration puts on what the agent may do
//! (`--javascriptEvaluation=false`, `--fileNavigations=false`, the flags of Chrome
//! DevTools for Agents), checked on the host before a call reaches the browser.
//!
//! They limit what the agent asks for, not the browser: the page's own scripts and
//! tools still run, and a page can still link to what the agent may not open itself.

use super::config::McpArgs;
use super::ToolError;

/// Schemes that run script of the caller's own when navigated to.
const SCRIPT_SCHEMES: [&str; 3] = ["javascript", "data", "vbscript"];

/// The limits in force for this server.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Restrictions {
    /// No JavaScript of the agent's own: no evaluate_script, no `javascript:`,
    /// `data:` or `vbscript:` navigations.
    pub no_javascript: bool,
    /// No navigations to `file:` URLs.
    pub no_file_navigations: bool,
}

impl Restrictions {
    /// The limits the command line asks for.
    pub fn from_args(args: &McpArgs) -> Self {
        Self {
            no_javascript: !args.javascript_evaluation,
            no_file_navigations: !args.file_navigations,
        }
    }

    /// The tools these limits take away: (name, what the agent is told if it calls it).
    pub fn tools_taken_away(&self) -> Vec<(&'static str, &'static str)> {
        let mut away = Vec::new();
        if self.no_javascript {
            away.push((
                "evaluate_script",
                "`evaluate_script` is off: this tabwire was started with \
                 --javascriptEvaluation=false, so the agent runs no JavaScript of its own. \
                 Read the page with take_snapshot, list_console_messages or the page's own \
                 tools instead.",
            ));
        }
        away
    }

    /// Refuses opening `url` when these limits forbid it, saying which flag does.
    pub fn check_navigation(&self, url: &str) -> Result<(), ToolError> {
        let Some(scheme) = scheme(url) else {
            return Ok(());
        };
        if self.no_javascript && SCRIPT_SCHEMES.contains(&scheme.as_str()) {
            return Err(ToolError::new(format!(
                "Opening {scheme}: URLs is refused: this tabwire was started with \
                 --javascriptEvaluation=false. Open an http(s) URL instead."
            )));
        }
        if self.no_file_navigations && scheme == "file" {
            return Err(ToolError::new(
                "Opening file: URLs is refused: this tabwire was started with \
                 --fileNavigations=false. Serve the file over http (for example \
                 `python3 -m http.server`) and open that URL instead.",
            ));
        }
        Ok(())
    }
}

/// The scheme the browser would open `url` with, lower-cased: the URL standard's
/// parsing (leading spaces and control characters dropped, tabs and newlines removed),
/// looking through `view-source:` to the URL it wraps.
fn scheme(url: &str) -> Option<String> {
    let mut parsed = url::Url::parse(url).ok()?;
    // Bounded, in case of `view-source:view-source:…` nested without end.
    for _ in 0..5 {
        if parsed.scheme() != "view-source" {
            break;
        }
        parsed = url::Url::parse(parsed.path()).ok()?;
    }
    Some(parsed.scheme().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: Restrictions = Restrictions {
        no_javascript: true,
        no_file_navigations: true,
    };

    #[test]
    fn script_and_file_urls_are_refused_only_under_their_flags() {
        for url in [
            "javascript:alert(1)",
            "  JavaScript:alert(1)",
            "java\tscript:alert(1)",
            "data:text/html,<script>1</script>",
            "vbscript:x",
        ] {
            let error = ALL.check_navigation(url).unwrap_err().to_string();
            assert!(
                error.contains("--javascriptEvaluation=false"),
                "{url}: {error}"
            );
            assert!(Restrictions::default().check_navigation(url).is_ok());
        }
        for url in [
            "file:///etc/hostname",
            "FILE:///etc/hostname",
            "view-source:file:///etc/hostname",
        ] {
            let error = ALL.check_navigation(url).unwrap_err().to_string();
            assert!(error.contains("--fileNavigations=false"), "{url}: {error}");
            assert!(Restrictions::default().check_navigation(url).is_ok());
        }
        for url in [
            "https://a.test/",
            "http://127.0.0.1:8080/x",
            "about:blank",
            "a.test",
        ] {
            assert!(ALL.check_navigation(url).is_ok(), "{url}");
        }
    }

    #[test]
    fn evaluate_script_is_taken_away_without_javascript() {
        assert!(Restrictions::default().tools_taken_away().is_empty());
        let away = ALL.tools_taken_away();
        assert_eq!(away.len(), 1);
        assert_eq!(away[0].0, "evaluate_script");
    }
}
