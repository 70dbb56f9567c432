//! What a successful reply carries, typed per request.
//!
//! On the wire every reply is one [`Reply`]; a [`Request`](super::Request) names the
//! [`Answer`] its reply carries instead, so the host gets a `TabInfo` from `Navigate`
//! and the extension's handler returns one, and neither matches on `Reply` by hand.

use serde_json::Value;

use super::{
    ConsoleMessage, ConsolePage, Discovery, Emulation, NetworkRequest, Reply, Snapshot, TabInfo,
};

/// A reply's content, convertible to and from the [`Reply`] on the wire.
pub trait Answer: Sized {
    /// The reply that carries this.
    fn into_reply(self) -> Reply;
    /// This, if `reply` is the kind that carries it; else the reply as it came (boxed:
    /// a protocol mismatch, rare, need not make every answer as large as a reply).
    fn from_reply(reply: Reply) -> Result<Self, Box<Reply>>;
}

/// The result of a third-party tool, made JSON-safe ([`Reply::ToolResult`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    /// The result: elements replaced by `{"uid": …}`, cycles, functions, class
    /// instances and other non-JSON values replaced by descriptive strings.
    pub result: Value,
    /// The uids of the elements in `result`, in order of first appearance.
    pub elements: Vec<String>,
}

/// An input action was carried out and its effects waited for ([`Reply::Acted`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Acted {
    /// The URL the action navigated the page to, once loaded; `None` if it did not.
    pub navigated_to: Option<String>,
    /// How a click was made from the keyboard instead of the mouse (its window would
    /// have come forward for a mouse press), if it was.
    pub from_keyboard: Option<super::KeyboardClick>,
}

/// A captured image ([`Reply::Image`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    /// The image, base64-encoded.
    pub data: String,
    /// Its MIME type (`image/png`, ...).
    pub mime_type: String,
}

/// Implements [`Answer`] for types carried by one field of a reply (`Type => Variant
/// (field)`) or by all of them (`Type => Variant { fields }`).
macro_rules! answers {
    ($($ty:ty => $variant:ident $( ($field:ident) )? $( { $($fields:ident),* } )?;)*) => {
        $(impl Answer for $ty {
            fn into_reply(self) -> Reply {
                answers!(@into self, $variant $( ($field) )? $( { $($fields),* } )?)
            }
            fn from_reply(reply: Reply) -> Result<Self, Box<Reply>> {
                answers!(@from reply, $variant $( ($field) )? $( { $($fields),* } )?)
            }
        })*
    };
    (@into $me:ident, $variant:ident ($field:ident)) => { Reply::$variant { $field: $me } };
    (@into $me:ident, $variant:ident { $($fields:ident),* }) => {{
        let Self { $($fields),* } = $me;
        Reply::$variant { $($fields),* }
    }};
    (@from $reply:ident, $variant:ident ($field:ident)) => {
        match $reply {
            Reply::$variant { $field } => Ok($field),
            other => Err(Box::new(other)),
        }
    };
    (@from $reply:ident, $variant:ident { $($fields:ident),* }) => {
        match $reply {
            Reply::$variant { $($fields),* } => Ok(Self { $($fields),* }),
            other => Err(Box::new(other)),
        }
    };
}

answers! {
    Vec<TabInfo> => Tabs(tabs);
    TabInfo => Tab(tab);
    Value => Value(value);
    Snapshot => Snapshot(snapshot);
    Discovery => ThirdPartyTools(discovery);
    ToolResult => ToolResult { result, elements };
    Acted => Acted { navigated_to, from_keyboard };
    String => Found(text);
    Image => Image { data, mime_type };
    ConsolePage => ConsolePage(page);
    ConsoleMessage => ConsoleMessage(message);
    super::NetworkList => Network { requests, dropped };
    NetworkRequest => Request(request);
    Emulation => Emulation(emulation);
    super::requests::TraceChunk => TraceChunk(chunk);
    crate::css::CssStyles => CssStyles(styles);
    Vec<Option<String>> => NodeUids(uids);
    crate::webmcp::WebMcpTools => WebMcpTools(tools);
    crate::webmcp::WebMcpOutcome => WebMcpOutcome(outcome);
    super::requests::MemoryUsage => MemoryUsage(usage);
    super::requests::TabRequestAnswer => TabRequest(answer);
}

/// Success with nothing to report ([`Reply::Done`]).
impl Answer for () {
    fn into_reply(self) -> Reply {
        Reply::Done
    }
    fn from_reply(reply: Reply) -> Result<Self, Box<Reply>> {
        match reply {
            Reply::Done => Ok(()),
            other => Err(Box::new(other)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_answer_goes_into_its_reply_and_comes_back() {
        let acted = Acted {
            navigated_to: Some("https://a.test/".into()),
            from_keyboard: None,
        };
        assert_eq!(
            acted.clone().into_reply(),
            Reply::Acted {
                navigated_to: Some("https://a.test/".into()),
                from_keyboard: None,
            }
        );
        assert_eq!(Acted::from_reply(acted.clone().into_reply()), Ok(acted));
        assert_eq!(Value::from_reply(json!(1).into_reply()), Ok(json!(1)));
        assert_eq!(<()>::from_reply(Reply::Done), Ok(()));
    }

    #[test]
    fn a_reply_of_another_kind_is_handed_back() {
        assert_eq!(String::from_reply(Reply::Done), Err(Box::new(Reply::Done)));
        let value = Reply::Value { value: json!(2) };
        assert_eq!(<()>::from_reply(value.clone()), Err(Box::new(value)));
    }
}
