//! Performance traces: start recording, stop, and read the recording in chunks.
//!
//! A trace can be tens of megabytes, more than one native-messaging message should
//! carry, so it crosses in chunks: [`StopTrace`] ends the recording and answers the
//! first chunk with the handle of the rest, and [`ReadTrace`] reads the next one (or
//! discards the rest). Each chunk is at most [`TRACE_CHUNK_BYTES`] of the trace's
//! JSON text.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::protocol::{Request, TabId, PLAIN_CALL};

/// The most trace text one [`TraceChunk`] carries (bytes). Escaped in a JSON string it
/// is at most twice that, far below the 64 MiB of a message to the native host.
pub const TRACE_CHUNK_BYTES: usize = 4 << 20;

/// How long stopping may take: Chrome flushes every process's trace buffer first.
pub const TRACE_STOP: Duration = Duration::from_secs(60);

/// Starts recording a performance trace of a tab (`Tracing.start`, stream transfer,
/// the categories DevTools' Performance panel records).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StartTrace {
    /// The tab.
    pub tab_id: TabId,
    /// Also record how long each CSS selector took to match (Chrome's selector
    /// statistics, which slow style recalculation down while they record).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub css_selector_stats: bool,
}

impl Request for StartTrace {
    type Reply = ();
    const RESENDABLE: bool = false;
    const LEAVES_TABS_ALONE: bool = true;
    fn tab(&self) -> Option<TabId> {
        Some(self.tab_id)
    }
    fn timeout(&self) -> Duration {
        PLAIN_CALL
    }
}

/// Stops the tab's recording; answers the trace's first chunk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StopTrace {
    /// The tab.
    pub tab_id: TabId,
}

impl Request for StopTrace {
    type Reply = TraceChunk;
    const RESENDABLE: bool = false;
    const LEAVES_TABS_ALONE: bool = true;
    fn tab(&self) -> Option<TabId> {
        Some(self.tab_id)
    }
    fn timeout(&self) -> Duration {
        TRACE_STOP
    }
}

/// Reads the next chunk of a stopped trace, or, with `discard`, closes its stream.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadTrace {
    /// The tab.
    pub tab_id: TabId,
    /// The stream, as [`TraceChunk::stream`] named it.
    pub stream: String,
    /// Close the stream without reading further.
    #[serde(default)]
    pub discard: bool,
}

impl Request for ReadTrace {
    type Reply = TraceChunk;
    const RESENDABLE: bool = false;
    const LEAVES_TABS_ALONE: bool = true;
    fn tab(&self) -> Option<TabId> {
        Some(self.tab_id)
    }
    fn timeout(&self) -> Duration {
        crate::protocol::CAPTURE
    }
}

/// A piece of a trace's JSON text, in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TraceChunk {
    /// The stream the rest is read from.
    pub stream: String,
    /// The text (at most [`TRACE_CHUNK_BYTES`]).
    pub data: String,
    /// This was the last chunk; the stream is closed.
    pub eof: bool,
    /// Chrome lost events while recording (its buffer filled).
    #[serde(default)]
    pub data_loss: bool,
}

/// Its command and reply as they travel, pinned.
impl crate::protocol::Golden for StartTrace {
    const COMMANDS: &[&str] = &[
        r#"{"command":"startTrace","tabId":3}"#,
    ];
    const REPLIES: &[&str] = &[
        r#"null"#,
    ];
}

/// Its command and reply as they travel, pinned.
impl crate::protocol::Golden for StopTrace {
    const COMMANDS: &[&str] = &[
        r#"{"command":"stopTrace","tabId":3}"#,
    ];
    const REPLIES: &[&str] = &[
        r#"{"stream":"7","data":"{\"traceEvents\":[","eof":false,"dataLoss":true}"#,
    ];
}

/// Its command and reply as they travel, pinned.
impl crate::protocol::Golden for ReadTrace {
    const COMMANDS: &[&str] = &[
        r#"{"command":"readTrace","tabId":3,"stream":"7","discard":true}"#,
        r#"{"command":"readTrace","tabId":3,"stream":"7","discard":false}"#,
    ];
    const REPLIES: &[&str] = &[
        r#"{"stream":"7","data":"]}","eof":true,"dataLoss":false}"#,
    ];
}
