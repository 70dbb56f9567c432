//! `StartTrace`, `StopTrace`, `ReadTrace`: a performance trace of a tab, recorded by
//! Chrome and handed over in chunks.
//!
//! Recording uses `Tracing.start` with stream transfer, so the trace stays in the
//! browser until it is read: `Tracing.end` makes Chrome flush it and name a stream
//! (`Tracing.tracingComplete`), which is read with `IO.read` a chunk per request and
//! closed at its end or when the host discards it. What each tab is doing is kept
//! in the engine's state ([`Traces`], `engine/state/traces.rs`); a debugger detach or
//! the tab closing ends the recording in Chrome, and [`Traces::lost`] notes why, so a
//! later stop says so.
//!
//! While it records, focus emulation is on: it makes Chrome keep the tab visible, so a
//! tab the user is not looking at still draws frames (and its paints, LCP and layout
//! shifts are recorded). A hidden tab draws none, and a screencast does not change
//! that (measured on Chromium 156, headless).
//!
//! The trace itself is not read here: the host parses it.

use tabwire_shared::{TabId, TraceChunk, TRACE_CHUNK_BYTES, TRACE_STOP};

use crate::cdp::emulation::EmulationSetFocusEmulationEnabled;
use crate::cdp::tracing::{IoClose, IoRead, TracingEnd, TracingStart};
use crate::cdp::PageEvent;
use crate::chrome::Chrome;
use crate::engine::context::Cx;
use crate::engine::state::traces::TraceState;
#[cfg(doc)]
use crate::engine::state::traces::Traces;
use crate::error::EngineError;
use crate::signals::{within, TabSignal};

/// How much one `IO.read` asks for.
const READ_BYTES: usize = 1 << 20;

fn trace_state<C: Chrome + 'static>(cx: &Cx<'_, C>, tab: TabId) -> Option<TraceState> {
    cx.with_traces(|traces| traces.get(tab))
}

fn set_trace<C: Chrome + 'static>(cx: &Cx<'_, C>, tab: TabId, state: Option<TraceState>) {
    cx.with_traces(|traces| traces.set(tab, state));
}

async fn start_trace<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    css_selector_stats: bool,
) -> Result<(), EngineError> {
    let mut watch = cx.ready(tab).await?;
    match trace_state(cx, tab) {
        Some(TraceState::Recording) => return Err(EngineError::AlreadyTracing(tab)),
        // A stream the host never finished reading: its trace is of no more use.
        Some(TraceState::Stopped { stream }) => {
            let _ = cx.send(tab, &IoClose { handle: stream }).await;
        }
        Some(TraceState::Lost(_)) | None => {}
    }
    set_trace(cx, tab, None);
    let start = TracingStart::performance_panel(css_selector_stats);
    match cx.send_watched(tab, &mut watch, &start).await {
        Ok(_) => {
            set_trace(cx, tab, Some(TraceState::Recording));
            // A tab not in front draws nothing, so it would record no paint: no
            // LCP, no layout shift. Focus emulation makes Chrome keep it visible
            // (drawing) until the trace stops. Best effort: without it the
            // analysis says that no frame was drawn.
            let _ = cx
                .send(tab, &EmulationSetFocusEmulationEnabled { enabled: true })
                .await;
            Ok(())
        }
        Err(EngineError::Cdp { message, .. }) => Err(EngineError::TraceRefused { tab, message }),
        Err(other) => Err(other),
    }
}

