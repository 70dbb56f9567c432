//! Input: acting on the page as a user would. Every action waits for what it causes
//! (a navigation until loaded, or DOM changes until quiet) before answering.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::Deserialize;
use tabwire_shared::requests::{self, Input};
use tabwire_shared::{Acted, Event, InputAction, KeyboardClick};

use super::DEFAULT_TIMEOUT_MS;
use crate::mcp::context::ToolContext;
use crate::mcp::response::{Response, SnapshotRequest};
use crate::mcp::tool::{Category, ErasedTool, Registered, Tool, ToolSpec};
use crate::mcp::ToolError;

/// Carries out one action and states its outcome.
async fn act(
    ctx: &ToolContext,
    action: InputAction,
    done: String,
    include_snapshot: bool,
    response: &mut Response,
) -> Result<(), ToolError> {
    let Acted {
        navigated_to,
        from_keyboard,
    } = ctx
        .request(Input {
            tab_id: ctx.page()?,
            action,
            timeout_ms: DEFAULT_TIMEOUT_MS,
        })
        .await?;
    response.line(done);
    if let Some(KeyboardClick { key, raised }) = from_keyboard {
        response.line(format!(
            "It was clicked from the keyboard: the tab is shown in a window {raised}, and a \
             mouse press would have brought that window to the front, so tabwire focused the \
             element and pressed {}. The page got a trusted click, but no mousedown, mouseup \
             or pointer events.",
            key.name()
        ));
    }
    if let Some(url) = navigated_to {
        response.line(format!("The page navigated to {url}."));
    }
    if include_snapshot {
        response.include_snapshot(SnapshotRequest::changes());
    }
    Ok(())
}

/// Declares a spec for an input tool.
const fn input_spec(name: &'static str, description: &'static str) -> ToolSpec {
    ToolSpec {
        name,
        description,
        category: Category::Input,
        read_only: false,
        page_scoped: true,
        blocked_by_dialog: true,
    }
}

/// Arguments of `click`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClickParams {
    /// The element's uid from take_snapshot.
    uid: String,
    /// Double-click instead of a single click.
    #[serde(default)]
    dbl_click: bool,
    /// Include a snapshot of the page after the click (only its changes since the
    /// last whole snapshot, when they are at most half as long).
    #[serde(default)]
    include_snapshot: bool,
}

/// `click`
pub struct Click;

impl Tool for Click {
    type Params = ClickParams;
    const SPEC: ToolSpec = input_spec(
        "click",
        "Clicks an element (by its uid from take_snapshot), then waits for what the click \
         causes: a navigation until it has loaded, or page changes until they settle. Where \
         a mouse press would bring the user's window forward (it is minimized, covered, or \
         another application is in front), a single click on a link, button, checkbox or \
         the like is made from the keyboard instead (focus, then Enter or Space: no \
         mousedown or mouseup), and the reply says so; other clicks there are refused.",
    );

    async fn run(
        &self,
        ctx: &ToolContext,
        p: ClickParams,
        response: &mut Response,
    ) -> Result<(), ToolError> {
        let done = format!(
            "{} the element {}.",
            if p.dbl_click {
                "Double-clicked"
            } else {
                "Clicked"
            },
            p.uid
        );
        let action = InputAction::Click {
            uid: p.uid,
            double: p.dbl_click,
        };
        act(ctx, action, done, p.include_snapshot, response).await
    }
}

/// Arguments of `click_at`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClickAtParams {
    /// Distance from the viewport's left edge, in CSS pixels.
    x: f64,
    /// Distance from the viewport's top edge, in CSS pixels.
    y: f64,
    /// Double-click instead of a single click.
    #[serde(default)]
    dbl_click: bool,
    /// Include a snapshot of the page after the click (only its changes since the
    /// last whole snapshot, when they are at most half as long).
    #[serde(default)]
    include_snapshot: bool,
}

/// `click_at`
pub struct ClickAt;

impl Tool for ClickAt {
    type Params = ClickAtParams;
    const SPEC: ToolSpec = input_spec(
        "click_at",
        "Clicks at a point of the viewport (CSS pixels, as in a screenshot), then waits for \
         what the click causes.",
    );

