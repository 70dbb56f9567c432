//! `Input`: click, hover, fill, type, press keys, drag and upload as a user would,
//! then wait for what the action set off.
//!
//! Every action is real input (`Input.dispatchMouseEvent`, `Input.dispatchKeyEvent`,
//! `Input.insertText`), aimed at the middle of the element's visible box after
//! scrolling it into view, so the page sees the same events a person would cause.
//! Before dispatching anything the engine subscribes to the tab's events and starts a
//! page-side DOM watcher; afterwards [`settle`] waits for a navigation
//! the action started, or for the DOM to go quiet. A dialog the action opens ends the
//! command successfully: the host shows it from the `DialogOpened` event, which is
//! posted before the reply.
//!
//! Where a mouse press would bring the user's window forward, a click is made from the
//! keyboard instead ([`keyclick`]) and other presses are refused ([`raise`]).
//!
//! Keys are in [`keyboard`](super::keyboard), form controls and file inputs in
//! [`forms`](super::forms).

mod keyclick;
mod raise;
mod reach;
mod settle;

use std::cell::Cell;

use tabwire_shared::keys::parse_combo;
use tabwire_shared::{Acted, InputAction, KeyboardClick, RaisedWindow, TabId};

use super::document::NodeRef;
use super::forms::{fill, upload};
use super::keyboard::{press_combo, type_text};
use crate::cdp::capture::PageGetLayoutMetrics;
use crate::cdp::dom::DomResolveNode;
use crate::cdp::input::{
    DomGetContentQuads, DomScrollIntoViewIfNeeded, InputDispatchDragEvent, InputDispatchMouseEvent,
    InputSetInterceptDrags, Rect,
};
use crate::cdp::PageEvent;
use crate::chrome::Chrome;
use crate::engine::context::Cx;
use crate::error::EngineError;
use crate::signals::{Subscription, TabSignal};
use keyclick::click_from_keyboard;
use raise::{keyboard_instead, overlay_for_mouse};
use reach::{confirm_received, draw_first_frame};
use settle::{start_watcher, stop_watcher};

/// How many intermediate mouse moves a drag makes.
const DRAG_STEPS: u32 = 5;

/// How long a drag waits for Chrome to report an HTML5 drag after the moves.
const DRAG_START_MS: u64 = 50;

/// What an action has done so far: for its reply, and for its error if it ends early.
#[derive(Debug, Default)]
pub(super) struct Progress {
    /// A navigation it started is under way (running out of time is then a load
    /// timeout).
    pub navigating: Cell<bool>,
    /// The click was made from the keyboard ([`keyclick`]).
    pub from_keyboard: Cell<Option<KeyboardClick>>,
}

/// Carries out `action` on `tab` and waits for its effects: the URL the page
/// navigated to, if it did, and how a click was made from the keyboard, if it was.
pub(super) async fn input<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    action: &InputAction,
    timeout_ms: u64,
) -> Result<Acted, EngineError> {
    check_keys(action)?;
    let keyboard = keyboard_instead(cx, tab, action).await?;
    let progress = Progress::default();
    let work = act(cx, tab, action, keyboard, &progress);
    let timed_out = || {
        if progress.navigating.get() {
            EngineError::LoadTimeout {
                tab,
                target: "the page the action opened".to_owned(),
                timeout_ms,
            }
        } else {
            EngineError::ActionTimeout { tab, timeout_ms }
        }
    };
    let navigated_to = cx
        .in_time(tab, timeout_ms, work)
        .await?
        .ok_or_else(timed_out)?;
    Ok(Acted {
        navigated_to,
        from_keyboard: progress.from_keyboard.get(),
    })
}

/// Carries out `action`, from the keyboard if `keyboard` says why a mouse press
/// would have raised the window; the URL navigated to, if any.
async fn act<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    action: &InputAction,
    keyboard: Option<RaisedWindow>,
    progress: &Progress,
) -> Result<Option<String>, EngineError> {
    let mut watch = cx.ready(tab).await?;
    if raise::moves_mouse(action) && keyboard.is_none() {
        overlay_for_mouse(cx, tab).await?;
    }
    let tree = cx.sync_document(tab, &mut watch).await?;
    let main = tree.frame.id;
    let group = cx.next_object_group();
    let watcher = start_watcher(cx, tab, &mut watch, &group).await;
    let outcome = match &watcher {
        Ok(watcher) => {
            let watcher = watcher.as_deref();
            let (group, main) = (group.as_str(), main.as_str());
            act_watched(
                cx, tab, &mut watch, action, group, main, watcher, keyboard, progress,
            )
            .await
        }
        Err(_) => Ok(None),
    };
    let outcome = match watcher {
        Ok(watcher) => {
            stop_watcher(cx, tab, watcher, group);
            outcome
        }
        Err(error) => {
            cx.release_objects(tab, group);
            Err(error)
        }
    };
    match outcome {
        // The action opened a dialog: done; the host shows it.
        Err(EngineError::DialogOpened { .. }) => Ok(None),
        other => other,
    }
}