async fn stop_trace<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
) -> Result<TraceChunk, EngineError> {
    match trace_state(cx, tab) {
        Some(TraceState::Recording) => {}
        Some(TraceState::Lost(why)) => {
            set_trace(cx, tab, None);
            return Err(EngineError::NotTracing {
                tab,
                why: format!(": the trace was lost ({why})"),
            });
        }
        Some(TraceState::Stopped { .. }) | None => {
            return Err(EngineError::NotTracing {
                tab,
                why: String::new(),
            })
        }
    }
    let mut watch = cx.attached(tab).await?;
    // From here on the recording is over, whatever happens.
    set_trace(cx, tab, None);
    let _ = cx
        .send(tab, &EmulationSetFocusEmulationEnabled { enabled: false })
        .await;
    cx.send_watched(tab, &mut watch, &TracingEnd {}).await?;
    let limit = TRACE_STOP.as_millis() as u64;
    let complete = async {
        loop {
            match watch.next().await {
                TabSignal::Page(PageEvent::TracingComplete { stream, data_loss }) => {
                    return Ok((stream, data_loss))
                }
                TabSignal::Closed | TabSignal::Closing => {
                    return Err(EngineError::ClosedDuringCommand(tab))
                }
                TabSignal::Detached(reason) => {
                    return Err(EngineError::DetachedDuringCommand { tab, reason })
                }
                TabSignal::Withdrawn(reason) => {
                    return Err(EngineError::WithdrawnDuringCommand { tab, reason })
                }
                _ => {}
            }
        }
    };
    let (stream, data_loss) = within(cx.chrome().sleep(limit), complete)
        .await
        .ok_or(EngineError::TraceTimeout { timeout_ms: limit })??;
    let stream = stream.ok_or(EngineError::UnexpectedAnswer {
        method: "Tracing.tracingComplete",
        detail: "no stream".into(),
    })?;
    set_trace(
        cx,
        tab,
        Some(TraceState::Stopped {
            stream: stream.clone(),
        }),
    );
    let mut chunk = read_trace(cx, tab, stream).await?;
    chunk.data_loss = data_loss;
    Ok(chunk)
}

/// Reads up to [`TRACE_CHUNK_BYTES`] of `stream`; at its end, closes it.
async fn read_trace<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    stream: String,
) -> Result<TraceChunk, EngineError> {
    if trace_state(cx, tab)
        != Some(TraceState::Stopped {
            stream: stream.clone(),
        })
    {
        return Err(EngineError::NotTracing {
            tab,
            why: ": its trace was already read, or discarded".into(),
        });
    }
    let mut watch = cx.attached(tab).await?;
    let mut data = String::new();
    let mut eof = false;
    while data.len() + READ_BYTES <= TRACE_CHUNK_BYTES && !eof {
        let read = IoRead {
            handle: stream.clone(),
            size: READ_BYTES,
        };
        let piece = match cx.send_watched(tab, &mut watch, &read).await {
            Ok(piece) => piece,
            Err(error) => {
                close_trace(cx, tab, &stream).await;
                return Err(error);
            }
        };
        if piece.base64_encoded {
            close_trace(cx, tab, &stream).await;
            return Err(EngineError::UnexpectedAnswer {
                method: "IO.read",
                detail: "the trace came compressed".into(),
            });
        }
        data.push_str(&piece.data);
        eof = piece.eof;
    }
    if eof {
        close_trace(cx, tab, &stream).await;
    }
    Ok(TraceChunk {
        stream,
        data,
        eof,
        data_loss: false,
    })
}

/// Closes a trace's stream and forgets it.
async fn close_trace<C: Chrome + 'static>(cx: &Cx<'_, C>, tab: TabId, stream: &str) {
    set_trace(cx, tab, None);
    let close = IoClose {
        handle: stream.to_owned(),
    };
    let _ = cx.send(tab, &close).await;
}

/// Starts recording.
impl super::Handle for tabwire_shared::StartTrace {
    const NEEDS_RENDERER: bool = true;

    async fn handle<C: Chrome + 'static>(self, cx: &Cx<'_, C>) -> Result<(), EngineError> {
        let tab = self.tab_id;
        cx.bounded(
            "start a performance trace",
            start_trace(cx, tab, self.css_selector_stats),
        )
        .await?
    }
}

/// Stops recording and answers the first chunk.
impl super::Handle for tabwire_shared::StopTrace {
    const NEEDS_RENDERER: bool = false;

    async fn handle<C: Chrome + 'static>(self, cx: &Cx<'_, C>) -> Result<TraceChunk, EngineError> {
        stop_trace(cx, self.tab_id).await
    }
}

/// Reads the next chunk, or discards the rest.
impl super::Handle for tabwire_shared::ReadTrace {
    const NEEDS_RENDERER: bool = false;

