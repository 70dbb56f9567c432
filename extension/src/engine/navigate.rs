//! `Navigate`: go to a URL, back, forward or reload, and wait for the main frame's load.
//!
//! The wait is driven by CDP events, never by sleeping: a new document is loaded when
//! the main frame has committed it (`Page.frameNavigated`, matched by loader id when
//! known) and then fired `Page.loadEventFired`; a same-document navigation is done at
//! `Page.navigatedWithinDocument`; a page restored from the back/forward cache fires
//! no load event, so its commit is enough. The whole command is bounded by its timeout.
//!
//! `data:` URLs: Chrome counts an extension's navigation (`Page.navigate` through
//! `chrome.debugger`, `chrome.tabs.update`) as one the page started, and pages may not
//! open a `data:` document in the top frame, so Chrome aborts it. Only a new tab may
//! start at one: `new_page` opens such a tab at its URL and [`await_opened`] waits for
//! it, while `navigate_page` says to use `new_page` (a browser tabwire launches lifts
//! the rule, so there both work).
//!
//! [`await_opened`]: Engine::await_opened

use std::cell::RefCell;
use std::future::Future;

use tabwire_shared::{Navigation, TabId, TabInfo};

use super::session::interruption;
use super::tabs::tab_info;
use crate::cdp::refusal::Refusal;
use crate::cdp::{
    PageEvent, PageGetFrameTree, PageGetNavigationHistory, PageNavigate,
    PageNavigateToHistoryEntry, PageReload, RuntimeEvaluate,
};
use crate::chrome::Chrome;
use crate::engine::context::Cx;
use crate::error::EngineError;
use crate::signals::{within, Subscription, TabSignal};

/// The error of a navigation that ended without a new document (a download, a 204):
/// no error page follows.
const ABORTED: &str = "net::ERR_ABORTED";

/// How long a failed navigation waits for Chrome's error page to load.
const ERROR_PAGE_SETTLE_MS: u64 = 1_000;

/// What ends the wait after a navigation has started.
enum Expected {
    /// A new document in the main frame, by this loader if known.
    NewDocument { loader: Option<String> },
    /// A same-document navigation of this frame.
    SameDocument { frame: String },
    /// A history step: either of the above, in the main frame `frame`.
    Either { frame: String },
    /// The load event of the document the main frame has already committed.
    Load,
}

/// Navigates `tab` and waits for the load; the tab as it is afterwards.
pub(super) async fn navigate<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    to: &Navigation,
    timeout_ms: u64,
) -> Result<TabInfo, EngineError> {
    if let Navigation::Url { url } = to {
        check_url(url)?;
        check_reachable(url)?;
        cx.check_destination(url)?;
    }
    let target = RefCell::new(describe(to));
    let load = start_and_wait(cx, tab, to, &target);
    let outcome = loaded_within(cx, tab, load, &target, timeout_ms).await;
    // A renderer found crashed when the debugger came (which then let go) takes no
    // CDP commands; one that crashed under this navigation is not tried again.
    let crashed_before =
        matches!(outcome, Err(EngineError::RendererCrashed(_))) && !cx.is_attached(tab);
    match (outcome, to) {
        (Err(error), Navigation::Url { url })
            if crashed_before || unreachable_from_here(&error) =>
        {
            navigate_without_debugger(cx, tab, url, timeout_ms).await
        }
        (Err(_), Navigation::Reload { .. }) if crashed_before => {
            let url = cx.existing_tab(tab).await?.url;
            navigate_without_debugger(cx, tab, &url, timeout_ms).await
        }
        (outcome, _) => outcome,
    }
}

/// Takes a tab the debugger cannot work in (it shows, or was left pending on, a
/// browser page) to `url` with the tabs API, which needs no debugger; once the tab
/// says it has loaded, attaches again. Bounded by `timeout_ms` like a navigation.
async fn navigate_without_debugger<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    url: &str,
    timeout_ms: u64,
) -> Result<TabInfo, EngineError> {
    if cx.is_attached(tab) {
        cx.detach_keeping_collectors(tab).await;
    }
    // Subscribed first: the load may finish before the update's answer comes.
    let mut watch = cx.watch(tab);
    cx.bounded("navigate the page", cx.chrome().navigate_tab(tab, url))
        .await??;
    cx.chrome().log(&format!(
        "tabwire: tab {tab} was out of the debugger's reach; sent it to {url} without it"
    ));
    let load = async {
        loop {
            match watch.next().await {
                TabSignal::Updated(change) if change.status.as_deref() == Some("complete") => break,
                signal @ (TabSignal::Closed | TabSignal::Closing | TabSignal::Withdrawn(_)) => {
                    return Err(
                        interruption(tab, &signal).unwrap_or(EngineError::ClosedDuringCommand(tab))
                    )
                }
                _ => {}
            }
        }
        cx.crash_changed(tab, false);
        cx.ensure_attached(tab).await
    };
    let target = RefCell::new(url.to_owned());
    loaded_within(cx, tab, load, &target, timeout_ms).await
}