/// Dispatches `action` with the page-side watcher running (when the page runs
/// it): a document that has not drawn is made to draw first, and after the effects
/// have settled the page must show it received the input (see [`reach`]). A click
/// made from the keyboard (`keyboard` says why) is confirmed by its own clicker.
#[allow(clippy::too_many_arguments)]
async fn act_watched<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    action: &InputAction,
    group: &str,
    main: &str,
    watcher: Option<&str>,
    keyboard: Option<RaisedWindow>,
    progress: &Progress,
) -> Result<Option<String>, EngineError> {
    if let Some(watcher) = watcher {
        draw_first_frame(cx, tab, watch, watcher).await?;
    }
    if let (Some(raised), InputAction::Click { uid, .. }) = (keyboard, action) {
        return click_from_keyboard(cx, tab, watch, uid, group, raised, main, watcher, progress)
            .await;
    }
    let navigating = &progress.navigating;
    perform(cx, tab, watch, action, group).await?;
    let navigated = settle::settle(cx, tab, watch, main, watcher, navigating).await?;
    if let (Some(watcher), false) = (watcher, navigating.get()) {
        let in_main_frame = targets_main_frame(cx, tab, action, main);
        confirm_received(cx, tab, watch, watcher, action, in_main_frame).await?;
    }
    Ok(navigated)
}

/// Whether every event `action` sends is aimed at the main frame's document (whose
/// window the watcher listens on): a mouse action on elements of the main frame.
/// Keys go where the focus is, and a point may fall in a frame.
fn targets_main_frame<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    action: &InputAction,
    main: &str,
) -> bool {
    let uids: &[&String] = match action {
        InputAction::Click { uid, .. } | InputAction::Hover { uid } => &[uid],
        InputAction::Drag { from_uid, to_uid } => &[from_uid, to_uid],
        _ => return false,
    };
    uids.iter().all(|uid| {
        cx.with_document(tab, |d| {
            d.uids
                .frame_of(uid)
                .is_some_and(|f| f.session.is_none() && f.frame == main)
        })
        .unwrap_or(false)
    })
}

async fn perform<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    action: &InputAction,
    group: &str,
) -> Result<(), EngineError> {
    match action {
        InputAction::Click { uid, double } => {
            let node = element(cx, tab, watch, uid, group).await?;
            let point = element_box(cx, tab, watch, &node, uid, true).await?;
            let session = node.session.as_deref();
            click(cx, tab, watch, session, point.center(), *double).await
        }
        InputAction::ClickAt { x, y, double } => {
            click(cx, tab, watch, None, (*x, *y), *double).await
        }
        InputAction::Hover { uid } => {
            let node = element(cx, tab, watch, uid, group).await?;
            let point = element_box(cx, tab, watch, &node, uid, true).await?;
            let session = node.session.as_deref();
            mouse(cx, tab, watch, session, "mouseMoved", point.center(), 0, 0).await
        }
        InputAction::Fill { uid, value } => fill(cx, tab, watch, uid, value, group).await,
        InputAction::TypeText { text, submit_key } => {
            type_text(cx, tab, watch, text).await?;
            if let Some(key) = submit_key {
                let combo = parse_combo(key).map_err(EngineError::InvalidKey)?;
                press_combo(cx, tab, watch, &combo).await?;
            }
            Ok(())
        }
        InputAction::PressKey { key } => {
            let combo = parse_combo(key).map_err(EngineError::InvalidKey)?;
            press_combo(cx, tab, watch, &combo).await
        }
        InputAction::Drag { from_uid, to_uid } => {
            drag(cx, tab, watch, from_uid, to_uid, group).await
        }
        InputAction::UploadFile { uid, paths } => upload(cx, tab, watch, uid, paths, group).await,
    }
}

/// The node `uid` names, looked up while watching the tab; objects in `group`.
pub(super) async fn element<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    uid: &str,
    group: &str,
) -> Result<NodeRef, EngineError> {
    cx.watched(tab, watch, cx.node_for_uid(tab, uid, group))
        .await
}

/// The page object of `node` (in its own session: a cross-site frame's, for one of
/// its elements), for calling functions on it; objects in `group`. A node the page
/// no longer has is a stale `uid`.
pub(super) async fn element_object<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    node: &NodeRef,
    uid: &str,
    group: &str,
) -> Result<String, EngineError> {
    let resolve = DomResolveNode {
        backend_node_id: node.backend,
        object_group: group.to_owned(),
        execution_context_id: None,
    };
    cx.send_watched_in(tab, node.session.as_deref(), watch, &resolve)
        .await
        .map_err(|_| EngineError::StaleUid(uid.to_owned()))?
        .object
        .object_id
        .ok_or_else(|| EngineError::StaleUid(uid.to_owned()))
}

