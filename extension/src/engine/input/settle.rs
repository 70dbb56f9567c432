//! Waiting after input until the page has reacted, and no longer.
//!
//! The reference sleeps a fixed ~250 ms after every click. Here the wait ends as soon
//! as it can be known to be over:
//!
//! - A **navigation** the action started (`Page.frameRequestedNavigation`,
//!   `frameStartedNavigating` or `frameStartedLoading` of the main frame, during the
//!   dispatch or within the quiet window after it) is waited for until its document
//!   has loaded, like `navigate` does; the reply then names the new URL. A navigation
//!   that ends without a new document (a download, a 204) ends the wait too. A
//!   same-document navigation (fragment, History API) is done at once; the wait for a
//!   quiet DOM goes on.
//! - Otherwise the action is over when the **DOM has been quiet** for [`QUIET_MS`]: a
//!   page-side `MutationObserver` ([`page::WATCH`]), started before the dispatch,
//!   says how long ago the DOM last changed; the engine's own timers do the waiting
//!   (a background tab's page timers are throttled). A window without any change ends
//!   it; continuous changes end it after [`SETTLE_CAP_MS`].

use std::cell::Cell;

use tabwire_shared::TabId;

use super::wait_event;
use crate::cdp::{PageEvent, PageGetFrameTree, RuntimeCallFunctionOn, RuntimeEvaluate};
use crate::chrome::Chrome;
use crate::engine::context::Cx;
use crate::engine::page;
use crate::error::EngineError;
use crate::signals::{Subscription, TabSignal};

/// How long the DOM must stay unchanged for an action to count as finished.
pub const QUIET_MS: u64 = 30;

/// The longest an action waits for a DOM that keeps changing.
pub const SETTLE_CAP_MS: u64 = 1_500;

/// How a navigation showed itself.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Start {
    /// A new document is on its way (or, if `committed`, already there).
    NewDocument { committed: bool },
    /// The URL changed within the document.
    SameDocument,
}

/// Starts the page-side DOM watcher; `None` if the page would not run it (the
/// wait then relies on the quiet window alone).
pub(super) async fn start_watcher<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    group: &str,
) -> Result<Option<String>, EngineError> {
    let install = RuntimeEvaluate {
        expression: page::WATCH.to_owned(),
        object_group: group.to_owned(),
        return_by_value: false,
    };
    match cx.send_watched(tab, watch, &install).await {
        Ok(done) if done.exception_details.is_none() => Ok(done.result.object_id),
        Ok(_) | Err(EngineError::Cdp { .. }) => Ok(None),
        Err(other) => Err(other),
    }
}

/// Disconnects the watcher and frees its objects, without delaying the reply.
pub(super) fn stop_watcher<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watcher: Option<String>,
    group: String,
) {
    cx.in_background(move |bg| async move {
        let cx = &bg.cx();
        if let Some(object_id) = watcher {
            let stop = RuntimeCallFunctionOn {
                function_declaration: page::STOP.to_owned(),
                object_id,
                arguments: vec![],
                object_group: group.clone(),
                return_by_value: true,
                await_promise: false,
                user_gesture: false,
            };
            // Nothing to do if it fails: the document (and its observer) is gone.
            let _ = cx.send(tab, &stop).await;
        }
        cx.release_objects(tab, group);
    });
}

