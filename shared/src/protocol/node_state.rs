//! One state of a snapshot node, typed: a name, and a value for the states that have
//! one.
//!
//! On the wire (and in the snapshot text the agent reads) a state is one string,
//! `name` or `name=value`, the value quoted JSON-style when it holds spaces, quotes,
//! backslashes or control characters so that a state never breaks a one-line format.

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Serialize, Serializer};

/// A state of a [`SnapshotNode`](super::SnapshotNode): `focused`, `checked=mixed`,
/// `level=2`, `description="Opens the menu"`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(try_from = "String")]
pub struct NodeState {
    /// The state's name (`focused`, `level`, `url`, ...); never holds `=`.
    pub name: String,
    /// Its value, unquoted; `None` for a state that is a plain flag.
    pub value: Option<String>,
}

impl NodeState {
    /// A state that is on or absent (`focused`, `required`).
    pub fn flag(name: impl Into<String>) -> NodeState {
        NodeState {
            name: name.into(),
            value: None,
        }
    }

    /// A state with a value (`level=2`, `url=/next`).
    pub fn with_value(name: impl Into<String>, value: impl Into<String>) -> NodeState {
        NodeState {
            name: name.into(),
            value: Some(value.into()),
        }
    }

    /// The value as written after `=`: as it is, or quoted when it would break the
    /// one-line format (or is empty).
    pub fn written_value(&self) -> Option<Cow<'_, str>> {
        let value = self.value.as_deref()?;
        let plain = !value.is_empty()
            && !value
                .chars()
                .any(|c| c.is_whitespace() || c.is_control() || c == '"' || c == '\\');
        Some(if plain {
            Cow::Borrowed(value)
        } else {
            Cow::Owned(serde_json::to_string(value).unwrap_or_else(|_| format!("\"{value}\"")))
        })
    }
}

impl fmt::Display for NodeState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        if let Some(value) = self.written_value() {
            write!(f, "={value}")?;
        }
        Ok(())
    }
}

impl Serialize for NodeState {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl TryFrom<String> for NodeState {
    type Error = String;

    /// Reads a state as [`Display`](fmt::Display) writes it.
    fn try_from(text: String) -> Result<NodeState, String> {
        let Some((name, value)) = text.split_once('=') else {
            return Ok(NodeState::flag(text));
        };
        let value = if value.starts_with('"') {
            serde_json::from_str::<String>(value)
                .map_err(|e| format!("the quoted value of state {name:?}: {e}"))?
        } else {
            value.to_owned()
        };
        Ok(NodeState::with_value(name, value))
    }
}

/// A state compares equal to the text it is written as (handy in tests and checks).
impl PartialEq<str> for NodeState {
    fn eq(&self, text: &str) -> bool {
        match (text.split_once('='), self.written_value()) {
            (None, None) => self.name == text,
            (Some((name, value)), Some(written)) => self.name == name && written == value,
            _ => false,
        }
    }
}

impl PartialEq<&str> for NodeState {
    fn eq(&self, text: &&str) -> bool {
        *self == **text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_are_written_as_one_string_and_read_back() {
        let cases = [
            (NodeState::flag("focused"), r#""focused""#),
            (NodeState::with_value("level", "2"), r#""level=2""#),
            (NodeState::with_value("url", "/a=b"), r#""url=/a=b""#),
            (
                NodeState::with_value("description", "Opens \"the\" menu"),
                r#""description=\"Opens \\\"the\\\" menu\"""#,
            ),
            (
                NodeState::with_value("valuetext", ""),
                r#""valuetext=\"\"""#,
            ),
        ];
        for (state, json) in cases {
            assert_eq!(serde_json::to_string(&state).unwrap(), json);
            let back: NodeState = serde_json::from_str(json).unwrap();
            assert_eq!(back, state);
        }
        assert_eq!(
            NodeState::with_value("description", "a b").to_string(),
            r#"description="a b""#
        );
        assert_eq!(NodeState::with_value("checked", "mixed"), "checked=mixed");
    }

    #[test]
    fn a_broken_quoted_value_is_refused() {
        assert!(serde_json::from_str::<NodeState>(r#""description=\"open""#).is_err());
    }
}