/// The visible part of an element's box, in the viewport coordinates of its
/// session (a cross-site frame's own, for one of its elements), after scrolling it
/// into view if `scroll`.
pub(super) async fn element_box<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    node: &NodeRef,
    uid: &str,
    scroll: bool,
) -> Result<Rect, EngineError> {
    let session = node.session.as_deref();
    if scroll {
        let into_view = DomScrollIntoViewIfNeeded {
            backend_node_id: node.backend,
        };
        cx.send_watched_in(tab, session, watch, &into_view)
            .await
            .map_err(|e| element_error(e, uid))?;
    }
    let quads = DomGetContentQuads {
        backend_node_id: node.backend,
    };
    let measure = async {
        let (quads, metrics) = futures::join!(
            cx.send_in(tab, session, &quads),
            cx.send_in(tab, session, &PageGetLayoutMetrics {})
        );
        Ok((quads.map_err(|e| element_error(e, uid))?, metrics?))
    };
    let (quads, metrics) = cx.watched(tab, watch, measure).await?;
    let viewport = Rect {
        x: 0.0,
        y: 0.0,
        width: metrics.css_layout_viewport.client_width,
        height: metrics.css_layout_viewport.client_height,
    };
    quads
        .quads
        .iter()
        .filter_map(|quad| Rect::of_quad(quad))
        .find_map(|rect| rect.intersect(&viewport))
        .ok_or_else(|| EngineError::NotVisible(uid.to_owned()))
}

/// Moves the mouse to `point` and clicks (twice for a double-click, the second
/// with click count 2, so `dblclick` fires). `session` is whose coordinates
/// `point` is in: a cross-site frame's, or the tab's (`None`).
pub(super) async fn click<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    session: Option<&str>,
    point: (f64, f64),
    double: bool,
) -> Result<(), EngineError> {
    mouse(cx, tab, watch, session, "mouseMoved", point, 0, 0).await?;
    let clicks = if double { 2 } else { 1 };
    for count in 1..=clicks {
        mouse(cx, tab, watch, session, "mousePressed", point, 1, count).await?;
        mouse(cx, tab, watch, session, "mouseReleased", point, 0, count).await?;
    }
    Ok(())
}

/// One mouse event, sent in `session` at its coordinates; `buttons` 1 means the
/// left button is down (or being pressed/released).
#[allow(clippy::too_many_arguments)]
async fn mouse<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    session: Option<&str>,
    kind: &'static str,
    (x, y): (f64, f64),
    buttons: u32,
    click_count: u32,
) -> Result<(), EngineError> {
    let pressing = kind != "mouseMoved" || buttons != 0;
    let event = InputDispatchMouseEvent {
        kind,
        x,
        y,
        button: if pressing { "left" } else { "none" },
        buttons,
        click_count,
        modifiers: 0,
    };
    cx.send_watched_in(tab, session, watch, &event).await?;
    Ok(())
}

/// Drags one element onto another: press, move in steps, release. When the page
/// starts an HTML5 drag (`draggable`), Chrome reports it (drags are intercepted
/// for the duration) and the drop is played with `Input.dispatchDragEvent`.
async fn drag<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    from_uid: &str,
    to_uid: &str,
    group: &str,
) -> Result<(), EngineError> {
    let from_node = element(cx, tab, watch, from_uid, group).await?;
    let to_node = element(cx, tab, watch, to_uid, group).await?;
    if from_node.session != to_node.session {
        // Each frame's points are in its own coordinates, its input in its renderer.
        let in_frame = if to_node.session.is_some() {
            to_uid
        } else {
            from_uid
        };
        return Err(EngineError::InCrossSiteFrame {
            uid: in_frame.to_owned(),
            what: "a drag from an element in another frame cannot reach",
            instead: "Drag between two elements of the same frame.",
        });
    }
    let to_first = element_box(cx, tab, watch, &to_node, to_uid, true).await?;
    let from = element_box(cx, tab, watch, &from_node, from_uid, true)
        .await?
        .center();
    // Scrolling to the source may have moved the target.
    let to = match element_box(cx, tab, watch, &to_node, to_uid, false).await {
        Ok(rect) => rect.center(),
        Err(_) => to_first.center(),
    };
    // Chrome reports (and intercepts) an HTML5 drag in the tab's session only:
    // a cross-site frame's drag is played there, its points moved to where the
    // frame shows (the tab's input reaches the frame under them).
    let (from, to) = match from_node.session.as_deref() {
        Some(session) => {
            let frame = cx
                .watched(tab, watch, cx.frame_viewport(tab, session))
                .await?;
            let shift = |(x, y): (f64, f64)| (x + frame.x, y + frame.y);
            (shift(from), shift(to))
        }
        None => (from, to),
    };
    let intercept = InputSetInterceptDrags { enabled: true };
    cx.send_watched(tab, watch, &intercept).await?;
    let outcome = drag_between(cx, tab, watch, from, to).await;
    // Best effort: a failed reset only leaves interception on until the next drag.
    let reset = InputSetInterceptDrags { enabled: false };
    let _ = cx.send(tab, &reset).await;
    outcome
}

