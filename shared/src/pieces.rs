//! Messages too big for one native message, carried toward the extension in pieces.
//!
//! Chrome takes at most 1 MiB in one message from a native host
//! ([`MAX_TO_BROWSER`]), while an agent may send tabwire requests of up to 16 MiB
//! ([`MAX_JOINED`], the longest MCP line `tabwire mcp` reads). So the relay cuts a
//! message for the extension that is over 1 MiB into pieces ([`split`]), and the
//! extension joins them again ([`Joiner`]) before reading the message as usual. A
//! message under the limit travels whole, exactly as it always did.
//!
//! A piece is an ordinary [`Envelope`] around [`ToExtension::Piece`]: the envelope keeps
//! the `id` and `client` of the message that was cut (so a piece sequence that arrives
//! broken is answered as that request's failure, and joined per client), and the body
//! says which piece of which message it is and carries a slice of the message's JSON
//! text, cut at a char boundary:
//!
//! ```json
//! {"id":12,"client":3,"body":{"piece":{"v":1,"message":7,"index":0,"count":6,"data":"{\"id\":12,…"}}}
//! ```
//!
//! The envelope is versioned ([`VERSION`]): the extension says in its
//! `BrowserConnected` which version it joins, and the relay cuts a message only for an
//! extension that joins its own version (an older extension gets no pieces; the request
//! is refused with the step that makes the two agree); a piece of another version is
//! refused by the joiner.
//!
//! The joiner holds one message at a time per client, at most [`MAX_JOINED`] bytes of
//! it, and refuses a sequence that arrives broken — a piece missing, repeated, out of
//! order, over one message's size, of another version, or interleaved with another
//! message of the same client — naming what happened ([`Broken`]); the link goes on
//! working for later messages. It needs no clock: the relay writes a message's pieces
//! one after the other, and a link that drops mid-message starts a new joiner.
//!
//! Only the direction toward the extension is cut: Chrome takes up to 64 MiB in one
//! message from the extension, more than any reply may be.

use std::collections::{BTreeMap, VecDeque};

use serde::{Deserialize, Serialize};

use crate::error::{ErrorCode, WireError};
use crate::framing::{encode, FrameError, MAX_TO_BROWSER};
use crate::protocol::{Envelope, ToExtension};

/// The version of the piece envelope this build writes and joins.
pub const VERSION: u32 = 1;

/// The largest message sent in pieces, and joined: the agent-side limit, the longest
/// MCP line `tabwire mcp` reads (16 MiB), and room for what the command adds to the
/// arguments that line carried (its envelope and names: a few hundred bytes).
pub const MAX_JOINED: usize = 16 * 1024 * 1024 + 64 * 1024;

/// Room kept in each piece's frame for the envelope around its data.
pub const ENVELOPE_ROOM: usize = 1024;

/// The most bytes of a message's JSON text one piece carries, counted as written in the
/// piece (a quote or backslash counts twice, being escaped there).
pub const PIECE_BUDGET: usize = MAX_TO_BROWSER - ENVELOPE_ROOM;

/// Refused messages remembered per joiner, so that their later pieces are dropped
/// without a second refusal.
const REMEMBERED: usize = 8;

/// One piece of a message cut for the native link ([`ToExtension::Piece`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Piece {
    /// The piece envelope's version ([`VERSION`]).
    pub v: u32,
    /// Names the message the piece belongs to: the same in all of its pieces, another
    /// for every message the relay cuts.
    pub message: u64,
    /// Which piece this is, from 0.
    pub index: u32,
    /// How many pieces the message was cut into.
    pub count: u32,
    /// This piece's slice of the message's JSON text.
    pub data: String,
}

/// How many bytes `c` takes inside a JSON string as `serde_json` writes it.
fn escaped_len(c: char) -> usize {
    match c {
        '"' | '\\' | '\u{8}' | '\u{c}' | '\n' | '\r' | '\t' => 2,
        c if u32::from(c) < 0x20 => 6,
        c => c.len_utf8(),
    }
}

