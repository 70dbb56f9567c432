//! The JSON of what travels besides the requests' own lines, pinned: envelopes, a
//! failed reply, events, heartbeats and pieces. Each golden line must read into its
//! type and write back byte for byte, so a change to how the protocol is typed in Rust
//! cannot change what travels between the host and the extension. Every command and
//! its reply are pinned beside their request (`shared/src/protocol/golden.rs`).

use tabwire_shared::{Envelope, FromExtension, ToExtension};

fn round_trip<T: serde::Serialize + serde::de::DeserializeOwned>(golden: &str) {
    let typed: T = serde_json::from_str(golden).unwrap_or_else(|e| panic!("{golden}: {e}"));
    let again = serde_json::to_string(&typed).unwrap();
    assert_eq!(again, golden);
}

#[test]
fn a_failed_reply_keeps_its_json() {
    round_trip::<Envelope<FromExtension>>(
        r#"{"id":9,"body":{"reply":{"Err":{"code":"staleTools","message":"m"}}}}"#,
    );
}

#[test]
fn the_piece_envelope_keeps_its_json() {
    // A piece of a request cut for the native link: the request's id and client
    // around a slice of its JSON text.
    round_trip::<Envelope<ToExtension>>(
        r#"{"id":12,"client":3,"body":{"piece":{"v":1,"message":7,"index":0,"count":6,"data":"{\"id\":12,\"client\":3,\"body\":{\"call\":{\"comm"}}}"#,
    );
    let piece: Envelope<ToExtension> = serde_json::from_str(
        r#"{"id":12,"client":3,"body":{"piece":{"v":1,"message":7,"index":5,"count":6,"data":"é\""}}}"#,
    )
    .unwrap();
    let ToExtension::Piece(piece) = piece.body else {
        panic!("not a piece");
    };
    assert_eq!(
        (piece.index, piece.count, piece.data.as_str()),
        (5, 6, "é\"")
    );
}

#[test]
fn the_extension_says_which_pieces_it_joins_when_it_connects() {
    use tabwire_shared::Event;
    round_trip::<Envelope<FromExtension>>(
        r#"{"body":{"event":{"event":"browserConnected","version":"0.4.0","instance":"i","pieces":1}}}"#,
    );
    // An extension older than pieces says nothing: it joins none.
    let older: Event =
        serde_json::from_str(r#"{"event":"browserConnected","version":"0.3.0"}"#).unwrap();
    assert!(matches!(older, Event::BrowserConnected { pieces: 0, .. }));
    round_trip::<Event>(r#"{"event":"browserConnected","version":"0.3.0","instance":""}"#);
}

#[test]
fn heartbeats_keep_their_json_both_ways() {
    use tabwire_shared::{ExtensionHeard, FromExtension};
    // The extension's heartbeat to its host, and the host's answer (as before).
    round_trip::<Envelope<FromExtension>>(r#"{"body":{"ping":{"seq":3}}}"#);
    round_trip::<Envelope<ToExtension>>(r#"{"body":{"pong":{"seq":3}}}"#);
    // An agent's server pings its host, and the host pings its extension.
    round_trip::<Envelope<ToExtension>>(r#"{"body":{"ping":{"seq":4}}}"#);
    // The extension's answer, then the host's, which says what it knows of the extension.
    round_trip::<Envelope<FromExtension>>(r#"{"body":{"pong":{"seq":4}}}"#);
    for said in ["answered", "waiting", "absent", "unknown"] {
        round_trip::<Envelope<FromExtension>>(&format!(
            r#"{{"body":{{"pong":{{"seq":4,"extension":"{said}"}}}}}}"#
        ));
    }
    // A state added later reads as not known.
    let later: Envelope<FromExtension> =
        serde_json::from_str(r#"{"body":{"pong":{"seq":4,"extension":"someday"}}}"#).unwrap();
    assert!(matches!(
        later.body,
        FromExtension::Pong {
            extension: Some(ExtensionHeard::Unknown),
            ..
        }
    ));
}
