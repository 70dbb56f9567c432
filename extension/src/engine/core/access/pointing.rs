//! The user pointing at an element for an agent.
//!
//! From the popup, on a tab shared with an agent, "Point at an element" turns on the
//! browser's own inspect highlight (`Overlay.setInspectMode searchForNode`) in that
//! tab: the element under the pointer is drawn as DevTools draws it, and the click
//! that picks it does not reach the page. The pick is named for the agent (a snapshot
//! uid that `click` takes, its role and accessible name) and sent to it alone
//! ([`Event::UserPointed`]); its next reply carries it. One pick at a time, in the
//! tab's main frame; the popup's Cancel, or a new pick, ends the one before. The popup
//! shows the pick under way until the agent has been told, so a popup that no longer
//! shows it means the agent's next reply carries the element; a tab no longer shared
//! with the agent by then tells it nothing.
//!
//! [`Pointer`] holds the pick under way and decides what each change means (a page's
//! event, the scopes changing, the agent told); the work in the tab (the highlight on
//! and off, naming the element) takes the context a command gets ([`Cx`]). The engine
//! (`access/mod.rs`) puts them together: it runs what outlives the popup's call in the
//! background and posts the pick to the agent.

use std::cell::RefCell;

use tabwire_shared::{Event, TabId};

use super::scopes::Sharing;
use crate::cdp::accessibility::AccessibilityNodeOf;
use crate::cdp::dom::OverlaySetInspectMode;
use crate::cdp::events::PointingEvent;
use crate::chrome::Chrome;
use crate::engine::axtree::node_facts;
use crate::engine::context::Cx;

/// A pick under way: which tab, for which agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pointing {
    /// The tab the highlight is on.
    pub tab: TabId,
    /// The agent the pick is for.
    pub session: String,
    /// The user has picked: the highlight is off and the agent is being told.
    pub picked: bool,
}

/// What an inspect-mode event from a tab calls for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::engine) enum Heard {
    /// Not about the pick under way, or it was picked already: nothing.
    Nothing,
    /// The user ended the pick in the page (Escape): the popup shows it.
    Canceled,
    /// The user picked the element `node` (a backend node id) for `pick`: the
    /// highlight goes and the agent is told.
    Picked(Pointing, i64),
}

/// The user's pick of an element for an agent, while under way.
#[derive(Debug, Default)]
pub(in crate::engine) struct Pointer {
    under_way: RefCell<Option<Pointing>>,
}

impl Pointer {
    /// The pick under way, as the popup shows it.
    pub(in crate::engine) fn under_way(&self) -> Option<Pointing> {
        self.under_way.borrow().clone()
    }

    /// A pick in `tab` for `session` started (its highlight is on).
    pub(in crate::engine) fn begin(&self, tab: TabId, session: &str) {
        *self.under_way.borrow_mut() = Some(Pointing {
            tab,
            session: session.to_owned(),
            picked: false,
        });
    }

    /// Ends the pick under way (the popup's Cancel, a new pick): the one that was, for
    /// its highlight to be taken off.
    pub(in crate::engine) fn take(&self) -> Option<Pointing> {
        self.under_way.borrow_mut().take()
    }

    /// The scopes changed: a pick under way in a tab no longer shared with its agent
    /// (unshared, the agent disconnected or gone) ends, rather than stay in the popup
    /// for a pick that would tell nobody. Returns it, for its highlight to go.
    pub(in crate::engine) fn out_of_scope(&self, sharing: &Sharing) -> Option<Pointing> {
        let mut pointing = self.under_way.borrow_mut();
        match pointing.as_ref() {
            Some(p) if !p.picked && !sharing.may_use(&p.session, p.tab) => pointing.take(),
            _ => None,
        }
    }

    /// An inspect-mode event from `tab`'s own session: what it calls for.
    pub(in crate::engine) fn heard(&self, tab: TabId, event: PointingEvent) -> Heard {
        let mut pointing = self.under_way.borrow_mut();
        // Not ours, or picked already (a second click before the highlight went, or
        // the end of the inspect mode that the pick itself asked for).
        let Some(under_way) = pointing.as_mut().filter(|p| p.tab == tab && !p.picked) else {
            return Heard::Nothing;
        };
        match event {
            PointingEvent::Canceled => {
                *pointing = None;
                Heard::Canceled
            }
            PointingEvent::Picked { backend_node_id } => {
                under_way.picked = true;
                Heard::Picked(under_way.clone(), backend_node_id)
            }
        }
    }

    /// The agent was told of `pick`: it ends, unless the popup's Cancel or a new pick
    /// came meanwhile. True when it did (the popup shows it).
    pub(in crate::engine) fn told(&self, pick: &Pointing) -> bool {
        let mut pointing = self.under_way.borrow_mut();
        if pointing.as_ref() == Some(pick) {
            *pointing = None;
            true
        } else {
            false
        }
    }
}

