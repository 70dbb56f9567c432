//! Prints tabwire's analysis of saved trace files as JSON, one line per file
//! (`{"file": …, "report": …}` or `{"file": …, "error": …}`): what `scripts/trace-check`
//! compares with DevTools' own trace engine.
//!
//! Usage: `cargo run -q -p tabwire-trace --example trace_report -- TRACE.json...`

use std::process::ExitCode;

fn main() -> ExitCode {
    let mut failed = false;
    for file in std::env::args().skip(1) {
        let line = match std::fs::read(&file) {
            Ok(bytes) => match tabwire_trace::analyze_bytes(&bytes) {
                Ok(report) => serde_json::json!({"file": file, "report": report}),
                Err(error) => serde_json::json!({"file": file, "error": error}),
            },
            Err(error) => serde_json::json!({"file": file, "error": error.to_string()}),
        };
        failed |= line.get("error").is_some();
        println!("{line}");
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
