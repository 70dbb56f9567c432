//! Reading and writing whole frames on async byte streams, for both ends of the relay.
//!
//! [`FrameReader`] buffers whatever arrives and hands out one frame body at a time,
//! using `tabwire_shared::framing::try_decode` to decide whether a whole frame is
//! there. It is used on Chrome's stdin and on every socket connection, by the relay
//! ([`crate::native_host`]) and by its clients ([`crate::link`]), neither of which
//! depends on the other. [`write_frame`] writes one already-encoded frame in a single
//! `write_all` and flushes it.
//!
//! It does not parse bodies (a malformed body is the caller's to skip: the length
//! prefix keeps the stream in sync) and does not decide what an oversized frame means
//! for the connection: it only reports it, and stops trusting the stream.

use tabwire_shared::framing::{try_decode, Frame, FrameError};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// Why no further frame can be read from a stream.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The peer declared a frame larger than this link allows; the rest of the stream
    /// cannot be trusted.
    #[error("the peer declared a {size}-byte message, over this link's {limit}-byte limit")]
    TooLarge {
        /// Declared size.
        size: usize,
        /// The link's limit.
        limit: usize,
    },
    /// The stream ended in the middle of a frame.
    #[error("the stream ended in the middle of a message ({buffered} bytes of it arrived)")]
    Truncated {
        /// Bytes of the unfinished frame that had arrived.
        buffered: usize,
    },
    /// Reading failed.
    #[error("reading failed: {0}")]
    Io(#[from] std::io::Error),
}

/// Bytes read at once while no frame is under way: few, so that each of many idle
/// connections holds little.
const FIRST_READ: usize = 512;

/// Bytes read at once (at least) once a frame is under way.
const READ_CHUNK: usize = 8 * 1024;

/// A buffer larger than this is let go of once empty: one big frame does not pin its
/// size for the connection's life.
const KEPT_CAPACITY: usize = 64 * 1024;

/// Hands out whole frame bodies from a byte stream.
///
/// [`FrameReader::next`] is cancel-safe: all state lives in the reader, so it can be
/// used in `tokio::select!` without losing bytes.
pub struct FrameReader<R> {
    inner: R,
    buf: Vec<u8>,
    limit: usize,
    broken: bool,
}

impl<R: AsyncRead + Unpin> FrameReader<R> {
    /// Reads frames of at most `limit` body bytes from `inner`.
    pub fn new(inner: R, limit: usize) -> Self {
        Self {
            inner,
            buf: Vec::new(),
            limit,
            broken: false,
        }
    }

    /// The next frame's body; `Ok(None)` when the stream ended cleanly between frames.
    ///
    /// After an error every further call returns an error too.
    pub async fn next(&mut self) -> Result<Option<Vec<u8>>, ReadError> {
        loop {
            if let Some(body) = self.take_buffered()? {
                return Ok(Some(body));
            }
            let want = match self.buf.is_empty() {
                true => FIRST_READ,
                false => self.buf.len().max(READ_CHUNK),
            };
            self.buf.reserve(want.min(1024 * 1024));
            let n = self.inner.read_buf(&mut self.buf).await?;
            if n == 0 {
                if self.buf.is_empty() {
                    return Ok(None);
                }
                self.broken = true;
                return Err(ReadError::Truncated {
                    buffered: self.buf.len(),
                });
            }
        }
    }

    /// A whole frame already in the buffer, if there is one.
    fn take_buffered(&mut self) -> Result<Option<Vec<u8>>, ReadError> {
        if self.broken {
            return Err(ReadError::Io(std::io::Error::other(
                "this stream already failed",
            )));
        }
        match try_decode(&self.buf, self.limit) {
            Ok(Frame::Incomplete) => Ok(None),
            Ok(Frame::Complete { body, consumed }) => {
                let body = body.to_vec();
                self.buf.drain(..consumed);
                if self.buf.is_empty() && self.buf.capacity() > KEPT_CAPACITY {
                    self.buf = Vec::new();
                }
                Ok(Some(body))
            }
            Err(FrameError::TooLarge { size, limit }) => {
                self.broken = true;
                Err(ReadError::TooLarge { size, limit })
            }
            Err(FrameError::Malformed(e)) => {
                // try_decode never parses; keep the stream honest anyway.
                self.broken = true;
                Err(ReadError::Io(std::io::Error::other(e)))
            }
        }
    }
}

