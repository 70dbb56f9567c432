//! A click made from the keyboard where a mouse press would bring the user's window
//! forward.
//!
//! A mouse press in the tab a window shows activates that window when it is minimized,
//! behind another browser window, or behind another application ([`raise`](super::raise)
//! says why); keys and focusing an element do not. So a single click there is made the
//! way a keyboard user makes it: the page-side clicker (`keyclick.js`) finds what a
//! press on the element would activate (the element or its nearest ancestor that is a
//! link, a button, a `<summary>`, a button-like, checkbox or radio `<input>`, or has
//! the role of one), focuses it and counts the clicks that reach it; then `Enter`
//! (links, buttons, `<summary>`) or `Space` (checkboxes, radios) is pressed, which the
//! browser turns into a trusted `click` on the focused element. After the effects
//! settle, a click must have reached it: a trusted one where the browser makes it, any
//! where the page's own key handler must (a role, whose handler typically calls
//! `click()`). A navigation the key started counts as reached.
//!
//! It cannot be faithful everywhere, and says so: no `mousedown`, `mouseup` or
//! `pointer*` events are fired (the reply tells the agent so), the click lands on the
//! activatable element rather than on the descendant under the mouse, and an element
//! the keyboard does not click (a `<div>` with only a click handler, a canvas, a text
//! field, a disabled control) is refused with the ways out, nothing pressed.

use serde_json::Value;
use tabwire_shared::keys::parse_combo;
use tabwire_shared::{ActivationKey, KeyboardClick, RaisedWindow, TabId};

use super::settle::settle;
use super::Progress;
use super::{element, element_object};
use crate::cdp::RuntimeCallFunctionOn;
use crate::chrome::Chrome;
use crate::engine::context::Cx;
use crate::engine::input::element_error;
use crate::engine::keyboard::press_combo;
use crate::engine::page;
use crate::error::EngineError;
use crate::signals::Subscription;

/// What the page-side clicker reports (see `keyclick.js`).
#[derive(Debug, Clone, PartialEq)]
struct Clicker {
    /// The key that clicks the element; `None` when none does.
    key: Option<ActivationKey>,
    /// What the element is, for the agent.
    what: String,
    /// Whether the browser itself turns the key into a click.
    native: bool,
    /// Trusted click events that reached the element.
    trusted: u64,
    /// Click events of any kind that reached it.
    clicks: u64,
}

impl Clicker {
    /// Reads `[key, what, native, trusted, clicks]`; `None` for anything else (a page
    /// that broke the clicker).
    fn read(value: &Value) -> Option<Clicker> {
        let [key, what, native, trusted, clicks] = value.as_array()?.as_slice() else {
            return None;
        };
        let key = match key.as_str()? {
            "Enter" => Some(ActivationKey::Enter),
            "Space" => Some(ActivationKey::Space),
            "" => None,
            _ => return None,
        };
        Some(Clicker {
            key,
            what: what.as_str()?.chars().take(200).collect(),
            native: native.as_bool()?,
            trusted: trusted.as_u64()?,
            clicks: clicks.as_u64()?,
        })
    }

    /// Whether the key's click reached the element: a trusted one where the browser
    /// makes it; any where the page's key handler must (it calls `click()`).
    fn clicked(&self) -> bool {
        if self.native {
            self.trusted > 0
        } else {
            self.clicks > 0
        }
    }
}