/// Cuts `text` at char boundaries into slices that take at most `budget` bytes each
/// inside a JSON string. Every slice holds at least one char, so a budget smaller than
/// one char's escape still makes progress (that slice is then over the budget).
pub fn cut(text: &str, budget: usize) -> Vec<&str> {
    let mut slices = Vec::new();
    let mut start = 0;
    let mut used = 0;
    for (at, c) in text.char_indices() {
        let cost = escaped_len(c);
        if used + cost > budget && at > start {
            slices.push(&text[start..at]);
            start = at;
            used = 0;
        }
        used += cost;
    }
    if start < text.len() || slices.is_empty() {
        slices.push(&text[start..]);
    }
    slices
}

/// The pieces of a message's JSON text `text`, named `message`, each carrying at most
/// `budget` bytes of it as written in the piece.
pub fn split(text: &str, message: u64, budget: usize) -> Vec<Piece> {
    let slices = cut(text, budget);
    let count = u32::try_from(slices.len()).unwrap_or(u32::MAX);
    slices
        .into_iter()
        .zip(0..)
        .map(|(data, index)| Piece {
            v: VERSION,
            message,
            index,
            count,
            data: data.to_owned(),
        })
        .collect()
}

/// The frames that carry `text`, the JSON of a message for the extension with `id` and
/// `client`, in pieces named `message`: each within Chrome's limit for one message.
pub fn frames(
    text: &str,
    id: Option<u64>,
    client: Option<u64>,
    message: u64,
) -> Result<Vec<Vec<u8>>, FrameError> {
    split(text, message, PIECE_BUDGET)
        .into_iter()
        .map(|piece| {
            let envelope = Envelope {
                id,
                client,
                body: ToExtension::Piece(piece),
            };
            encode(&envelope, MAX_TO_BROWSER)
        })
        .collect()
}

/// What was wrong with a piece sequence; each is written to follow "and".
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Broken {
    /// The piece is of another version of the piece envelope.
    #[error(
        "its pieces are of version {got}, where this extension joins version {VERSION}: \
         tabwire and its browser extension are not the same version"
    )]
    Version {
        /// The piece's version.
        got: u32,
    },
    /// The piece names no place in its message (`count` 0, or `index` not below it).
    #[error("a piece was numbered {index} of {count}, which cannot be")]
    Numbering {
        /// The piece's index (from 0).
        index: u32,
        /// The count it gave.
        count: u32,
    },
    /// A piece said the message has another number of pieces than its first did.
    #[error("piece {} said there are {said} pieces, where the first said {count}", index + 1)]
    Recounted {
        /// The piece's index (from 0).
        index: u32,
        /// What it said.
        said: u32,
        /// What the first piece said.
        count: u32,
    },
    /// A piece came before the one due: the one due is missing, or out of order.
    #[error(
        "piece {} of {count} is missing or out of order (piece {} came in its place)",
        due + 1,
        came + 1
    )]
    Missing {
        /// The piece due (from 0).
        due: u32,
        /// The piece that came (from 0).
        came: u32,
        /// The message's piece count.
        count: u32,
    },
    /// A piece came again, or out of order, after later ones.
    #[error(
        "piece {} of {count} came again, or out of order, after piece {}",
        came + 1,
        due
    )]
    Repeated {
        /// The piece due (from 0).
        due: u32,
        /// The piece that came (from 0).
        came: u32,
        /// The message's piece count.
        count: u32,
    },
    /// A piece is bigger than Chrome passes in one message: no relay cut it.
    #[error("piece {} of {count} is {size} bytes, over the {limit} bytes a piece may be", index + 1)]
    Oversized {
        /// The piece's index (from 0).
        index: u32,
        /// The message's piece count.
        count: u32,
        /// Its data's size in bytes.
        size: usize,
        /// The most a piece may carry.
        limit: usize,
    },
    /// The pieces add up to more than a message may be.
    #[error("its {count} pieces add up to more than the {limit} bytes a request may be")]
    TooLarge {
        /// The message's piece count.
        count: u32,
        /// The most a joined message may be.
        limit: usize,
    },
    /// A piece came in the middle of another message's pieces, from the same client.
    #[error(
        "its piece {} of {count} came in the middle of another message's pieces",
        index + 1
    )]
    Interrupting {
        /// The piece's index (from 0).
        index: u32,
        /// Its message's piece count.
        count: u32,
    },
    /// Another message of the same client came before this one's last piece.
    #[error("another message came after piece {got} of {count}, before the rest of its pieces")]
    Interleaved {
        /// Pieces received before the interruption.
        got: u32,
        /// The message's piece count.
        count: u32,
    },
}

