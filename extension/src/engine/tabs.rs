//! Tab commands that need no debugger: list, activate, close; and opening a tab,
//! which hands over to navigation for the load.

use tabwire_shared::{TabId, TabInfo};

use super::core::tabs::user_window;
use super::navigate::{await_opened, navigate};
use crate::chrome::Chrome;
use crate::engine::context::Cx;
use crate::error::EngineError;

/// Every tab of every normal window, window order then tab order, marking the tab
/// the user is looking at and any open dialog.
pub(super) async fn list_tabs<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
) -> Result<Vec<TabInfo>, EngineError> {
    let (windows, last_focused) = futures::join!(
        cx.chrome().normal_windows(),
        cx.chrome().last_focused_window()
    );
    let (windows, last_focused) = (windows?, last_focused?);
    let user_window = user_window(&windows, last_focused);
    let tabs = windows
        .iter()
        .flat_map(|window| &window.tabs)
        .map(|tab| {
            let user_active = tab.active && Some(tab.window_id) == user_window;
            cx.describe(tab, user_active)
        })
        .collect();
    Ok(tabs)
}

/// One tab as [`list_tabs`](list_tabs) would show it.
pub(super) async fn tab_info<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
) -> Result<TabInfo, EngineError> {
    if let Some(info) = list_tabs(cx).await?.into_iter().find(|t| t.id == tab) {
        return Ok(info);
    }
    // Not in a normal window (a popup, say): still describe it.
    match cx.chrome().tab(tab).await? {
        Some(state) => Ok(cx.describe(&state, false)),
        None => Err(EngineError::NoSuchTab(tab)),
    }
}

/// Selects a tab and brings its window to the front.
pub(super) async fn activate_tab<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
) -> Result<(), EngineError> {
    let state = cx.existing_tab(tab).await?;
    cx.chrome().activate_tab(tab).await?;
    cx.chrome().focus_window(state.window_id).await?;
    Ok(())
}

/// Closes a tab, unless it is the browser's last one. It does not wait for a
/// command running on the tab: that command is stopped, and says the page closed.
pub(super) async fn close_tab<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    tab: TabId,
) -> Result<(), EngineError> {
    cx.existing_tab(tab).await?;
    let windows = cx.chrome().normal_windows().await?;
    let open_tabs: usize = windows.iter().map(|w| w.tabs.len()).sum();
    if open_tabs <= 1 {
        return Err(EngineError::LastTab(tab));
    }
    cx.closing(tab);
    cx.chrome().remove_tab(tab).await?;
    Ok(())
}

/// Opens a blank tab for the calling agent (it joins the agent's scope), then navigates it
/// like `Navigate` does and waits for the load. A blocklisted destination is
/// refused before anything opens; if the agent was disconnected meanwhile, the
/// new tab is closed untouched. A `data:` URL, which Chrome lets an extension open
/// only in a new tab (see [`navigate`](super::navigate)), is where the tab starts.
pub(super) async fn new_tab<C: Chrome + 'static>(
    cx: &Cx<'_, C>,
    url: &str,
    background: bool,
    timeout_ms: u64,
) -> Result<TabInfo, EngineError> {
    super::navigate::check_url(url)?;
    super::navigate::check_reachable(url)?;
    cx.check_destination(url)?;
    let starts_there = super::navigate::is_data_url(url);
    let first = if starts_there { url } else { "about:blank" };
    let created = cx
        .bounded("open a page", cx.chrome().create_tab(first, !background))
        .await??;
    if !cx.adopt_tab(&created).await {
        if let Err(error) = cx.chrome().remove_tab(created.id).await {
            cx.chrome().log(&format!(
                "tabwire: could not close tab {} opened for a disconnected agent: {error}",
                created.id
            ));
        }
        return Err(EngineError::Revoked);
    }
    let to = tabwire_shared::Navigation::Url {
        url: url.to_owned(),
    };
    let _tab = cx.lock_tab(created.id).await;
    let outcome = if starts_there {
        await_opened(cx, created.id, url, timeout_ms).await
    } else {
        navigate(cx, created.id, &to, timeout_ms).await
    };
    // Used or not, the tab is let go after the idle time like any other.
    cx.note_used(created.id);
    outcome
}

/// Lists the tabs the agent may see.
impl super::Handle for tabwire_shared::ListTabs {
    const NEEDS_RENDERER: bool = false;

