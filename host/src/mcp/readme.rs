//! Checks README.md's tool table and `tabwire mcp` flag table against the tool
//! registry and the command-line definitions (`scripts/gen-tool-reference --check`), so
//! the tables a newcomer reads first cannot drift. The tables stay hand-written prose
//! (the order of the tools, the meaning of each flag); what is checked is which tools
//! and flags they name.

use std::collections::BTreeSet;

use super::config::McpArgs;
use super::registry::Registry;
use super::tool::Category;

/// The header row that starts the tool table.
const TOOL_TABLE: &str = "| Category (`--category<Name>`) | Tools |";

/// The header row that starts the flag table.
const FLAG_TABLE: &str = "| Flag | Meaning |";

/// The row name standing for every `--category<Name>` flag.
const ANY_CATEGORY: &str = "category<Name>";

/// Every difference between README.md's tables and the definitions, one line each
/// naming it; empty when they agree.
pub fn differences(readme: &str) -> Vec<String> {
    let mut problems = tool_table_differences(readme);
    problems.extend(flag_table_differences(readme, &mcp_flags()));
    problems
}

/// The long flags `tabwire mcp` takes (help and hidden ones aside), without `--`.
fn mcp_flags() -> BTreeSet<String> {
    let command = <McpArgs as clap::Args>::augment_args(clap::Command::new("mcp"));
    command
        .get_arguments()
        .filter(|arg| !arg.is_hide_set())
        .filter_map(|arg| arg.get_long())
        .filter(|long| *long != "help")
        .map(str::to_owned)
        .collect()
}

/// The body rows of the table whose header row is `header`, split into cells; `None`
/// if there is no such table.
fn table_rows<'a>(readme: &'a str, header: &str) -> Option<Vec<Vec<&'a str>>> {
    let mut lines = readme.lines().skip_while(|line| line.trim() != header);
    lines.next()?;
    let rows = lines
        .skip(1) // the |---| line
        .take_while(|line| line.starts_with('|'))
        .map(cells)
        .collect();
    Some(rows)
}

/// The cells of a table row (`\|` is a `|` inside a cell).
fn cells(row: &str) -> Vec<&str> {
    let inner = row.trim().trim_start_matches('|').trim_end_matches('|');
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = inner.as_bytes();
    for (i, byte) in bytes.iter().enumerate() {
        if *byte == b'|' && (i == 0 || bytes[i - 1] != b'\\') {
            out.push(inner[start..i].trim());
            start = i + 1;
        }
    }
    out.push(inner[start..].trim());
    out
}

/// The names in backquotes in a cell: `` `a`, `b` `` → `a`, `b`.
fn quoted(cell: &str) -> Vec<&str> {
    cell.split('`').skip(1).step_by(2).collect()
}

fn tool_table_differences(readme: &str) -> Vec<String> {
    let Some(rows) = table_rows(readme, TOOL_TABLE) else {
        return vec![format!(
            "README.md has no tool table (a row `{TOOL_TABLE}`)"
        )];
    };
    let tools = Registry::every_tool();
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    for row in &rows {
        let label = row.first().copied().unwrap_or_default();
        let name = label.split(" (").next().unwrap_or_default();
        let Some(category) = Category::ALL.into_iter().find(|c| c.flag_name() == name) else {
            problems.push(format!(
                "README.md's tool table has a row for `{name}`, which is no tool category"
            ));
            continue;
        };
        seen.insert(name);
        let off = label.contains("(off by default)");
        if off == category.enabled_by_default() {
            problems.push(format!(
                "README.md's tool table says {name} is {} by default; it is {}",
                if off { "off" } else { "on" },
                if off { "on" } else { "off" },
            ));
        }
        let named: BTreeSet<&str> = row
            .get(1)
            .map(|c| quoted(c))
            .unwrap_or_default()
            .into_iter()
            .collect();
        let real: BTreeSet<&str> = tools
            .iter()
            .filter(|t| t.spec().category == category)
            .map(|t| t.spec().name)
            .collect();
        for missing in real.difference(&named) {
            problems.push(format!(
                "README.md's tool table lacks `{missing}` in the {name} row"
            ));
        }
        for extra in named.difference(&real) {
            problems.push(format!(
                "README.md's tool table names `{extra}` in the {name} row, which is no tool \
                 of that category"
            ));
        }
    }
    for category in Category::ALL {
        let name = category.flag_name();
        let has_tools = tools.iter().any(|t| t.spec().category == category);
        if has_tools && !seen.contains(name) {
            problems.push(format!("README.md's tool table has no row for {name}"));
        }
    }
    problems
}

