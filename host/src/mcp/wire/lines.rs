//! Reads the agent's stdin one line at a time, never buffering more than a cap.
//!
//! A line longer than the cap is not kept: its bytes stream through an [`IdScanner`]
//! until its newline, so the line can still be answered by id. Reading is cancel-safe
//! (rmcp polls it inside `select!`): every byte taken from the stream is in `self`
//! before the next `await`, so a dropped [`LineReader::next`] loses nothing.
//!
//! It does not look at what a line says; [`intake`](mod@super::intake) does.

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

use super::scan::{IdScanner, ScannedId};

/// The longest line kept whole: 16 MiB, as rmcp's own stdio transport.
pub const MAX_LINE: usize = 16 * 1024 * 1024;

// A request the agent could send reaches the extension: the link joins messages in
// pieces up to the same size.
const _: () = assert!(MAX_LINE + 64 * 1024 == tabwire_shared::pieces::MAX_JOINED);

/// One line from the stream.
#[derive(Debug, PartialEq)]
pub enum Line {
    /// A line within the cap, without its `\n`.
    Whole(Vec<u8>),
    /// A line over the cap, dropped as it streamed past.
    TooLong {
        /// The top-level id found in its bytes.
        id: ScannedId,
        /// Its length in bytes, newline excluded.
        len: usize,
    },
}

/// A line that went over the cap and is still streaming past.
struct Overflow {
    scanner: IdScanner,
    len: usize,
}

/// Hands out the lines of a byte stream (see the module docs).
pub struct LineReader<R> {
    read: BufReader<R>,
    buf: Vec<u8>,
    limit: usize,
    overflow: Option<Overflow>,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    /// Reads lines of at most `limit` bytes (newline excluded) from `read`.
    pub fn new(read: R, limit: usize) -> Self {
        Self {
            read: BufReader::new(read),
            buf: Vec::new(),
            limit,
            overflow: None,
        }
    }

    /// The next line; `None` at the end of the stream. A last line with no newline
    /// still counts as a line.
    pub async fn next(&mut self) -> std::io::Result<Option<Line>> {
        loop {
            let available = self.read.fill_buf().await?;
            if available.is_empty() {
                return Ok(self.end_line());
            }
            let newline = available.iter().position(|b| *b == b'\n');
            let piece = &available[..newline.unwrap_or(available.len())];
            let taken = piece.len() + usize::from(newline.is_some());
            match &mut self.overflow {
                Some(overflow) => {
                    if overflow.scanner.wants_more() {
                        overflow.scanner.feed(piece);
                    }
                    overflow.len = overflow.len.saturating_add(piece.len());
                }
                None if self.buf.len() + piece.len() > self.limit => {
                    let mut scanner = IdScanner::new();
                    scanner.feed(&self.buf);
                    scanner.feed(piece);
                    self.overflow = Some(Overflow {
                        scanner,
                        len: self.buf.len() + piece.len(),
                    });
                    self.buf = Vec::new();
                }
                None => self.buf.extend_from_slice(piece),
            }
            self.read.consume(taken);
            if newline.is_some() {
                return Ok(Some(self.end_line().unwrap_or(Line::Whole(Vec::new()))));
            }
        }
    }

