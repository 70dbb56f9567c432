//! The tools, one file per category; one unit struct per tool, and each file's
//! `tools()` lists its own (in [`GROUPS`]), so a new tool in a category is written in
//! that category's file alone.

pub mod console;
pub mod css;
pub mod emulation;
pub mod input;
pub mod memory;
pub mod network;
pub mod pages;
pub mod performance;
pub mod screenshot;
pub mod script;
pub mod snapshot;
pub mod third_party;
pub mod webmcp;

/// A group's list of its tools.
pub type Group = fn() -> Vec<Box<dyn super::tool::ErasedTool>>;

/// Every group's list of tools ([`super::registry`] takes them all).
pub const GROUPS: &[Group] = &[
    pages::tools,
    script::tools,
    snapshot::tools,
    third_party::tools,
    webmcp::tools,
    input::tools,
    screenshot::tools,
    console::tools,
    network::tools,
    emulation::tools,
    performance::tools,
    css::tools,
    memory::tools,
];

/// Reads a file path the agent gives for tabwire to write, made absolute against the
/// server's working folder: every reply then names the file where the agent can find
/// it, whatever folder the agent itself works in.
pub fn absolute_path<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<std::path::PathBuf>, D::Error> {
    let given: Option<std::path::PathBuf> = serde::Deserialize::deserialize(deserializer)?;
    given
        .map(|path| std::path::absolute(&path).map_err(serde::de::Error::custom))
        .transpose()
}

/// Default time limit for loads and scripts, in milliseconds.
pub const DEFAULT_TIMEOUT_MS: u64 = 30_000;

/// The longest `timeout` any tool takes, in milliseconds: ten minutes. A longer wait
/// would hold the page (and every other call on it) for longer than an agent can use.
pub const MAX_TIMEOUT_MS: u64 = 600_000;

/// The parameters of a tool that takes no arguments (besides `pageId`, which the
/// pipeline handles for every page tool).
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoParams {}

/// A tool's `timeout` argument: milliseconds (0 for the tool's default), at most
/// [`MAX_TIMEOUT_MS`]; a larger
/// value is refused with a message naming the limit (not clamped: the agent learns
/// the wait it asked for is not the one it would get).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeout(u64);

impl Timeout {
    /// The limit in milliseconds: the one given, else [`DEFAULT_TIMEOUT_MS`].
    pub fn ms(timeout: Option<Timeout>) -> u64 {
        Timeout::ms_or(timeout, DEFAULT_TIMEOUT_MS)
    }

    /// The limit in milliseconds: the one given, else `default`. A `timeout` of 0 asks
    /// for the default, as in Chrome DevTools for Agents.
    pub fn ms_or(timeout: Option<Timeout>, default: u64) -> u64 {
        timeout.filter(|t| t.0 != 0).map_or(default, |t| t.0)
    }
}

impl<'de> serde::Deserialize<'de> for Timeout {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let ms = u64::deserialize(deserializer)?;
        if ms > MAX_TIMEOUT_MS {
            return Err(serde::de::Error::custom(format!(
                "`timeout` is at most {MAX_TIMEOUT_MS} ms (10 minutes), not {ms}"
            )));
        }
        Ok(Timeout(ms))
    }
}

impl schemars::JsonSchema for Timeout {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Timeout".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "integer",
            "minimum": 0,
            "maximum": MAX_TIMEOUT_MS,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_past_the_maximum_are_refused_naming_it() {
        let read = |v: serde_json::Value| serde_json::from_value::<Timeout>(v);
        assert_eq!(
            read(serde_json::json!(600_000)).ok(),
            Some(Timeout(600_000))
        );
        let error = read(serde_json::json!(1u64 << 63)).unwrap_err().to_string();
        assert!(error.contains("at most 600000 ms"), "{error}");
        assert!(read(serde_json::json!(-1)).is_err());
        assert_eq!(Timeout::ms(None), DEFAULT_TIMEOUT_MS);
    }

    #[derive(Debug, serde::Deserialize)]
    struct Saved {
        #[serde(default, deserialize_with = "absolute_path")]
        file_path: Option<std::path::PathBuf>,
    }

    #[test]
    fn a_relative_file_path_is_read_as_an_absolute_one() {
        let read = |v: serde_json::Value| serde_json::from_value::<Saved>(v).unwrap().file_path;
        let here = std::env::current_dir().unwrap();
        assert_eq!(
            read(serde_json::json!({"file_path": "out/shot.png"})),
            Some(here.join("out/shot.png"))
        );
        let absolute = here.join("a.png");
        assert_eq!(
            read(serde_json::json!({ "file_path": absolute })),
            Some(absolute)
        );
        assert_eq!(read(serde_json::json!({})), None);
    }

    #[test]
    fn a_timeout_of_zero_is_the_default() {
        let zero = serde_json::from_value::<Timeout>(serde_json::json!(0)).ok();
        assert_eq!(Timeout::ms(zero), DEFAULT_TIMEOUT_MS);
        assert_eq!(Timeout::ms_or(zero, 5000), 5000);
        assert_eq!(Timeout::ms_or(Some(Timeout(1)), 5000), 1);
    }
}