/// A message the joiner gave up on: the request to answer, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// The refused message's `id` (`None`: a notice, which nobody waits for).
    pub id: Option<u64>,
    /// The client it came from.
    pub client: Option<u64>,
    /// What was wrong.
    pub broken: Broken,
}

impl Refused {
    /// The error the refused request is answered with.
    pub fn error(&self) -> WireError {
        let (code, next) = match self.broken {
            Broken::TooLarge { .. } => (
                ErrorCode::InvalidArgument,
                "Send less data (e.g. a shorter script or fewer arguments).",
            ),
            Broken::Version { .. } => (
                ErrorCode::Internal,
                "Run `tabwire install`, then reload the extension at chrome://extensions.",
            ),
            _ => (
                ErrorCode::Internal,
                "Send it again; if it keeps happening, report it as a tabwire bug.",
            ),
        };
        WireError::new(
            code,
            format!(
                "The request did not reach the browser extension whole, so nothing was run: \
                 being over Chrome's {} MiB for one message, it came in pieces, and {}. {next}",
                MAX_TO_BROWSER / (1024 * 1024),
                self.broken
            ),
        )
    }
}

/// What [`Joiner::take`] made of a piece.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Joined {
    /// Kept: more pieces are to come (or the piece belongs to a message refused
    /// already, and was dropped).
    Waiting,
    /// The message's last piece: its whole JSON text.
    Whole(String),
    /// The messages that cannot be joined: the piece's (and, when it came in the
    /// middle of another message of its client, that one too).
    Refused(Vec<Refused>),
}

/// A message being joined.
#[derive(Debug)]
struct Partial {
    message: u64,
    id: Option<u64>,
    count: u32,
    /// The next index due.
    next: u32,
    text: String,
}

/// Joins the pieces the relay cut, one message at a time per client.
#[derive(Debug)]
pub struct Joiner {
    /// The most a joined message may be.
    limit: usize,
    /// The most one piece may carry.
    piece_limit: usize,
    /// Each client's message being joined.
    joining: BTreeMap<Option<u64>, Partial>,
    /// Messages refused lately (client, message): their later pieces are dropped.
    refused: VecDeque<(Option<u64>, u64)>,
}

impl Default for Joiner {
    fn default() -> Self {
        Self::with_limits(MAX_JOINED, MAX_TO_BROWSER)
    }
}

impl Joiner {
    /// A joiner with the link's limits: [`MAX_JOINED`] a message, one native message a
    /// piece.
    pub fn new() -> Self {
        Self::default()
    }

    /// A joiner taking messages of at most `limit` bytes, pieces of at most
    /// `piece_limit`.
    pub fn with_limits(limit: usize, piece_limit: usize) -> Self {
        Self {
            limit,
            piece_limit,
            joining: BTreeMap::new(),
            refused: VecDeque::new(),
        }
    }

    /// Bytes held in messages being joined.
    pub fn held(&self) -> usize {
        self.joining.values().map(|p| p.text.len()).sum()
    }

    /// A piece came, in an envelope with `id` and `client`.
    pub fn take(&mut self, id: Option<u64>, client: Option<u64>, piece: Piece) -> Joined {
        let message = piece.message;
        if self.refused.contains(&(client, message)) {
            return Joined::Waiting;
        }
        let mut partial = match self.joining.remove(&client) {
            Some(partial) if partial.message == message => partial,
            Some(other) => {
                // Pieces of two messages mixed: neither can be trusted.
                let interrupted = self.refuse_partial(client, other);
                let broken = Broken::Interrupting {
                    index: piece.index,
                    count: piece.count,
                };
                let interrupting = self.refuse(id, client, message, broken);
                return Joined::Refused(vec![interrupted, interrupting]);
            }
            None => Partial {
                message,
                id,
                count: piece.count,
                next: 0,
                text: String::new(),
            },
        };
        let problem = self.check(&piece).or_else(|| {
            let (due, came, count) = (partial.next, piece.index, partial.count);
            if piece.count != count {
                Some(Broken::Recounted {
                    index: came,
                    said: piece.count,
                    count,
                })
            } else if came > due {
                Some(Broken::Missing { due, came, count })
            } else if came < due {
                Some(Broken::Repeated { due, came, count })
            } else if partial.text.len() + piece.data.len() > self.limit {
                Some(Broken::TooLarge {
                    count,
                    limit: self.limit,
                })
            } else {
                None
            }
        });
        if let Some(broken) = problem {
            return Joined::Refused(vec![self.refuse(partial.id, client, message, broken)]);
        }
        partial.text.push_str(&piece.data);
        partial.next += 1;
        if partial.next == partial.count {
            return Joined::Whole(partial.text);
        }
        self.joining.insert(client, partial);
        Joined::Waiting
    }

