//! What a frame's walk cannot see alone, asked of Chrome for the few elements that
//! need it, then walked again.
//!
//! - **ElementInternals.** A custom element may take its role, name and states from
//!   `attachInternals()`, which no script outside the element can read. The walker
//!   lists such hosts (`ask=`: custom elements with no role attribute whose own role is
//!   generic and that are focusable or hold no native semantic element in their shadow
//!   tree); for each, at once, the engine resolves the uid in the world and asks
//!   `Accessibility.getPartialAXTree {objectId, fetchRelatives: false}` (Chrome's
//!   answer is trusted, the page's content is not), and hands every answer back in one
//!   `adopt`. The walker keeps the answers per element. **Freshness rule:** the hosts
//!   are asked again at every snapshot, concurrently (internals change without any
//!   DOM mutation the walker could see, e.g. `ariaChecked` set on click); `adopt` says
//!   how many answers changed, and only then is the frame walked again. An answer
//!   counts only while its element is still a candidate, so a role attribute added
//!   later wins.
//! - **Closed shadow roots.** For a host the walker shows `shadow-root=closed` and lists
//!   (`closed=`), the engine finds the root (`DOM.describeNode {objectId, depth: 1,
//!   pierce: true}`), resolves it into the world (`DOM.resolveNode {backendNodeId,
//!   executionContextId}`) and hands it over with `addRoot` (or says there is none: the
//!   host is then shown as it is); the world keeps either for the element's life (a
//!   root never leaves its host), so each host is looked up once per world. Its
//!   content is then walked in place; a closed root that shows nothing keeps its host
//!   shown as `shadow-root=closed`.
//!
//! A page without such hosts costs nothing more: the walk says so in its first line.
//! A failed question leaves that element as the walker sees it.

use std::collections::HashSet;

use futures::future::join_all;
use serde_json::{json, Value};
use tabwire_shared::{TabId, WalkOptions};

use super::super::axtree::node_facts;
use super::super::uids::FrameKey;
use super::super::world::WalkerCall;
use super::lines::{Walk, WalkText};
use super::take_walk;
use crate::cdp::accessibility::AccessibilityGetPartialAxTree;
use crate::cdp::dom::{DomDescribeShadowRoots, DomResolveNode};
use crate::chrome::Chrome;
use crate::engine::context::Cx;
use crate::error::EngineError;

/// Rounds of questions and walks at most (closed roots inside closed roots, custom
/// elements inside them).
const MAX_ROUNDS: usize = 3;

/// Hosts asked about per round at most.
const MAX_HOSTS: usize = 200;

/// `walk` (of `frame`, walked in `context`) with Chrome's answers for the hosts it
/// lists, walked again if they changed it; the context of the walk answered.
pub(super) async fn complete_walk<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    frame: &FrameKey,
    context: i64,
    walk: Walk,
    number: u64,
    options: WalkOptions,
) -> Result<(i64, Walk), EngineError> {
    if walk.ask.is_empty() && walk.closed.is_empty() {
        return Ok((context, walk));
    }
    let group = cx.next_object_group();
    let done = ask_and_walk(cx, tab, frame, context, walk, number, options, &group).await;
    cx.release_objects_in(tab, frame.session.clone(), group);
    done
}

