//! Debugger sessions: attaching on first use and sending typed CDP commands.
//!
//! A tab is attached the first time a command needs CDP on it (then `Page.enable`,
//! `Runtime.enable`, the script that keeps pristine builtins for tabwire's page
//! scripts in every later document, and the child sessions of its cross-site iframes,
//! `super::oopif`), never while it shows a site on the user's
//! blocklist, and forgotten when Chrome detaches us; the next command simply
//! attaches again. [`Engine::send_watched`] runs one CDP command while watching the
//! tab, so a detach, a closed tab or a dialog ends the wait at once with a clear error
//! instead of leaving the command hanging. The sending itself needs only the browser
//! ([`send_in`], [`send_watched_in`]): the core's parts over borrowed state
//! (`Documents`, `Walkers`, `Frames`) send with it, without the engine.
//!
//! Here too is what of a session needs the engine itself: the remote objects a call
//! made, released in the background in every session they reached; a cross-site
//! frame's child session made ready or let go in the background, as
//! [`Frames`](super::oopif::Frames) decides, and the news it returns posted; and the
//! blocklist. A shared tab that navigates to a blocklisted site is detached at once,
//! whether Chrome's tab event or the page's own navigation event tells first (its
//! share stays; commands are refused while it shows that site), and so is every
//! attached tab on such a site when the blocklist changes.

use tabwire_shared::TabId;

use crate::json_text;

use super::context::Cx;
use super::oopif::NewChild;
use super::Engine;
use crate::cdp::dom::{DomEnable, OverlayEnable};
use crate::cdp::events::TargetEvent;
use crate::cdp::network::{AuditsEnable, LogEnable, NetworkEnable};
use crate::cdp::refusal::Refusal;
use crate::cdp::{
    CdpCommand, InspectorEnable, PageAddScriptToEvaluateOnNewDocument, PageEnable, PageEvent,
    RuntimeEnable, RuntimeReleaseObjectGroup,
};
use crate::chrome::{Chrome, ChromeError};
use crate::error::EngineError;
use crate::signals::{within, Subscription, TabSignal};

/// What Chrome says when our own session from before a service-worker restart (whose
/// state we lost) still holds the tab.
const ALREADY_ATTACHED: &str = "already attached";

/// Request bodies up to this size come with their request event.
const MAX_POST_DATA: u64 = 64 << 10;

/// How long a command that failed because the session ended waits for Chrome's
/// detach notice, which says why.
const DETACH_NOTICE_MS: u64 = 1_000;

