//! Chrome DevTools for Agents' command line, accepted as it is written.
//!
//! An agent configuration written for Chrome DevTools for Agents must start tabwire
//! unchanged. Its parser takes every flag in camelCase or kebab-case, booleans as
//! `--flag`, `--flag=false` or `--no-flag`, and values after `=` or as the next
//! argument. [`normalize`] rewrites the flags tabwire implements into the spelling its
//! own parser reads (`--user-data-dir=x` → `--userDataDir=x`, `--no-headless` →
//! `--headless=false`), and takes out those tabwire has no use for, returning one line
//! for each that says so and why — never silently ignoring a flag the user relies on.
//! A restriction tabwire cannot apply (URL patterns, filesystem roots) is refused
//! instead: running without a limit the user asked for would be worse than not
//! starting.

use super::tool::Category;

/// What a flag takes after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Takes {
    /// `--flag`, `--flag=true|false`, `--no-flag`, or `--flag true|false`.
    Bool,
    /// `--flag=value` or `--flag value`.
    Value,
}

/// Flags of the reference that tabwire implements (its own parser reads these names).
const IMPLEMENTED: &[(&str, Takes)] = &[
    ("headless", Takes::Bool),
    ("executablePath", Takes::Value),
    ("isolated", Takes::Bool),
    ("userDataDir", Takes::Value),
    ("chromeArg", Takes::Value),
    ("redactNetworkHeaders", Takes::Bool),
    ("experimentalStructuredContent", Takes::Bool),
    ("javascriptEvaluation", Takes::Bool),
    ("fileNavigations", Takes::Bool),
];

/// The flag tabwire implements that `name` (camelCase) spells, in tabwire's spelling:
/// one of [`IMPLEMENTED`], or `category<Name>` for every [`Category`] (the list the
/// parser, the help and README's tables are made from, so a new category needs no
/// entry here).
fn implemented(name: &str) -> Option<(String, Takes)> {
    if let Some((own, takes)) = IMPLEMENTED
        .iter()
        .find(|(own, _)| own.eq_ignore_ascii_case(name))
    {
        return Some(((*own).to_owned(), *takes));
    }
    let category = name.get(..CATEGORY.len())?;
    if !category.eq_ignore_ascii_case(CATEGORY) {
        return None;
    }
    let rest = &name[CATEGORY.len()..];
    Category::ALL
        .into_iter()
        .find(|c| c.flag_name().eq_ignore_ascii_case(rest))
        .map(|c| (format!("{CATEGORY}{}", c.flag_name()), Takes::Bool))
}

/// How every category switch begins.
const CATEGORY: &str = "category";

/// Why a group of flags means nothing to tabwire.
const CONNECT: &str = "tabwire reaches the browser through its extension, not a debugging port: \
     run `tabwire mcp` for your own browser, or `tabwire mcp --launch` for one it starts";
const TELEMETRY: &str = "tabwire collects no usage statistics and sends nothing anywhere";
const NOT_OFFERED: &str = "tabwire does not offer these tools";
const UNRESTRICTED_PATHS: &str =
    "tabwire does not confine the files its tools read and write: the paths the agent gives are used as they are";

/// Restrictions of the reference tabwire cannot apply: (names, what they take, what to
/// do instead). tabwire refuses to start with one rather than run without it.
const REFUSED: &[(&[&str], Takes, &str)] = &[
    (&["blockedUrlPattern"], Takes::Value, URL_PATTERNS),
    (&["allowedUrlPattern"], Takes::Value, URL_PATTERNS),
    (&["filesystemRoot", "workspace"], Takes::Value, ROOTS),
];
const URL_PATTERNS: &str = "tabwire does not block URLs given on its command line. Keep the \
     agent away from sites with the blocklist in tabwire's popup (Settings: \"Never share these \
     sites\"), which holds in every tab, then remove this flag";
const ROOTS: &str = "tabwire does not confine the files its tools read and write to folders \
     (the paths the agent gives are used as they are). Remove this flag to run without that \
     limit, or keep Chrome DevTools for Agents where you need it";