/// Waits for a tab that was created at `url` (not navigated there) to finish
/// loading it; the tab as it is afterwards. The load may be over, or not even
/// committed, by the time the debugger attaches: the frame tree and the document's
/// ready state, read after subscribing to the tab's events, say how far it got.
pub(super) async fn await_opened<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    url: &str,
    timeout_ms: u64,
) -> Result<TabInfo, EngineError> {
    let target = RefCell::new(url.to_owned());
    let load = async {
        let mut watch = cx.attached(tab).await?;
        let tree = cx
            .send_watched(tab, &mut watch, &PageGetFrameTree {})
            .await?;
        let expected = if matches!(tree.frame_tree.frame.url.as_str(), "" | "about:blank") {
            // Still the tab's first, empty document.
            Expected::NewDocument { loader: None }
        } else {
            // A page that redefines `document.readyState` only makes this wait
            // for a load that has been: the timeout still bounds it.
            let ready = RuntimeEvaluate {
                expression: "document.readyState".to_owned(),
                object_group: "tabwire-load".to_owned(),
                return_by_value: true,
            };
            let state = cx.send_watched(tab, &mut watch, &ready).await?;
            if state.result.value.as_ref().and_then(|v| v.as_str()) == Some("complete") {
                return Ok(());
            }
            Expected::Load
        };
        wait_for_load(tab, &mut watch, &expected).await
    };
    loaded_within(cx, tab, load, &target, timeout_ms).await
}

/// Runs `load` within `timeout_ms`; the tab as it is afterwards.
async fn loaded_within<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    load: impl Future<Output = Result<(), EngineError>>,
    target: &RefCell<String>,
    timeout_ms: u64,
) -> Result<TabInfo, EngineError> {
    let timed_out = || EngineError::LoadTimeout {
        tab,
        target: target.borrow().clone(),
        timeout_ms,
    };
    cx.in_time(tab, timeout_ms, load)
        .await?
        .ok_or_else(timed_out)?;
    cx.bounded("describe the page", tab_info(cx, tab)).await?
}

async fn start_and_wait<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    to: &Navigation,
    target: &RefCell<String>,
) -> Result<(), EngineError> {
    let mut watch = cx.ready(tab).await?;
    let expected = match to {
        Navigation::Url { url } => go_to_url(cx, tab, &mut watch, url).await?,
        Navigation::Reload { ignore_cache } => {
            let reload = PageReload {
                ignore_cache: *ignore_cache,
            };
            cx.send_watched(tab, &mut watch, &reload).await?;
            Expected::NewDocument { loader: None }
        }
        Navigation::Back => step_history(cx, tab, &mut watch, -1, target).await?,
        Navigation::Forward => step_history(cx, tab, &mut watch, 1, target).await?,
    };
    wait_for_load(tab, &mut watch, &expected).await
}

async fn go_to_url<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    url: &str,
) -> Result<Expected, EngineError> {
    let command = PageNavigate {
        url: url.to_owned(),
    };
    let answer = match cx.send_watched(tab, watch, &command).await {
        Err(EngineError::Cdp { message, .. })
            if Refusal::of(&message) == Some(Refusal::InvalidUrl) =>
        {
            return Err(EngineError::InvalidUrl(url.to_owned()))
        }
        other => other?,
    };
    if let Some(error) = answer.error_text.filter(|e| !e.is_empty()) {
        if error == ABORTED && is_data_url(url) && !answer.is_download {
            return Err(EngineError::DataUrlNavigation);
        }
        if error != ABORTED {
            // Chrome shows its error page next; until that commits, CDP answers the
            // next command with "Not attached to an active page". Let it settle.
            let shown = wait_for_load(tab, watch, &Expected::NewDocument { loader: None });
            let _ = within(cx.chrome().sleep(ERROR_PAGE_SETTLE_MS), shown).await;
        }
        return Err(EngineError::LoadFailed {
            url: url.to_owned(),
            error,
        });
    }
    Ok(match answer.loader_id {
        Some(loader) => Expected::NewDocument {
            loader: Some(loader),
        },
        None => Expected::SameDocument {
            frame: answer.frame_id,
        },
    })
}

