//! Keys: pressing combinations and typing text.
//!
//! A combination presses its modifiers first (each `rawKeyDown` with the modifier
//! bits held so far), then the key (`keyDown` with its text when it types one, else
//! `rawKeyDown`) and its `keyUp`, then releases the modifiers in reverse. Text is
//! typed key by key for the characters of a US keyboard (so pages that listen to
//! `keydown`/`keyup` see them, like the reference's `keyboard.type`); any other
//! characters go in with `Input.insertText`, in runs.

use tabwire_shared::keys::{key_for_char, Combo, Key};
use tabwire_shared::TabId;

use crate::cdp::input::{InputDispatchKeyEvent, InputInsertText};
use crate::chrome::Chrome;
use crate::engine::context::Cx;
use crate::error::EngineError;
use crate::signals::Subscription;

/// Presses a key combination.
pub(super) async fn press_combo<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    combo: &Combo,
) -> Result<(), EngineError> {
    let mut held = 0;
    for modifier in &combo.modifiers {
        held |= modifier.modifier_bit;
        cx.send_watched(tab, watch, &key_event("rawKeyDown", modifier, held))
            .await?;
    }
    press_key(cx, tab, watch, &combo.key, combo.modifier_bits).await?;
    for modifier in combo.modifiers.iter().rev() {
        held &= !modifier.modifier_bit;
        cx.send_watched(tab, watch, &key_event("keyUp", modifier, held))
            .await?;
    }
    Ok(())
}

/// Types `text` into the focused element.
pub(super) async fn type_text<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    text: &str,
) -> Result<(), EngineError> {
    let mut run = String::new();
    for c in text.chars() {
        match key_for_char(c) {
            Some(key) => {
                if !run.is_empty() {
                    let insert = InputInsertText {
                        text: std::mem::take(&mut run),
                    };
                    cx.send_watched(tab, watch, &insert).await?;
                }
                press_key(cx, tab, watch, &key, 0).await?;
            }
            None => run.push(c),
        }
    }
    if !run.is_empty() {
        cx.send_watched(tab, watch, &InputInsertText { text: run })
            .await?;
    }
    Ok(())
}

/// Inserts text at the caret as an input method would (one `input` event).
pub(super) async fn insert_text<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    text: &str,
) -> Result<(), EngineError> {
    let insert = InputInsertText {
        text: text.to_owned(),
    };
    cx.send_watched(tab, watch, &insert).await?;
    Ok(())
}

/// Presses and releases one key with `modifiers` held.
pub(super) async fn press_key<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    key: &Key,
    modifiers: u32,
) -> Result<(), EngineError> {
    let down = if key.text.is_some() {
        "keyDown"
    } else {
        "rawKeyDown"
    };
    cx.send_watched(tab, watch, &key_event(down, key, modifiers))
        .await?;
    cx.send_watched(tab, watch, &key_event("keyUp", key, modifiers))
        .await?;
    Ok(())
}

/// The CDP event for one key going down or up.
fn key_event(kind: &'static str, key: &Key, modifiers: u32) -> InputDispatchKeyEvent {
    let text = if kind == "keyUp" {
        None
    } else {
        key.text.clone()
    };
    InputDispatchKeyEvent {
        kind,
        modifiers,
        key: key.key.clone(),
        code: key.code.clone(),
        windows_virtual_key_code: key.windows_virtual_key_code,
        native_virtual_key_code: key.windows_virtual_key_code,
        unmodified_text: text.clone(),
        text,
        location: key.location,
    }
}