/// Refuses a pick in `tab` for `session` unless the tab is shared with it. The error
/// is for the user.
pub(in crate::engine) fn may_point(
    sharing: &Sharing,
    session: &str,
    tab: TabId,
) -> Result<(), String> {
    if sharing.sharers(tab).iter().any(|s| s == session) {
        Ok(())
    } else {
        Err("That tab is not shared with that agent.".to_owned())
    }
}

/// How the element under the pointer is drawn: DevTools' inspect colours.
fn highlight() -> serde_json::Value {
    serde_json::json!({
        "showInfo": true,
        "showStyles": false,
        "contentColor": {"r": 111, "g": 168, "b": 220, "a": 0.66},
        "paddingColor": {"r": 147, "g": 196, "b": 125, "a": 0.55},
        "borderColor": {"r": 255, "g": 229, "b": 153, "a": 0.66},
        "marginColor": {"r": 246, "g": 178, "b": 107, "a": 0.66},
    })
}

/// Turns the inspect highlight on in `tab`, attaching to it first. The error is for
/// the user.
pub(in crate::engine) async fn highlight_on<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
) -> Result<(), String> {
    cx.ready(tab)
        .await
        .map_err(|e| format!("tabwire could not reach the tab: {e}"))?;
    let inspect = OverlaySetInspectMode {
        mode: "searchForNode",
        highlight_config: highlight(),
    };
    cx.send(tab, &inspect)
        .await
        .map_err(|e| format!("tabwire could not start pointing: {e}"))?;
    Ok(())
}

/// Takes the inspect highlight off `tab`.
pub(in crate::engine) async fn highlight_off<C: Chrome + 'static>(cx: &Cx<'_, C>, tab: TabId) {
    let none = OverlaySetInspectMode {
        mode: "none",
        highlight_config: serde_json::json!({}),
    };
    // The tab may have closed or been let go: then the highlight went with it.
    if let Err(error) = cx.send(tab, &none).await {
        cx.chrome().log(&format!(
            "tabwire: could not end pointing in tab {tab}: {error}"
        ));
    }
}

