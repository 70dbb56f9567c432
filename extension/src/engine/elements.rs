//! Elements across the page boundary: `{"uid": ...}` in arguments become page objects,
//! and page objects in results become uids.
//!
//! In: [`find_uid_refs`] finds every object of exactly the shape `{"uid": "<string>"}`
//! in a JSON value (at any depth), [`Engine::element_objects`] turns the uids into
//! remote objects (uid → its world's node → backend node id → `DOM.resolveNode`) in the
//! JavaScript world of the call they are for, and the page-side script puts them back
//! at their paths.
//!
//! Out: a result's nodes come back as remote objects; [`Engine::uids_of_objects`]
//! names them in the main frame's isolated world (`DOM.describeNode` → backend node
//! id → `DOM.resolveNode` there → the walker's uid, the same uids snapshots show) and
//! pins them there so every snapshot shows them; [`insert_uids`] writes the uids where
//! the page-side serializer left its `@<n>` tokens.

use futures::future::join_all;
use serde_json::{Map, Value};
use tabwire_shared::TabId;

use super::uids::FrameKey;
use super::world::WalkerCall;
use crate::cdp::dom::{DomDescribeNode, DomResolveNode};
use crate::chrome::Chrome;
use crate::engine::context::Cx;
use crate::error::EngineError;
use crate::signals::Subscription;

/// Where the `{"uid": ...}` objects of a value were, and the value without them.
#[derive(Debug, Default, PartialEq)]
pub struct UidRefs {
    /// The value with each `{"uid": ...}` replaced by `null`.
    pub value: Value,
    /// The path to each (keys and indexes; empty: the value itself).
    pub paths: Vec<Vec<Value>>,
    /// The uids, in the same order.
    pub uids: Vec<String>,
}

/// Finds the `{"uid": "<string>"}` objects in `value`, depth-first in document order.
pub fn find_uid_refs(value: &Value) -> UidRefs {
    let mut out = value.clone();
    let mut paths = Vec::new();
    let mut uids = Vec::new();
    // Walk the original, edit the copy at the same paths afterwards.
    let mut stack: Vec<(Vec<Value>, &Value)> = vec![(Vec::new(), value)];
    while let Some((path, node)) = stack.pop() {
        match node {
            Value::Object(map) => {
                if let Some(uid) = as_uid_ref(map) {
                    paths.push(path);
                    uids.push(uid.to_owned());
                    continue;
                }
                // Reverse, so the stack pops them in order.
                for (key, child) in map.iter().rev() {
                    let mut at = path.clone();
                    at.push(Value::String(key.clone()));
                    stack.push((at, child));
                }
            }
            Value::Array(items) => {
                for (index, child) in items.iter().enumerate().rev() {
                    let mut at = path.clone();
                    at.push(Value::from(index));
                    stack.push((at, child));
                }
            }
            _ => {}
        }
    }
    for path in &paths {
        if let Some(slot) = pointer_mut(&mut out, path) {
            *slot = Value::Null;
        }
    }
    UidRefs {
        value: out,
        paths,
        uids,
    }
}

fn as_uid_ref(map: &Map<String, Value>) -> Option<&str> {
    match (map.len(), map.get("uid")) {
        (1, Some(Value::String(uid))) => Some(uid),
        _ => None,
    }
}

fn pointer_mut<'v>(value: &'v mut Value, path: &[Value]) -> Option<&'v mut Value> {
    let mut here = value;
    for step in path {
        here = match (here, step) {
            (Value::Object(map), Value::String(key)) => map.get_mut(key)?,
            (Value::Array(items), Value::Number(n)) => {
                items.get_mut(usize::try_from(n.as_u64()?).ok()?)?
            }
            _ => return None,
        };
    }
    Some(here)
}

/// Replaces each `@<n>` token outside the strings of a serializer's JSON text with
/// `{"uid": uids[n]}`; an `@<n>` inside a string is page data and stays as it is.
pub fn insert_uids(text: &str, uids: &[String]) -> Result<String, String> {
    let mut out = String::with_capacity(text.len() + uids.len() * 16);
    let mut chars = text.char_indices().peekable();
    let mut in_string = false;
    while let Some((_, c)) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                '\\' => {
                    if let Some((_, escaped)) = chars.next() {
                        out.push(escaped);
                    }
                }
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '@' => {
                let mut index = 0usize;
                let mut digits = 0;
                while let Some((_, d)) = chars.peek().copied() {
                    let Some(digit) = d.to_digit(10) else { break };
                    index = index.saturating_mul(10).saturating_add(digit as usize);
                    digits += 1;
                    chars.next();
                }
                let uid = uids
                    .get(index)
                    .filter(|_| digits > 0)
                    .ok_or_else(|| format!("element #{index} of {} is missing", uids.len()))?;
                out.push_str("{\"uid\":");
                out.push_str(&serde_json::to_string(uid).map_err(|e| e.to_string())?);
                out.push('}');
            }
            _ => out.push(c),
        }
    }
    Ok(out)
}

/// Remote objects for the elements `uids` name, made in the JavaScript context
/// `context` (the world of the call they are passed to) and kept in `group`.
/// An unknown uid, or one whose element is gone, is [`EngineError::StaleUid`]. The
/// tab is watched through `watch` meanwhile, like [`watched`](Self::watched) does.
pub(super) async fn element_objects<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    uids: &[String],
    group: &str,
    context: Option<i64>,
) -> Result<Vec<String>, EngineError> {
    let resolve = resolve_elements(cx, tab, uids, group, context);
    cx.watched(tab, watch, resolve).await
}