    /// A whole message came from `client`: a message of its being joined is refused,
    /// interrupted.
    pub fn interrupted(&mut self, client: Option<u64>) -> Option<Refused> {
        let partial = self.joining.remove(&client)?;
        Some(self.refuse_partial(client, partial))
    }

    /// `client` is gone: drop what it was sending.
    pub fn forget(&mut self, client: Option<u64>) {
        self.joining.remove(&client);
        self.refused.retain(|(c, _)| *c != client);
    }

    /// What is wrong with a piece on its own, if anything.
    fn check(&self, piece: &Piece) -> Option<Broken> {
        if piece.v != VERSION {
            return Some(Broken::Version { got: piece.v });
        }
        if piece.index >= piece.count {
            return Some(Broken::Numbering {
                index: piece.index,
                count: piece.count,
            });
        }
        (piece.data.len() > self.piece_limit).then_some(Broken::Oversized {
            index: piece.index,
            count: piece.count,
            size: piece.data.len(),
            limit: self.piece_limit,
        })
    }

    fn refuse_partial(&mut self, client: Option<u64>, partial: Partial) -> Refused {
        let broken = Broken::Interleaved {
            got: partial.next,
            count: partial.count,
        };
        self.refuse(partial.id, client, partial.message, broken)
    }

    fn refuse(
        &mut self,
        id: Option<u64>,
        client: Option<u64>,
        message: u64,
        broken: Broken,
    ) -> Refused {
        if self.refused.len() == REMEMBERED {
            self.refused.pop_front();
        }
        self.refused.push_back((client, message));
        Refused { id, client, broken }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framing::{try_decode, Frame, HEADER_LEN};

    /// Texts whose cuts land on every kind of char: ASCII, 2-, 3- and 4-byte UTF-8,
    /// and the chars a JSON string escapes (quote, backslash, control chars).
    const TEXTS: &[&str] = &[
        "",
        "a",
        "plain ascii text",
        "é€😀aé€😀",
        r#"{"id":1,"body":{"call":{"function":"() => \"x\\y\"","args":["é😀"]}}}"#,
        "quotes \"\" and \\\\ back\\slashes\n\t\r\u{1}\u{1f}\u{7f}",
        "😀😀😀😀",
    ];

    fn written_len(slice: &str) -> usize {
        serde_json::to_string(slice).unwrap().len() - 2
    }

    /// Feeds `pieces` to a fresh joiner as client 1's request 9; what each piece gave.
    fn feed(joiner: &mut Joiner, pieces: Vec<Piece>) -> Vec<Joined> {
        pieces
            .into_iter()
            .map(|p| joiner.take(Some(9), Some(1), p))
            .collect()
    }

    fn whole(joiner: &mut Joiner, text: &str, message: u64, budget: usize) -> Joined {
        let mut last = Joined::Waiting;
        for piece in split(text, message, budget) {
            last = joiner.take(Some(message), Some(1), piece);
        }
        last
    }

    fn refused(joined: &Joined) -> Vec<Broken> {
        match joined {
            Joined::Refused(refused) => refused.iter().map(|r| r.broken.clone()).collect(),
            other => panic!("not refused: {other:?}"),
        }
    }

    #[test]
    fn cuts_fall_on_char_boundaries_within_the_budget_at_every_piece_size() {
        for text in TEXTS {
            let longest = written_len(text) + 2;
            for budget in 1..=longest {
                let slices = cut(text, budget);
                assert_eq!(slices.concat(), *text, "budget {budget}");
                for (i, slice) in slices.iter().enumerate() {
                    assert!(
                        !slice.is_empty() || text.is_empty(),
                        "empty slice, budget {budget}"
                    );
                    let one_char = slice.chars().count() == 1;
                    assert!(
                        written_len(slice) <= budget || one_char,
                        "{slice:?} over {budget}"
                    );
                    // Each slice is as long as the budget lets it be.
                    if let Some(next) = slices.get(i + 1) {
                        let first = next.chars().next().unwrap();
                        assert!(written_len(&format!("{slice}{first}")) > budget);
                    }
                }
            }
        }
    }

    #[test]
    fn pieces_join_back_into_the_text_at_every_piece_size() {
        for text in TEXTS {
            for budget in 1..=written_len(text) + 2 {
                let mut joiner = Joiner::new();
                let pieces = split(text, 7, budget);
                let count = pieces.len();
                let got = feed(&mut joiner, pieces);
                assert!(got[..count - 1].iter().all(|j| *j == Joined::Waiting));
                assert_eq!(got[count - 1], Joined::Whole((*text).to_owned()));
                assert_eq!(joiner.held(), 0);
            }
        }
    }

    #[test]
    fn multibyte_chars_are_never_cut_in_two() {
        let slices = |budget| cut("é€😀", budget);
        assert_eq!(slices(1), ["é", "€", "😀"], "each over the budget alone");
        assert_eq!(slices(5), ["é€", "😀"]);
        assert_eq!(slices(6), ["é€", "😀"]);
        assert_eq!(slices(7), ["é€", "😀"]);
        assert_eq!(slices(9), ["é€😀"]);
        // Escapes count as written: a quote takes two bytes of the budget.
        assert_eq!(cut(r#"a"b"#, 2), ["a", "\"", "b"]);
        assert_eq!(cut(r#"a"b"#, 3), ["a\"", "b"]);
    }

    #[test]
    fn a_missing_piece_is_refused_wherever_it_is_and_the_link_goes_on() {
        let text = TEXTS[4];
        let count = split(text, 1, 8).len();
        for gap in 0..count {
            let mut joiner = Joiner::new();
            let mut pieces = split(text, 1, 8);
            pieces.remove(gap);
            let got = feed(&mut joiner, pieces);
            let refusals: Vec<_> = got
                .iter()
                .filter(|j| matches!(j, Joined::Refused(_)))
                .collect();
            if gap + 1 == count {
                // The last one missing: the message is simply not finished yet.
                assert!(refusals.is_empty());
                assert!(got.iter().all(|j| *j == Joined::Waiting));
                // ... until anything else comes from that client.
                let r = joiner.interrupted(Some(1)).unwrap();
                assert_eq!(r.id, Some(9));
                assert_eq!(
                    r.broken,
                    Broken::Interleaved {
                        got: u32::try_from(gap).unwrap(),
                        count: count as u32
                    }
                );
            } else {
                assert_eq!(
                    refusals.len(),
                    1,
                    "gap {gap}: one refusal, the rest dropped"
                );
                let broken = refused(refusals[0]);
                assert_eq!(
                    broken,
                    [Broken::Missing {
                        due: gap as u32,
                        came: gap as u32 + 1,
                        count: count as u32
                    }]
                );
            }
            assert_eq!(joiner.held(), 0);
            assert_eq!(
                whole(&mut joiner, text, 2, 8),
                Joined::Whole(text.to_owned())
            );
        }
    }

    #[test]
    fn a_repeated_piece_is_refused() {
        let text = TEXTS[4];
        let count = split(text, 1, 8).len();
        for again in 0..count - 1 {
            let mut joiner = Joiner::new();
            let mut pieces = split(text, 1, 8);
            pieces.insert(again + 1, pieces[again].clone());
            let got = feed(&mut joiner, pieces);
            assert_eq!(
                refused(&got[again + 1]),
                [Broken::Repeated {
                    due: again as u32 + 1,
                    came: again as u32,
                    count: count as u32
                }]
            );
            assert!(got[again + 2..].iter().all(|j| *j == Joined::Waiting));
            assert_eq!(
                whole(&mut joiner, text, 2, 8),
                Joined::Whole(text.to_owned())
            );
        }
    }

    #[test]
    fn pieces_out_of_order_are_refused() {
        let text = TEXTS[4];
        let count = split(text, 1, 8).len();
        for first in 0..count - 1 {
            let mut joiner = Joiner::new();
            let mut pieces = split(text, 1, 8);
            pieces.swap(first, first + 1);
            let got = feed(&mut joiner, pieces);
            let refusals: Vec<_> = got
                .iter()
                .filter(|j| matches!(j, Joined::Refused(_)))
                .collect();
            assert_eq!(refusals.len(), 1, "swapped {first}");
            assert!(matches!(refused(refusals[0])[0], Broken::Missing { .. }));
            assert!(!got.iter().any(|j| matches!(j, Joined::Whole(_))));
            assert_eq!(
                whole(&mut joiner, text, 2, 8),
                Joined::Whole(text.to_owned())
            );
        }
    }

    #[test]
    fn a_piece_over_one_message_is_refused() {
        let mut joiner = Joiner::with_limits(100, 10);
        let mut pieces = split("0123456789abcdefghij", 1, 10);
        pieces[1].data.push('x');
        let got = feed(&mut joiner, pieces);
        assert_eq!(
            refused(&got[1]),
            [Broken::Oversized {
                index: 1,
                count: 2,
                size: 11,
                limit: 10
            }]
        );
        assert_eq!(joiner.held(), 0);
        assert_eq!(
            whole(&mut joiner, "0123456789abcdefghij", 2, 10),
            Joined::Whole("0123456789abcdefghij".into())
        );
    }

    #[test]
    fn pieces_of_two_messages_mixed_refuse_both() {
        let mut joiner = Joiner::new();
        let a = split("aaaaaaaaa", 1, 3);
        let b = split("bbbbbbbbb", 2, 3);
        assert_eq!(
            joiner.take(Some(10), Some(1), a[0].clone()),
            Joined::Waiting
        );
        let Joined::Refused(both) = joiner.take(Some(11), Some(1), b[0].clone()) else {
            panic!("interleaving accepted");
        };
        assert_eq!(
            both,
            [
                Refused {
                    id: Some(10),
                    client: Some(1),
                    broken: Broken::Interleaved { got: 1, count: 3 }
                },
                Refused {
                    id: Some(11),
                    client: Some(1),
                    broken: Broken::Interrupting { index: 0, count: 3 }
                }
            ]
        );
        // The rest of either is dropped without a second answer.
        for piece in [&a[1], &b[1], &a[2], &b[2]] {
            assert_eq!(joiner.take(None, Some(1), piece.clone()), Joined::Waiting);
        }
        assert_eq!(joiner.held(), 0);
        assert_eq!(whole(&mut joiner, "ccc", 3, 1), Joined::Whole("ccc".into()));
    }

    #[test]
    fn a_whole_message_in_the_middle_of_pieces_refuses_them() {
        let mut joiner = Joiner::new();
        let pieces = split("abcdef", 1, 2);
        joiner.take(Some(4), Some(1), pieces[0].clone());
        assert_eq!(joiner.interrupted(Some(2)), None, "another client's");
        let r = joiner.interrupted(Some(1)).unwrap();
        assert_eq!(r.id, Some(4));
        assert_eq!(r.broken, Broken::Interleaved { got: 1, count: 3 });
        assert_eq!(
            joiner.take(Some(4), Some(1), pieces[1].clone()),
            Joined::Waiting
        );
        assert_eq!(joiner.interrupted(Some(1)), None);
    }

    #[test]
    fn each_client_has_its_own_message_in_pieces() {
        let mut joiner = Joiner::new();
        let a = split("from one", 1, 3);
        let b = split("from two", 2, 3);
        let mut got = Vec::new();
        for (x, y) in a.into_iter().zip(b) {
            got.push(joiner.take(Some(1), Some(1), x));
            got.push(joiner.take(Some(1), Some(2), y));
        }
        let whole: Vec<_> = got.into_iter().filter(|j| *j != Joined::Waiting).collect();
        assert_eq!(
            whole,
            [
                Joined::Whole("from one".into()),
                Joined::Whole("from two".into())
            ]
        );
    }

    #[test]
    fn a_message_over_the_cap_is_refused_and_memory_let_go() {
        let mut joiner = Joiner::with_limits(50, 10);
        let fits = "x".repeat(50);
        assert_eq!(
            whole(&mut joiner, &fits, 1, 10),
            Joined::Whole(fits.clone())
        );
        let over = "y".repeat(51);
        let got = feed(&mut joiner, split(&over, 2, 10));
        assert!(got[..5].iter().all(|j| *j == Joined::Waiting));
        assert_eq!(
            refused(&got[5]),
            [Broken::TooLarge {
                count: 6,
                limit: 50
            }]
        );
        assert_eq!(joiner.held(), 0);
        assert_eq!(whole(&mut joiner, &fits, 3, 10), Joined::Whole(fits));
    }

    #[test]
    fn pieces_that_cannot_be_are_refused() {
        let piece = |v, index, count| Piece {
            v,
            message: 1,
            index,
            count,
            data: "x".into(),
        };
        let mut joiner = Joiner::new();
        let cases = [
            (piece(2, 0, 2), Broken::Version { got: 2 }),
            (piece(0, 0, 2), Broken::Version { got: 0 }),
            (
                piece(VERSION, 0, 0),
                Broken::Numbering { index: 0, count: 0 },
            ),
            (
                piece(VERSION, 3, 3),
                Broken::Numbering { index: 3, count: 3 },
            ),
        ];
        for (piece, broken) in cases {
            joiner.forget(Some(1));
            assert_eq!(refused(&joiner.take(Some(1), Some(1), piece)), [broken]);
        }
        joiner.forget(Some(1));
        joiner.take(Some(1), Some(1), piece(VERSION, 0, 3));
        assert_eq!(
            refused(&joiner.take(Some(1), Some(1), piece(VERSION, 1, 4))),
            [Broken::Recounted {
                index: 1,
                said: 4,
                count: 3
            }]
        );
    }

    #[test]
    fn a_client_that_leaves_takes_its_pieces_along() {
        let mut joiner = Joiner::new();
        joiner.take(Some(1), Some(1), split("abcd", 1, 2)[0].clone());
        assert_eq!(joiner.held(), 2);
        joiner.forget(Some(1));
        assert_eq!(joiner.held(), 0);
    }

    #[test]
    fn refusals_say_what_happened_and_what_to_do() {
        let missing = Refused {
            id: Some(1),
            client: Some(2),
            broken: Broken::Missing {
                due: 2,
                came: 3,
                count: 6,
            },
        }
        .error();
        assert_eq!(missing.code, ErrorCode::Internal);
        assert_eq!(
            missing.message,
            "The request did not reach the browser extension whole, so nothing was run: \
             being over Chrome's 1 MiB for one message, it came in pieces, and piece 3 of 6 \
             is missing or out of order (piece 4 came in its place). Send it again; if it \
             keeps happening, report it as a tabwire bug."
        );
        let big = Refused {
            id: Some(1),
            client: None,
            broken: Broken::TooLarge {
                count: 17,
                limit: MAX_JOINED,
            },
        }
        .error();
        assert_eq!(big.code, ErrorCode::InvalidArgument);
        assert!(big.message.contains(&format!(
            "more than the {MAX_JOINED} bytes a request may be"
        )));
        assert!(big.message.contains("Send less data"));
    }

    #[test]
    fn frames_stay_within_chromes_limit_whatever_the_text() {
        // Quotes double when written in a piece: the worst case for the budget.
        let text = format!("{}{}", "\"".repeat(MAX_TO_BROWSER), "é😀".repeat(200_000));
        let frames = frames(&text, Some(5), Some(2), 9).unwrap();
        assert!(frames.len() >= 3);
        let mut joiner = Joiner::new();
        let mut last = Joined::Waiting;
        for frame in &frames {
            let Frame::Complete { body, consumed } = try_decode(frame, MAX_TO_BROWSER).unwrap()
            else {
                panic!("not a whole frame");
            };
            assert_eq!(consumed, frame.len());
            assert!(consumed - HEADER_LEN <= MAX_TO_BROWSER);
            let envelope: Envelope<ToExtension> = serde_json::from_slice(body).unwrap();
            assert_eq!((envelope.id, envelope.client), (Some(5), Some(2)));
            let ToExtension::Piece(piece) = envelope.body else {
                panic!("not a piece");
            };
            last = joiner.take(envelope.id, envelope.client, piece);
        }
        assert_eq!(last, Joined::Whole(text));
    }
}
