//! Finds a JSON-RPC message's `id` in bytes that serde cannot read.
//!
//! A line that is not UTF-8, nests deeper than the parser allows, breaks off, or is too
//! long to buffer still usually says who sent it: `{"jsonrpc":"2.0","id":7,...`. The
//! [`IdScanner`] walks the bytes once, fed in pieces of any size, and notes the value of
//! the top-level object's `id` member when it is a string or a number. It keeps only a
//! few counters and the id's own bytes (at most [`MAX_ID_BYTES`]), never recurses, and
//! stops looking as soon as it has an answer.
//!
//! It does not validate the rest of the line, nor read ids inside a batch (a top-level
//! array): that is for [`intake`](mod@super::intake), once serde has had its say.

use serde_json::Value;

/// Longest id, in bytes as written, that is read back; a longer one counts as unreadable.
pub const MAX_ID_BYTES: usize = 1024;

/// What a scan found about the top-level `id` member.
#[derive(Debug, Clone, PartialEq)]
pub enum ScannedId {
    /// No `id` member was seen (or the line is not a JSON object).
    Absent,
    /// An `id` member is there, but it is not a string or number that can be read back.
    Unreadable,
    /// The id, as a JSON string or number.
    Found(Value),
}

impl ScannedId {
    /// The id to answer with: the one found, else `null` (JSON-RPC's id for "unknown").
    pub fn reply_id(&self) -> Value {
        match self {
            ScannedId::Found(id) => id.clone(),
            ScannedId::Absent | ScannedId::Unreadable => Value::Null,
        }
    }
}

/// Where the scanner is in the top-level object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before the top-level value.
    Start,
    /// Inside the top-level object, before a member's key.
    Key,
    /// Inside a member's key string.
    InKey { escaped: bool },
    /// After a key, before its `:`.
    Colon,
    /// After the `:`, before the value.
    Value,
    /// Copying the id's string value.
    IdString { escaped: bool },
    /// Copying the id's number value.
    IdNumber,
    /// Passing over another member's value.
    Skip {
        depth: usize,
        in_string: bool,
        escaped: bool,
    },
    /// Finished: `found` holds the answer.
    Done,
}

/// Scans bytes for the top-level `id`, fed in pieces (see the module docs).
#[derive(Debug, Clone)]
pub struct IdScanner {
    state: State,
    /// The current key, while it can still be `id`.
    key: Vec<u8>,
    /// The id's bytes as written.
    id: Vec<u8>,
    found: Option<ScannedId>,
}

impl Default for IdScanner {
    fn default() -> Self {
        Self::new()
    }
}

impl IdScanner {
    /// A scanner at the start of a line.
    pub fn new() -> Self {
        Self {
            state: State::Start,
            key: Vec::new(),
            id: Vec::new(),
            found: None,
        }
    }

    /// Scans the whole of `line` at once.
    pub fn scan(line: &[u8]) -> ScannedId {
        let mut scanner = Self::new();
        scanner.feed(line);
        scanner.finish()
    }

    /// Whether more bytes could still change the answer.
    pub fn wants_more(&self) -> bool {
        self.state != State::Done
    }