impl<C: Chrome + 'static> Engine<C> {
    /// Attaches the debugger to `tab` unless it already is.
    pub(super) async fn ensure_attached(&self, tab: TabId) -> Result<(), EngineError> {
        if self.tabs.is_attached(tab) {
            return Ok(());
        }
        let Some(state) = self.chrome.tab(tab).await? else {
            return Err(EngineError::NoSuchTab(tab));
        };
        // The last word before the debugger touches the page: never a blocklisted site.
        if let Some(pattern) = self.settings.borrow().blocked_by(&state.url) {
            return Err(EngineError::Blocklisted {
                tab,
                pattern: pattern.to_owned(),
            });
        }
        let attach_failed = |error: ChromeError| EngineError::AttachFailed {
            tab,
            reason: error.0.trim_end_matches('.').to_owned(),
        };
        if let Err(error) = self.chrome.attach_debugger(tab).await {
            // Chrome detaching us without complaint proves the session was ours.
            if !error.0.contains(ALREADY_ATTACHED)
                || self.chrome.detach_debugger(tab).await.is_err()
            {
                return Err(attach_failed(error));
            }
            self.chrome
                .attach_debugger(tab)
                .await
                .map_err(attach_failed)?;
        }
        self.tabs.write(tab, |t| {
            t.attachment.attached = true;
            // Collect from the start: the domains below replay what came before. Kept
            // collectors (an idle detach) have it already: the replay is ignored.
            if t.collectors.is_none() {
                t.collectors = Some(Default::default());
            } else {
                t.attachment.replaying = true;
            }
        });
        // A renderer that crashed before we came answers nothing: Chrome says so when
        // the Inspector domain is enabled (first), and that ends the wait.
        let mut watch = self.signals.subscribe(tab);
        let crashed = |s: &TabSignal| matches!(s, TabSignal::Page(PageEvent::TargetCrashed));
        let enabled = watch
            .watch(self.enable_domains(tab), |s| crashed(s).then_some(()))
            .await;
        self.tabs.update(tab, |t| t.attachment.replaying = false);
        match enabled {
            Ok(enabled) => enabled,
            Err(()) => {
                self.detach_keeping_collectors(tab).await;
                Err(EngineError::RendererCrashed(tab))
            }
        }
    }

    /// Lets go of a tab but keeps what was collected and emulated in it for the next
    /// attach (idle, or a navigation to a blocklisted site).
    pub(super) async fn detach_keeping_collectors(&self, tab: TabId) {
        // An agent coming back to an unchanged page keeps its uids.
        self.tabs.update(tab, super::tab::Tab::pause_session);
        self.schedule_save();
        if let Err(error) = self.chrome.detach_debugger(tab).await {
            self.chrome.log(&format!(
                "tabwire: could not detach from tab {tab}: {error}"
            ));
        }
    }

    /// Enables the domains a freshly attached tab needs, and re-applies its emulation.
    async fn enable_domains(&self, tab: TabId) -> Result<(), EngineError> {
        // First: it reports a renderer that crashed before we attached.
        if let Err(error) = self.send(tab, &InspectorEnable {}).await {
            self.chrome.log(&format!(
                "tabwire: Inspector.enable failed on tab {tab}: {error}"
            ));
        }
        self.send(tab, &PageEnable {}).await?;
        self.send(tab, &RuntimeEnable {}).await?;
        // Every later document keeps pristine builtins for tabwire's page scripts.
        let pristine = PageAddScriptToEvaluateOnNewDocument {
            source: super::page::PRISTINE_INSTALL.to_owned(),
        };
        self.send(tab, &pristine).await?;
        let network = NetworkEnable {
            max_post_data_size: MAX_POST_DATA,
        };
        let frames = self.frames();
        let (network, log, audits, overlay, children) = futures::join!(
            self.send(tab, &network),
            self.send(tab, &LogEnable {}),
            self.send(tab, &AuditsEnable {}),
            self.enable_overlay(tab),
            frames.attach_children(tab, None)
        );
        // The collectors, the overlay and the cross-site frames are a help, not a
        // precondition: a domain Chrome refuses only leaves its messages out (or, the
        // overlay, input in a hidden tab slow; the frames, their contents).
        if overlay.is_ok() {
            self.tabs.update(tab, |t| t.attachment.overlay = true);
        }
        for (what, outcome) in [
            ("Network.enable", network.err()),
            ("Log.enable", log.err()),
            ("Audits.enable", audits.err()),
            ("Overlay.enable", overlay.err()),
            ("Target.setAutoAttach", children.err()),
        ] {
            if let Some(error) = outcome {
                self.chrome
                    .log(&format!("tabwire: {what} failed on tab {tab}: {error}"));
            }
        }
        super::emulation::reapply_emulation(&Cx::of_engine(self), tab).await;
        Ok(())
    }

    /// A child session began or ended ([`oopif`](super::oopif)); `via` is the session
    /// that says so (`None`: the tab's own). A new one is made ready, or let go, in
    /// the background.
    pub(super) fn on_target_event(&self, tab: TabId, via: Option<&str>, event: TargetEvent) {
        let attached = match event {
            TargetEvent::Attached(attached) => attached,
            TargetEvent::Detached(detached) => {
                return self.on_child_detached(tab, &detached.session_id)
            }
        };
        let child = self.frames().attached(tab, via, attached);
        self.in_background(move |engine| async move {
            match child {
                NewChild::Noted(session) => {
                    let news = engine.frames().prepare(tab, &session).await;
                    engine.post_news(news);
                }
                NewChild::Refused { session, via } => {
                    engine.frames().let_go(tab, via.as_deref(), session).await
                }
            }
        });
    }

    /// Detaches from every attached tab that shows a blocklisted site now (after the
    /// blocklist changed).
    pub(super) async fn enforce_blocklist(&self) {
        let attached = self.tabs.attached();
        for tab in attached {
            if let Ok(Some(state)) = self.chrome.tab(tab).await {
                self.leave_if_blocklisted(tab, &state.url).await;
            }
        }
    }

    /// A main-frame navigation (`Page.frameNavigated`): a blocklisted destination is
    /// let go at once, before Chrome's slower tab event.
    pub(super) fn leave_if_navigated_to_blocklist(&self, tab: TabId, url: &str) {
        if url.is_empty() || self.settings.borrow().blocked_by(url).is_none() {
            return;
        }
        let url = url.to_owned();
        self.in_background(move |engine| async move {
            engine.leave_if_blocklisted(tab, &url).await;
        });
    }

    /// Lets go of `tab` if `url` (where it went) is on the blocklist: a command running
    /// on it ends first, then the debugger detaches (the share and collectors stay).
    pub(super) async fn leave_if_blocklisted(&self, tab: TabId, url: &str) {
        let blocked = self.settings.borrow().blocked_by(url).map(str::to_owned);
        let Some(pattern) = blocked else { return };
        if !self.tabs.is_attached(tab) {
            return;
        }
        self.chrome.log(&format!(
            "tabwire: tab {tab} went to a blocklisted site ({pattern}); detaching"
        ));
        let reason = format!("the tab went to a site on the user's blocklist, {pattern}");
        self.signals.publish(tab, &TabSignal::Withdrawn(reason));
        let _busy = self.tabs.lock(tab).await;
        if self.tabs.is_attached(tab) {
            self.detach_keeping_collectors(tab).await;
            self.chrome.state_changed();
        }
    }

    /// Makes sure DevTools' overlay is on in `tab`'s session (attached), turning it on
    /// now if the attach could not: every mouse action asks this first, so no path by
    /// which a tab came to the agent (shared while hidden, `new_page`, a re-attach, a
    /// worker restart) can leave it off and each mouse move waiting 5 s.
    pub(super) async fn overlay_on(&self, tab: TabId) -> Result<(), EngineError> {
        if self
            .tabs
            .read(tab, |t| t.attachment.overlay)
            .unwrap_or(false)
        {
            return Ok(());
        }
        self.enable_overlay(tab).await?;
        self.tabs.update(tab, |t| t.attachment.overlay = true);
        Ok(())
    }

    /// Turns DevTools' overlay on, so mouse moves in a tab that is not in front are
    /// delivered at once rather than with an animation frame it never draws (see
    /// [`OverlayEnable`]). The overlay needs the DOM domain on, and stays on only while
    /// it is (switching DOM off again brings the 5 s back). tabwire asks for no
    /// document tree, so the DOM domain sends it next to nothing.
    async fn enable_overlay(&self, tab: TabId) -> Result<(), EngineError> {
        self.send(tab, &DomEnable {}).await?;
        self.send(tab, &OverlayEnable {}).await.map(|_| ())
    }

    /// Sends a CDP command to an attached tab and reads its typed result.
    pub(super) async fn send<T: CdpCommand>(
        &self,
        tab: TabId,
        command: &T,
    ) -> Result<T::Returns, EngineError> {
        self.send_in(tab, None, command).await
    }

    /// Sends a CDP command in one session of an attached tab (`None`: the tab's own;
    /// else a child session, a cross-site iframe) and reads its typed result.
    pub(super) async fn send_in<T: CdpCommand>(
        &self,
        tab: TabId,
        session: Option<&str>,
        command: &T,
    ) -> Result<T::Returns, EngineError> {
        send_in(&self.chrome, tab, session, command).await
    }

    /// Frees the call's remote objects (the global object's handle) without delaying
    /// the reply, in the tab's session and the child sessions the group reached.
    pub(super) fn release_objects(&self, tab: TabId, object_group: String) {
        for session in super::oopif::take_group(&self.tabs, tab, &object_group) {
            self.release_objects_in(tab, Some(session), object_group.clone());
        }
        self.in_background(move |engine| async move {
            let release = RuntimeReleaseObjectGroup { object_group };
            // Nothing to do if it fails: the page may be gone, taking its objects along.
            let _ = engine.send(tab, &release).await;
        });
    }

    /// Releases an object group of one session of the tab (`None`: its own), in the
    /// background.
    pub(super) fn release_objects_in(&self, tab: TabId, session: Option<String>, group: String) {
        self.in_background(move |engine| async move {
            let release = RuntimeReleaseObjectGroup {
                object_group: group,
            };
            // Nothing to do if it fails: the frame may be gone, taking its objects along.
            let _ = engine.send_in(tab, session.as_deref(), &release).await;
        });
    }

    /// Sends a CDP command while watching the tab through `watch` (subscribed before
    /// anything was sent). A detach, the tab closing or a dialog opening ends the wait
    /// with the matching error; when the command itself fails, the error says why in
    /// the agent's terms if the cause is one of those.
    pub(super) async fn send_watched<T: CdpCommand>(
        &self,
        tab: TabId,
        watch: &mut Subscription,
        command: &T,
    ) -> Result<T::Returns, EngineError> {
        self.send_watched_in(tab, None, watch, command).await
    }

    /// [`send_watched`](Self::send_watched) in one session of the tab (see
    /// [`send_in`](Self::send_in)).
    pub(super) async fn send_watched_in<T: CdpCommand>(
        &self,
        tab: TabId,
        session: Option<&str>,
        watch: &mut Subscription,
        command: &T,
    ) -> Result<T::Returns, EngineError> {
        send_watched_in(&self.chrome, tab, session, watch, command).await
    }

    /// Awaits `work` (CDP commands, possibly several at once) while watching the tab
    /// like [`send_watched`](Self::send_watched) does.
    pub(super) async fn watched<T>(
        &self,
        tab: TabId,
        watch: &mut Subscription,
        work: impl std::future::Future<Output = Result<T, EngineError>>,
    ) -> Result<T, EngineError> {
        let interrupt = |signal: &TabSignal| interruption(tab, signal);
        match watch.watch(work, interrupt).await? {
            Ok(answer) => Ok(answer),
            Err(error) => Err(self.explain_failure(tab, watch, error).await),
        }
    }

    /// Chrome reports `target_closed` both when a tab closes and when it navigates
    /// where the debugger may not follow: tells the two apart by asking for the tab.
    pub(super) async fn confirm_closed(&self, tab: TabId, error: EngineError) -> EngineError {
        match error {
            EngineError::ClosedDuringCommand(_) => match self.chrome.tab(tab).await {
                Ok(Some(_)) => EngineError::LeftDebuggableContent(tab),
                Ok(None) | Err(_) => error,
            },
            other => other,
        }
    }

    /// Finds the real cause of a failed CDP command: a detach or closure Chrome told
    /// us about (or is about to), or a tab that no longer exists.
    pub(super) async fn explain_failure(
        &self,
        tab: TabId,
        watch: &mut Subscription,
        error: EngineError,
    ) -> EngineError {
        explain_failure(&self.chrome, tab, watch, error).await
    }
}