async fn step_history<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
    watch: &mut Subscription,
    step: i64,
    target: &RefCell<String>,
) -> Result<Expected, EngineError> {
    let history = cx
        .send_watched(tab, watch, &PageGetNavigationHistory {})
        .await?;
    let entry = usize::try_from(history.current_index + step)
        .ok()
        .and_then(|index| history.entries.get(index))
        .ok_or(EngineError::NoHistoryEntry {
            tab,
            direction: if step < 0 { "previous" } else { "next" },
        })?;
    *target.borrow_mut() = entry.url.clone();
    let tree = cx.send_watched(tab, watch, &PageGetFrameTree {}).await?;
    let command = PageNavigateToHistoryEntry { entry_id: entry.id };
    cx.send_watched(tab, watch, &command).await?;
    Ok(Expected::Either {
        frame: tree.frame_tree.frame.id,
    })
}

/// Waits for the event that ends a navigation.
async fn wait_for_load(
    tab: TabId,
    watch: &mut Subscription,
    expected: &Expected,
) -> Result<(), EngineError> {
    let mut committed = false;
    loop {
        let signal = watch.next().await;
        if let Some(error) = interruption(tab, &signal) {
            return Err(error);
        }
        let TabSignal::Page(event) = signal else {
            continue;
        };
        match (event, expected) {
            (
                PageEvent::FrameNavigated {
                    is_main: true,
                    loader_id,
                    kind,
                    ..
                },
                Expected::NewDocument { .. } | Expected::Either { .. },
            ) => {
                let ours = match expected {
                    Expected::NewDocument {
                        loader: Some(loader),
                    } => *loader == loader_id,
                    _ => true,
                };
                if ours && kind == "BackForwardCacheRestore" {
                    return Ok(());
                }
                committed |= ours;
            }
            (PageEvent::LoadEventFired, Expected::NewDocument { .. } | Expected::Either { .. })
                if committed =>
            {
                return Ok(())
            }
            (PageEvent::LoadEventFired, Expected::Load) => return Ok(()),
            (
                PageEvent::NavigatedWithinDocument { frame_id },
                Expected::SameDocument { frame } | Expected::Either { frame },
            ) if frame_id == *frame => return Ok(()),
            _ => {}
        }
    }
}

/// Rejects what is not an absolute URL (`example.com`, `localhost:3000`) before
/// anything is opened or navigated. Spaces are fine past the host (Chrome escapes
/// them, and `data:text/html,<title>My page</title>` needs them), and so are tabs and
/// line breaks, which URL parsing drops; other control characters are not.
pub(super) fn check_url(url: &str) -> Result<(), EngineError> {
    let invalid = || EngineError::InvalidUrl(url.to_owned());
    let (scheme, rest) = url.split_once(':').ok_or_else(invalid)?;
    let scheme_ok = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    let rest_ok = !rest.is_empty() && !rest.starts_with(|c: char| c.is_ascii_digit());
    let host = rest.strip_prefix("//").map_or("", |after| {
        after.split(['/', '?', '#']).next().unwrap_or(after)
    });
    let clean = !url
        .chars()
        .any(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
        && !host.contains(char::is_whitespace);
    if scheme_ok && rest_ok && clean {
        Ok(())
    } else {
        Err(invalid())
    }
}

/// The schemes of pages Chrome keeps out of extensions' reach: its own pages
/// (`chrome:`, `chrome-untrusted:`, `devtools:`, `chrome-search:`, …), source views,
/// and extensions' pages — tabwire's own included, whose popup holds the user's
/// sharing choices. `about:` pages other than `about:blank` are `chrome:` pages by
/// another name. Chrome refuses the debugger there, and a refused navigation can leave
/// the tab stuck, so tabwire never starts one.
const PRIVILEGED_SCHEMES: &[&str] = &[
    "chrome",
    "chrome-untrusted",
    "chrome-search",
    "chrome-native",
    "chrome-error",
    "chrome-extension",
    "devtools",
    "view-source",
    "about",
];

/// Refuses a URL of a [privileged scheme](PRIVILEGED_SCHEMES) (all but `about:blank`)
/// before anything is opened or navigated.
pub(super) fn check_reachable(url: &str) -> Result<(), EngineError> {
    let Some((scheme, rest)) = url.split_once(':') else {
        return Ok(());
    };
    let scheme = scheme.trim().to_ascii_lowercase();
    let blank = scheme == "about" && {
        let page = rest.split(['?', '#']).next().unwrap_or(rest);
        page.eq_ignore_ascii_case("blank")
    };
    if PRIVILEGED_SCHEMES.contains(&scheme.as_str()) && !blank {
        return Err(EngineError::PrivilegedUrl {
            url: url.to_owned(),
            scheme,
        });
    }
    Ok(())
}

/// Whether a navigation failed before it started because the tab is out of the
/// debugger's reach (it shows a browser page, or Chrome left one pending in it), which
/// the tabs API can still take it away from. A navigation that itself went where the
/// debugger cannot follow is not tried again.
fn unreachable_from_here(error: &EngineError) -> bool {
    match error {
        EngineError::AttachFailed {
            reason: message, ..
        }
        | EngineError::Cdp { message, .. } => Refusal::of(message) == Some(Refusal::PageOutOfReach),
        _ => false,
    }
}

/// Whether `url` is a `data:` URL (schemes are case-insensitive).
pub(super) fn is_data_url(url: &str) -> bool {
    url.get(..5)
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case("data:"))
}

