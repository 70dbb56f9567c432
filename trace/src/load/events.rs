//! The trace file read into events: `{"traceEvents": [...], "metadata": {...}}` (as
//! Chrome's stream and DevTools write it) or a bare array of events.
//!
//! Only the fields the insights use are read; anything else in an event is skipped
//! by serde, and an event of another shape (a metadata record, a sample) is kept with
//! defaults rather than failing the whole trace.

use serde::Deserialize;
use serde_json::Value;

/// One trace event.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Event {
    /// The event's name (`RunTask`, `LayoutShift`, ...).
    pub name: String,
    /// Its categories, comma-separated.
    pub cat: String,
    /// Its phase (`X` complete, `B`/`E` begin/end, `I` instant, `b`/`e` async, ...).
    pub ph: String,
    /// When it happened, in microseconds of the trace clock.
    pub ts: f64,
    /// How long it lasted (complete events), microseconds.
    pub dur: Option<f64>,
    /// The process.
    pub pid: i64,
    /// The thread.
    pub tid: i64,
    /// Its arguments.
    pub args: Value,
    /// An async event's id.
    pub id: Option<Value>,
    /// An async event's id, in the newer form.
    pub id2: Option<Value>,
}

impl Event {
    /// `args.data`, or `null`.
    pub fn data(&self) -> &Value {
        &self.args["data"]
    }

    /// The event's end (its start for events without a duration).
    pub fn end(&self) -> f64 {
        self.ts + self.dur.unwrap_or(0.0)
    }

    /// `args.data.<key>` as a string, or `""`.
    pub fn data_str(&self, key: &str) -> &str {
        self.data()[key].as_str().unwrap_or_default()
    }
}

/// A field Chrome writes as a string or as a number (ids, names), as text; `None` for
/// anything else.
pub fn text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A trace as DevTools saves it: its events under `traceEvents`.
#[derive(Debug, Deserialize)]
struct Object {
    #[serde(rename = "traceEvents")]
    trace_events: Vec<Event>,
}

/// Reads a trace's events, sorted by time.
pub fn parse(bytes: &[u8]) -> Result<Vec<Event>, String> {
    // Told apart by the first character rather than by trying each form in turn, which
    // would hold the whole file in memory once more while it tries.
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    let parsed = match first {
        Some(b'[') => serde_json::from_slice::<Vec<Event>>(bytes),
        Some(b'{') => serde_json::from_slice::<Object>(bytes).map(|o| o.trace_events),
        _ => {
            return Err(
                "the trace is not a JSON trace file: it is neither an object nor an array".into(),
            )
        }
    };
    let mut events = parsed.map_err(|e| format!("the trace is not a JSON trace file: {e}"))?;
    events.sort_by(|a, b| a.ts.total_cmp(&b.ts));
    Ok(events)
}

/// Adds one event, given as JSON, where its time puts it among `events` (sorted); an
/// event that does not parse is left out.
pub fn insert(events: &mut Vec<Event>, json: &str) {
    if let Ok(event) = serde_json::from_str::<Event>(json) {
        let at = events.partition_point(|e| e.ts <= event.ts);
        events.insert(at, event);
    }
}

/// Whether the renderer drew anything from `from` to `until` (a `DrawFrame` or a `Paint`).
/// A tab hidden in the background draws nothing, so its trace has no paint, LCP or
/// layout shift to report.
pub fn drew_frames(events: &[Event], from: f64, until: f64) -> bool {
    events
        .iter()
        .filter(|e| e.ts >= from && e.ts <= until)
        .any(|e| e.name == "DrawFrame" || e.name == "Paint")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn a_load_that_drew_no_frame_says_so_instead_of_paint_figures() {
        let trace = json!({"traceEvents": [
            {"name": "navigationStart", "ph": "R", "ts": 1000.0, "pid": 1, "tid": 2,
             "args": {"frame": "F", "data": {"documentLoaderURL": "https://a.test/",
                      "isLoadingMainFrame": true, "navigationId": "N"}}},
            {"name": "RunTask", "ph": "X", "ts": 2000.0, "dur": 10.0, "pid": 1, "tid": 2, "args": {}}
        ]});
        let report = crate::analyze_bytes(trace.to_string().as_bytes()).expect("a trace");
        assert!(!report.insight_sets[0].drew_frames);
        let summary = crate::text::summary(&report).join("\n");
        assert!(summary.contains("drew no frame"), "{summary}");
        assert!(!summary.contains("no LCP in the trace"), "{summary}");
    }

    #[test]
    fn an_event_is_inserted_in_time_order_and_a_bad_one_left_out() {
        let mut events = super::parse(
            json!([{"name": "a", "ph": "I", "ts": 1.0, "pid": 1, "tid": 1},
                   {"name": "c", "ph": "I", "ts": 3.0, "pid": 1, "tid": 1}])
            .to_string()
            .as_bytes(),
        )
        .expect("events");
        super::insert(
            &mut events,
            r#"{"name": "b", "ph": "I", "ts": 2.0, "pid": 1, "tid": 1}"#,
        );
        super::insert(&mut events, "not json");
        let names: Vec<&str> = events.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "c"]);
    }
}