#[allow(clippy::too_many_arguments)]
async fn ask_and_walk<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    frame: &FrameKey,
    mut context: i64,
    mut walk: Walk,
    number: u64,
    options: WalkOptions,
    group: &str,
) -> Result<(i64, Walk), EngineError> {
    let mut asked: HashSet<String> = HashSet::new();
    let mut looked: HashSet<String> = HashSet::new();
    for _ in 0..MAX_ROUNDS {
        let fresh = |list: &[String], done: &HashSet<String>| -> Vec<String> {
            let new = list.iter().filter(|uid| !done.contains(*uid));
            new.take(MAX_HOSTS).cloned().collect()
        };
        let ask = fresh(&walk.ask, &asked);
        let closed = fresh(&walk.closed, &looked);
        if ask.is_empty() && closed.is_empty() {
            break;
        }
        let url = walk.url.as_str();
        let (answers, roots) = futures::join!(
            join_all(
                ask.iter()
                    .map(|uid| chrome_facts(cx, tab, frame, context, uid, url, group))
            ),
            join_all(
                closed
                    .iter()
                    .map(|uid| hand_closed_root(cx, tab, frame, context, uid, group))
            ),
        );
        let mut changed = roots.into_iter().any(|added| added);
        let answers: Vec<Value> = (ask.iter().zip(answers))
            .filter_map(|(uid, facts)| Some(json!([uid, facts?])))
            .collect();
        if !answers.is_empty() {
            let adopt = WalkerCall::Adopt(Value::Array(answers));
            let said = cx.walker_call_in(tab, frame, context, &adopt, "").await?;
            changed |= said.and_then(|s| s.value).and_then(|v| v.as_u64()) > Some(0);
        }
        asked.extend(ask);
        looked.extend(closed);
        if !changed {
            break;
        }
        let since = |c: i64| (c == context).then_some(walk.gen);
        let (now, text) = take_walk(cx, tab, frame, number, options, since).await?;
        match text {
            WalkText::Walked(again) => walk = again,
            // Nothing changed after all (the world's answer moved on meanwhile).
            WalkText::Unchanged(_) => break,
        }
        context = now;
    }
    Ok((context, walk))
}

/// Chrome's facts for one host, as the walker adopts them (`{role, name, value,
/// states}`); `None` if it could not be asked.
async fn chrome_facts<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    frame: &FrameKey,
    context: i64,
    uid: &str,
    url: &str,
    group: &str,
) -> Option<Value> {
    let object = resolve_in(cx, tab, frame, context, uid, group).await?;
    let ask = AccessibilityGetPartialAxTree {
        object_id: object,
        fetch_relatives: false,
    };
    let tree = cx.send_in(tab, frame.session.as_deref(), &ask).await.ok()?;
    let facts = node_facts(tree.nodes.first()?, url);
    // As the walker writes states: `name` or `name=value`, unquoted.
    let states: Vec<String> = (facts.states.iter())
        .map(|s| match &s.value {
            Some(value) => format!("{}={value}", s.name),
            None => s.name.clone(),
        })
        .collect();
    Some(json!({
        "role": facts.role,
        "name": facts.name,
        "value": facts.value,
        "states": states,
    }))
}

/// Finds a host's closed shadow root and hands it to the walker (or tells it there
/// is none); whether the walker took the news (it then walks differently).
async fn hand_closed_root<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    frame: &FrameKey,
    context: i64,
    uid: &str,
    group: &str,
) -> bool {
    let session = frame.session.as_deref();
    let Some(host) = resolve_in(cx, tab, frame, context, uid, group).await else {
        return false;
    };
    let describe = DomDescribeShadowRoots {
        object_id: host,
        depth: 1,
        pierce: true,
    };
    let Ok(described) = cx.send_in(tab, session, &describe).await else {
        return false;
    };
    let closed = (described.node.shadow_roots.iter()).find(|r| r.shadow_root_type == "closed");
    let root = match closed {
        Some(root) => {
            let resolve = DomResolveNode {
                backend_node_id: root.backend_node_id,
                object_group: group.to_owned(),
                execution_context_id: Some(context),
            };
            match cx.send_in(tab, session, &resolve).await {
                Ok(resolved) => match resolved.object.object_id {
                    Some(root) => Some(root),
                    None => return false,
                },
                Err(_) => return false,
            }
        }
        None => None,
    };
    let add = WalkerCall::AddRoot {
        uid: uid.to_owned(),
        root,
    };
    let said = cx.walker_call_in(tab, frame, context, &add, "").await;
    matches!(said, Ok(Some(answer)) if answer.value == Some(Value::Bool(true)))
}

/// The node a uid names in the world, as an object of `group`.
async fn resolve_in<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    frame: &FrameKey,
    context: i64,
    uid: &str,
    group: &str,
) -> Option<String> {
    let resolve = WalkerCall::Resolve(uid.to_owned());
    let answer = cx.walker_call_in(tab, frame, context, &resolve, group);
    answer.await.ok()??.object_id
}