/// How the timeout message names the destination before it is known exactly.
fn describe(to: &Navigation) -> String {
    match to {
        Navigation::Url { url } => url.clone(),
        Navigation::Back => "the previous page".to_owned(),
        Navigation::Forward => "the next page".to_owned(),
        Navigation::Reload { .. } => "the reloaded page".to_owned(),
    }
}

/// Navigates the tab and waits for the load.
impl super::Handle for tabwire_shared::Navigate {
    const NEEDS_RENDERER: bool = false;

    async fn handle<C: Chrome + 'static>(self, cx: &Cx<'_, C>) -> Result<Self::Reply, EngineError> {
        navigate(cx, self.tab_id, &self.to, self.timeout_ms).await
    }
}

#[cfg(test)]
mod tests {
    use super::super::fake::{Answer, Harness};
    use super::check_url;
    use serde_json::json;
    use tabwire_shared::{requests::*, ErrorCode, Navigation};

    fn navigate(to: Navigation, timeout_ms: u64) -> Navigate {
        Navigate {
            tab_id: 10,
            to,
            timeout_ms,
        }
    }

    fn url(url: &str) -> Navigation {
        Navigation::Url { url: url.into() }
    }

    #[test]
    fn urls_must_be_absolute() {
        assert!(check_url("https://example.com/").is_ok());
        assert!(check_url("about:blank").is_ok());
        assert!(check_url("data:text/html,<p>hi</p>").is_ok());
        assert!(check_url("data:text/html,<title>My page</title><h1>hi there</h1>").is_ok());
        assert!(check_url("data:text/html,<p>one</p>\n<p>two</p>").is_ok());
        assert!(check_url("https://example.com/a b?q=c d").is_ok());
        for bad in [
            "example.com",
            "localhost:3000",
            "",
            "http://a b/",
            "https://exa\tmple.com /",
            "data:text/html,\u{0}",
            "1http://x",
        ] {
            assert!(check_url(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn navigation_waits_for_the_load_event() {
        let mut h = Harness::new();
        h.fake.manual_loads();
        h.call(1, navigate(url("https://d.test/"), 5000));
        h.settle();
        assert!(h.reply(1).is_none(), "no reply before the load event");
        h.fake.set_url(10, "https://d.test/");
        h.engine.on_cdp_event(10, "Page.loadEventFired", &json!({}));
        h.settle();
        assert!(
            h.reply(1).is_none(),
            "a load event before the commit is stale"
        );
        h.engine.on_cdp_event(
            10,
            "Page.frameNavigated",
            &json!({"frame": {"id": "main", "loaderId": "L1", "url": "https://d.test/"}, "type": "Navigation"}),
        );
        h.engine.on_cdp_event(10, "Page.loadEventFired", &json!({}));
        h.settle();
        let Ok(tab) = h.reply_to::<Navigate>(1).unwrap() else {
            panic!("expected the tab");
        };
        assert_eq!(tab.url, "https://d.test/");
    }

    #[test]
    fn same_document_navigation_finishes_without_a_load() {
        let mut h = Harness::new();
        h.fake.answer(
            "Page.navigate",
            Answer::with_events(
                json!({"frameId": "main"}),
                vec![(
                    "Page.navigatedWithinDocument",
                    json!({"frameId": "main", "url": "#x"}),
                )],
            ),
        );
        h.call(1, navigate(url("https://a.test/#x"), 5000));
        h.settle();
        assert!(h.reply(1).unwrap().is_ok());
    }

    #[test]
    fn navigation_times_out_naming_the_url() {
        let mut h = Harness::new();
        h.fake.manual_loads();
        h.call(1, navigate(url("https://slow.test/"), 3000));
        h.settle();
        h.advance(2999);
        assert!(h.reply(1).is_none());
        h.advance(1);
        let error = h.failed(1, ErrorCode::Timeout, "https://slow.test/");
        assert!(error.message.contains("3000 ms"));
        assert_eq!(
            h.engine.signals().live(),
            0,
            "the abandoned wait unsubscribed"
        );
    }

    #[test]
    fn network_errors_say_the_url_could_not_be_loaded() {
        let mut h = Harness::new();
        h.fake.manual_loads();
        h.fake.answer(
            "Page.navigate",
            Answer::value(json!({"frameId": "main", "loaderId": "L", "errorText": "net::ERR_CONNECTION_REFUSED"})),
        );
        h.call(1, navigate(url("http://localhost:1/"), 5000));
        h.settle();
        assert!(h.reply(1).is_none(), "waits for Chrome's error page");
        let error_page = json!({"frame": {"id": "main", "loaderId": "E", "url": "chrome-error://chromewebdata/"}});
        h.engine
            .on_cdp_event(10, "Page.frameNavigated", &error_page);
        h.engine.on_cdp_event(10, "Page.loadEventFired", &json!({}));
        h.settle();
        let error = h.failed(
            1,
            ErrorCode::PageError,
            "Could not load http://localhost:1/",
        );
        assert!(error.message.contains("net::ERR_CONNECTION_REFUSED"));
    }

    #[test]
    fn an_error_page_that_never_loads_delays_the_error_only_briefly() {
        let mut h = Harness::new();
        h.fake.answer(
            "Page.navigate",
            Answer::value(
                json!({"frameId": "main", "loaderId": "L", "errorText": "net::ERR_FAILED"}),
            ),
        );
        h.call(1, navigate(url("https://x.test/"), 5000));
        h.settle();
        h.advance(1000);
        assert_eq!(h.reply(1).unwrap().unwrap_err().code, ErrorCode::PageError);
    }

    #[test]
    fn an_open_page_refused_a_data_url_says_to_open_it_with_new_page() {
        let mut h = Harness::new();
        h.fake.answer(
            "Page.navigate",
            Answer::value(
                json!({"frameId": "main", "loaderId": "L", "errorText": "net::ERR_ABORTED", "isDownload": false}),
            ),
        );
        h.call(1, navigate(url("DATA:text/html,<h1>hi</h1>"), 5000));
        h.settle();
        h.failed(1, ErrorCode::Refused, "Open it with new_page");
    }

    #[test]
    fn an_aborted_navigation_fails_at_once() {
        let mut h = Harness::new();
        h.fake.answer(
            "Page.navigate",
            Answer::value(
                json!({"frameId": "main", "loaderId": "L", "errorText": "net::ERR_ABORTED"}),
            ),
        );
        h.call(1, navigate(url("https://x.test/file.zip"), 5000));
        h.settle();
        assert!(h
            .reply(1)
            .unwrap()
            .unwrap_err()
            .message
            .contains("ERR_ABORTED"));
    }

    #[test]
    fn chrome_rejecting_the_url_is_an_invalid_argument() {
        let mut h = Harness::new();
        h.fake.answer(
            "Page.navigate",
            Answer::error("Cannot navigate to invalid URL"),
        );
        h.call(1, navigate(url("http://[::1/"), 5000));
        h.settle();
        assert_eq!(
            h.reply(1).unwrap().unwrap_err().code,
            ErrorCode::InvalidArgument
        );
    }

    #[test]
    fn back_goes_to_the_previous_entry_and_waits() {
        let mut h = Harness::new();
        h.fake.answer(
            "Page.getNavigationHistory",
            Answer::value(json!({"currentIndex": 1, "entries": [
                {"id": 5, "url": "https://one.test/"}, {"id": 6, "url": "https://two.test/"}]})),
        );
        h.fake.answer(
            "Page.navigateToHistoryEntry",
            Answer::with_events(
                json!({}),
                vec![
                    (
                        "Page.frameNavigated",
                        json!({"frame": {"id": "main", "loaderId": "X"}, "type": "Navigation"}),
                    ),
                    ("Page.loadEventFired", json!({})),
                ],
            ),
        );
        h.call(1, navigate(Navigation::Back, 5000));
        h.settle();
        assert!(h.reply(1).unwrap().is_ok());
        assert_eq!(
            h.fake.sent(10, "Page.navigateToHistoryEntry"),
            vec![json!({"entryId": 5})]
        );
    }

    #[test]
    fn a_back_forward_cache_restore_needs_no_load_event() {
        let mut h = Harness::new();
        h.fake.answer(
            "Page.getNavigationHistory",
            Answer::value(json!({"currentIndex": 0, "entries": [{"id": 5, "url": "a"}, {"id": 6, "url": "b"}]})),
        );
        h.fake.answer(
            "Page.navigateToHistoryEntry",
            Answer::with_events(
                json!({}),
                vec![("Page.frameNavigated", json!({"frame": {"id": "main", "loaderId": "X"}, "type": "BackForwardCacheRestore"}))],
            ),
        );
        h.call(1, navigate(Navigation::Forward, 5000));
        h.settle();
        assert!(h.reply(1).unwrap().is_ok());
    }

    #[test]
    fn no_previous_page_is_an_invalid_argument() {
        let mut h = Harness::new();
        h.fake.answer(
            "Page.getNavigationHistory",
            Answer::value(json!({"currentIndex": 0, "entries": [{"id": 5, "url": "a"}]})),
        );
        h.call(1, navigate(Navigation::Back, 5000));
        h.call(2, navigate(Navigation::Forward, 5000));
        h.settle();
        let back = h.reply(1).unwrap().unwrap_err();
        assert_eq!(back.code, ErrorCode::InvalidArgument);
        assert!(back.message.contains("no previous page"));
        assert!(h
            .reply(2)
            .unwrap()
            .unwrap_err()
            .message
            .contains("no next page"));
    }

    #[test]
    fn reload_waits_for_the_new_document() {
        let mut h = Harness::new();
        h.fake.answer(
            "Page.reload",
            Answer::with_events(
                json!({}),
                vec![
                    (
                        "Page.frameNavigated",
                        json!({"frame": {"id": "main", "loaderId": "R"}}),
                    ),
                    ("Page.loadEventFired", json!({})),
                ],
            ),
        );
        h.call(1, navigate(Navigation::Reload { ignore_cache: true }, 5000));
        h.settle();
        assert!(h.reply(1).unwrap().is_ok());
        assert_eq!(
            h.fake.sent(10, "Page.reload"),
            vec![json!({"ignoreCache": true})]
        );
    }

    #[test]
    fn closing_the_tab_mid_navigation_says_so() {
        let mut h = Harness::new();
        h.fake.manual_loads();
        h.call(1, navigate(url("https://d.test/"), 5000));
        h.settle();
        h.fake.remove_tab_silently(10);
        h.engine.on_tab_removed(10);
        h.settle();
        h.failed(1, ErrorCode::NoSuchTab, "was closed");
    }

    #[test]
    fn going_where_the_debugger_cannot_follow_says_so() {
        let mut h = Harness::new();
        h.fake.hold("Page.navigate");
        // A server may redirect to a page the debugger cannot follow.
        h.call(1, navigate(url("https://d.test/to-a-browser-page"), 5000));
        h.settle();
        h.fake
            .release_held_error("Detached while handling command.");
        h.settle();
        assert!(h.reply(1).is_none(), "waits for Chrome's detach notice");
        h.engine.on_debugger_detached(10, "target_closed");
        h.settle();
        h.failed(1, ErrorCode::Detached, "cannot access");
    }

    #[test]
    fn a_session_lost_without_notice_is_reported_after_a_moment() {
        let mut h = Harness::new();
        h.fake.hold("Page.navigate");
        h.call(1, navigate(url("https://d.test/"), 5000));
        h.settle();
        h.fake
            .release_held_error("Detached while handling command.");
        h.settle();
        h.advance(1000);
        h.failed(1, ErrorCode::Detached, "Detached while handling command");
    }

    #[test]
    fn a_beforeunload_dialog_interrupts_navigation() {
        let mut h = Harness::new();
        h.fake.hold("Page.navigate");
        h.call(1, navigate(url("https://d.test/"), 5000));
        h.settle();
        h.engine.on_cdp_event(
            10,
            "Page.javascriptDialogOpening",
            &json!({"type": "beforeunload", "message": ""}),
        );
        h.settle();
        assert_eq!(h.reply(1).unwrap().unwrap_err().code, ErrorCode::Dialog);
    }

    #[test]
    fn browser_pages_are_refused_before_anything_is_sent() {
        use super::check_reachable;
        for ok in [
            "https://a.test/",
            "about:blank",
            "ABOUT:BLANK#x",
            "file:///tmp/a.html",
        ] {
            assert!(check_reachable(ok).is_ok(), "{ok}");
        }
        for refused in [
            "chrome://crash",
            "CHROME://settings",
            "chrome-untrusted://terminal/",
            "devtools://devtools/bundled/inspector.html",
            "view-source:https://a.test/",
            "chrome-extension://abcdefghijklmnop/popup.html",
            "about:settings",
        ] {
            assert!(check_reachable(refused).is_err(), "{refused}");
        }
        let mut h = Harness::new();
        h.call(1, navigate(url("chrome://crash"), 5000));
        h.call(
            2,
            NewTab {
                url: "view-source:https://a.test/".into(),
                background: Some(true),
                timeout_ms: 1000,
            },
        );
        h.settle();
        for id in [1, 2] {
            let error = h.reply(id).unwrap().unwrap_err();
            assert_eq!(error.code, ErrorCode::Refused);
            assert!(error.message.contains("browser page"), "{error:?}");
        }
        assert!(h.fake.sent(10, "Page.navigate").is_empty());
        assert!(h.fake.created_urls().is_empty(), "no tab opened in vain");
    }

    /// The tabs API says tab 10 finished loading.
    fn tab_loaded(h: &mut Harness) {
        let complete = super::super::TabChange {
            status: Some("complete".into()),
            ..Default::default()
        };
        h.engine.on_tab_updated(10, complete);
        h.settle();
    }

    #[test]
    fn a_tab_the_debugger_cannot_reach_is_sent_away_with_the_tabs_api() {
        let mut h = Harness::new();
        h.fake.refuse_attach(10, "Cannot access a chrome:// URL");
        h.call(1, navigate(url("https://d.test/"), 5000));
        h.settle();
        assert_eq!(
            h.fake.tab_updates(),
            vec![(10, "https://d.test/".to_owned())]
        );
        assert!(h.reply(1).is_none(), "waits for the tab to load");
        tab_loaded(&mut h);
        let Ok(tab) = h.reply_to::<Navigate>(1).unwrap() else {
            panic!("expected the tab, got {:?}", h.reply(1));
        };
        assert_eq!(tab.url, "https://d.test/");
        assert!(h.fake.is_attached(10), "attached again");
    }

    #[test]
    fn a_wedged_session_is_left_for_the_tabs_api() {
        let mut h = Harness::new();
        h.call(1, TakeSnapshot::whole(10));
        h.settle();
        assert!(h.fake.is_attached(10));
        h.fake.answer(
            "Page.navigate",
            Answer::error("Cannot access a chrome:// URL"),
        );
        h.call(2, navigate(url("https://d.test/"), 5000));
        h.settle();
        assert_eq!(
            h.fake.tab_updates(),
            vec![(10, "https://d.test/".to_owned())]
        );
        assert!(!h.fake.is_attached(10), "the wedged session was let go");
        tab_loaded(&mut h);
        assert!(h.reply(2).unwrap().is_ok());
        assert!(h.fake.is_attached(10));
    }

    #[test]
    fn a_tab_sent_away_that_never_loads_times_out() {
        let mut h = Harness::new();
        h.fake.refuse_attach(10, "Cannot access a chrome:// URL");
        h.call(1, navigate(url("https://d.test/"), 3000));
        h.settle();
        h.advance(3000);
        h.failed(1, ErrorCode::Timeout, "https://d.test/");
    }
}