    /// The line gathered so far, if any, and a fresh start.
    fn end_line(&mut self) -> Option<Line> {
        if let Some(Overflow { scanner, len }) = self.overflow.take() {
            return Some(Line::TooLong {
                id: scanner.finish(),
                len,
            });
        }
        if self.buf.is_empty() {
            return None;
        }
        Some(Line::Whole(std::mem::take(&mut self.buf)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    async fn lines(input: &[u8], limit: usize) -> Vec<Line> {
        let mut reader = LineReader::new(input, limit);
        let mut out = Vec::new();
        while let Some(line) = reader.next().await.unwrap() {
            out.push(line);
        }
        out
    }

    fn whole(s: &str) -> Line {
        Line::Whole(s.as_bytes().to_vec())
    }

    #[tokio::test]
    async fn splits_on_newlines_keeping_blank_lines_and_a_last_unended_one() {
        assert_eq!(
            lines(b"a\n\nbc\r\nd", 10).await,
            [whole("a"), whole(""), whole("bc\r"), whole("d")]
        );
        assert!(lines(b"", 10).await.is_empty());
    }

    #[tokio::test]
    async fn a_line_over_the_cap_is_dropped_but_its_id_is_kept() {
        let long = format!(r#"{{"params":"{}","id":"z"}}"#, "x".repeat(100));
        let input = format!("{long}\n{{\"id\":1}}\n");
        assert_eq!(
            lines(input.as_bytes(), 50).await,
            [
                Line::TooLong {
                    id: ScannedId::Found(json!("z")),
                    len: long.len()
                },
                whole(r#"{"id":1}"#)
            ]
        );
        assert_eq!(
            lines(b"0123456789", 5).await,
            [Line::TooLong {
                id: ScannedId::Absent,
                len: 10
            }]
        );
        assert_eq!(lines(b"01234\n", 5).await, [whole("01234")]);
    }

    #[tokio::test]
    async fn over_long_lines_streamed_in_small_reads_never_grow_the_buffer() {
        let long = format!(r#"{{"id":2,"a":"{}"}}"#, "y".repeat(100_000));
        let (mut tx, rx) = tokio::io::duplex(64);
        let input = format!("{long}\nok\n").into_bytes();
        let writer = tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            tx.write_all(&input).await.unwrap();
        });
        let mut reader = LineReader::new(rx, 1000);
        let first = reader.next().await.unwrap();
        assert!(
            reader.buf.capacity() <= 1000 + 64,
            "{}",
            reader.buf.capacity()
        );
        assert_eq!(
            first,
            Some(Line::TooLong {
                id: ScannedId::Found(json!(2)),
                len: long.len()
            })
        );
        assert_eq!(reader.next().await.unwrap(), Some(whole("ok")));
        writer.await.unwrap();
    }

    /// What the reader must hand out for `input`: its lines split offline.
    fn expected(input: &[u8], limit: usize) -> Vec<Line> {
        let mut pieces: Vec<&[u8]> = input.split(|b| *b == b'\n').collect();
        if pieces.last().is_some_and(|p| p.is_empty()) {
            pieces.pop();
        }
        pieces
            .into_iter()
            .map(|p| match p.len() > limit {
                true => Line::TooLong {
                    id: IdScanner::scan(p),
                    len: p.len(),
                },
                false => Line::Whole(p.to_vec()),
            })
            .collect()
    }

    fn input() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        let byte = prop_oneof![
            3 => any::<u8>(),
            1 => Just(b'\n'),
            2 => proptest::sample::select(b"{}[]\",:id 0123456789".to_vec()),
        ];
        proptest::collection::vec(byte, 0..400)
    }

    proptest::proptest! {
        /// Any bytes, read in pieces of any size: the same lines as split offline, and
        /// the buffer never past twice the cap.
        #[test]
        fn any_bytes_in_any_pieces_give_the_offline_lines(
            input in input(),
            limit in 1usize..80,
            piece in 1usize..40,
        ) {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            let got = runtime.block_on(async {
                let (mut tx, rx) = tokio::io::duplex(piece);
                let bytes = input.clone();
                let writer = tokio::spawn(async move {
                    use tokio::io::AsyncWriteExt;
                    tx.write_all(&bytes).await.unwrap();
                });
                let mut reader = LineReader::new(rx, limit);
                let mut out = Vec::new();
                while let Some(line) = reader.next().await.unwrap() {
                    assert!(reader.buf.capacity() <= 2 * limit.max(8), "{}", reader.buf.capacity());
                    out.push(line);
                }
                writer.await.unwrap();
                out
            });
            proptest::prop_assert_eq!(got, expected(&input, limit));
        }

        /// No line, however broken, makes the intake panic.
        #[test]
        fn the_intake_takes_any_line(line in input()) {
            let _ = super::super::intake::intake(&line);
        }
    }
}
