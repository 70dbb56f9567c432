//! Native-messaging frames: a `u32` length in native byte order, then that many bytes
//! of UTF-8 JSON.
//!
//! Chrome speaks this on the native host's stdin/stdout; tabwire reuses it on the
//! relay's Unix socket so there is one codec to get right. Decoding is split, as in
//! mini-redis, into "is a whole frame buffered?" ([`try_decode`]) and handing the bytes
//! to serde, so a reader can buffer partial input and never desynchronises: a frame
//! that is too big or not JSON is reported as such, and the stream is either skipped
//! past it or declared broken, never silently misread.

use byteorder::{ByteOrder, NativeEndian};
use serde::de::DeserializeOwned;
use serde::Serialize;

/// Chrome refuses messages from a native host larger than this (1 MiB): a bigger one
/// for the extension goes in pieces ([`crate::pieces`]).
pub const MAX_TO_BROWSER: usize = 1024 * 1024;
/// Chrome sends at most this much to a native host in one message (64 MiB).
pub const MAX_FROM_BROWSER: usize = 64 * 1024 * 1024;
/// Largest frame accepted on the relay socket: a reply from the browser plus room.
pub const MAX_ON_SOCKET: usize = MAX_FROM_BROWSER;
/// Bytes in the length prefix.
pub const HEADER_LEN: usize = 4;

/// Why a frame could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    /// The frame's declared or actual size is over the limit for this link.
    #[error("message of {size} bytes is over the {limit}-byte limit of this link")]
    TooLarge {
        /// Size of the offending message.
        size: usize,
        /// Limit that applies.
        limit: usize,
    },
    /// The frame's bytes are not the JSON message expected.
    #[error("malformed message: {0}")]
    Malformed(#[from] serde_json::Error),
}

/// Serialises `msg` into one frame, refusing to produce more than `limit` bytes of body.
pub fn encode<T: Serialize + ?Sized>(msg: &T, limit: usize) -> Result<Vec<u8>, FrameError> {
    let mut out = vec![0u8; HEADER_LEN];
    serde_json::to_writer(&mut out, msg)?;
    let size = out.len() - HEADER_LEN;
    if size > limit {
        return Err(FrameError::TooLarge { size, limit });
    }
    let len = u32::try_from(size).map_err(|_| FrameError::TooLarge { size, limit })?;
    NativeEndian::write_u32(&mut out[..HEADER_LEN], len);
    Ok(out)
}

/// What [`try_decode`] found at the start of a buffer.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame<'a> {
    /// Not a whole frame yet: read more bytes and try again.
    Incomplete,
    /// A whole frame: its body and the total bytes (header included) it occupies.
    Complete {
        /// The JSON body.
        body: &'a [u8],
        /// Header plus body length, to drop from the buffer.
        consumed: usize,
    },
}

/// Looks for one whole frame at the start of `buf`.
///
/// A declared length over `limit` is an error at once, before any of the body is
/// buffered: the stream cannot be trusted past that point.
pub fn try_decode(buf: &[u8], limit: usize) -> Result<Frame<'_>, FrameError> {
    if buf.len() < HEADER_LEN {
        return Ok(Frame::Incomplete);
    }
    let size = NativeEndian::read_u32(&buf[..HEADER_LEN]) as usize;
    if size > limit {
        return Err(FrameError::TooLarge { size, limit });
    }
    let end = HEADER_LEN + size;
    if buf.len() < end {
        return Ok(Frame::Incomplete);
    }
    Ok(Frame::Complete {
        body: &buf[HEADER_LEN..end],
        consumed: end,
    })
}