/// The flag a flag-table row is about: `` `--executablePath=<path>` `` →
/// `executablePath`.
fn flag_of(cell: &str) -> Option<&str> {
    let flag = quoted(cell).into_iter().next()?.strip_prefix("--")?;
    Some(flag.split('=').next().unwrap_or(flag))
}

fn flag_table_differences(readme: &str, flags: &BTreeSet<String>) -> Vec<String> {
    let Some(rows) = table_rows(readme, FLAG_TABLE) else {
        return vec![format!(
            "README.md has no flag table (a row `{FLAG_TABLE}`)"
        )];
    };
    let mut problems = Vec::new();
    let mut named = BTreeSet::new();
    for row in &rows {
        let cell = row.first().copied().unwrap_or_default();
        let Some(flag) = flag_of(cell) else {
            problems.push(format!(
                "README.md's flag table has a row that names no flag: {cell}"
            ));
            continue;
        };
        named.insert(flag);
        let category = flag
            .strip_prefix("category")
            .filter(|_| flag != ANY_CATEGORY);
        let known = match category {
            Some(name) => Category::ALL.iter().any(|c| c.flag_name() == name),
            None => flag == ANY_CATEGORY || flags.contains(flag),
        };
        if !known {
            problems.push(format!(
                "README.md's flag table names --{flag}, which `tabwire mcp` does not take"
            ));
        }
    }
    for flag in flags.iter().map(String::as_str).chain([ANY_CATEGORY]) {
        if !named.contains(flag) {
            problems.push(format!("README.md's flag table lacks --{flag}"));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    fn readme() -> String {
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"))
            .unwrap_or_default()
    }

    #[test]
    fn the_readme_agrees_with_the_definitions() {
        assert_eq!(differences(&readme()), Vec::<String>::new());
    }

    #[test]
    fn a_drifted_tool_table_is_named() {
        let text = readme()
            .replace("`close_page`, ", "`close_tab`, ")
            .replace("| Network |", "| Networking |")
            .replace(
                "ExperimentalThirdParty (off by default)",
                "ExperimentalThirdParty",
            );
        let problems = differences(&text);
        for expected in [
            "lacks `close_page` in the Navigation row",
            "names `close_tab` in the Navigation row",
            "a row for `Networking`, which is no tool category",
            "has no row for Network",
            "says ExperimentalThirdParty is on by default; it is off",
        ] {
            assert!(
                problems.iter().any(|p| p.contains(expected)),
                "{expected}: {problems:?}"
            );
        }
    }

    #[test]
    fn a_drifted_flag_table_is_named() {
        let flags: BTreeSet<String> = ["launch", "headless", "userDataDir"]
            .map(str::to_owned)
            .into();
        let table = "| Flag | Meaning |\n|---|---|\n| `--launch` | x |\n\
                     | `--userDataDir=<dir>` | x \\| y |\n| `--viewport=<size>` | x |\n\
                     | `--category<Name>=true\\|false` | x |\n| `--categoryInput=false` | x |\n\
                     | `--categoryPwa` | x |\n";
        assert_eq!(
            flag_table_differences(table, &flags),
            [
                "README.md's flag table names --viewport, which `tabwire mcp` does not take",
                "README.md's flag table names --categoryPwa, which `tabwire mcp` does \
                 not take",
                "README.md's flag table lacks --headless",
            ]
        );
    }
}
