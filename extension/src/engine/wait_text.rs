//! `WaitForText`: resolve as soon as any of some texts is visible in the page.
//!
//! The page-side wait ([`page::WAIT_TEXT`]) checks at once, then after each batch of
//! DOM changes; the engine awaits it. When the page navigates, the call dies with its
//! document: the engine waits for the next document's main-world context and starts
//! again there. The whole wait is bounded by the command's timeout.

use serde_json::Value;
use tabwire_shared::TabId;

use super::page;
use crate::cdp::{CallArgument, PageEvent, RuntimeCallFunctionOn, RuntimeEvaluate};
use crate::chrome::Chrome;
use crate::engine::context::Cx;
use crate::error::EngineError;
use crate::signals::{Subscription, TabSignal};

/// Waits until one of `texts` appears in `tab`; that text.
pub(super) async fn wait_for_text<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    texts: &[String],
    timeout_ms: u64,
) -> Result<String, EngineError> {
    let work = watch_for_text(cx, tab, texts, timeout_ms);
    let timed_out = || EngineError::TextTimeout {
        tab,
        texts: quote_all(texts),
        timeout_ms,
    };
    cx.in_time(tab, timeout_ms, work)
        .await?
        .flatten()
        .ok_or_else(timed_out)
}

async fn watch_for_text<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    texts: &[String],
    timeout_ms: u64,
) -> Result<Option<String>, EngineError> {
    let mut watch = cx.ready(tab).await?;
    loop {
        let group = cx.next_object_group();
        let outcome = look_for_text(cx, tab, &mut watch, texts, timeout_ms, &group).await;
        cx.release_objects(tab, group);
        match outcome {
            Ok(found) => return Ok(found),
            // The document went away under the wait: look in the next one.
            Err(EngineError::Cdp { .. } | EngineError::Navigated(_)) => {
                next_document(tab, &mut watch).await?;
            }
            Err(other) => return Err(other),
        }
    }
}

async fn look_for_text<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    texts: &[String],
    timeout_ms: u64,
    group: &str,
) -> Result<Option<String>, EngineError> {
    let global = RuntimeEvaluate {
        expression: "this".to_owned(),
        object_group: group.to_owned(),
        return_by_value: false,
    };
    let global = cx.send_watched(tab, watch, &global).await?;
    let Some(global) = global.result.object_id else {
        return Err(EngineError::Navigated(tab));
    };
    let call = RuntimeCallFunctionOn {
        function_declaration: page::WAIT_TEXT.to_owned(),
        object_id: global,
        arguments: vec![
            CallArgument::value(Value::from(texts.to_vec())),
            CallArgument::value(Value::from(timeout_ms)),
        ],
        object_group: group.to_owned(),
        return_by_value: true,
        await_promise: true,
        user_gesture: false,
    };
    let answer = cx.send_watched(tab, watch, &call).await?;
    if let Some(details) = answer.exception_details {
        return Err(EngineError::UnreadablePageData(format!(
            "the page's text could not be read: {}",
            details.describe()
        )));
    }
    Ok(answer
        .result
        .value
        .and_then(|v| v.as_str().map(str::to_owned)))
}

/// Waits until the tab has a new main-world JavaScript context (the next document).
async fn next_document(tab: TabId, watch: &mut Subscription) -> Result<(), EngineError> {
    loop {
        let signal = watch.next().await;
        if let Some(error) = super::session::interruption(tab, &signal) {
            return Err(error);
        }
        if let TabSignal::Page(PageEvent::ContextCreated {
            is_default: true, ..
        }) = signal
        {
            return Ok(());
        }
    }
}

/// `"a"`, `Neither "a" nor "b"`, `None of "a", "b" or "c"`.
fn quote_all(texts: &[String]) -> String {
    let quoted: Vec<String> = texts.iter().map(|t| format!("\"{t}\"")).collect();
    match quoted.split_last() {
        None => "The text".to_owned(),
        Some((last, [])) => last.clone(),
        Some((last, [first])) => format!("Neither {first} nor {last}"),
        Some((last, rest)) => format!("None of {} or {last}", rest.join(", ")),
    }
}

/// Waits for one of the texts.
impl super::Handle for tabwire_shared::WaitForText {
    const NEEDS_RENDERER: bool = true;

    async fn handle<C: Chrome + 'static>(self, cx: &Cx<'_, C>) -> Result<Self::Reply, EngineError> {
        wait_for_text(cx, self.tab_id, &self.texts, self.timeout_ms).await
    }
}