/// Flags of the reference tabwire accepts without acting on them: (names, what they
/// take, why they have no effect). The first name is the one reported.
const NO_EFFECT: &[(&[&str], Takes, &str)] = &[
    (&["autoConnect"], Takes::Bool, CONNECT),
    (&["browserUrl", "u"], Takes::Value, CONNECT),
    (&["wsEndpoint", "w"], Takes::Value, CONNECT),
    (&["wsHeaders"], Takes::Value, CONNECT),
    (
        &["channel"],
        Takes::Value,
        "tabwire finds Chromium or Chrome on PATH; name one with --executablePath",
    ),
    (
        &["proxyServer"],
        Takes::Value,
        "pass --chromeArg=--proxy-server=<address> to a launched browser instead",
    ),
    (
        &["ignoreDefaultChromeArg"],
        Takes::Value,
        "a launched browser's own flags are fixed",
    ),
    (
        &["viewport"],
        Takes::Value,
        "set the size with resize_page or emulate",
    ),
    (
        &["acceptInsecureCerts"],
        Takes::Bool,
        "certificate errors are the browser's to decide",
    ),
    (&["allowUnrestrictedPaths"], Takes::Bool, UNRESTRICTED_PATHS),
    (
        &["logFile"],
        Takes::Value,
        "tabwire logs to stderr; set TABWIRE_LOG=debug for more",
    ),
    (
        &["config"],
        Takes::Value,
        "tabwire reads its settings from the command line only",
    ),
    (
        &["pageIdRouting"],
        Takes::Bool,
        "every page tool already takes an optional pageId",
    ),
    (&["slim"], Takes::Bool, "tabwire has one tool set"),
    (&["devtoolsComments"], Takes::Bool, NOT_OFFERED),
    (&["experimentalDevtools"], Takes::Bool, NOT_OFFERED),
    (
        &["experimentalVision"],
        Takes::Bool,
        "click_at, the tool it adds, is always offered",
    ),
    (
        &["memoryDebugging", "experimentalMemory"],
        Takes::Bool,
        NOT_OFFERED,
    ),
    (&["experimentalInteropTools"], Takes::Bool, NOT_OFFERED),
    (&["experimentalScreencast"], Takes::Bool, NOT_OFFERED),
    (&["experimentalFfmpegPath"], Takes::Value, NOT_OFFERED),
    (
        &["screencastFps", "experimentalScreencastFps"],
        Takes::Value,
        NOT_OFFERED,
    ),
    (&["experimentalIncludeAllPages"], Takes::Bool, NOT_OFFERED),
    (&["categoryExtensions"], Takes::Bool, NOT_OFFERED),
    (&["categoryPwa"], Takes::Bool, NOT_OFFERED),
    (
        &["experimentalToonFormat"],
        Takes::Bool,
        "results are text, and JSON with --experimentalStructuredContent",
    ),
    (
        &["experimentalDataFormat"],
        Takes::Value,
        "results are text, and JSON with --experimentalStructuredContent",
    ),
    (
        &["screenshotFormat"],
        Takes::Value,
        "take_screenshot takes a format argument",
    ),
    (
        &["screenshotQuality"],
        Takes::Value,
        "take_screenshot takes a quality argument",
    ),
    (
        &["screenshotMaxWidth"],
        Takes::Value,
        "screenshots keep the page's size",
    ),
    (
        &["screenshotMaxHeight"],
        Takes::Value,
        "screenshots keep the page's size",
    ),
    (&["performanceCrux"], Takes::Bool, TELEMETRY),
    (&["usageStatistics"], Takes::Bool, TELEMETRY),
    (&["clearcutEndpoint"], Takes::Value, TELEMETRY),
    (&["clearcutForceFlushIntervalMs"], Takes::Value, TELEMETRY),
    (&["clearcutIncludePidHeader"], Takes::Bool, TELEMETRY),
    (&["viaCli"], Takes::Bool, TELEMETRY),
    (
        &["sourceMaps"],
        Takes::Bool,
        "stack traces show the page's own URLs",
    ),
];