/// Sends a CDP command in one session of an attached tab (`None`: the tab's own; else
/// a child session) and reads its typed result: what the core's parts (documents,
/// worlds, cross-site frames) need of the browser to send, without the engine.
pub(super) async fn send_in<C: Chrome, T: CdpCommand>(
    chrome: &C,
    tab: TabId,
    session: Option<&str>,
    command: &T,
) -> Result<T::Returns, EngineError> {
    let params = serde_json::to_value(command).map_err(|e| EngineError::UnexpectedAnswer {
        method: T::METHOD,
        detail: e.to_string(),
    })?;
    let answer = chrome
        .send_command_text(tab, session, T::METHOD, params)
        .await
        .map_err(|e| EngineError::Cdp {
            method: T::METHOD,
            message: e.0,
        })?;
    json_text::parse(&answer).map_err(|e| EngineError::UnexpectedAnswer {
        method: T::METHOD,
        detail: e.to_string(),
    })
}

/// [`send_in`] while watching the tab through `watch` (subscribed before anything was
/// sent), as [`Engine::send_watched`] does: for the core's parts.
pub(super) async fn send_watched_in<C: Chrome, T: CdpCommand>(
    chrome: &C,
    tab: TabId,
    session: Option<&str>,
    watch: &mut Subscription,
    command: &T,
) -> Result<T::Returns, EngineError> {
    let interrupt = |signal: &TabSignal| interruption(tab, signal);
    match watch
        .watch(send_in(chrome, tab, session, command), interrupt)
        .await?
    {
        Ok(answer) => Ok(answer),
        Err(error) => Err(explain_failure(chrome, tab, watch, error).await),
    }
}