    async fn run(
        &self,
        ctx: &ToolContext,
        p: ClickAtParams,
        response: &mut Response,
    ) -> Result<(), ToolError> {
        if !(p.x.is_finite() && p.y.is_finite() && p.x >= 0.0 && p.y >= 0.0) {
            return Err(ToolError::new(
                "x and y must be non-negative numbers within the viewport.",
            ));
        }
        let done = format!("Clicked at ({}, {}).", p.x, p.y);
        let action = InputAction::ClickAt {
            x: p.x,
            y: p.y,
            double: p.dbl_click,
        };
        act(ctx, action, done, p.include_snapshot, response).await
    }
}

/// Arguments of `hover`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HoverParams {
    /// The element's uid from take_snapshot.
    uid: String,
    /// Include a snapshot of the page afterwards (only its changes since the last
    /// whole snapshot, when they are at most half as long).
    #[serde(default)]
    include_snapshot: bool,
}

/// `hover`
pub struct Hover;

impl Tool for Hover {
    type Params = HoverParams;
    const SPEC: ToolSpec = input_spec("hover", "Moves the mouse over an element (by uid).");

    async fn run(
        &self,
        ctx: &ToolContext,
        p: HoverParams,
        response: &mut Response,
    ) -> Result<(), ToolError> {
        let done = format!("Hovered over the element {}.", p.uid);
        act(
            ctx,
            InputAction::Hover { uid: p.uid },
            done,
            p.include_snapshot,
            response,
        )
        .await
    }
}

/// Arguments of `fill`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FillParams {
    /// The form control's uid from take_snapshot.
    uid: String,
    /// The value: text for inputs, textareas and contenteditable elements; an option's
    /// text for a select; "true" or "false" for a checkbox or radio button.
    value: String,
    /// Include a snapshot of the page afterwards (only its changes since the last
    /// whole snapshot, when they are at most half as long).
    #[serde(default)]
    include_snapshot: bool,
}

/// `fill`
pub struct Fill;

impl Tool for Fill {
    type Params = FillParams;
    const SPEC: ToolSpec = input_spec(
        "fill",
        "Fills a form control as a user would: types into a text input, textarea or \
         contenteditable element (replacing its text), picks a select's option by its text, or \
         sets a checkbox or radio button with \"true\"/\"false\".",
    );

    async fn run(
        &self,
        ctx: &ToolContext,
        p: FillParams,
        response: &mut Response,
    ) -> Result<(), ToolError> {
        let done = format!("Filled the element {}.", p.uid);
        let action = InputAction::Fill {
            uid: p.uid,
            value: p.value,
        };
        act(ctx, action, done, p.include_snapshot, response).await
    }
}

/// One control of `fill_form`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FormField {
    /// The form control's uid from take_snapshot.
    uid: String,
    /// Its value, as for `fill`.
    value: String,
}

/// Arguments of `fill_form`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FillFormParams {
    /// The controls to fill, in order.
    elements: Vec<FormField>,
    /// Include a snapshot of the page afterwards (only its changes since the last
    /// whole snapshot, when they are at most half as long).
    #[serde(default)]
    include_snapshot: bool,
}

/// `fill_form`
pub struct FillForm;

impl Tool for FillForm {
    type Params = FillFormParams;
    const SPEC: ToolSpec = input_spec(
        "fill_form",
        "Fills several form controls at once, in order, each as `fill` would.",
    );

    async fn run(
        &self,
        ctx: &ToolContext,
        p: FillFormParams,
        response: &mut Response,
    ) -> Result<(), ToolError> {
        if p.elements.is_empty() {
            return Err(ToolError::new(
                "`elements` is empty: give at least one {uid, value}.",
            ));
        }
        let count = p.elements.len();
        for (i, field) in p.elements.into_iter().enumerate() {
            let uid = field.uid.clone();
            let last = i + 1 == count;
            act(
                ctx,
                InputAction::Fill {
                    uid: field.uid,
                    value: field.value,
                },
                format!("Filled the element {uid}."),
                last && p.include_snapshot,
                response,
            )
            .await
            .map_err(|e| {
                ToolError::new(format!(
                    "Filling {uid} (field {} of {count}) failed: {}",
                    i + 1,
                    e.message
                ))
            })?;
        }
        Ok(())
    }
}

