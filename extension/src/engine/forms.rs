//! Form controls and files: `fill` and `upload_file`.
//!
//! `fill` first asks the page what the element is ([`page::CONTROL`]), then acts as a
//! user would: text fields and contenteditable elements are focused, their content
//! selected and typed over with `Input.insertText` (an empty value deletes it); a
//! `<select>` gets the option whose trimmed text (else value) matches, with `input`
//! and `change` events; a checkbox or radio is clicked if its state differs from
//! `"true"`/`"false"`; date, time, color and range inputs, which take no typing, get
//! their value through the native setter, with the same events.
//!
//! `upload_file` sets a file input's files directly (`DOM.setFileInputFiles`); for any
//! other element it intercepts file choosers, clicks the element and sets the files
//! of the chooser that opens.

use serde::Deserialize;
use serde_json::Value;
use tabwire_shared::keys::parse_combo;
use tabwire_shared::TabId;

use super::document::NodeRef;
use super::input::{click, element, element_box, element_error, element_object, wait_event_in};
use super::keyboard::{insert_text, press_combo};
use super::page;
use crate::cdp::dom::DomDescribeNode;
use crate::cdp::input::{DomFocus, DomSetFileInputFiles, PageSetInterceptFileChooserDialog};
use crate::cdp::{CallArgument, PageEvent, RuntimeCallFunctionOn};
use crate::chrome::Chrome;
use crate::engine::context::Cx;
use crate::error::EngineError;
use crate::signals::Subscription;

/// How long a click may take to open a file chooser.
const FILE_CHOOSER_MS: u64 = 1_000;

/// What `control.js` says an element is.
#[derive(Debug, Default, Deserialize)]
struct Control {
    #[serde(default)]
    kind: String,
    #[serde(default)]
    tag: String,
    #[serde(default)]
    checked: bool,
}

/// What `control.js` answers to `choose`.
#[derive(Debug, Default, Deserialize)]
struct Choice {
    #[serde(default)]
    chosen: bool,
    #[serde(default)]
    options: Vec<String>,
}

/// Fills a form control with `value`.
pub(super) async fn fill<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    uid: &str,
    value: &str,
    group: &str,
) -> Result<(), EngineError> {
    let node = element(cx, tab, watch, uid, group).await?;
    // An element of a cross-site frame is resolved, focused and set in the frame's
    // session; typed keys go to the tab, which hands them to the focused frame.
    let session = node.session.as_deref();
    let object = element_object(cx, tab, watch, &node, uid, group).await?;
    let control: Control = call_control(cx, tab, session, watch, &object, "describe", "")
        .await
        .and_then(read)?;
    match control.kind.as_str() {
        "text" | "contenteditable" => {
            let focus = DomFocus {
                backend_node_id: node.backend,
            };
            cx.send_watched_in(tab, session, watch, &focus)
                .await
                .map_err(|e| element_error(e, uid))?;
            call_control(cx, tab, session, watch, &object, "selectAll", "").await?;
            if value.is_empty() {
                let delete = parse_combo("Delete").map_err(EngineError::InvalidKey)?;
                press_combo(cx, tab, watch, &delete).await
            } else {
                insert_text(cx, tab, watch, value).await
            }
        }
        "value" => {
            call_control(cx, tab, session, watch, &object, "set", value).await?;
            Ok(())
        }
        "select" => {
            let choice: Choice = call_control(cx, tab, session, watch, &object, "choose", value)
                .await
                .and_then(read)?;
            if choice.chosen {
                return Ok(());
            }
            let options: Vec<String> = choice
                .options
                .iter()
                .take(50)
                .map(|o| format!("\"{o}\""))
                .collect();
            let mut options = options.join(", ");
            if choice.options.len() > 50 {
                options.push_str(", ...");
            }
            if choice.options.is_empty() {
                options = "none".to_owned();
            }
            Err(EngineError::NoSuchOption {
                uid: uid.to_owned(),
                value: value.to_owned(),
                options,
            })
        }
        kind @ ("checkbox" | "radio") => {
            let wanted = match value {
                "true" => true,
                "false" => false,
                _ => {
                    return Err(EngineError::NotABoolean {
                        uid: uid.to_owned(),
                        kind: kind.to_owned(),
                        value: value.to_owned(),
                    })
                }
            };
            if wanted == control.checked {
                return Ok(());
            }
            let rect = element_box(cx, tab, watch, &node, uid, true).await?;
            click(cx, tab, watch, session, rect.center(), false).await
        }
        "file" => Err(EngineError::NotFillable {
            uid: uid.to_owned(),
            what: "a file input (use upload_file)".to_owned(),
        }),
        _ => Err(EngineError::NotFillable {
            uid: uid.to_owned(),
            what: if control.tag.is_empty() {
                "not an element".to_owned()
            } else {
                format!("a <{}>", control.tag)
            },
        }),
    }
}