async fn resolve_elements<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    uids: &[String],
    group: &str,
    context: Option<i64>,
) -> Result<Vec<String>, EngineError> {
    let nodes = join_all(uids.iter().map(|uid| cx.node_for_uid(tab, uid, group)))
        .await
        .into_iter()
        .collect::<Result<Vec<_>, _>>()?;
    // The page's scripts run in the page's renderer; a cross-site frame's elements
    // live in another.
    if let Some(at) = nodes.iter().position(|node| node.session.is_some()) {
        return Err(EngineError::InCrossSiteFrame {
            uid: uids[at].clone(),
            what: "the page's scripts (evaluate_script, third-party tools) cannot reach",
            instead: "Act on it with the input tools by its uid (click, fill, hover, drag, \
                      upload_file, take_screenshot), or pass an element of the page itself.",
        });
    }
    let resolved = join_all(nodes.iter().map(|node| {
        let resolve = DomResolveNode {
            backend_node_id: node.backend,
            object_group: group.to_owned(),
            execution_context_id: context,
        };
        async move { cx.send(tab, &resolve).await }
    }))
    .await;
    uids.iter()
        .zip(resolved)
        .map(|(uid, outcome)| match outcome {
            Ok(found) => found
                .object
                .object_id
                .ok_or_else(|| EngineError::StaleUid(uid.clone())),
            // "No node with given id found": the element left the page.
            Err(EngineError::Cdp { .. }) => Err(EngineError::StaleUid(uid.clone())),
            Err(other) => Err(other),
        })
        .collect()
}

/// The uids of page nodes handed back as remote objects (of the main frame's
/// document or a same-origin frame's), pinned for snapshots; the objects this
/// makes are kept in `group`.
pub(super) async fn uids_of_objects<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    objects: Vec<String>,
    group: &str,
) -> Result<Vec<String>, EngineError> {
    let main = cx
        .with_document(tab, |d| FrameKey::tab(d.frame_id.clone()))
        .ok_or(EngineError::StaleTools(tab))?;
    uids_of_objects_in(cx, tab, &main, objects, group).await
}

/// [`uids_of_objects`](uids_of_objects) for nodes of `frame`'s document (a
/// cross-site frame's too: its objects are of its session).
pub(super) async fn uids_of_objects_in<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    frame: &FrameKey,
    objects: Vec<String>,
    group: &str,
) -> Result<Vec<String>, EngineError> {
    // Made once, before the nodes go there side by side.
    cx.ready_world(tab, frame).await?;
    let number = cx.next_snapshot_number();
    let named = join_all(objects.into_iter().map(|object_id| async move {
        let describe = DomDescribeNode {
            backend_node_id: None,
            object_id: Some(object_id),
        };
        let session = frame.session.as_deref();
        let node = cx.send_in(tab, session, &describe).await?;
        let node = node.node.backend_node_id;
        cx.uid_in_world(tab, frame, node, number, true, group)
            .await?
            .ok_or_else(|| {
                EngineError::UnreadablePageData(
                    "an element the tool returned could not be named".to_owned(),
                )
            })
    }))
    .await;
    let mut uids = Vec::with_capacity(named.len());
    for uid in named {
        let uid = uid?;
        let dropped = cx
            .with_document(tab, |d| {
                d.uids.learn(&uid, frame);
                d.pins.pin(&uid)
            })
            .ok_or(EngineError::StaleTools(tab))?;
        if let Some(oldest) = dropped {
            unpin(cx, tab, frame, oldest);
        }
        uids.push(uid);
    }
    Ok(uids)
}

/// Lets the world stop showing a pinned element (best effort, in the background).
fn unpin<C: Chrome + 'static>(cx: &Cx<'_, C>, tab: TabId, frame: &FrameKey, uid: String) {
    let frame = frame.clone();
    cx.in_background(move |bg| async move {
        let cx = &bg.cx();
        let unpin = |_| WalkerCall::Unpin(uid.clone());
        let _ = cx.call_walker(tab, &frame, unpin, "").await;
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn uid_objects_are_found_at_any_depth_in_order() {
        let refs = find_uid_refs(&json!({
            "target": {"uid": "1_2"},
            "more": {"list": [{"uid": "1_3"}, {"uid": 4}, {"uid": "x", "other": 1}]},
        }));
        assert_eq!(refs.uids, ["1_2", "1_3"]);
        assert_eq!(
            refs.paths,
            vec![
                vec![json!("target")],
                vec![json!("more"), json!("list"), json!(0)]
            ]
        );
        assert_eq!(
            refs.value,
            json!({"target": null, "more": {"list": [null, {"uid": 4}, {"uid": "x", "other": 1}]}})
        );
    }

    #[test]
    fn a_value_that_is_a_uid_object_has_an_empty_path() {
        let refs = find_uid_refs(&json!({"uid": "2_1"}));
        assert_eq!(refs.paths, vec![Vec::<Value>::new()]);
        assert_eq!(refs.value, Value::Null);
        assert!(find_uid_refs(&json!([1, "uid"])).uids.is_empty());
    }

    #[test]
    fn element_tokens_become_uid_objects_outside_strings_only() {
        let uids = vec!["3_1".to_owned(), "3_2".to_owned()];
        let text = r#"{"a":@0,"b":[@1,@0],"s":"@0 \"@1\\","t":"\\"}"#;
        let out = insert_uids(text, &uids).unwrap();
        let value: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(
            value,
            json!({"a": {"uid": "3_1"}, "b": [{"uid": "3_2"}, {"uid": "3_1"}], "s": "@0 \"@1\\", "t": "\\"})
        );
        assert!(insert_uids("@2", &uids).is_err());
        assert!(insert_uids("@", &uids).is_err());
    }
}