/// Arguments of `type_text`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TypeTextParams {
    /// The text to type into the focused element.
    text: String,
    /// A key to press after typing, e.g. "Enter" or "Tab".
    submit_key: Option<String>,
    /// Include a snapshot of the page afterwards (only its changes since the last
    /// whole snapshot, when they are at most half as long).
    #[serde(default)]
    include_snapshot: bool,
}

/// `type_text`
pub struct TypeText;

impl Tool for TypeText {
    type Params = TypeTextParams;
    const SPEC: ToolSpec = input_spec(
        "type_text",
        "Types text into the focused element (click or fill an element first to focus it), \
         optionally pressing a key such as Enter afterwards.",
    );

    async fn run(
        &self,
        ctx: &ToolContext,
        p: TypeTextParams,
        response: &mut Response,
    ) -> Result<(), ToolError> {
        if let Some(key) = &p.submit_key {
            check_key(key)?;
        }
        let done = match &p.submit_key {
            Some(key) => format!(
                "Typed {} characters, then pressed {key}.",
                p.text.chars().count()
            ),
            None => format!("Typed {} characters.", p.text.chars().count()),
        };
        let action = InputAction::TypeText {
            text: p.text,
            submit_key: p.submit_key,
        };
        act(ctx, action, done, p.include_snapshot, response).await
    }
}

/// Checks a key name or combination before it reaches the page.
fn check_key(key: &str) -> Result<(), ToolError> {
    tabwire_shared::keys::parse_combo(key)
        .map(|_| ())
        .map_err(|e| ToolError::new(e.to_string()))
}

/// Arguments of `press_key`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PressKeyParams {
    /// A key or combination: "Enter", "a", "ArrowDown", "Control+Shift+R", "Meta+a".
    key: String,
    /// Include a snapshot of the page afterwards (only its changes since the last
    /// whole snapshot, when they are at most half as long).
    #[serde(default)]
    include_snapshot: bool,
}

/// `press_key`
pub struct PressKey;

impl Tool for PressKey {
    type Params = PressKeyParams;
    const SPEC: ToolSpec = input_spec(
        "press_key",
        "Presses a key or key combination (modifiers joined with +, e.g. Control+Shift+R) in \
         the focused element or the page.",
    );

    async fn run(
        &self,
        ctx: &ToolContext,
        p: PressKeyParams,
        response: &mut Response,
    ) -> Result<(), ToolError> {
        check_key(&p.key)?;
        let done = format!("Pressed {}.", p.key);
        act(
            ctx,
            InputAction::PressKey { key: p.key },
            done,
            p.include_snapshot,
            response,
        )
        .await
    }
}

/// Arguments of `drag`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct DragParams {
    /// The uid of the element to drag.
    from_uid: String,
    /// The uid of the element to drop it on.
    to_uid: String,
    /// Include a snapshot of the page afterwards (only its changes since the last
    /// whole snapshot, when they are at most half as long).
    #[serde(default, rename = "includeSnapshot")]
    include_snapshot: bool,
}

/// `drag`
pub struct Drag;

impl Tool for Drag {
    type Params = DragParams;
    const SPEC: ToolSpec = input_spec("drag", "Drags one element (by uid) onto another.");

    async fn run(
        &self,
        ctx: &ToolContext,
        p: DragParams,
        response: &mut Response,
    ) -> Result<(), ToolError> {
        let done = format!("Dragged {} onto {}.", p.from_uid, p.to_uid);
        let action = InputAction::Drag {
            from_uid: p.from_uid,
            to_uid: p.to_uid,
        };
        act(ctx, action, done, p.include_snapshot, response).await
    }
}