/// Runs one operation of `control.js` on an element (an object of `session`);
/// its JSON answer.
async fn call_control<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    session: Option<&str>,
    watch: &mut Subscription,
    object: &str,
    op: &str,
    value: &str,
) -> Result<Value, EngineError> {
    let call = RuntimeCallFunctionOn {
        function_declaration: page::CONTROL.to_owned(),
        object_id: object.to_owned(),
        arguments: vec![
            CallArgument::value(Value::from(op)),
            CallArgument::value(Value::from(value)),
        ],
        object_group: String::new(),
        return_by_value: true,
        await_promise: false,
        user_gesture: true,
    };
    let answer = cx.send_watched_in(tab, session, watch, &call).await?;
    if let Some(details) = answer.exception_details {
        return Err(EngineError::UnreadablePageData(format!(
            "the form control could not be read or set: {}",
            details.describe()
        )));
    }
    Ok(answer.result.value.unwrap_or_default())
}

/// Sets the files of a file input, or of the chooser an element opens. An element
/// of a cross-site frame is described, clicked and set in the frame's session.
pub(super) async fn upload<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    uid: &str,
    paths: &[String],
    group: &str,
) -> Result<(), EngineError> {
    let node = element(cx, tab, watch, uid, group).await?;
    let session = node.session.as_deref();
    let describe = DomDescribeNode {
        backend_node_id: Some(node.backend),
        object_id: None,
    };
    let described = cx
        .send_watched_in(tab, session, watch, &describe)
        .await
        .map_err(|e| element_error(e, uid))?
        .node;
    let is_file_input = described.local_name == "input"
        && described
            .attribute("type")
            .is_some_and(|t| t.trim().eq_ignore_ascii_case("file"));
    let input = if is_file_input {
        node.backend
    } else {
        let intercept = PageSetInterceptFileChooserDialog { enabled: true };
        cx.send_watched_in(tab, session, watch, &intercept).await?;
        let opened = open_chooser(cx, tab, watch, &node, uid).await;
        // Best effort: interception left on only hides the next chooser too.
        let stop = PageSetInterceptFileChooserDialog { enabled: false };
        let _ = cx.send_in(tab, session, &stop).await;
        opened?.ok_or_else(|| EngineError::NoFileChooser(uid.to_owned()))?
    };
    let set = DomSetFileInputFiles {
        files: paths.to_vec(),
        backend_node_id: input,
    };
    cx.send_watched_in(tab, session, watch, &set).await?;
    Ok(())
}

/// Clicks an element and waits for the file chooser it opens (in the element's
/// session); its input.
async fn open_chooser<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    node: &NodeRef,
    uid: &str,
) -> Result<Option<i64>, EngineError> {
    let rect = element_box(cx, tab, watch, node, uid, true).await?;
    let session = node.session.as_deref();
    click(cx, tab, watch, session, rect.center(), false).await?;
    let opened = wait_event_in(
        cx,
        tab,
        watch,
        session,
        FILE_CHOOSER_MS,
        |event| match event {
            PageEvent::FileChooserOpened { backend_node_id } => Some(*backend_node_id),
            _ => None,
        },
    )
    .await?;
    Ok(opened.flatten())
}

fn read<T: for<'de> Deserialize<'de>>(value: Value) -> Result<T, EngineError> {
    serde_json::from_value(value).map_err(|e| {
        EngineError::UnreadablePageData(format!("unexpected answer about a form control: {e}"))
    })
}