    async fn handle<C: Chrome + 'static>(self, cx: &Cx<'_, C>) -> Result<Self::Reply, EngineError> {
        cx.tabs_read();
        let mut tabs = cx.bounded("list the tabs", list_tabs(cx)).await??;
        tabs.retain(|t| cx.may_use(t.id));
        Ok(tabs)
    }
}

/// Brings the tab to the front.
impl super::Handle for tabwire_shared::ActivateTab {
    const NEEDS_RENDERER: bool = false;

    async fn handle<C: Chrome + 'static>(self, cx: &Cx<'_, C>) -> Result<Self::Reply, EngineError> {
        cx.bounded("activate the page", activate_tab(cx, self.tab_id))
            .await?
    }
}

/// Closes the tab.
impl super::Handle for tabwire_shared::CloseTab {
    const NEEDS_RENDERER: bool = false;

    async fn handle<C: Chrome + 'static>(self, cx: &Cx<'_, C>) -> Result<Self::Reply, EngineError> {
        cx.bounded("close the page", close_tab(cx, self.tab_id))
            .await?
    }
}

/// Opens a tab for the agent: in the background unless the browser is the agent's own.
impl super::Handle for tabwire_shared::NewTab {
    const NEEDS_RENDERER: bool = false;

    async fn handle<C: Chrome + 'static>(self, cx: &Cx<'_, C>) -> Result<Self::Reply, EngineError> {
        let agents_own = cx.agents_own_browser();
        let background = self.background.unwrap_or(!agents_own);
        new_tab(cx, &self.url, background, self.timeout_ms).await
    }
}

#[cfg(test)]
mod tests {
    use super::super::fake::{Answer, Harness};
    use serde_json::json;
    use tabwire_shared::{requests::*, ErrorCode};

    /// Opening `url` (in the background or not), waiting a second at most.
    fn new_tab(url: &str, background: bool) -> NewTab {
        NewTab {
            url: url.into(),
            background: Some(background),
            timeout_ms: 1000,
        }
    }

    /// The tab call `id` opened.
    fn opened(h: &Harness, id: u64) -> tabwire_shared::TabInfo {
        match h.reply_to::<NewTab>(id).expect("a reply") {
            Ok(tab) => tab,
            other => panic!("expected a tab, got {other:?}"),
        }
    }

    #[test]
    fn list_shows_every_tab_and_marks_the_users() {
        let mut h = Harness::new();
        h.fake.add_window(2, &[(20, "https://b.test/", true)]);
        h.fake.set_last_focused(Some(2));
        h.call(1, ListTabs);
        h.settle();
        let Ok(tabs) = h.reply_to::<ListTabs>(1).unwrap() else {
            panic!("expected tabs");
        };
        let ids: Vec<_> = tabs.iter().map(|t| (t.id, t.user_active)).collect();
        assert_eq!(ids, vec![(10, false), (11, false), (20, true)]);
    }

    #[test]
    fn without_a_focused_window_the_first_window_is_the_users() {
        let mut h = Harness::new();
        h.fake.set_last_focused(None);
        h.call(1, ListTabs);
        h.settle();
        let Ok(tabs) = h.reply_to::<ListTabs>(1).unwrap() else {
            panic!("expected tabs");
        };
        assert!(tabs[0].user_active && !tabs[1].user_active);
    }

    #[test]
    fn list_shows_open_dialogs() {
        let mut h = Harness::new();
        h.engine.on_cdp_event(
            11,
            "Page.javascriptDialogOpening",
            &json!({"type": "prompt", "message": "name?", "defaultPrompt": "bob"}),
        );
        h.call(1, ListTabs);
        h.settle();
        let Ok(tabs) = h.reply_to::<ListTabs>(1).unwrap() else {
            panic!("expected tabs");
        };
        let dialog = tabs[1].dialog.as_ref().expect("a dialog");
        assert_eq!(dialog.default_prompt.as_deref(), Some("bob"));
    }

    #[test]
    fn activate_selects_the_tab_and_focuses_its_window() {
        let mut h = Harness::new();
        h.call(1, ActivateTab { tab_id: 11 });
        h.settle();
        assert_eq!(h.reply_to::<ActivateTab>(1).unwrap(), Ok(()));
        assert_eq!(h.fake.active_tab(1), Some(11));
        assert_eq!(h.fake.focused_window(), Some(1));
    }

