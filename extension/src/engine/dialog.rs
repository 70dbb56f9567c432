//! `HandleDialog`: accept or dismiss the JavaScript dialog open in a tab (alert,
//! confirm, prompt, beforeunload), and keep the engine's dialog bookkeeping right.
//!
//! Chrome reports the dialog closing (`Page.javascriptDialogClosed`), which posts
//! `DialogClosed`; should that event not come (or Chrome say no dialog is showing),
//! the engine clears its record and posts `DialogClosed` itself.

use tabwire_shared::TabId;

use crate::cdp::capture::PageHandleJavaScriptDialog;
use crate::cdp::refusal::Refusal;
use crate::cdp::PageEvent;
use crate::chrome::Chrome;
use crate::engine::context::Cx;
use crate::error::EngineError;
use crate::signals::TabSignal;

/// How long to wait for Chrome to confirm the dialog closed.
const CLOSE_NOTICE_MS: u64 = 1_000;

/// Answers the dialog open in `tab`.
pub(super) async fn handle_dialog<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    accept: bool,
    prompt_text: Option<String>,
) -> Result<(), EngineError> {
    if cx.open_dialog(tab).is_none() {
        return Err(EngineError::NoDialog(tab));
    }
    let mut watch = cx.watch(tab);
    let answer = PageHandleJavaScriptDialog {
        accept,
        prompt_text,
    };
    match cx.send(tab, &answer).await {
        Ok(_) => {}
        Err(EngineError::Cdp { message, .. })
            if Refusal::of(&message) == Some(Refusal::NoDialog) =>
        {
            cx.forget_dialog(tab);
            return Err(EngineError::NoDialog(tab));
        }
        Err(error) => return Err(cx.explain_failure(tab, &mut watch, error).await),
    }
    let closed = watch.watch(cx.chrome().sleep(CLOSE_NOTICE_MS), |signal| match signal {
        TabSignal::Page(PageEvent::DialogClosed) | TabSignal::Closed => Some(()),
        TabSignal::Closing => Some(()),
        TabSignal::Detached(_) | TabSignal::Withdrawn(_) => Some(()),
        TabSignal::Page(PageEvent::TargetCrashed) => Some(()),
        TabSignal::Page(_) | TabSignal::InFrame { .. } | TabSignal::Updated(_) => None,
    });
    if closed.await.is_ok() {
        // No notice came: clear the record ourselves.
        cx.forget_dialog(tab);
    }
    Ok(())
}

/// Answers the tab's dialog.
impl super::Handle for tabwire_shared::HandleDialog {
    const NEEDS_RENDERER: bool = true;

    async fn handle<C: Chrome + 'static>(self, cx: &Cx<'_, C>) -> Result<Self::Reply, EngineError> {
        cx.bounded("answer the dialog", async {
            cx.ensure_attached(self.tab_id).await?;
            handle_dialog(cx, self.tab_id, self.accept, self.prompt_text).await
        })
        .await?
    }
}

#[cfg(test)]
mod tests {
    use super::super::fake::{Answer, Harness};
    use serde_json::json;
    use tabwire_shared::{requests::*, ErrorCode, Event};

    fn handle(accept: bool, prompt_text: Option<&str>) -> HandleDialog {
        HandleDialog {
            tab_id: 10,
            accept,
            prompt_text: prompt_text.map(str::to_owned),
        }
    }

    fn open_prompt(h: &mut Harness) {
        h.engine.on_cdp_event(
            10,
            "Page.javascriptDialogOpening",
            &json!({"type": "prompt", "message": "name?", "defaultPrompt": "x"}),
        );
    }

    #[test]
    fn no_dialog_is_an_invalid_argument() {
        let mut h = Harness::new();
        h.call(1, handle(true, None));
        h.settle();
        let error = h.reply(1).unwrap().unwrap_err();
        assert_eq!(error.code, ErrorCode::InvalidArgument);
        assert_eq!(error.message, "No dialog is open on page 10.");
    }

    #[test]
    fn answering_sends_the_text_and_clears_the_dialog() {
        let mut h = Harness::new();
        open_prompt(&mut h);
        h.fake.answer(
            "Page.handleJavaScriptDialog",
            Answer::with_events(
                json!({}),
                vec![("Page.javascriptDialogClosed", json!({"result": true}))],
            ),
        );
        h.call(1, handle(true, Some("bob")));
        h.settle();
        assert_eq!(h.reply_to::<HandleDialog>(1).unwrap(), Ok(()));
        assert_eq!(
            h.fake.sent(10, "Page.handleJavaScriptDialog"),
            vec![json!({"accept": true, "promptText": "bob"})]
        );
        assert!(h.engine.open_dialog(10).is_none());
        let closed = h
            .events()
            .iter()
            .filter(|e| matches!(e, Event::DialogClosed { .. }))
            .count();
        assert_eq!(closed, 1, "closed once");
    }

    #[test]
    fn without_chromes_notice_the_record_is_cleared_anyway() {
        let mut h = Harness::new();
        open_prompt(&mut h);
        h.call(1, handle(false, None));
        h.settle();
        assert!(h.reply(1).is_none(), "waits for the notice");
        h.advance(1000);
        assert_eq!(h.reply_to::<HandleDialog>(1).unwrap(), Ok(()));
        assert!(h.engine.open_dialog(10).is_none());
        assert!(matches!(
            h.events().last(),
            Some(Event::DialogClosed { tab_id: 10 })
        ));
    }

    #[test]
    fn a_dialog_chrome_no_longer_shows_is_forgotten() {
        let mut h = Harness::new();
        open_prompt(&mut h);
        h.fake.answer(
            "Page.handleJavaScriptDialog",
            Answer::error("No dialog is showing"),
        );
        h.call(1, handle(true, None));
        h.settle();
        assert_eq!(
            h.reply(1).unwrap().unwrap_err().code,
            ErrorCode::InvalidArgument
        );
        assert!(h.engine.open_dialog(10).is_none());
    }
}