    async fn handle<C: Chrome + 'static>(self, cx: &Cx<'_, C>) -> Result<TraceChunk, EngineError> {
        let tab = self.tab_id;
        if self.discard {
            if trace_state(cx, tab)
                == Some(TraceState::Stopped {
                    stream: self.stream.clone(),
                })
            {
                close_trace(cx, tab, &self.stream).await;
            }
            return Ok(TraceChunk {
                stream: self.stream,
                data: String::new(),
                eof: true,
                data_loss: false,
            });
        }
        cx.bounded("read a performance trace", read_trace(cx, tab, self.stream))
            .await?
    }
}

#[cfg(test)]
mod tests {
    use super::super::fake::{Answer, Harness};
    use serde_json::json;
    use tabwire_shared::{requests::*, ErrorCode, Reply};

    fn chunk(reply: Reply) -> TraceChunk {
        reply.read().expect("a trace chunk")
    }

    #[test]
    fn css_selector_statistics_are_recorded_when_asked_for() {
        let mut h = Harness::new();
        h.call(
            1,
            StartTrace {
                tab_id: 11,
                css_selector_stats: true,
            },
        );
        h.settle();
        assert_eq!(h.reply_to::<StartTrace>(1).unwrap(), Ok(()));
        let started = h.fake.sent(11, "Tracing.start");
        let categories = &started[0]["traceConfig"]["includedCategories"];
        assert!(
            categories
                .as_array()
                .is_some_and(|c| c.contains(&json!("disabled-by-default-blink.debug"))),
            "{categories}"
        );
    }

    #[test]
    fn a_trace_records_streams_and_is_read_to_its_end_then_closed() {
        let mut h = Harness::new();
        h.call(
            1,
            StartTrace {
                tab_id: 11,
                css_selector_stats: false,
            },
        );
        h.settle();
        assert_eq!(h.reply_to::<StartTrace>(1).unwrap(), Ok(()));
        let started = h.fake.sent(11, "Tracing.start");
        assert_eq!(started[0]["transferMode"], "ReturnAsStream");
        assert_eq!(
            started[0]["traceConfig"]["excludedCategories"],
            json!(["*"])
        );

        let categories = started[0]["traceConfig"]["includedCategories"].to_string();
        assert!(!categories.contains("blink.debug"), "{categories}");

        h.call(
            2,
            StartTrace {
                tab_id: 11,
                css_selector_stats: false,
            },
        );
        h.settle();
        let error = h.reply(2).unwrap().unwrap_err();
        assert_eq!(error.code, ErrorCode::InvalidArgument);
        assert!(error.message.contains("already"), "{}", error.message);

        h.fake.answer(
            "IO.read",
            Answer::value(json!({"data": "{\"traceEvents\":[]}", "eof": true})),
        );
        h.fake.answer(
            "Tracing.end",
            Answer::with_events(
                json!({}),
                vec![(
                    "Tracing.tracingComplete",
                    json!({"stream": "s1", "dataLossOccurred": false}),
                )],
            ),
        );
        h.call(3, StopTrace { tab_id: 11 });
        h.settle();
        let first = chunk(h.reply(3).unwrap().unwrap());
        assert_eq!(first.data, "{\"traceEvents\":[]}");
        assert!(first.eof);
        assert_eq!(h.fake.sent(11, "IO.close")[0]["handle"], "s1");
        let focus = h.fake.sent(11, "Emulation.setFocusEmulationEnabled");
        assert_eq!(focus.len(), 2, "on while recording, then off: {focus:?}");
        assert_eq!(focus[1]["enabled"], false);

        h.call(4, StopTrace { tab_id: 11 });
        h.settle();
        let error = h.reply(4).unwrap().unwrap_err();
        assert!(
            error.message.contains("No performance trace"),
            "{}",
            error.message
        );
    }

    #[test]
    fn a_detach_while_recording_makes_the_stop_say_the_trace_was_lost() {
        let mut h = Harness::new();
        h.call(
            1,
            StartTrace {
                tab_id: 11,
                css_selector_stats: false,
            },
        );
        h.settle();
        assert_eq!(h.reply_to::<StartTrace>(1).unwrap(), Ok(()));
        h.engine.on_debugger_detached(11, "canceled_by_user");
        h.call(2, StopTrace { tab_id: 11 });
        h.settle();
        let error = h.reply(2).unwrap().unwrap_err();
        assert!(error.message.contains("lost"), "{}", error.message);
        assert!(h.fake.sent(11, "Tracing.end").is_empty());
    }
}