/// Finds the real cause of a failed CDP command: a detach or closure Chrome told us
/// about (or is about to), or a tab that no longer exists.
async fn explain_failure<C: Chrome>(
    chrome: &C,
    tab: TabId,
    watch: &mut Subscription,
    error: EngineError,
) -> EngineError {
    if let Some(signal) = watch.take_pending(|s| interruption(tab, s).is_some()) {
        if let Some(cause) = interruption(tab, &signal) {
            return cause;
        }
    }
    if let Ok(None) = chrome.tab(tab).await {
        return EngineError::ClosedDuringCommand(tab);
    }
    let EngineError::Cdp { message, .. } = &error else {
        return error;
    };
    if Refusal::of(message) != Some(Refusal::Detached) {
        return error;
    }
    // The session is gone; Chrome's detach notice (with its reason) may trail the
    // failed command by a moment: wait for it, briefly.
    let notice = async {
        loop {
            let signal = watch.next().await;
            if let Some(
                cause @ (EngineError::ClosedDuringCommand(_)
                | EngineError::DetachedDuringCommand { .. }),
            ) = interruption(tab, &signal)
            {
                return cause;
            }
        }
    };
    let fallback = EngineError::DetachedDuringCommand {
        tab,
        reason: message.clone(),
    };
    within(chrome.sleep(DETACH_NOTICE_MS), notice)
        .await
        .unwrap_or(fallback)
}

