//! `tabwire mcp`'s command-line switches.
//!
//! Flag names follow Chrome DevTools for Agents wherever it has one, so an agent
//! configuration written for it carries over by changing the command. Category switches
//! (`--category<Name>=true|false`) are generated from [`Category::ALL`] rather than
//! spelled out one by one, so adding a category adds its flag.

use std::collections::HashMap;
use std::path::PathBuf;

use super::tool::Category;

/// Options of `tabwire mcp`.
#[derive(Debug, Clone, clap::Args)]
pub struct McpArgs {
    /// Start a dedicated Chromium with the tabwire extension loaded, instead of
    /// connecting to the user's own browser. Implied by any of the browser flags below.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", action = clap::ArgAction::Set, default_value_t = false, value_name = "BOOL")]
    pub launch: bool,
    /// Run the launched browser without a window.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", action = clap::ArgAction::Set, default_value_t = false, value_name = "BOOL")]
    pub headless: bool,
    /// The Chrome/Chromium executable to launch (default: found on PATH).
    #[arg(long = "executablePath", short = 'e', value_name = "PATH")]
    pub executable_path: Option<PathBuf>,
    /// An extra command-line flag for the launched browser (repeatable), e.g.
    /// `--chromeArg=--no-sandbox`.
    #[arg(long = "chromeArg", value_name = "FLAG", allow_hyphen_values = true)]
    pub chrome_args: Vec<String>,
    /// The profile directory of the launched browser, kept after exit. Default: a
    /// fresh temporary profile, deleted on exit.
    #[arg(long = "userDataDir", value_name = "DIR")]
    pub user_data_dir: Option<PathBuf>,
    /// Use a fresh temporary profile deleted on exit (the default for --launch; kept
    /// for compatibility). Conflicts with --userDataDir.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", action = clap::ArgAction::Set, default_value_t = false, value_name = "BOOL")]
    pub isolated: bool,
    /// The built extension folder to load into the launched browser (default: the
    /// extension this tabwire binary carries).
    #[arg(long = "extensionDir", value_name = "DIR")]
    pub extension_dir: Option<PathBuf>,
    /// Share every tab of the launched browser with the agent (the default: the profile
    /// is the agent's own). `--shareAllTabs=false` makes a launched browser behave like
    /// your own one: the agent sees only the tabs shared from tabwire's toolbar button.
    #[arg(long = "shareAllTabs", value_name = "BOOL", default_value_t = true, action = clap::ArgAction::Set)]
    pub share_all_tabs: bool,
    /// More origins allowed to present third-party developer tools, besides loopback
    /// hosts and file: (comma-separated or repeated), e.g.
    /// `--thirdPartyOrigins=https://app.example.com,http://devbox:*`.
    #[arg(
        long = "thirdPartyOrigins",
        value_name = "PATTERNS",
        value_delimiter = ','
    )]
    pub third_party_origins: Vec<String>,
    /// Redact credentials and session headers (Authorization, Cookie, Set-Cookie, tokens)
    /// in network request details; `--redactNetworkHeaders=false` shows them.
    #[arg(long = "redactNetworkHeaders", value_name = "BOOL", default_value_t = true, action = clap::ArgAction::Set)]
    pub redact_network_headers: bool,
    /// Offer evaluate_script and navigations to `javascript:`, `data:` and `vbscript:`
    /// URLs; `--javascriptEvaluation=false` (or `--no-javascript-evaluation`) takes
    /// them away, so the agent cannot run JavaScript of its own in a page. The page's
    /// own scripts and tools still run.
    #[arg(long = "javascriptEvaluation", value_name = "BOOL", default_value_t = true, action = clap::ArgAction::Set)]
    pub javascript_evaluation: bool,
    /// Let navigate_page and new_page open `file:` URLs; `--fileNavigations=false` (or
    /// `--no-file-navigations`) refuses them, `view-source:file:` too.
    #[arg(long = "fileNavigations", value_name = "BOOL", default_value_t = true, action = clap::ArgAction::Set)]
    pub file_navigations: bool,
    /// Give each result `structuredContent` (JSON carrying everything the text does)
    /// and each tool an `outputSchema`. Off by default: some clients then show the
    /// model only the JSON, so the text stays the one form every client passes on.
    #[arg(long = "experimentalStructuredContent", num_args = 0..=1, default_missing_value = "true", action = clap::ArgAction::Set, default_value_t = false, value_name = "BOOL")]
    pub experimental_structured_content: bool,
    /// Offer the selected page's own developer tools as MCP tools of their own, named
    /// `page_<group>_<tool>`, with their input schemas, and send
    /// `notifications/tools/list_changed` when the set changes. Needs
    /// `--categoryExperimentalThirdParty=true`.
    #[arg(long = "experimentalPageToolsAsMcpTools", num_args = 0..=1, default_missing_value = "true", action = clap::ArgAction::Set, default_value_t = false, value_name = "BOOL")]
    pub experimental_page_tools_as_mcp_tools: bool,
    /// The most characters one reply holds, whatever the client. By default each reply
    /// is sized for the client that connects (11,000 for Codex CLI, 38,000 for Gemini
    /// CLI, 60,000 for Claude Code and any other): raise it together with the client's
    /// own limit (README names each).
    #[arg(long = "maxResultChars", value_name = "N", value_parser = super::budget::parse_result_chars)]
    pub max_result_chars: Option<usize>,
    /// Which categories are switched on or off (from `--category<Name>=…`).
    #[arg(skip)]
    pub categories: HashMap<Category, bool>,
}

