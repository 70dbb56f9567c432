//! A successful reply as it travels: the request's own reply type, as JSON.
//!
//! A reply names no type on the wire. Only the end that sent a request knows what it
//! asked, so it is the one that reads the reply, into the request's
//! [`Request::Reply`](super::Request::Reply) ([`Reply::read`]); the extension writes
//! one from its handler's answer ([`Reply::new`]). Between them (the relay, the
//! link's bookkeeping) a reply is carried as the JSON text it came as, never parsed.
//! So a new command's reply type needs nothing here: its serde shape is its wire
//! shape, pinned in its request's file (`golden.rs` checks it).

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// What a request's handler answered, as the JSON text of its reply type (`null` for
/// `()`: success with nothing to report). Being raw text, it reads only from JSON text
/// (`serde_json::from_str`, `from_slice`, as frames are read), not from a parsed
/// `serde_json::Value`.
#[derive(Clone, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Reply(Box<RawValue>);

impl Reply {
    /// The reply carrying `answer`. Fails only for a value JSON cannot hold (a map
    /// whose keys are not strings), which no reply type has.
    pub fn new<T: Serialize + ?Sized>(answer: &T) -> Result<Self, serde_json::Error> {
        serde_json::value::to_raw_value(answer).map(Self)
    }

    /// The reply read as `T`, the reply type of the request it answers. An error means
    /// the other end wrote another shape: the extension and the program are of
    /// different versions (see [`crate::version::unreadable_reply`]).
    pub fn read<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self.0.get())
    }

    /// The JSON text, as it travels.
    pub fn json(&self) -> &str {
        self.0.get()
    }
}

/// Replies are equal when their JSON texts are (both are written by serde_json, so one
/// value has one text).
impl PartialEq for Reply {
    fn eq(&self, other: &Self) -> bool {
        self.json() == other.json()
    }
}

impl std::fmt::Debug for Reply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Reply({})", self.json())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Acted, TabInfo};
    use serde_json::json;

    #[test]
    fn a_reply_carries_its_answer_as_its_own_json() {
        let acted = Acted {
            navigated_to: Some("https://a.test/".into()),
            from_keyboard: None,
        };
        let reply = Reply::new(&acted).unwrap();
        assert_eq!(reply.json(), r#"{"navigatedTo":"https://a.test/"}"#);
        assert_eq!(reply.read::<Acted>().unwrap(), acted);
        assert_eq!(Reply::new(&()).unwrap().json(), "null");
        assert_eq!(Reply::new(&()).unwrap().read::<()>().unwrap(), ());
        assert_eq!(
            Reply::new(&json!([1])).unwrap(),
            Reply::new(&vec![1]).unwrap()
        );
    }

    #[test]
    fn a_reply_of_another_shape_does_not_read() {
        let done = Reply::new(&()).unwrap();
        assert!(done.read::<Vec<TabInfo>>().is_err());
        assert!(Reply::new(&"text").unwrap().read::<Acted>().is_err());
    }
}