    #[test]
    fn unknown_tabs_get_the_agent_facing_message() {
        let mut h = Harness::new();
        h.call(1, ActivateTab { tab_id: 12 });
        h.settle();
        let error = h.reply(1).unwrap().unwrap_err();
        assert_eq!(error.code, ErrorCode::NoSuchTab);
        assert_eq!(
            error.message,
            "No page with id 12. Call list_pages to see the open pages."
        );
    }

    #[test]
    fn close_removes_the_tab_but_refuses_the_last_one() {
        let mut h = Harness::new();
        h.call(1, CloseTab { tab_id: 11 });
        h.settle();
        assert_eq!(h.reply_to::<CloseTab>(1).unwrap(), Ok(()));
        h.call(2, CloseTab { tab_id: 10 });
        h.settle();
        let error = h.reply(2).unwrap().unwrap_err();
        assert_eq!(error.code, ErrorCode::Refused);
        assert!(error
            .message
            .contains("Open another page with new_page first"));
    }

    #[test]
    fn new_tab_opens_blank_then_navigates_and_waits_for_the_load() {
        let mut h = Harness::new();
        h.call(1, new_tab("https://c.test/", true));
        h.settle();
        let tab = opened(&h, 1);
        assert_eq!(tab.url, "https://c.test/");
        assert!(!tab.user_active, "a background tab does not take focus");
        assert_eq!(h.fake.created_urls(), vec!["about:blank".to_owned()]);
        let navigations = h.fake.sent(tab.id, "Page.navigate");
        assert_eq!(navigations, vec![json!({"url": "https://c.test/"})]);
    }

    #[test]
    fn a_new_tab_stays_behind_the_users_tab_in_their_own_browser_unless_asked() {
        let unset = |h: &mut Harness| {
            h.call(
                1,
                NewTab {
                    url: "https://c.test/".into(),
                    background: None,
                    timeout_ms: 1000,
                },
            );
            h.settle();
            opened(h, 1).user_active
        };
        let mut agents = Harness::new();
        assert!(unset(&mut agents), "the agent's own browser: in front");
        let mut users = Harness::strict();
        users.hello(1, "s1", "agent");
        users.settle();
        assert!(
            !unset(&mut users),
            "the user's own browser: behind their tab"
        );
        assert_eq!(users.fake.active_tab(1), Some(10));
        users.call(2, new_tab("https://d.test/", false));
        users.settle();
        assert!(opened(&users, 2).user_active, "asked for: in front");
    }

    /// Answers `document.readyState` with `state`.
    fn ready_state(h: &Harness, state: &str) {
        h.fake.answer(
            "Runtime.evaluate",
            Answer::value(json!({"result": {"type": "string", "value": state}})),
        );
    }

    /// The main frame's document is at `url`.
    fn main_frame_at(h: &Harness, url: &str) {
        h.fake.answer(
            "Page.getFrameTree",
            Answer::value(
                json!({"frameTree": {"frame": {"id": "main", "loaderId": "L0", "url": url}}}),
            ),
        );
    }

    const DATA: &str = "data:text/html,<title>T</title><h1>hi</h1>";

    #[test]
    fn a_data_url_is_where_the_new_tab_starts_not_a_navigation() {
        let mut h = Harness::new();
        main_frame_at(&h, DATA);
        ready_state(&h, "complete");
        h.call(1, new_tab(DATA, false));
        h.settle();
        let tab = opened(&h, 1);
        assert_eq!(tab.url, DATA);
        assert_eq!(h.fake.created_urls(), vec![DATA.to_owned()]);
        assert!(h.fake.sent(tab.id, "Page.navigate").is_empty());
        assert!(h.fake.is_attached(tab.id), "attached to what it loaded");
    }

    #[test]
    fn a_data_tab_still_loading_is_waited_for() {
        let mut h = Harness::new();
        main_frame_at(&h, DATA);
        ready_state(&h, "interactive");
        h.call(1, new_tab(DATA, false));
        h.settle();
        assert!(h.reply(1).is_none(), "no reply before the load event");
        h.engine
            .on_cdp_event(101, "Page.loadEventFired", &json!({}));
        h.settle();
        assert_eq!(opened(&h, 1).id, 101);
    }

