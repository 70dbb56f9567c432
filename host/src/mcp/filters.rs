//! Small pieces shared by the console and network lists: checking a filter's names
//! against the valid ones, and marking entries from earlier navigations.

use super::ToolError;

/// Checks that every name in `given` is one of `valid` (ignoring case if asked),
/// naming the valid ones when one is not. `what` is e.g. "message type".
pub fn check_names(
    what: &str,
    given: &[String],
    valid: &[&str],
    ignore_case: bool,
) -> Result<(), ToolError> {
    let known = |name: &String| {
        if ignore_case {
            valid.iter().any(|v| v.eq_ignore_ascii_case(name))
        } else {
            valid.contains(&name.as_str())
        }
    };
    let unknown: Vec<String> = given
        .iter()
        .filter(|n| !known(n))
        .map(|n| format!("{n:?}"))
        .collect();
    if unknown.is_empty() {
        return Ok(());
    }
    Err(ToolError::new(format!(
        "Unknown {what}{} {}. Valid types: {}.",
        if unknown.len() == 1 { "" } else { "s" },
        unknown.join(", "),
        valid.join(", ")
    )))
}

/// " [from 2 navigations ago]" for entries of earlier documents, "" for the current one.
pub fn navigation_note(navigation: u32) -> String {
    match navigation {
        0 => String::new(),
        1 => " [from 1 navigation ago]".to_string(),
        n => format!(" [from {n} navigations ago]"),
    }
}