impl McpArgs {
    /// Why these options cannot go together, if they cannot (checked before a browser
    /// is started).
    pub fn conflict(&self) -> Option<String> {
        let third_party = super::registry::Registry::category_enabled(
            &self.categories,
            Category::ExperimentalThirdParty,
        );
        (self.experimental_page_tools_as_mcp_tools && !third_party).then(|| {
            "--experimentalPageToolsAsMcpTools offers the page's third-party developer tools: \
             add --categoryExperimentalThirdParty=true"
                .to_owned()
        })
    }

    /// Whether the server starts its own browser.
    pub fn launches_browser(&self) -> bool {
        self.launch
            || self.headless
            || self.executable_path.is_some()
            || !self.chrome_args.is_empty()
            || self.user_data_dir.is_some()
            || self.isolated
    }
}

/// Takes every `--category<Name>[=true|false]` out of `args`, returning the switches.
///
/// Done before clap parses the rest, because the flag names are generated from
/// [`Category::ALL`]. An unknown category or value is an error naming the valid ones.
pub fn take_category_flags(args: &mut Vec<String>) -> Result<HashMap<Category, bool>, String> {
    let mut switches = HashMap::new();
    let mut rest = Vec::with_capacity(args.len());
    for arg in args.drain(..) {
        let Some(flag) = arg.strip_prefix("--category") else {
            rest.push(arg);
            continue;
        };
        let (name, value) = flag.split_once('=').unwrap_or((flag, "true"));
        let category = Category::ALL
            .into_iter()
            .find(|c| c.flag_name().eq_ignore_ascii_case(name))
            .ok_or_else(|| {
                let names: Vec<String> = Category::ALL
                    .iter()
                    .map(|c| format!("--category{}", c.flag_name()))
                    .collect();
                format!(
                    "unknown category flag `{arg}`; the categories are: {}",
                    names.join(", ")
                )
            })?;
        let on = match value {
            "true" => true,
            "false" => false,
            other => {
                return Err(format!(
                    "`{arg}`: expected true or false after `=`, not `{other}`"
                ))
            }
        };
        switches.insert(category, on);
    }
    *args = rest;
    Ok(switches)
}

/// Help text listing the category switches and their defaults.
pub fn category_help() -> String {
    let mut help = String::from("Categories (switch with --category<Name>=true|false):\n");
    for c in Category::ALL {
        help.push_str(&format!(
            "  --category{:<24} default {}\n",
            c.flag_name(),
            c.enabled_by_default()
        ));
    }
    help
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn category_flags_are_taken_out_and_parsed() {
        let mut a = args(&[
            "mcp",
            "--categoryExperimentalThirdParty=true",
            "--headless",
            "--categoryDebugging=false",
        ]);
        let switches = take_category_flags(&mut a).unwrap();
        assert_eq!(a, args(&["mcp", "--headless"]));
        assert!(switches[&Category::ExperimentalThirdParty]);
        assert!(!switches[&Category::Debugging]);
    }

    #[test]
    fn boolean_flags_take_an_optional_value() {
        use clap::Parser;
        #[derive(Parser)]
        struct Cli {
            #[command(flatten)]
            mcp: McpArgs,
        }
        let cli = Cli::parse_from(["x", "--headless=true", "--isolated", "--launch=false"]);
        assert!(cli.mcp.headless && cli.mcp.isolated && !cli.mcp.launch);
        let cli = Cli::parse_from(["x", "--headless=false"]);
        assert!(!cli.mcp.headless);
    }

    #[test]
    fn unknown_category_names_the_valid_ones() {
        let err = take_category_flags(&mut args(&["--categoryNope=true"])).unwrap_err();
        assert!(err.contains("--categoryExperimentalThirdParty"), "{err}");
    }

    #[test]
    fn bad_value_is_refused() {
        let err = take_category_flags(&mut args(&["--categoryDebugging=yes"])).unwrap_err();
        assert!(err.contains("true or false"), "{err}");
    }
}