    #[test]
    fn a_data_tab_not_yet_committed_is_waited_for() {
        let mut h = Harness::new();
        main_frame_at(&h, "about:blank");
        h.call(1, new_tab(DATA, false));
        h.settle();
        h.engine
            .on_cdp_event(101, "Page.loadEventFired", &json!({}));
        h.settle();
        assert!(h.reply(1).is_none(), "the empty document's load is not it");
        h.engine.on_cdp_event(
            101,
            "Page.frameNavigated",
            &json!({"frame": {"id": "main", "loaderId": "L1", "url": DATA}, "type": "Navigation"}),
        );
        h.engine
            .on_cdp_event(101, "Page.loadEventFired", &json!({}));
        h.settle();
        assert_eq!(opened(&h, 1).id, 101);
    }

    #[test]
    fn a_data_tab_that_never_loads_times_out_naming_it() {
        let mut h = Harness::new();
        main_frame_at(&h, "about:blank");
        h.call(1, new_tab(DATA, false));
        h.settle();
        h.advance(1000);
        let error = h.reply(1).unwrap().unwrap_err();
        assert_eq!(error.code, ErrorCode::Timeout);
        assert!(error.message.contains(DATA), "{error:?}");
    }

    #[test]
    fn new_tab_rejects_a_bad_url_before_opening_anything() {
        let mut h = Harness::new();
        h.call(1, new_tab("example.com", false));
        h.settle();
        assert_eq!(
            h.reply(1).unwrap().unwrap_err().code,
            ErrorCode::InvalidArgument
        );
        assert!(h.fake.created_urls().is_empty());
    }

    #[test]
    fn a_new_tab_nobody_uses_is_let_go_after_the_idle_time() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        h.call(1, new_tab("https://c.test/", true));
        h.settle();
        let tab = opened(&h, 1);
        assert!(h.fake.is_attached(tab.id));
        h.advance(120_000);
        assert!(!h.fake.is_attached(tab.id));
    }

    #[test]
    fn a_tab_opened_for_an_agent_disconnected_meanwhile_is_closed_untouched() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        h.fake.hold("tabs.create");
        h.call(1, new_tab("https://c.test/", true));
        h.settle();
        assert_eq!(
            h.popup(json!({"action": "disconnect", "session": "k1"})),
            Ok(())
        );
        h.fake.release_held(json!({}));
        h.settle();
        h.failed(1, ErrorCode::Refused, "disconnected this agent");
        assert_eq!(h.fake.created_urls(), vec!["about:blank".to_owned()]);
        assert!(h.fake.sent(101, "Page.navigate").is_empty());
        assert!(!h.fake.is_attached(101));
        h.hello(9, "k9", "codex");
        h.host_ready(true);
        h.call_as(9, 3, ListTabs);
        h.settle();
        let Ok(tabs) = h.reply_to::<ListTabs>(3).unwrap() else {
            panic!("expected tabs");
        };
        assert!(tabs.iter().all(|t| t.id != 101), "the tab was closed");
    }

    #[test]
    fn closing_stops_a_command_running_on_the_tab_whoever_sent_it() {
        let mut h = Harness::new();
        h.hello(9, "k9", "codex");
        h.settle();
        h.fake.hold_on_tab("Runtime.callFunctionOn", 11);
        let evaluate = |tab_id| Evaluate {
            tab_id,
            function: "() => new Promise(() => {})".into(),
            args: vec![],
            timeout_ms: 60_000,
        };
        h.call(1, evaluate(11));
        h.settle();
        assert!(h.reply(1).is_none(), "the command runs");
        h.call_as(9, 2, CloseTab { tab_id: 11 });
        h.settle();
        assert_eq!(
            h.reply_to::<CloseTab>(2).unwrap(),
            Ok(()),
            "closed without waiting"
        );
        let stopped = h.reply(1).expect("stopped at once").unwrap_err();
        assert_eq!(stopped.code, ErrorCode::NoSuchTab);
        assert!(
            stopped.message.contains("close_page closed it"),
            "{stopped:?}"
        );
        assert!(h.fake.created_urls().is_empty());
        h.call(3, ListTabs);
        h.settle();
        let Ok(tabs) = h.reply_to::<ListTabs>(3).unwrap() else {
            panic!("expected tabs");
        };
        assert!(tabs.iter().all(|t| t.id != 11));
    }
}