/// Presses at `from`, moves to `to` in steps and releases, in the tab's session
/// (at the tab's coordinates), playing the drop if an HTML5 drag began.
async fn drag_between<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    from: (f64, f64),
    to: (f64, f64),
) -> Result<(), EngineError> {
    let session = None;
    mouse(cx, tab, watch, session, "mouseMoved", from, 0, 0).await?;
    mouse(cx, tab, watch, session, "mousePressed", from, 1, 1).await?;
    for step in 1..=DRAG_STEPS {
        let t = f64::from(step) / f64::from(DRAG_STEPS);
        let point = (from.0 + (to.0 - from.0) * t, from.1 + (to.1 - from.1) * t);
        mouse(cx, tab, watch, session, "mouseMoved", point, 1, 0).await?;
    }
    let intercepted = wait_event(cx, tab, watch, DRAG_START_MS, |event| match event {
        PageEvent::DragIntercepted { data } => Some(data.clone()),
        _ => None,
    })
    .await?;
    if let Some(data) = intercepted {
        for kind in ["dragEnter", "dragOver", "drop"] {
            let event = InputDispatchDragEvent {
                kind,
                x: to.0,
                y: to.1,
                data: data.clone(),
                modifiers: 0,
            };
            cx.send_watched_in(tab, session, watch, &event).await?;
        }
    }
    mouse(cx, tab, watch, session, "mouseReleased", to, 0, 1).await
}

/// Waits up to `ms` for a page event `pick` chooses (looking at those already
/// received first), leaving every other signal queued; `None` when time is up.
/// A detach, closure or dialog ends the wait with its error.
pub(super) async fn wait_event<C: Chrome + 'static, T>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    ms: u64,
    pick: impl Fn(&PageEvent) -> Option<T>,
) -> Result<Option<T>, EngineError> {
    wait_event_in(cx, tab, watch, None, ms, pick).await
}

/// [`wait_event`](wait_event) for an input event of `session`: a cross-site
/// frame's child session, or the tab's own (`None`).
pub(super) async fn wait_event_in<C: Chrome + 'static, T>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    session: Option<&str>,
    ms: u64,
    pick: impl Fn(&PageEvent) -> Option<T>,
) -> Result<Option<T>, EngineError> {
    let stop = |signal: &TabSignal| {
        if let Some(error) = super::session::interruption(tab, signal) {
            return Some(Err(error));
        }
        match (signal, session) {
            (TabSignal::Page(event), None) => pick(event).map(Ok),
            (
                TabSignal::InFrame {
                    session: from,
                    event,
                },
                Some(session),
            ) if from == session => pick(event).map(Ok),
            _ => None,
        }
    };
    match watch.watch(cx.chrome().sleep(ms), stop).await {
        Ok(()) => Ok(None),
        Err(Ok(found)) => Ok(Some(found)),
        Err(Err(error)) => Err(error),
    }
}

/// Refuses bad key names before anything is dispatched.
fn check_keys(action: &InputAction) -> Result<(), EngineError> {
    let key = match action {
        InputAction::PressKey { key } => Some(key),
        InputAction::TypeText { submit_key, .. } => submit_key.as_ref(),
        _ => None,
    };
    if let Some(key) = key {
        parse_combo(key).map_err(EngineError::InvalidKey)?;
    }
    Ok(())
}

/// What a failed geometry or focus command means for the element.
pub(super) fn element_error(error: EngineError, uid: &str) -> EngineError {
    let EngineError::Cdp { message, .. } = &error else {
        return error;
    };
    let hidden = [
        "layout object",
        "not visible",
        "Could not compute",
        "not focusable",
    ];
    let gone = ["No node", "detached", "not found"];
    if hidden.iter().any(|m| message.contains(m)) {
        EngineError::NotVisible(uid.to_owned())
    } else if gone.iter().any(|m| message.contains(m)) {
        EngineError::StaleUid(uid.to_owned())
    } else {
        error
    }
}

/// Carries out the action and waits for its effects.
impl super::Handle for tabwire_shared::Input {
    const NEEDS_RENDERER: bool = true;

    async fn handle<C: Chrome + 'static>(self, cx: &Cx<'_, C>) -> Result<Self::Reply, EngineError> {
        input(cx, self.tab_id, &self.action, self.timeout_ms).await
    }
}

#[cfg(test)]
mod tests;