/// Waits for the effects of an action just dispatched (see the module docs); the
/// URL navigated to, if any.
pub(super) async fn settle<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    main: &str,
    watcher: Option<&str>,
    navigating: &Cell<bool>,
) -> Result<Option<String>, EngineError> {
    let mut same_document = false;
    let mut waited = 0;
    let mut wait = QUIET_MS;
    loop {
        let start = wait_event(cx, tab, watch, wait, |event| navigation_start(event, main)).await?;
        match start {
            Some(Start::NewDocument { committed }) => {
                navigating.set(true);
                return finish_navigation(cx, tab, watch, main, committed).await;
            }
            Some(Start::SameDocument) => {
                same_document = true;
                continue;
            }
            None => waited += wait,
        }
        let Some(watcher) = watcher else { break };
        match quiet_for(cx, tab, watch, watcher).await {
            Ok(since) if since >= QUIET_MS as f64 || waited >= SETTLE_CAP_MS => break,
            Ok(since) => wait = (QUIET_MS as f64 - since).ceil().clamp(1.0, QUIET_MS as f64) as u64,
            // The watcher went with its document: a navigation replaced it.
            Err(EngineError::Cdp { .. }) => {
                navigating.set(true);
                return finish_navigation(cx, tab, watch, main, false).await;
            }
            Err(other) => return Err(other),
        }
    }
    // A navigation that announced itself while the watcher was read.
    let late = watch.take_pending(|signal| match signal {
        TabSignal::Page(event) => navigation_start(event, main).is_some(),
        _ => false,
    });
    if let Some(TabSignal::Page(event)) = late {
        match navigation_start(&event, main) {
            Some(Start::NewDocument { committed }) => {
                navigating.set(true);
                return finish_navigation(cx, tab, watch, main, committed).await;
            }
            Some(Start::SameDocument) => same_document = true,
            None => {}
        }
    }
    if same_document {
        return Ok(Some(current_url(cx, tab, watch).await?));
    }
    Ok(None)
}

/// How many milliseconds ago the DOM last changed.
async fn quiet_for<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    watcher: &str,
) -> Result<f64, EngineError> {
    let since = RuntimeCallFunctionOn {
        function_declaration: page::SINCE.to_owned(),
        object_id: watcher.to_owned(),
        arguments: vec![],
        object_group: String::new(),
        return_by_value: true,
        await_promise: false,
        user_gesture: false,
    };
    let answer = cx.send_watched(tab, watch, &since).await?;
    Ok(answer
        .result
        .value
        .and_then(|v| v.as_f64())
        .unwrap_or(f64::INFINITY))
}

/// Waits for a navigation under way to load its document; its URL, or `None` if it
/// ended without one.
async fn finish_navigation<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    main: &str,
    mut committed: bool,
) -> Result<Option<String>, EngineError> {
    loop {
        let signal = watch.next().await;
        if let Some(error) = crate::engine::session::interruption(tab, &signal) {
            return Err(error);
        }
        let TabSignal::Page(event) = signal else {
            continue;
        };
        match event {
            PageEvent::FrameNavigated {
                is_main: true,
                kind,
                ..
            } => {
                if kind == "BackForwardCacheRestore" {
                    break;
                }
                committed = true;
            }
            PageEvent::LoadEventFired if committed => break,
            PageEvent::NavigatedWithinDocument { frame_id } if frame_id == main => break,
            PageEvent::FrameStoppedLoading { frame_id } if frame_id == main => {
                if !committed {
                    // A download, a 204, a cancelled navigation: nothing new loaded.
                    return Ok(None);
                }
                break;
            }
            _ => {}
        }
    }
    Ok(Some(current_url(cx, tab, watch).await?))
}

async fn current_url<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
) -> Result<String, EngineError> {
    let tree = cx.send_watched(tab, watch, &PageGetFrameTree {}).await?;
    Ok(tree.frame_tree.frame.full_url())
}

/// Whether a page event shows a main-frame navigation starting (or done).
fn navigation_start(event: &PageEvent, main: &str) -> Option<Start> {
    match event {
        PageEvent::FrameRequestedNavigation {
            frame_id,
            disposition,
        } if frame_id == main && disposition == "currentTab" => {
            Some(Start::NewDocument { committed: false })
        }
        PageEvent::FrameStartedNavigating {
            frame_id,
            same_document: false,
        }
        | PageEvent::FrameStartedLoading { frame_id }
            if frame_id == main =>
        {
            Some(Start::NewDocument { committed: false })
        }
        PageEvent::FrameNavigated { is_main: true, .. } => {
            Some(Start::NewDocument { committed: true })
        }
        PageEvent::NavigatedWithinDocument { frame_id } if frame_id == main => {
            Some(Start::SameDocument)
        }
        _ => None,
    }
}