/// Names the element `node` picked in `tab` for the agent of `cx`: the event that
/// tells it, or, when the element cannot be named, the line to log.
pub(in crate::engine) async fn name_pick<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    node: i64,
) -> Result<Event, String> {
    let group = cx.next_object_group();
    let uid = (cx.bounded("name the element", cx.node_uids(tab, &[node], &group))).await;
    cx.release_objects(tab, group);
    let uid = match uid {
        Ok(Ok(uids)) => uids.into_iter().next().flatten(),
        Ok(Err(error)) | Err(error) => {
            return Err(format!(
                "tabwire: could not name the element pointed at: {error}"
            ))
        }
    };
    let Some(uid) = uid else {
        return Err("tabwire: the element pointed at left the page".to_owned());
    };
    let ask = AccessibilityNodeOf {
        backend_node_id: node,
        fetch_relatives: false,
    };
    let url = cx
        .chrome()
        .tab(tab)
        .await
        .ok()
        .flatten()
        .map(|t| t.url)
        .unwrap_or_default();
    let (role, name) = match cx.send(tab, &ask).await {
        Ok(tree) => tree
            .nodes
            .first()
            .map(|n| node_facts(n, &url))
            .map(|f| (f.role, f.name))
            .unwrap_or_default(),
        Err(_) => Default::default(),
    };
    Ok(Event::UserPointed {
        tab_id: tab,
        uid,
        role,
        name,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use tabwire_shared::Event;

    use crate::engine::fake::page::set_buttons;
    use crate::engine::fake::{Answer, Harness};

    /// Agent "k1" (client 1) has tab 10 shared, showing buttons Save (5) and Open (6);
    /// agent "k2" (client 2) has nothing.
    fn two_agents() -> Harness {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        h.hello(2, "k2", "codex");
        h.share("k1", 10);
        set_buttons(&h, &[(5, "Save"), (6, "Open")]);
        h.fake.answer_with("DOM.resolveNode", |params| {
            let node = params["backendNodeId"].as_i64().unwrap_or_default();
            Answer::value(json!({"object": {"type": "object", "subtype": "node",
                "objectId": format!("node-{node}")}}))
        });
        h.fake.answer(
            "Accessibility.getPartialAXTree",
            Answer::value(json!({"nodes": [{"nodeId": "6", "ignored": false,
                "role": {"type": "role", "value": "button"},
                "name": {"type": "computedString", "value": "Open"}}]})),
        );
        h
    }

    /// The modes of every `Overlay.setInspectMode` sent to tab 10, each checked to
    /// carry the highlight configuration Chrome requires (else it refuses the command,
    /// and a `none` refused leaves the tab swallowing every click).
    fn inspect_modes(h: &Harness) -> Vec<String> {
        h.fake
            .sent(10, "Overlay.setInspectMode")
            .iter()
            .map(|p| {
                assert!(p["highlightConfig"].is_object(), "{p}");
                p["mode"].as_str().unwrap_or_default().to_owned()
            })
            .collect()
    }

    fn pointing_shown(h: &mut Harness) -> serde_json::Value {
        let engine = h.engine.clone();
        let state = h.run(async move { engine.popup_state(Some(10)).await });
        serde_json::to_value(&state).unwrap()["pointing"].clone()
    }

    #[test]
    fn the_pick_goes_to_its_agent_alone_with_a_uid_and_the_highlight_ends() {
        let mut h = two_agents();
        let point = json!({"action": "point", "session": "k1", "tab": 10});
        assert_eq!(h.popup(point), Ok(()));
        assert_eq!(inspect_modes(&h), ["searchForNode"]);
        assert_eq!(pointing_shown(&mut h)["name"], "claude");

        h.fake.emit(
            10,
            None,
            "Overlay.inspectNodeRequested",
            json!({"backendNodeId": 6}),
        );
        h.settle();
        assert_eq!(inspect_modes(&h), ["searchForNode", "none"]);
        let picked: Vec<Event> = h
            .events_for(1)
            .into_iter()
            .filter(|e| matches!(e, Event::UserPointed { .. }))
            .collect();
        let [Event::UserPointed {
            tab_id,
            uid,
            role,
            name,
        }] = picked.as_slice()
        else {
            panic!("one pick for the agent: {picked:?}");
        };
        assert_eq!(
            (*tab_id, role.as_str(), name.as_str()),
            (10, "button", "Open")
        );
        assert!(!uid.is_empty());
        let to_other = h.events_for(2);
        assert!(
            !to_other
                .iter()
                .any(|e| matches!(e, Event::UserPointed { .. })),
            "{to_other:?}"
        );
        assert!(pointing_shown(&mut h).is_null(), "the popup shows no pick");
    }

    fn picks_for(h: &Harness, client: u64) -> usize {
        h.events_for(client)
            .iter()
            .filter(|e| matches!(e, Event::UserPointed { .. }))
            .count()
    }

    #[test]
    fn a_double_click_is_one_pick_and_the_end_of_inspecting_it_brings_changes_nothing() {
        let mut h = two_agents();
        let point = json!({"action": "point", "session": "k1", "tab": 10});
        assert_eq!(h.popup(point), Ok(()));
        let picked = json!({"backendNodeId": 6});
        h.fake
            .emit(10, None, "Overlay.inspectNodeRequested", picked.clone());
        h.fake
            .emit(10, None, "Overlay.inspectNodeRequested", picked);
        h.fake
            .emit(10, None, "Overlay.inspectModeCanceled", json!({}));
        h.settle();
        assert_eq!(picks_for(&h, 1), 1);
        assert_eq!(inspect_modes(&h), ["searchForNode", "none"]);
        assert!(pointing_shown(&mut h).is_null());
    }

    #[test]
    fn unsharing_the_tab_ends_the_pick_and_tells_the_agent_nothing() {
        let mut h = two_agents();
        let point = json!({"action": "point", "session": "k1", "tab": 10});
        assert_eq!(h.popup(point), Ok(()));
        let unshare = json!({"action": "unshare", "session": "k1", "tab": 10});
        assert_eq!(h.popup(unshare), Ok(()));
        h.fake.emit(
            10,
            None,
            "Overlay.inspectNodeRequested",
            json!({"backendNodeId": 6}),
        );
        h.settle();
        assert_eq!(picks_for(&h, 1), 0);
        // (The tab, shared with nobody now, was let go, and its highlight with it.)
        assert!(pointing_shown(&mut h).is_null(), "the popup shows no pick");
    }

    #[test]
    fn a_tab_not_shared_with_the_agent_cannot_be_pointed_at_and_cancel_ends_the_pick() {
        let mut h = two_agents();
        let other = json!({"action": "point", "session": "k2", "tab": 10});
        let refused = h.popup(other).unwrap_err();
        assert!(refused.contains("not shared with that agent"), "{refused}");
        assert!(inspect_modes(&h).is_empty());

        let point = json!({"action": "point", "session": "k1", "tab": 10});
        assert_eq!(h.popup(point), Ok(()));
        assert_eq!(h.popup(json!({"action": "cancelPoint"})), Ok(()));
        assert_eq!(inspect_modes(&h), ["searchForNode", "none"]);
        assert!(pointing_shown(&mut h).is_null());
        // An Escape in the page ends it the same way.
        let point = json!({"action": "point", "session": "k1", "tab": 10});
        assert_eq!(h.popup(point), Ok(()));
        h.fake
            .emit(10, None, "Overlay.inspectModeCanceled", json!({}));
        h.settle();
        assert!(pointing_shown(&mut h).is_null());
        assert!(h
            .events_for(1)
            .iter()
            .all(|e| !matches!(e, Event::UserPointed { .. })));
    }
}