/// `user-data-dir` → `userDataDir`; names without dashes are left as they are.
fn camel_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        if c == '-' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// A flag argument taken apart: its name in camelCase, its `=value`, whether it was
/// written `--no-…`.
struct Parsed {
    name: String,
    value: Option<String>,
    negated: bool,
}

fn parse(arg: &str) -> Option<Parsed> {
    let body = arg.strip_prefix("--").or_else(|| {
        // Single-letter aliases: `-u x` and `-u=x`.
        arg.strip_prefix('-')
            .filter(|b| b.len() == 1 || b.as_bytes().get(1) == Some(&b'='))
    })?;
    let (name, value) = match body.split_once('=') {
        Some((name, value)) => (name, Some(value.to_owned())),
        None => (body, None),
    };
    let (name, negated) = match name.strip_prefix("no-") {
        Some(rest) if value.is_none() => (rest, true),
        _ => (name, false),
    };
    Some(Parsed {
        name: camel_case(name),
        value,
        negated,
    })
}

fn is_bool_word(arg: Option<&String>) -> bool {
    matches!(arg.map(String::as_str), Some("true" | "false"))
}

/// Rewrites `args` (the whole command line, program name first) into tabwire's own
/// spelling, taking out the flags that have no effect; returns one line per flag taken
/// out, saying why, or the refusal of a restriction tabwire cannot apply ([`REFUSED`];
/// `--workspace=/` limits nothing and is taken out like the others). Arguments after a
/// bare `--` are left alone.
pub fn normalize(args: &mut Vec<String>) -> Result<Vec<String>, String> {
    let mut out = Vec::with_capacity(args.len());
    let mut notes = Vec::new();
    let mut rest = std::mem::take(args).into_iter().peekable();
    while let Some(arg) = rest.next() {
        if arg == "--" {
            out.push(arg);
            out.extend(rest.by_ref());
            break;
        }
        let Some(flag) = parse(&arg) else {
            out.push(arg);
            continue;
        };
        if let Some((name, takes)) = implemented(&flag.name) {
            match (takes, flag.value, flag.negated) {
                (Takes::Bool, _, true) => out.push(format!("--{name}=false")),
                (Takes::Bool, None, false) => {
                    let value = match rest.peek() {
                        next if is_bool_word(next) => rest.next().unwrap_or_default(),
                        _ => "true".to_owned(),
                    };
                    out.push(format!("--{name}={value}"));
                }
                // `--no-` means nothing for a flag that takes a value: our parser says so.
                (Takes::Value, _, true) => out.push(arg),
                (Takes::Value, Some(value), false) => out.push(format!("--{name}={value}")),
                (Takes::Value, None, false) => {
                    // The value is the next argument, whatever it looks like
                    // (`--chromeArg --proxy-server=…`): it is never read as a flag.
                    out.push(format!("--{name}"));
                    out.extend(rest.next());
                }
                (Takes::Bool, Some(value), false) => out.push(format!("--{name}={value}")),
            }
            continue;
        }
        let named = |list: &'static [(&[&str], Takes, &str)]| {
            list.iter()
                .find(|(names, _, _)| names.iter().any(|n| n.eq_ignore_ascii_case(&flag.name)))
        };
        let (refused, (names, takes, why)) = match (named(REFUSED), named(NO_EFFECT)) {
            (Some(found), _) => (true, found),
            (None, Some(found)) => (false, found),
            (None, None) => {
                out.push(arg);
                continue;
            }
        };
        let takes_next = match takes {
            Takes::Bool => flag.value.is_none() && !flag.negated && is_bool_word(rest.peek()),
            Takes::Value => {
                flag.value.is_none() && rest.peek().is_some_and(|next| !next.starts_with('-'))
            }
        };
        let value = match takes_next {
            true => rest.next(),
            false => flag.value,
        };
        if !refused {
            notes.push(format!("--{} has no effect in tabwire: {why}.", names[0]));
        } else if names[0] == "filesystemRoot" && value.as_deref() == Some("/") {
            notes.push(format!(
                "--{} has no effect in tabwire: {UNRESTRICTED_PATHS}.",
                names[0]
            ));
        } else {
            return Err(format!("--{} is refused: {why}.", names[0]));
        }
    }
    *args = out;
    Ok(notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(list: &[&str]) -> (Vec<String>, Vec<String>) {
        let mut args: Vec<String> = list.iter().map(|s| s.to_string()).collect();
        let notes = normalize(&mut args).unwrap_or_else(|refusal| vec![refusal]);
        (args, notes)
    }

    #[test]
    fn implemented_flags_are_respelled_for_our_parser() {
        let (args, notes) = run(&[
            "tabwire",
            "mcp",
            "--user-data-dir",
            "/p",
            "--no-redact-network-headers",
            "--experimental-structured-content",
            "--headless",
            "false",
            "--category-experimental-third-party=true",
            "--executablePath=/c",
        ]);
        assert_eq!(
            args,
            [
                "tabwire",
                "mcp",
                "--userDataDir",
                "/p",
                "--redactNetworkHeaders=false",
                "--experimentalStructuredContent=true",
                "--headless=false",
                "--categoryExperimentalThirdParty=true",
                "--executablePath=/c",
            ]
        );
        assert!(notes.is_empty());
    }

    #[test]
    fn other_reference_flags_are_taken_out_with_one_line_each() {
        let (args, notes) = run(&[
            "tabwire",
            "mcp",
            "--browserUrl",
            "http://127.0.0.1:9222",
            "--no-usage-statistics",
            "--performanceCrux=false",
            "-u",
            "http://x",
            "--slim",
            "true",
            "--viewport=1280x720",
            "--categoryPwa=false",
            "--headless",
        ]);
        assert_eq!(args, ["tabwire", "mcp", "--headless=true"]);
        assert_eq!(notes.len(), 7, "{notes:?}");
        assert!(notes[0].starts_with("--browserUrl has no effect in tabwire: "));
        assert!(notes[1].starts_with("--usageStatistics has no effect"));
        assert!(notes.iter().all(|n| n.ends_with('.')));
    }

    #[test]
    fn restrictions_tabwire_cannot_apply_are_refused_saying_what_to_do() {
        for flag in [
            &["--blockedUrlPattern=*://bank.test/*"][..],
            &["--allowed-url-pattern", "https://a.test/*"],
            &["--workspace", "/home/me/project"],
            &["--filesystemRoot=/tmp"],
        ] {
            let mut args: Vec<String> = ["tabwire", "mcp"].map(String::from).to_vec();
            args.extend(flag.iter().map(|s| s.to_string()));
            let refusal = normalize(&mut args).unwrap_err();
            assert!(
                refusal.contains(" is refused: tabwire does not "),
                "{refusal}"
            );
        }
        let (args, notes) = run(&[
            "tabwire",
            "mcp",
            "--workspace=/",
            "--allowUnrestrictedPaths",
        ]);
        assert_eq!(args, ["tabwire", "mcp"]);
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(notes
            .iter()
            .all(|n| n.contains("does not confine the files")));
        let (args, _) = run(&[
            "tabwire",
            "mcp",
            "--no-javascript-evaluation",
            "--file-navigations",
            "false",
        ]);
        assert_eq!(
            args,
            [
                "tabwire",
                "mcp",
                "--javascriptEvaluation=false",
                "--fileNavigations=false"
            ]
        );
    }

    #[test]
    fn a_flags_value_is_never_read_as_a_flag() {
        let (args, notes) = run(&[
            "tabwire",
            "mcp",
            "--chromeArg",
            "--proxy-server=http://p",
            "--chrome-arg",
            "--user-data-dir=/x",
            "-u=http://x",
        ]);
        assert_eq!(
            args,
            [
                "tabwire",
                "mcp",
                "--chromeArg",
                "--proxy-server=http://p",
                "--chromeArg",
                "--user-data-dir=/x",
            ]
        );
        assert_eq!(notes.len(), 1, "{notes:?}");
    }

    #[test]
    fn every_spelling_of_every_implemented_flag_starts_tabwire() {
        use clap::Parser;
        #[derive(Parser)]
        struct Cli {
            #[command(flatten)]
            mcp: crate::mcp::config::McpArgs,
        }
        for (name, takes) in IMPLEMENTED {
            let kebab: String = name
                .chars()
                .flat_map(|c| {
                    let dash = c.is_ascii_uppercase().then_some('-');
                    dash.into_iter()
                        .chain(std::iter::once(c.to_ascii_lowercase()))
                })
                .collect();
            let spellings: Vec<Vec<String>> = match takes {
                Takes::Bool => [name, kebab.as_str()]
                    .iter()
                    .flat_map(|n| {
                        [
                            vec![format!("--{n}")],
                            vec![format!("--{n}=false")],
                            vec![format!("--no-{n}")],
                            vec![format!("--{n}"), "true".into()],
                        ]
                    })
                    .collect(),
                Takes::Value => [name, kebab.as_str()]
                    .iter()
                    .flat_map(|n| {
                        [
                            vec![format!("--{n}=/x")],
                            vec![format!("--{n}"), "/x".into()],
                        ]
                    })
                    .collect(),
            };
            for spelling in spellings {
                let mut args = vec!["tabwire".to_owned()];
                args.extend(spelling.clone());
                let notes = normalize(&mut args);
                assert_eq!(notes, Ok(Vec::new()));
                let mut categories = args.clone();
                crate::mcp::config::take_category_flags(&mut categories)
                    .unwrap_or_else(|e| panic!("{spelling:?}: {e}"));
                if let Err(e) = Cli::try_parse_from(&categories) {
                    panic!("{spelling:?} → {categories:?}: {e}");
                }
            }
        }
    }

    /// `Navigation` → `navigation`, `ExperimentalThirdParty` → `experimental-third-party`.
    fn kebab(name: &str) -> String {
        let mut out = String::new();
        for (i, c) in name.chars().enumerate() {
            if c.is_ascii_uppercase() && i > 0 {
                out.push('-');
            }
            out.push(c.to_ascii_lowercase());
        }
        out
    }

    #[test]
    fn every_category_switches_both_ways_in_every_spelling() {
        for category in Category::ALL {
            let camel = format!("category{}", category.flag_name());
            let kebab = format!("category-{}", kebab(category.flag_name()));
            for name in [&camel, &kebab] {
                for (spelling, on) in [
                    (vec![format!("--{name}")], true),
                    (vec![format!("--{name}=true")], true),
                    (vec![format!("--{name}"), "true".to_owned()], true),
                    (vec![format!("--{name}=false")], false),
                    (vec![format!("--{name}"), "false".to_owned()], false),
                    (vec![format!("--no-{name}")], false),
                ] {
                    let mut args = vec!["tabwire".to_owned(), "mcp".to_owned()];
                    args.extend(spelling.clone());
                    let notes = normalize(&mut args);
                    assert_eq!(notes, Ok(Vec::new()), "{spelling:?}");
                    let switches = crate::mcp::config::take_category_flags(&mut args)
                        .unwrap_or_else(|e| panic!("{spelling:?}: {e}"));
                    assert_eq!(switches.get(&category), Some(&on), "{spelling:?}");
                    assert_eq!(args, ["tabwire", "mcp"], "{spelling:?}");
                }
            }
        }
    }

    #[test]
    fn unknown_flags_and_values_reach_our_parser_unchanged() {
        let (args, notes) = run(&["tabwire", "mcp", "--bogus", "--launch", "--", "--slim"]);
        assert_eq!(
            args,
            ["tabwire", "mcp", "--bogus", "--launch", "--", "--slim"]
        );
        assert!(notes.is_empty());
    }

    #[test]
    fn every_reference_flag_is_known() {
        for name in [
            "wsEndpoint",
            "logFile",
            "screencastFps",
            "experimentalMemory",
            "workspace",
        ] {
            let (_, notes) = run(&["tabwire", &format!("--{name}=x")]);
            assert_eq!(notes.len(), 1, "{name}");
        }
    }
}