/// Parses a frame body as `T`.
pub fn parse<T: DeserializeOwned>(body: &[u8]) -> Result<T, FrameError> {
    Ok(serde_json::from_slice(body)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    #[test]
    fn round_trips_a_message() {
        let bytes = encode(&json!({"a": 1}), MAX_TO_BROWSER).unwrap();
        let Frame::Complete { body, consumed } = try_decode(&bytes, MAX_TO_BROWSER).unwrap() else {
            panic!("expected a complete frame");
        };
        assert_eq!(consumed, bytes.len());
        assert_eq!(parse::<Value>(body).unwrap(), json!({"a": 1}));
    }

    #[test]
    fn partial_header_and_partial_body_are_incomplete() {
        let bytes = encode(&json!("hello"), MAX_TO_BROWSER).unwrap();
        for cut in 0..bytes.len() {
            assert_eq!(
                try_decode(&bytes[..cut], MAX_TO_BROWSER).unwrap(),
                Frame::Incomplete,
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn two_frames_in_one_buffer_decode_one_at_a_time() {
        let mut bytes = encode(&json!(1), 100).unwrap();
        bytes.extend(encode(&json!(2), 100).unwrap());
        let Frame::Complete { body, consumed } = try_decode(&bytes, 100).unwrap() else {
            panic!("first frame incomplete");
        };
        assert_eq!(body, b"1");
        assert_eq!(
            try_decode(&bytes[consumed..], 100).unwrap(),
            Frame::Complete {
                body: b"2",
                consumed: 5
            }
        );
    }

    #[test]
    fn oversized_declared_length_is_refused_before_buffering() {
        let mut header = [0u8; 4];
        NativeEndian::write_u32(&mut header, (MAX_TO_BROWSER + 1) as u32);
        assert!(matches!(
            try_decode(&header, MAX_TO_BROWSER),
            Err(FrameError::TooLarge { .. })
        ));
    }

    #[test]
    fn encoding_over_the_limit_is_an_error_not_a_broken_frame() {
        let big = "x".repeat(200);
        assert!(matches!(
            encode(&big, 100),
            Err(FrameError::TooLarge { limit: 100, .. })
        ));
    }

    #[test]
    fn malformed_body_is_reported() {
        assert!(matches!(
            parse::<Value>(b"{nope"),
            Err(FrameError::Malformed(_))
        ));
    }

    /// A byte stream: whole frames of short bodies mixed with any bytes.
    fn stream() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        let frame = proptest::collection::vec(any::<u8>(), 0..40).prop_map(|body| {
            let mut bytes = (body.len() as u32).to_ne_bytes().to_vec();
            bytes.extend(body);
            bytes
        });
        let junk = proptest::collection::vec(any::<u8>(), 0..8);
        proptest::collection::vec(prop_oneof![3 => frame, 1 => junk], 0..8)
            .prop_map(|segments| segments.concat())
    }

    fn declared(buf: &[u8]) -> usize {
        NativeEndian::read_u32(&buf[..HEADER_LEN]) as usize
    }

    proptest::proptest! {
        /// Any bytes decode, frame after frame, into bodies within the limit, then
        /// "incomplete" or a "too large" that names the declared size; never a panic,
        /// never a frame read past the buffer, and bodies of any bytes parse or fail.
        #[test]
        fn any_stream_yields_frames_then_incomplete_or_too_large(
            buf in stream(),
            limit in 0usize..48,
        ) {
            let mut rest = &buf[..];
            loop {
                match try_decode(rest, limit) {
                    Ok(Frame::Incomplete) => {
                        proptest::prop_assert!(
                            rest.len() < HEADER_LEN || rest.len() < HEADER_LEN + declared(rest)
                        );
                        break;
                    }
                    Ok(Frame::Complete { body, consumed }) => {
                        proptest::prop_assert!(body.len() <= limit);
                        proptest::prop_assert_eq!(consumed, HEADER_LEN + body.len());
                        proptest::prop_assert!(consumed <= rest.len());
                        let _ = parse::<Value>(body);
                        rest = &rest[consumed..];
                    }
                    Err(FrameError::TooLarge { size, limit: l }) => {
                        proptest::prop_assert_eq!((size, l), (declared(rest), limit));
                        proptest::prop_assert!(size > limit);
                        break;
                    }
                    Err(FrameError::Malformed(e)) => {
                        proptest::prop_assert!(false, "try_decode parsed a body: {}", e);
                    }
                }
            }
        }

        /// Every value encodes within its limit or is refused whole, and decodes back.
        #[test]
        fn encoded_strings_round_trip_or_are_refused(text in ".{0,64}", limit in 0usize..80) {
            match encode(&text, limit) {
                Ok(bytes) => {
                    let Ok(Frame::Complete { body, consumed }) = try_decode(&bytes, limit) else {
                        return Err(proptest::test_runner::TestCaseError::fail("not one frame"));
                    };
                    proptest::prop_assert_eq!(consumed, bytes.len());
                    proptest::prop_assert_eq!(parse::<String>(body).ok(), Some(text));
                }
                Err(FrameError::TooLarge { size, .. }) => proptest::prop_assert!(size > limit),
                Err(e) => proptest::prop_assert!(false, "{}", e),
            }
        }
    }
}