/// Clicks `uid` from the keyboard (see the module docs), then waits for the
/// effects like any action; the URL navigated to, if any. `raised` is why a
/// mouse press would have brought the window forward.
#[allow(clippy::too_many_arguments)]
pub(super) async fn click_from_keyboard<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    uid: &str,
    group: &str,
    raised: RaisedWindow,
    main: &str,
    watcher: Option<&str>,
    progress: &Progress,
) -> Result<Option<String>, EngineError> {
    let node = element(cx, tab, watch, uid, group).await?;
    let session = node.session.as_deref();
    let object = element_object(cx, tab, watch, &node, uid, group).await?;
    let arm = RuntimeCallFunctionOn {
        function_declaration: page::KEYCLICK.to_owned(),
        object_id: object,
        arguments: vec![],
        object_group: group.to_owned(),
        return_by_value: false,
        await_promise: false,
        user_gesture: false,
    };
    let armed = cx
        .send_watched_in(tab, session, watch, &arm)
        .await
        .map_err(|e| element_error(e, uid))?;
    let unreadable = || {
        EngineError::UnreadablePageData(
            "the element could not be readied for a click from the keyboard".to_owned(),
        )
    };
    if armed.exception_details.is_some() {
        return Err(unreadable());
    }
    let clicker = armed.result.object_id.ok_or_else(unreadable)?;
    let ready = read_clicker(cx, tab, session, watch, &clicker, page::KEYCLICK_READ)
        .await?
        .ok_or_else(unreadable)?;
    let Some(key) = ready.key else {
        return Err(EngineError::NoKeyboardClick {
            tab,
            uid: uid.to_owned(),
            raised,
            what: ready.what,
        });
    };
    progress
        .from_keyboard
        .set(Some(KeyboardClick { key, raised }));
    let combo = parse_combo(key.name()).map_err(EngineError::InvalidKey)?;
    press_combo(cx, tab, watch, &combo).await?;
    let navigated = settle(cx, tab, watch, main, watcher, &progress.navigating).await?;
    if progress.navigating.get() {
        return Ok(navigated);
    }
    match read_clicker(cx, tab, session, watch, &clicker, page::KEYCLICK_DONE).await? {
        Some(done) if !done.clicked() => Err(EngineError::KeyboardClickNotReceived {
            tab,
            uid: uid.to_owned(),
            raised,
            key: key.name(),
        }),
        // Clicked, or its document went away: the key took effect.
        _ => Ok(navigated),
    }
}

/// Calls `function` (a `KEYCLICK_*` reader) on the clicker; `None` when the page
/// would not say (its document gone, or the clicker broken).
async fn read_clicker<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    session: Option<&str>,
    watch: &mut Subscription,
    clicker: &str,
    function: &str,
) -> Result<Option<Clicker>, EngineError> {
    let read = RuntimeCallFunctionOn {
        function_declaration: function.to_owned(),
        object_id: clicker.to_owned(),
        arguments: vec![],
        object_group: String::new(),
        return_by_value: true,
        await_promise: false,
        user_gesture: false,
    };
    match cx.send_watched_in(tab, session, watch, &read).await {
        Ok(answer) => Ok(answer.result.value.as_ref().and_then(Clicker::read)),
        Err(EngineError::Cdp { .. }) => Ok(None),
        Err(other) => Err(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_clicker_report_is_read_strictly() {
        let read = Clicker::read(&json!([
            "Space",
            "a <input type=checkbox> element",
            true,
            1,
            1
        ]));
        assert_eq!(
            read,
            Some(Clicker {
                key: Some(ActivationKey::Space),
                what: "a <input type=checkbox> element".into(),
                native: true,
                trusted: 1,
                clicks: 1,
            })
        );
        assert_eq!(
            Clicker::read(&json!(["", "a <div> element", false, 0, 0]))
                .unwrap()
                .key,
            None
        );
        assert_eq!(Clicker::read(&json!(["Escape", "x", true, 0, 0])), None);
        assert_eq!(Clicker::read(&json!(["Enter", "x", true, 0])), None);
    }

    #[test]
    fn a_native_click_must_be_trusted_a_role_s_may_come_from_the_page() {
        let clicker = |native, trusted, clicks| Clicker {
            key: Some(ActivationKey::Enter),
            what: String::new(),
            native,
            trusted,
            clicks,
        };
        assert!(clicker(true, 1, 1).clicked());
        assert!(
            !clicker(true, 0, 1).clicked(),
            "a page's own click() proves nothing"
        );
        assert!(clicker(false, 0, 1).clicked());
        assert!(!clicker(false, 0, 0).clicked());
    }
}