/// Writes one whole encoded frame (header included) and flushes it.
pub async fn write_frame<W: AsyncWrite + Unpin>(out: &mut W, frame: &[u8]) -> std::io::Result<()> {
    out.write_all(frame).await?;
    out.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tabwire_shared::framing::encode;
    use tokio::io::AsyncWriteExt;

    fn frame(v: serde_json::Value) -> Vec<u8> {
        encode(&v, 1024).unwrap()
    }

    #[tokio::test]
    async fn frames_split_across_reads_are_reassembled() {
        let mut bytes = frame(json!({"a": 1}));
        bytes.extend(frame(json!([2])));
        let (mut tx, rx) = tokio::io::duplex(64);
        let writer = tokio::spawn(async move {
            for byte in bytes {
                tx.write_all(&[byte]).await.unwrap();
                tokio::task::yield_now().await;
            }
        });
        let mut reader = FrameReader::new(rx, 1024);
        assert_eq!(reader.next().await.unwrap().unwrap(), br#"{"a":1}"#);
        assert_eq!(reader.next().await.unwrap().unwrap(), b"[2]");
        writer.await.unwrap();
        assert!(reader.next().await.unwrap().is_none());
    }

    #[tokio::test]
    async fn many_frames_in_one_read_come_out_one_by_one() {
        let mut bytes = Vec::new();
        for i in 0..50 {
            bytes.extend(frame(json!(i)));
        }
        let mut reader = FrameReader::new(&bytes[..], 1024);
        for i in 0..50 {
            assert_eq!(
                reader.next().await.unwrap().unwrap(),
                i.to_string().as_bytes()
            );
        }
        assert!(reader.next().await.unwrap().is_none());
    }

    #[tokio::test]
    async fn eof_mid_frame_is_truncation_not_a_clean_end() {
        let bytes = frame(json!("hello"));
        for cut in 1..bytes.len() {
            let mut reader = FrameReader::new(&bytes[..cut], 1024);
            assert!(
                matches!(reader.next().await, Err(ReadError::Truncated { buffered }) if buffered == cut),
                "cut at {cut}"
            );
        }
    }

    #[tokio::test]
    async fn oversized_declared_length_breaks_the_stream() {
        let mut bytes = (2048u32).to_ne_bytes().to_vec();
        bytes.extend(frame(json!(1)));
        let mut reader = FrameReader::new(&bytes[..], 1024);
        assert!(matches!(
            reader.next().await,
            Err(ReadError::TooLarge {
                size: 2048,
                limit: 1024
            })
        ));
        assert!(reader.next().await.is_err(), "a broken stream stays broken");
    }

    #[tokio::test]
    async fn malformed_body_is_still_a_frame_and_the_next_one_reads() {
        let mut bytes = 5u32.to_ne_bytes().to_vec();
        bytes.extend(b"{nope");
        bytes.extend(frame(json!(7)));
        let mut reader = FrameReader::new(&bytes[..], 1024);
        assert_eq!(reader.next().await.unwrap().unwrap(), b"{nope");
        assert_eq!(reader.next().await.unwrap().unwrap(), b"7");
    }

    #[tokio::test]
    async fn an_idle_reader_holds_little_and_a_big_frame_is_let_go_of() {
        let (mut tx, rx) = tokio::io::duplex(1 << 20);
        let mut reader = FrameReader::new(rx, 1 << 20);
        assert_eq!(reader.buf.capacity(), 0, "nothing before the first byte");
        let big = frame_of(&"x".repeat(500_000));
        let small = frame_of("1");
        tx.write_all(&big).await.unwrap();
        assert_eq!(reader.next().await.unwrap().unwrap().len(), 500_002);
        assert_eq!(
            reader.buf.capacity(),
            0,
            "the big buffer went with its frame"
        );
        tx.write_all(&small).await.unwrap();
        reader.next().await.unwrap().unwrap();
        assert!(
            reader.buf.capacity() <= FIRST_READ,
            "{}",
            reader.buf.capacity()
        );
    }

    /// A frame of the JSON string `text`, up to 1 MiB.
    fn frame_of(text: &str) -> Vec<u8> {
        encode(&json!(text), 1 << 20).unwrap()
    }

    #[tokio::test]
    async fn write_frame_writes_the_whole_frame() {
        let mut out = Vec::new();
        let f = frame(json!({"x": "y"}));
        write_frame(&mut out, &f).await.unwrap();
        assert_eq!(out, f);
    }

    /// What reading all of `input` must give: the bodies, then how it ends.
    fn offline(input: &[u8], limit: usize) -> (Vec<Vec<u8>>, &'static str) {
        let mut rest = input;
        let mut bodies = Vec::new();
        loop {
            match try_decode(rest, limit) {
                Ok(Frame::Complete { body, consumed }) => {
                    bodies.push(body.to_vec());
                    rest = &rest[consumed..];
                }
                Ok(Frame::Incomplete) if rest.is_empty() => return (bodies, "end"),
                Ok(Frame::Incomplete) => return (bodies, "truncated"),
                Err(_) => return (bodies, "too large"),
            }
        }
    }

    fn stream() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        let frame = proptest::collection::vec(any::<u8>(), 0..300).prop_map(|body| {
            let mut bytes = (body.len() as u32).to_ne_bytes().to_vec();
            bytes.extend(body);
            bytes
        });
        let junk = proptest::collection::vec(any::<u8>(), 0..8);
        proptest::collection::vec(prop_oneof![4 => frame, 1 => junk], 0..10)
            .prop_map(|segments| segments.concat())
    }

    proptest::proptest! {
        /// Any bytes, arriving in pieces of any size, give the frames decoded offline
        /// and then a clean end or a clear error; the buffer stays within a small
        /// multiple of the frame cap (plus one read), whatever lengths are declared.
        #[test]
        fn any_stream_in_any_pieces_gives_the_offline_frames(
            input in stream(),
            limit in 0usize..256,
            piece in 1usize..64,
        ) {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            let (bodies, end) = offline(&input, limit);
            let (got, got_end) = runtime.block_on(async {
                let (mut tx, rx) = tokio::io::duplex(piece);
                let bytes = input.clone();
                let writer = tokio::spawn(async move {
                    let _ = tx.write_all(&bytes).await;
                });
                let mut reader = FrameReader::new(rx, limit);
                let mut got = Vec::new();
                let end = loop {
                    let next = reader.next().await;
                    let bound = 4 * (tabwire_shared::framing::HEADER_LEN + limit) + 16 * 1024;
                    assert!(reader.buf.capacity() <= bound, "{} > {bound}", reader.buf.capacity());
                    match next {
                        Ok(Some(body)) => got.push(body),
                        Ok(None) => break "end",
                        Err(ReadError::Truncated { .. }) => break "truncated",
                        Err(ReadError::TooLarge { .. }) => break "too large",
                        Err(ReadError::Io(e)) => panic!("{e}"),
                    }
                };
                drop(reader);
                let _ = writer.await;
                (got, end)
            });
            proptest::prop_assert_eq!(got, bodies);
            proptest::prop_assert_eq!(got_end, end);
        }
    }
}
