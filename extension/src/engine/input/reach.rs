//! Making sure input reaches the page, and saying so when it did not.
//!
//! Chrome drops mouse presses and key presses sent to a document that has not drawn
//! its first frame yet (mouse moves pass). A tab the user is not looking at draws no
//! frames: a page that loaded there (a background `new_page`, a navigation of a tab
//! behind the user's, a reload) would silently ignore every click and key, while
//! `Input.dispatchMouseEvent` answers as if all went well. So before dispatching, the
//! engine asks the page-side watcher (`watch.js`) whether the document has drawn, and
//! if not has Chrome draw one frame (a one-pixel capture inside a screencast, as
//! screenshots of hidden tabs do), which leaves the tab hidden. After dispatching, the
//! same watcher says which trusted events reached the main frame's window: a click
//! that no `mousedown` reached, a hover no `mousemove`, a key no `keydown` is
//! reported as an error, never as done. That window sees only what is aimed at its
//! own document: for input aimed elsewhere (an element in a frame, a point, keys,
//! which go where the focus is) missing events count only while the document still
//! has not drawn, the one state in which Chrome is known to drop them.

use tabwire_shared::{InputAction, TabId};

use crate::cdp::capture::{Clip, PageCaptureScreenshot};
use crate::cdp::RuntimeCallFunctionOn;
use crate::chrome::Chrome;
use crate::engine::context::Cx;
use crate::engine::page;
use crate::engine::screenshot::capture_drawn;
use crate::error::EngineError;
use crate::signals::Subscription;

/// How many one-pixel captures a document that has not drawn gets before input is sent
/// anyway (the check after the dispatch then tells whether it arrived).
const DRAW_ATTEMPTS: usize = 3;

/// What the watcher saw: whether the document has drawn, and the trusted events that
/// reached its window since the watcher started.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(super) struct Received {
    pub painted: bool,
    pub mousedowns: u64,
    pub mousemoves: u64,
    pub keydowns: u64,
}

impl Received {
    /// Reads the watcher's `[painted, mousedowns, mousemoves, keydowns]`; `None` for
    /// anything else (a page that broke the watcher).
    fn read(value: &serde_json::Value) -> Option<Received> {
        let [painted, downs, moves, keys] = value.as_array()?.as_slice() else {
            return None;
        };
        Some(Received {
            painted: painted.as_bool()?,
            mousedowns: downs.as_u64()?,
            mousemoves: moves.as_u64()?,
            keydowns: keys.as_u64()?,
        })
    }
}

/// An event's name for the agent, and whether the watcher saw it.
pub(super) type Proof = (&'static str, fn(&Received) -> bool);

/// The event that shows `action` reached the page; `None` for actions that need not
/// send one (text inserted into a field, files set).
pub(super) fn proof(action: &InputAction) -> Option<Proof> {
    match action {
        InputAction::Click { .. } | InputAction::ClickAt { .. } | InputAction::Drag { .. } => {
            Some(("mousedown", |r| r.mousedowns > 0))
        }
        InputAction::Hover { .. } => Some(("mousemove", |r| r.mousemoves > 0)),
        InputAction::PressKey { .. } => Some(("keydown", |r| r.keydowns > 0)),
        InputAction::TypeText {
            submit_key: Some(_),
            ..
        } => Some(("keydown", |r| r.keydowns > 0)),
        InputAction::TypeText { .. }
        | InputAction::Fill { .. }
        | InputAction::UploadFile { .. } => None,
    }
}

/// What the watcher has seen so far; `None` when the page would not say (its
/// document went away, or it broke the watcher).
pub(super) async fn received<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    watcher: &str,
) -> Result<Option<Received>, EngineError> {
    let ask = RuntimeCallFunctionOn {
        function_declaration: page::RECEIVED.to_owned(),
        object_id: watcher.to_owned(),
        arguments: vec![],
        object_group: String::new(),
        return_by_value: true,
        await_promise: false,
        user_gesture: false,
    };
    match cx.send_watched(tab, watch, &ask).await {
        Ok(answer) => Ok(answer.result.value.as_ref().and_then(Received::read)),
        Err(EngineError::Cdp { .. }) => Ok(None),
        Err(other) => Err(other),
    }
}

/// Has a document that has not drawn yet draw one frame, so that Chrome lets
/// presses and keys through to it; the tab stays where it is. On a loaded machine
/// the first capture can come back before the document counts its first paint:
/// it is asked again, up to [`DRAW_ATTEMPTS`] captures in all.
pub(super) async fn draw_first_frame<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    watcher: &str,
) -> Result<(), EngineError> {
    for _ in 0..DRAW_ATTEMPTS {
        if !matches!(received(cx, tab, watch, watcher).await?, Some(r) if !r.painted) {
            return Ok(());
        }
        draw_one_frame(cx, tab, watch).await?;
    }
    Ok(())
}

/// Has Chrome draw one frame of the tab: a one-pixel capture inside a screencast.
async fn draw_one_frame<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
) -> Result<(), EngineError> {
    let pixel = PageCaptureScreenshot {
        format: "jpeg",
        quality: Some(1),
        clip: Some(Clip {
            x: 0.0,
            y: 0.0,
            width: 1.0,
            height: 1.0,
            scale: 1.0,
        }),
        from_surface: true,
        capture_beyond_viewport: false,
        optimize_for_speed: true,
    };
    // A frame that does not come leaves the check after the dispatch to tell.
    match capture_drawn(cx, tab, watch, &pixel).await {
        Ok(_) | Err(EngineError::Cdp { .. } | EngineError::UnexpectedAnswer { .. }) => Ok(()),
        Err(other) => Err(other),
    }
}

/// Fails when the page shows no sign of `action` (see the module docs);
/// `in_main_frame`: every event was aimed at the main frame's document. A page
/// that would not say (its document gone) counts as reached.
pub(super) async fn confirm_received<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    watcher: &str,
    action: &InputAction,
    in_main_frame: bool,
) -> Result<(), EngineError> {
    let Some((event, seen)) = proof(action) else {
        return Ok(());
    };
    match received(cx, tab, watch, watcher).await? {
        Some(received) if !seen(&received) && (in_main_frame || !received.painted) => {
            Err(EngineError::InputNotReceived {
                tab,
                action: action_name(action),
                event,
            })
        }
        _ => Ok(()),
    }
}

/// The tool's name for `action`, for the agent.
fn action_name(action: &InputAction) -> &'static str {
    match action {
        InputAction::Click { .. } | InputAction::ClickAt { .. } => "click",
        InputAction::Hover { .. } => "hover",
        InputAction::Drag { .. } => "drag",
        InputAction::PressKey { .. } => "press_key",
        InputAction::TypeText { .. } => "type_text",
        InputAction::Fill { .. } => "fill",
        InputAction::UploadFile { .. } => "upload_file",
    }
}
