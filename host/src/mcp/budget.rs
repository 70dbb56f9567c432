//! How many characters one reply may hold: one budget per session, from the client.
//!
//! Clients cut long tool results in their own ways, where tabwire cannot see: Codex CLI
//! keeps a head and a tail of about 12,000 characters for most models and drops the
//! middle; Gemini CLI over 40,000 keeps the first 8,000 and the last 32,000; Claude Code
//! over 50,000 files the result away and shows a 2 KB preview, unless a tool declares a
//! larger size in `_meta["anthropic/maxResultSizeChars"]` (docs/results.md). A reply
//! that fits the budget reaches the model whole, so tabwire, not the client, decides
//! what is shown: a snapshot folded, a long result saved to a file with its shape.
//!
//! `initialize` names the client (`clientInfo.name`); `--maxResultChars` overrides the
//! budget for any client.

/// The budget of a client tabwire does not know.
pub const DEFAULT_RESULT_CHARS: usize = 60_000;

/// The smallest budget `--maxResultChars` takes: less leaves no room for a page list
/// and a useful part of a snapshot.
pub const MIN_RESULT_CHARS: usize = 4_000;

/// The key Claude Code reads on a `tools/list` entry for the longest result it shows
/// inline.
pub const CLAUDE_CODE_META_KEY: &str = "anthropic/maxResultSizeChars";

/// A client tabwire sizes its replies for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KnownClient {
    /// Its `clientInfo.name` in `initialize`.
    pub name: &'static str,
    /// How it is called in docs and messages.
    pub title: &'static str,
    /// The reply budget tabwire keeps for it.
    pub result_chars: usize,
    /// The user's own setting in that client that raises its cap.
    pub knob: &'static str,
}

/// The clients whose caps were measured (docs/results.md's per-client table).
pub const KNOWN_CLIENTS: &[KnownClient] = &[
    KnownClient {
        name: "claude-code",
        title: "Claude Code",
        // Declared on every tool with `_meta`, which Claude Code honours.
        result_chars: DEFAULT_RESULT_CHARS,
        knob: "`_meta[\"anthropic/maxResultSizeChars\"]` on each tool, which tabwire sets",
    },
    KnownClient {
        name: "codex-mcp-client",
        title: "Codex CLI",
        // Its smallest known cap: about 12,000 characters for a model outside its
        // catalog, head and tail together.
        result_chars: 11_000,
        knob: "`tool_output_token_limit` in ~/.codex/config.toml (about 4.8 characters a unit)",
    },
    KnownClient {
        name: "gemini-cli-mcp-client",
        title: "Gemini CLI",
        result_chars: 38_000,
        knob: "`tools.truncateToolOutputThreshold` in settings.json",
    },
];

/// The reply budget for a session with `client` (its `clientInfo.name`), unless the
/// user set one (`chosen`, from `--maxResultChars`).
pub fn result_chars(client: &str, chosen: Option<usize>) -> usize {
    chosen.unwrap_or_else(|| {
        KNOWN_CLIENTS
            .iter()
            .find(|known| known.name == client)
            .map_or(DEFAULT_RESULT_CHARS, |known| known.result_chars)
    })
}

/// What tools declare to Claude Code for a budget of `result_chars`: a tenth more, so
/// that a reply tabwire sized to the budget (its count is close, not exact: a heading
/// or a file's path may pass it) is never the one Claude Code files away.
pub fn declared(result_chars: usize) -> usize {
    result_chars + result_chars / 10
}

/// Reads `--maxResultChars`' value: a whole number of characters, at least
/// [`MIN_RESULT_CHARS`].
pub fn parse_result_chars(value: &str) -> Result<usize, String> {
    let chars: usize = value.replace('_', "").parse().map_err(|_| {
        format!("expected a whole number of characters (e.g. 40000), not `{value}`")
    })?;
    if chars < MIN_RESULT_CHARS {
        return Err(format!(
            "{chars} characters leave no room for a useful reply: give at least {MIN_RESULT_CHARS}"
        ));
    }
    Ok(chars)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_known_client_gets_a_budget_under_its_cap() {
        assert_eq!(result_chars("claude-code", None), 60_000);
        assert!(result_chars("codex-mcp-client", None) <= 11_000);
        assert!(result_chars("gemini-cli-mcp-client", None) <= 38_000);
        assert_eq!(result_chars("some-new-client", None), DEFAULT_RESULT_CHARS);
        assert_eq!(result_chars("", None), DEFAULT_RESULT_CHARS);
    }

    #[test]
    fn the_flag_wins_for_every_client() {
        for client in KNOWN_CLIENTS.iter().map(|c| c.name).chain(["other"]) {
            assert_eq!(result_chars(client, Some(25_000)), 25_000, "{client}");
        }
    }

    #[test]
    fn the_flag_takes_whole_numbers_not_too_small() {
        assert_eq!(parse_result_chars("40000"), Ok(40_000));
        assert_eq!(parse_result_chars("40_000"), Ok(40_000));
        assert!(parse_result_chars("40k")
            .unwrap_err()
            .contains("whole number"));
        assert!(parse_result_chars("-1")
            .unwrap_err()
            .contains("whole number"));
        assert!(parse_result_chars("100")
            .unwrap_err()
            .contains("at least 4000"));
    }
}
