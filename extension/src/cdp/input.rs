//! Input and element geometry: mouse, keyboard and drag events, text insertion, and
//! where an element is on screen.
//!
//! Coordinates are CSS pixels relative to the main frame's viewport, as
//! `Input.dispatchMouseEvent` and `DOM.getContentQuads` both use them.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{command, Empty};

/// `Input.dispatchMouseEvent`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InputDispatchMouseEvent {
    /// `mouseMoved`, `mousePressed` or `mouseReleased`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Viewport x.
    pub x: f64,
    /// Viewport y.
    pub y: f64,
    /// `none` or `left`.
    pub button: &'static str,
    /// The buttons held (1 = left).
    pub buttons: u32,
    /// 1 for a click, 2 for the second click of a double-click.
    pub click_count: u32,
    /// Modifier bits.
    pub modifiers: u32,
}
command!(InputDispatchMouseEvent, "Input.dispatchMouseEvent", Empty);

/// `Input.dispatchKeyEvent`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InputDispatchKeyEvent {
    /// `keyDown` (with text), `rawKeyDown` (without) or `keyUp`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Modifier bits held.
    pub modifiers: u32,
    /// The DOM `key`.
    pub key: String,
    /// The DOM `code`.
    pub code: String,
    /// `keyCode`.
    pub windows_virtual_key_code: u32,
    /// The platform key code (the same, as Puppeteer sends it).
    pub native_virtual_key_code: u32,
    /// The text typed, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The text without modifiers, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unmodified_text: Option<String>,
    /// 0 standard, 1 left.
    pub location: u32,
}
command!(InputDispatchKeyEvent, "Input.dispatchKeyEvent", Empty);

/// `Input.insertText`: types text as an IME would (input events, no key events).
#[derive(Debug, Serialize)]
pub struct InputInsertText {
    /// The text.
    pub text: String,
}
command!(InputInsertText, "Input.insertText", Empty);

/// `Input.setInterceptDrags`: report drags (`Input.dragIntercepted`) instead of
/// running them, so they can be finished with `Input.dispatchDragEvent`.
#[derive(Debug, Serialize)]
pub struct InputSetInterceptDrags {
    /// On or off.
    pub enabled: bool,
}
command!(InputSetInterceptDrags, "Input.setInterceptDrags", Empty);

/// `Input.dispatchDragEvent`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InputDispatchDragEvent {
    /// `dragEnter`, `dragOver`, `drop` or `dragCancel`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Viewport x.
    pub x: f64,
    /// Viewport y.
    pub y: f64,
    /// The drag data from `Input.dragIntercepted`.
    pub data: Value,
    /// Modifier bits.
    pub modifiers: u32,
}
command!(InputDispatchDragEvent, "Input.dispatchDragEvent", Empty);

/// `DOM.scrollIntoViewIfNeeded`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DomScrollIntoViewIfNeeded {
    /// The element.
    pub backend_node_id: i64,
}
command!(
    DomScrollIntoViewIfNeeded,
    "DOM.scrollIntoViewIfNeeded",
    Empty
);

/// `DOM.getContentQuads`: the boxes an element's content occupies (several for an
/// inline element broken across lines).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DomGetContentQuads {
    /// The element.
    pub backend_node_id: i64,
}
command!(DomGetContentQuads, "DOM.getContentQuads", Quads);

/// What `DOM.getContentQuads` answers.
#[derive(Debug, Deserialize)]
pub struct Quads {
    /// Each quad: x1, y1, ... x4, y4, clockwise.
    #[serde(default)]
    pub quads: Vec<Vec<f64>>,
}

/// `DOM.getBoxModel`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DomGetBoxModel {
    /// The element.
    pub backend_node_id: i64,
}
command!(DomGetBoxModel, "DOM.getBoxModel", BoxModelResult);

/// What `DOM.getBoxModel` answers.
#[derive(Debug, Deserialize)]
pub struct BoxModelResult {
    /// The box model.
    pub model: BoxModel,
}

/// An element's box model (quads as in [`Quads`]).
#[derive(Debug, Deserialize)]
pub struct BoxModel {
    /// The border box.
    #[serde(default)]
    pub border: Vec<f64>,
    /// The content box (of an `<iframe>`: where its frame's viewport is).
    #[serde(default)]
    pub content: Vec<f64>,
}

/// `DOM.focus`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DomFocus {
    /// The element.
    pub backend_node_id: i64,
}
command!(DomFocus, "DOM.focus", Empty);

/// `DOM.setFileInputFiles`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DomSetFileInputFiles {
    /// Absolute paths.
    pub files: Vec<String>,
    /// The file input.
    pub backend_node_id: i64,
}
command!(DomSetFileInputFiles, "DOM.setFileInputFiles", Empty);

/// `Page.setInterceptFileChooserDialog`: report file choosers
/// (`Page.fileChooserOpened`) instead of showing them.
#[derive(Debug, Serialize)]
pub struct PageSetInterceptFileChooserDialog {
    /// On or off.
    pub enabled: bool,
}
command!(
    PageSetInterceptFileChooserDialog,
    "Page.setInterceptFileChooserDialog",
    Empty
);

/// A rectangle, as the bounding box of a quad.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    /// Left.
    pub x: f64,
    /// Top.
    pub y: f64,
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
}

impl Rect {
    /// The bounding box of a quad (`x1, y1, ... x4, y4`), if it is one.
    pub fn of_quad(quad: &[f64]) -> Option<Rect> {
        if quad.len() != 8 || quad.iter().any(|v| !v.is_finite()) {
            return None;
        }
        let xs = quad.iter().step_by(2);
        let ys = quad.iter().skip(1).step_by(2);
        let (left, right) = xs.fold((f64::MAX, f64::MIN), |(l, r), x| (l.min(*x), r.max(*x)));
        let (top, bottom) = ys.fold((f64::MAX, f64::MIN), |(t, b), y| (t.min(*y), b.max(*y)));
        Some(Rect {
            x: left,
            y: top,
            width: right - left,
            height: bottom - top,
        })
    }

    /// The part of this rectangle inside `other`, if they overlap by more than a sliver.
    pub fn intersect(&self, other: &Rect) -> Option<Rect> {
        let left = self.x.max(other.x);
        let top = self.y.max(other.y);
        let right = (self.x + self.width).min(other.x + other.width);
        let bottom = (self.y + self.height).min(other.y + other.height);
        (right - left >= 1.0 && bottom - top >= 1.0).then_some(Rect {
            x: left,
            y: top,
            width: right - left,
            height: bottom - top,
        })
    }

    /// The rectangle moved by `dx`, `dy`.
    pub fn offset(&self, dx: f64, dy: f64) -> Rect {
        Rect {
            x: self.x + dx,
            y: self.y + dy,
            ..*self
        }
    }

    /// The middle point.
    pub fn center(&self) -> (f64, f64) {
        (self.x + self.width / 2.0, self.y + self.height / 2.0)
    }
}
