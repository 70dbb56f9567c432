//! `scripts/snapshot-fidelity`'s reference side: runs the snapshot's own
//! accessibility-tree filter (`engine/axtree.rs`, compiled in as it is) on
//! `Accessibility.getFullAXTree` answers.
//!
//! Reads from standard input a JSON array of pages, each `{"url": <page URL>, "frames":
//! [{"owner": <backend id of the frame's iframe, null for the main frame>, "nodes":
//! [<AX nodes>]}]}`, and writes a JSON array with, per page, the lines the snapshot
//! keeps: `{"backend", "depth", "role", "name", "value", "states": ["name[=value]"]}`.
//! With `--adopt`, it reads Chrome's answers for single nodes instead and writes what
//! the engine hands the walker for each (see `adopt`).
//! Not part of the extension: a tool for the fidelity check only.

use std::io::{Read, Write};

use serde::Deserialize;
use serde_json::{json, Value};

/// What `axtree.rs` reaches for through `crate::cdp`.
mod cdp {
    pub use tabwire_extension::cdp::*;
}

// rustfmt formats axtree.rs as part of the extension, not from here.
#[allow(dead_code)]
#[rustfmt::skip]
#[path = "../src/engine/axtree.rs"]
mod axtree;

/// One page's trees, as the script sends them.
#[derive(Deserialize)]
struct Page {
    url: String,
    frames: Vec<Frame>,
}

#[derive(Deserialize)]
struct Frame {
    owner: Option<i64>,
    nodes: Vec<cdp::accessibility::AxNode>,
}

/// `--adopt`: Chrome's answers for single nodes (`{"url", "nodes": [<AX node> or
/// null]}`), as the engine hands them to the walker (`axtree::node_facts`).
#[derive(Deserialize)]
struct Answers {
    url: String,
    nodes: Vec<Option<cdp::accessibility::AxNode>>,
}

fn adopt(input: &str) -> Result<Value, Box<dyn std::error::Error>> {
    let answers: Answers = serde_json::from_str(input)?;
    let facts = answers.nodes.iter().map(|node| {
        let Some(node) = node else { return Value::Null };
        let facts = axtree::node_facts(node, &answers.url);
        json!({"role": facts.role, "name": facts.name, "value": facts.value,
               "states": written(&facts.states)})
    });
    Ok(Value::Array(facts.collect()))
}

/// States as the walker writes them: `name` or `name=value`.
fn written(states: &[tabwire_shared::NodeState]) -> Vec<String> {
    states
        .iter()
        .map(|s| match &s.value {
            Some(v) => format!("{}={v}", s.name),
            None => s.name.clone(),
        })
        .collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut input = String::new();
    std::io::stdin().read_to_string(&mut input)?;
    if std::env::args().nth(1).as_deref() == Some("--adopt") {
        let mut stdout = std::io::stdout().lock();
        serde_json::to_writer(&mut stdout, &adopt(&input)?)?;
        stdout.write_all(b"\n")?;
        return Ok(());
    }
    let pages: Vec<Page> = serde_json::from_str(&input)?;
    let mut out = Vec::with_capacity(pages.len());
    for page in &pages {
        let frames: Vec<axtree::FrameNodes> = page
            .frames
            .iter()
            .map(|f| axtree::FrameNodes {
                owner: f.owner,
                nodes: &f.nodes,
            })
            .collect();
        let flat = axtree::flatten(&frames, false, &|_| false, &page.url);
        let lines: Vec<Value> = flat
            .nodes
            .iter()
            .map(|n| {
                let states = written(&n.states);
                json!({
                    "backend": n.backend,
                    "depth": n.depth,
                    "role": n.role,
                    "name": n.name,
                    "value": n.value.clone().unwrap_or_default(),
                    "states": states,
                })
            })
            .collect();
        out.push(Value::Array(lines));
    }
    let mut stdout = std::io::stdout().lock();
    serde_json::to_writer(&mut stdout, &out)?;
    stdout.write_all(b"\n")?;
    Ok(())
}