/// Arguments of `upload_file`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UploadFileParams {
    /// The file input's uid, or the uid of an element that opens a file chooser.
    uid: String,
    /// Paths of the files to upload (local files that exist).
    #[serde(default)]
    file_paths: Vec<PathBuf>,
    /// One file's path (instead of filePaths).
    file_path: Option<PathBuf>,
    /// Include a snapshot of the page afterwards (only its changes since the last
    /// whole snapshot, when they are at most half as long).
    #[serde(default)]
    include_snapshot: bool,
}

/// `upload_file`
pub struct UploadFile;

impl Tool for UploadFile {
    type Params = UploadFileParams;
    const SPEC: ToolSpec = input_spec(
        "upload_file",
        "Uploads local files through a file input (or the file chooser an element opens).",
    );

    async fn run(
        &self,
        ctx: &ToolContext,
        p: UploadFileParams,
        response: &mut Response,
    ) -> Result<(), ToolError> {
        let mut paths = p.file_paths;
        paths.extend(p.file_path);
        if paths.is_empty() {
            return Err(ToolError::new("Give the files to upload in `filePaths`."));
        }
        let mut absolute = Vec::with_capacity(paths.len());
        for path in &paths {
            match std::fs::canonicalize(path) {
                Ok(found) if found.is_file() => absolute.push(found.to_string_lossy().into_owned()),
                Ok(_) => return Err(ToolError::new(format!("{} is not a file.", path.display()))),
                Err(e) => {
                    return Err(ToolError::new(format!(
                    "{} cannot be uploaded: {e}. Give the path of an existing file (absolute, or \
                         relative to the folder tabwire runs in).",
                    path.display()
                )))
                }
            }
        }
        let done = format!(
            "Uploaded {} file{} through {}.",
            absolute.len(),
            if absolute.len() == 1 { "" } else { "s" },
            p.uid
        );
        let action = InputAction::UploadFile {
            uid: p.uid,
            paths: absolute,
        };
        act(ctx, action, done, p.include_snapshot, response).await
    }
}

/// What to do with a dialog.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum DialogAction {
    /// Press OK.
    Accept,
    /// Press Cancel.
    Dismiss,
}

/// Arguments of `handle_dialog`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HandleDialogParams {
    /// `accept` (OK) or `dismiss` (Cancel).
    action: DialogAction,
    /// The answer to type into a prompt() dialog.
    prompt_text: Option<String>,
}

/// `handle_dialog`
pub struct HandleDialog;

impl Tool for HandleDialog {
    type Params = HandleDialogParams;
    const SPEC: ToolSpec = ToolSpec {
        name: "handle_dialog",
        description: "Accepts or dismisses the JavaScript dialog (alert, confirm, prompt, \
            beforeunload) open on the page. Responses show an open dialog under \"Open dialog\".",
        category: Category::Input,
        read_only: false,
        page_scoped: true,
        blocked_by_dialog: false,
    };

    async fn run(
        &self,
        ctx: &ToolContext,
        p: HandleDialogParams,
        response: &mut Response,
    ) -> Result<(), ToolError> {
        let tab_id = ctx.page()?;
        let accept = p.action == DialogAction::Accept;
        ctx.request(requests::HandleDialog {
            tab_id,
            accept,
            prompt_text: p.prompt_text,
        })
        .await?;
        ctx.observe(&Event::DialogClosed { tab_id });
        response.line(if accept {
            "Accepted the dialog."
        } else {
            "Dismissed the dialog."
        });
        Ok(())
    }
}

/// This group's tools, for the registry.
pub fn tools() -> Vec<Box<dyn ErasedTool>> {
    vec![
        Box::new(Registered::new(Click)),
        Box::new(Registered::new(ClickAt)),
        Box::new(Registered::new(Hover)),
        Box::new(Registered::new(Fill)),
        Box::new(Registered::new(FillForm)),
        Box::new(Registered::new(TypeText)),
        Box::new(Registered::new(PressKey)),
        Box::new(Registered::new(Drag)),
        Box::new(Registered::new(UploadFile)),
        Box::new(Registered::new(HandleDialog)),
    ]
}