/// The error a signal means for a command waiting on `tab`, if it ends the wait.
pub(in crate::engine) fn interruption(tab: TabId, signal: &TabSignal) -> Option<EngineError> {
    match signal {
        TabSignal::Closed => Some(EngineError::ClosedDuringCommand(tab)),
        TabSignal::Closing => Some(EngineError::ClosedByAgent(tab)),
        TabSignal::Detached(reason) if reason == "target_closed" => {
            Some(EngineError::ClosedDuringCommand(tab))
        }
        TabSignal::Detached(reason) => Some(EngineError::DetachedDuringCommand {
            tab,
            reason: reason.clone(),
        }),
        TabSignal::Withdrawn(reason) => Some(EngineError::WithdrawnDuringCommand {
            tab,
            reason: reason.clone(),
        }),
        TabSignal::Page(PageEvent::DialogOpening(dialog)) => Some(EngineError::DialogOpened {
            tab,
            dialog: dialog.clone(),
        }),
        TabSignal::Page(PageEvent::TargetCrashed) => Some(EngineError::RendererCrashed(tab)),
        TabSignal::Page(_) | TabSignal::InFrame { .. } | TabSignal::Updated(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::fake::{commands, Harness};
    use super::super::TabChange;
    use serde_json::json;
    use tabwire_shared::{requests::*, Command, ErrorCode};

    fn evaluate(tab_id: i64) -> Command {
        commands::evaluate_one(tab_id, 5000)
    }

    #[test]
    fn first_use_attaches_and_enables_domains_once() {
        let mut h = Harness::new();
        h.call(1, evaluate(10));
        h.call(2, evaluate(10));
        h.settle();
        assert!(h.reply(1).unwrap().is_ok());
        assert!(h.reply(2).unwrap().is_ok());
        let enables = h.fake.sent(10, "Page.enable");
        assert_eq!(enables.len(), 1);
        assert_eq!(h.fake.sent(10, "Runtime.enable").len(), 1);
    }

    #[test]
    fn attach_refusal_names_chromes_reason() {
        let mut h = Harness::new();
        h.fake.refuse_attach(10, "Cannot access a chrome:// URL");
        h.call(1, evaluate(10));
        h.settle();
        h.failed(1, ErrorCode::Detached, "Cannot access a chrome:// URL");
    }

    #[test]
    fn a_stale_session_of_our_own_is_replaced() {
        let mut h = Harness::new();
        h.fake.mark_attached_elsewhere(10, true);
        h.call(1, evaluate(10));
        h.settle();
        assert!(h.reply(1).unwrap().is_ok());
    }

    #[test]
    fn after_a_detach_the_next_command_reattaches() {
        let mut h = Harness::new();
        h.call(1, evaluate(10));
        h.settle();
        h.fake.detach_externally(10);
        h.engine.on_debugger_detached(10, "canceled_by_user");
        h.call(2, evaluate(10));
        h.settle();
        assert!(h.reply(2).unwrap().is_ok());
        assert_eq!(h.fake.sent(10, "Page.enable").len(), 2);
    }

    #[test]
    fn target_closed_on_a_living_tab_means_it_left_debuggable_content() {
        let mut h = Harness::new();
        h.fake.hold("Runtime.callFunctionOn");
        h.call(1, evaluate(10));
        h.settle();
        h.engine.on_debugger_detached(10, "target_closed");
        h.settle();
        h.failed(1, ErrorCode::Detached, "chrome://");
    }

    #[test]
    fn a_blocklisted_page_is_never_attached() {
        let mut h = Harness::new();
        let save = serde_json::json!({"action": "saveSettings", "autoShare": false, "idleDetachSeconds": 0, "blocklist": "https://*.bank.test"});
        assert_eq!(h.popup(save), Ok(()));
        h.fake.set_url(10, "https://www.bank.test/");
        let engine = h.engine.clone();
        let attached = h.run(async move { engine.ensure_attached(10).await });
        assert_eq!(
            tabwire_shared::WireError::from(attached.unwrap_err()).code,
            ErrorCode::Refused
        );
        assert!(!h.fake.is_attached(10));
    }

    #[test]
    fn a_crash_ends_the_running_call_and_later_ones_until_a_reload() {
        use serde_json::json;
        use tabwire_shared::Navigation;
        let mut h = Harness::new();
        h.fake.hold("Runtime.callFunctionOn");
        h.call(1, evaluate(10));
        h.settle();
        assert_eq!(
            h.fake.sent(10, "Inspector.enable").len(),
            1,
            "crashes are heard of"
        );
        h.engine
            .on_cdp_event(10, "Inspector.targetCrashed", &json!({}));
        h.settle();
        let error = h.reply(1).expect("an answer at once").unwrap_err();
        assert_eq!(error.code, ErrorCode::PageError);
        assert!(error.message.contains("renderer crashed"), "{error:?}");
        assert!(error.message.contains("navigate_page {type: reload}"));
        h.fake.release_held_error("Target crashed");
        h.call(2, evaluate(10));
        h.call(3, ListTabs);
        h.call(
            6,
            NetworkRequests {
                tab_id: 10,
                include_preserved: false,
            },
        );
        h.settle();
        assert!(
            h.reply(6).unwrap().is_ok(),
            "what was collected can be read"
        );
        assert!(h
            .reply(2)
            .unwrap()
            .unwrap_err()
            .message
            .contains("renderer crashed"));
        let Ok(tabs) = h.reply_to::<ListTabs>(3).unwrap() else {
            panic!("expected tabs");
        };
        assert_eq!(
            tabs.iter().map(|t| (t.id, t.crashed)).collect::<Vec<_>>(),
            vec![(10, true), (11, false)]
        );
        h.call(
            4,
            Navigate {
                tab_id: 10,
                to: Navigation::Reload {
                    ignore_cache: false,
                },
                timeout_ms: 5000,
            },
        );
        h.settle();
        let Ok(tab) = h.reply_to::<Navigate>(4).unwrap() else {
            panic!("expected the reloaded tab");
        };
        assert!(!tab.crashed);
        h.call(5, evaluate(10));
        h.settle();
        assert!(h.reply(5).unwrap().is_ok());
    }

    #[test]
    fn a_renderer_crashed_before_attaching_is_told_at_once_and_reloaded_without_cdp() {
        use serde_json::json;
        use std::cell::Cell;
        use tabwire_shared::Navigation;
        let mut h = Harness::new();
        let revived = std::rc::Rc::new(Cell::new(false));
        let alive = revived.clone();
        h.fake.answer_with("Inspector.enable", move |_| {
            if !alive.get() {
                let crashed = vec![("Inspector.targetCrashed", json!({}))];
                super::super::fake::Answer::with_events(json!({}), crashed)
            } else {
                super::super::fake::Answer::value(json!({}))
            }
        });
        // A crashed renderer never answers.
        h.fake.hold("Page.enable");
        h.call(1, evaluate(10));
        h.settle();
        let error = h.reply(1).expect("an answer at once").unwrap_err();
        assert!(error.message.contains("renderer crashed"), "{error:?}");
        assert!(!h.fake.is_attached(10), "let go of the dead session");
        h.call(
            2,
            Navigate {
                tab_id: 10,
                to: Navigation::Reload {
                    ignore_cache: false,
                },
                timeout_ms: 5000,
            },
        );
        h.settle();
        assert_eq!(
            h.fake.tab_updates(),
            vec![(10, "https://a.test/".to_owned())]
        );
        revived.set(true);
        h.fake.release_held(json!({}));
        for status in ["loading", "complete"] {
            let change = super::super::TabChange {
                status: Some(status.into()),
                ..Default::default()
            };
            h.engine.on_tab_updated(10, change);
            h.settle();
        }
        let Ok(tab) = h.reply_to::<Navigate>(2).unwrap() else {
            panic!(
                "expected the reloaded tab, got {:?} {:?} {:?}",
                h.reply(2),
                h.fake.logs(),
                h.fake.methods(10)
            );
        };
        assert!(!tab.crashed);
        h.call(3, evaluate(10));
        h.settle();
        assert!(h.reply(3).unwrap().is_ok());
    }

    fn block_bank(h: &mut Harness) {
        let save = json!({"action": "saveSettings", "autoShare": false, "idleDetachSeconds": 0, "blocklist": "https://*.bank.test"});
        assert_eq!(h.popup(save), Ok(()));
    }

    #[test]
    fn going_to_a_blocklisted_site_ends_the_running_command_then_detaches() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        h.share("k1", 10);
        block_bank(&mut h);
        h.fake.hold_on_tab("Runtime.callFunctionOn", 10);
        let evaluate = commands::evaluate_one(10, 5000);
        h.call(1, evaluate);
        h.settle();
        assert!(h.fake.is_attached(10));
        h.fake.set_url(10, "https://www.bank.test/");
        let change = TabChange {
            url: Some("https://www.bank.test/".into()),
            ..Default::default()
        };
        h.engine.on_tab_updated(10, change);
        h.settle();
        let error = h.reply(1).expect("the command ended").unwrap_err();
        assert_eq!(error.code, ErrorCode::NotShared);
        assert!(error.message.contains("blocklist"), "{}", error.message);
        assert!(error.message.contains("do not retry"), "{}", error.message);
        assert!(!h.fake.is_attached(10));
    }

    #[test]
    fn a_main_frame_navigation_to_a_blocklisted_site_detaches_at_once() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        h.share("k1", 10);
        block_bank(&mut h);
        let snapshot = TakeSnapshot::whole(10);
        h.call(1, snapshot);
        h.settle();
        assert!(h.fake.is_attached(10));
        let subframe = json!({"frame": {"id": "sub", "parentId": "main", "loaderId": "L8", "url": "https://www.bank.test/"}});
        h.engine.on_cdp_event(10, "Page.frameNavigated", &subframe);
        h.settle();
        assert!(
            h.fake.is_attached(10),
            "a frame of the page is not the page"
        );
        let main = json!({"frame": {"id": "main", "loaderId": "L9", "url": "https://www.bank.test/"}, "type": "Navigation"});
        h.engine.on_cdp_event(10, "Page.frameNavigated", &main);
        h.settle();
        assert!(!h.fake.is_attached(10));
    }
}