    /// Scans the next piece of the line.
    pub fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.state == State::Done {
                return;
            }
            self.step(b);
        }
    }

    /// The answer once the line has ended.
    pub fn finish(mut self) -> ScannedId {
        if self.state == State::IdNumber {
            self.end_id();
        }
        match self.found {
            Some(found) => found,
            // An id string that never closed cannot be read back.
            None if matches!(self.state, State::IdString { .. }) => ScannedId::Unreadable,
            None => ScannedId::Absent,
        }
    }

    fn step(&mut self, b: u8) {
        let ws = matches!(b, b' ' | b'\t' | b'\r' | b'\n');
        self.state = match self.state {
            State::Start => match b {
                b'{' => State::Key,
                // Whitespace, and the UTF-8 byte-order mark, may come first.
                0xEF | 0xBB | 0xBF => State::Start,
                _ if ws => State::Start,
                _ => self.give_up(ScannedId::Absent),
            },
            State::Key => match b {
                b'"' => {
                    self.key.clear();
                    State::InKey { escaped: false }
                }
                b',' => State::Key,
                _ if ws => State::Key,
                // `}` ends the object; anything else means the structure is lost.
                _ => self.give_up(ScannedId::Absent),
            },
            State::InKey { escaped: true } => {
                self.push_key(b);
                State::InKey { escaped: false }
            }
            State::InKey { escaped: false } => match b {
                b'"' => State::Colon,
                b'\\' => {
                    self.push_key(b);
                    State::InKey { escaped: true }
                }
                _ => {
                    self.push_key(b);
                    State::InKey { escaped: false }
                }
            },
            State::Colon => match b {
                b':' => State::Value,
                _ if ws => State::Colon,
                _ => self.give_up(ScannedId::Absent),
            },
            State::Value if ws => State::Value,
            State::Value if self.key != b"id" => self.skip(0, false, false, b),
            State::Value => match b {
                b'"' => {
                    self.id.push(b);
                    State::IdString { escaped: false }
                }
                b'-' | b'0'..=b'9' => {
                    self.id.push(b);
                    State::IdNumber
                }
                // null, true, an object…: there is an id, and it cannot be answered.
                _ => self.give_up(ScannedId::Unreadable),
            },
            State::IdString { escaped } => {
                self.id.push(b);
                if self.id.len() > MAX_ID_BYTES {
                    self.give_up(ScannedId::Unreadable)
                } else if escaped {
                    State::IdString { escaped: false }
                } else if b == b'"' {
                    self.end_id()
                } else {
                    State::IdString {
                        escaped: b == b'\\',
                    }
                }
            }
            State::IdNumber => match b {
                b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E' => {
                    self.id.push(b);
                    if self.id.len() > MAX_ID_BYTES {
                        self.give_up(ScannedId::Unreadable)
                    } else {
                        State::IdNumber
                    }
                }
                _ => self.end_id(),
            },
            State::Skip {
                depth,
                in_string,
                escaped,
            } => self.skip(depth, in_string, escaped, b),
            State::Done => State::Done,
        };
    }

    /// One byte of a value that is not the id, `depth` levels inside it.
    fn skip(&mut self, depth: usize, in_string: bool, escaped: bool, b: u8) -> State {
        let (depth, in_string, escaped) = match (in_string, b, depth) {
            (true, _, _) => (depth, escaped || b != b'"', !escaped && b == b'\\'),
            (false, b',', 0) => return State::Key,
            (false, b'}', 0) => return self.give_up(ScannedId::Absent),
            (false, b'"', _) => (depth, true, false),
            (false, b'{' | b'[', _) => (depth.saturating_add(1), false, false),
            (false, b'}' | b']', _) => (depth.saturating_sub(1), false, false),
            (false, _, _) => (depth, false, false),
        };
        State::Skip {
            depth,
            in_string,
            escaped,
        }
    }

    /// Keeps the key's first bytes: enough to tell whether it is `id`.
    fn push_key(&mut self, b: u8) {
        if self.key.len() <= 2 {
            self.key.push(b);
        }
    }

    /// Reads back the id's bytes and stops.
    fn end_id(&mut self) -> State {
        let found = match serde_json::from_slice::<Value>(&self.id) {
            Ok(id @ (Value::String(_) | Value::Number(_))) => ScannedId::Found(id),
            _ => ScannedId::Unreadable,
        };
        self.give_up(found)
    }

    /// Stops with `found` as the answer.
    fn give_up(&mut self, found: ScannedId) -> State {
        self.found = Some(found);
        State::Done
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn found(v: Value) -> ScannedId {
        ScannedId::Found(v)
    }

    #[test]
    fn reads_a_number_or_string_id_wherever_it_sits() {
        assert_eq!(IdScanner::scan(br#"{"id":7}"#), found(json!(7)));
        assert_eq!(
            IdScanner::scan(br#" {"jsonrpc":"2.0", "id" : "a\"b" ,"method":"x"}"#),
            found(json!("a\"b"))
        );
        assert_eq!(
            IdScanner::scan(br#"{"method":"x","params":{"id":1,"a":[{"}":"{"}]},"id":-2.5}"#),
            found(json!(-2.5))
        );
    }

    #[test]
    fn ids_inside_other_members_are_not_the_message_id() {
        assert_eq!(
            IdScanner::scan(br#"{"params":{"id":1},"idx":2,"i":3}"#),
            ScannedId::Absent
        );
        assert_eq!(IdScanner::scan(br#"[{"id":1}]"#), ScannedId::Absent);
        assert_eq!(IdScanner::scan(b"hello"), ScannedId::Absent);
        assert_eq!(IdScanner::scan(b""), ScannedId::Absent);
    }

    #[test]
    fn null_object_or_broken_ids_are_unreadable() {
        assert_eq!(IdScanner::scan(br#"{"id":null}"#), ScannedId::Unreadable);
        assert_eq!(IdScanner::scan(br#"{"id":{"a":1}}"#), ScannedId::Unreadable);
        assert_eq!(IdScanner::scan(br#"{"id":"abc"#), ScannedId::Unreadable);
        assert_eq!(IdScanner::scan(br#"{"id":1e999}"#), ScannedId::Unreadable);
        assert_eq!(IdScanner::scan(b"{\"id\":\"\xff\"}"), ScannedId::Unreadable);
        let long = format!(r#"{{"id":"{}"}}"#, "x".repeat(MAX_ID_BYTES));
        assert_eq!(IdScanner::scan(long.as_bytes()), ScannedId::Unreadable);
    }

    #[test]
    fn reads_past_what_serde_refuses() {
        let deep = format!(
            r#"{{"a":{}1{},"id":3}}"#,
            "[".repeat(5000),
            "]".repeat(5000)
        );
        assert_eq!(IdScanner::scan(deep.as_bytes()), found(json!(3)));
        assert_eq!(
            IdScanner::scan(b"{\"x\":\"\xff\xfe\",\"id\":\"k\"}"),
            found(json!("k"))
        );
        assert_eq!(IdScanner::scan(b"\xEF\xBB\xBF{\"id\":1"), found(json!(1)));
    }

    #[test]
    fn pieces_of_any_size_give_the_same_answer() {
        let line = br#"{"method":"m","params":{"s":"\\\"}"},"id":"q\\"}"#;
        let whole = IdScanner::scan(line);
        assert_eq!(whole, found(json!("q\\")));
        for cut in 0..line.len() {
            let mut scanner = IdScanner::new();
            scanner.feed(&line[..cut]);
            scanner.feed(&line[cut..]);
            assert_eq!(scanner.finish(), whole, "cut at {cut}");
        }
    }

    #[test]
    fn stops_looking_once_the_id_is_read() {
        let mut scanner = IdScanner::new();
        scanner.feed(br#"{"id":12,"#);
        assert!(!scanner.wants_more());
        scanner.feed(br#""id":13}"#);
        assert_eq!(scanner.finish(), found(json!(12)));
    }
}
