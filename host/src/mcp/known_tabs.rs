//! What this agent's server knows of the tabs without asking the browser: the last tab
//! list, and which pages' last tool discoveries are still those of their documents.
//!
//! `list_pages` is answered from here while nothing may have changed since: no round
//! trip to the extension for the list, and no new discovery for a page whose document
//! was already asked. A generation counter says what "since" means. It moves on with
//! every event the browser sends ([`Event::TabsChanged`], which the extension sends when
//! a tab opens, closes, moves, navigates, is retitled or activated, a window takes
//! focus or what is shared changes; and dialogs, detaches, closes, the browser coming
//! and going), and around every command this server sends that may change the tabs
//! (before it goes and when its answer comes: the agent's own actions show at once,
//! whenever the extension's event arrives). A read notes the generation it started in
//! and is kept only if the generation is the same when its answer comes, so an answer
//! that raced a change is used once and not kept. Events reach the server before any
//! reply sent after them ([`crate::link::EventObserver`]).
//!
//! It holds no discoveries itself (the session does, for running tools); only which
//! of them are current.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use tabwire_shared::{TabId, TabInfo};

/// The tab list and the current discoveries, by generation.
#[derive(Debug, Default)]
pub struct KnownTabs {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// Moves on with every change that may make what is kept stale.
    generation: u64,
    /// The tab list, as of `generation`.
    tabs: Option<Vec<TabInfo>>,
    /// The generation each page's last discovery was made in.
    discovered: HashMap<TabId, u64>,
}

impl KnownTabs {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Something may have changed the tabs: forget the list, and that any discovery
    /// is current.
    pub fn changed(&self) {
        let mut state = self.state();
        state.generation += 1;
        state.tabs = None;
        state.discovered.clear();
    }

    /// The generation now, for a read about to start.
    pub fn generation(&self) -> u64 {
        self.state().generation
    }

    /// The tab list, if nothing may have changed it since it was read.
    pub fn tabs(&self) -> Option<Vec<TabInfo>> {
        self.state().tabs.clone()
    }

    /// Keeps a tab list read since `generation`, unless something changed meanwhile.
    pub fn keep_tabs(&self, generation: u64, tabs: &[TabInfo]) {
        let mut state = self.state();
        if state.generation == generation {
            state.tabs = Some(tabs.to_vec());
        }
    }

    /// Notes that `tab`'s discovery, started in `generation`, is current unless
    /// something changed meanwhile.
    pub fn discovered(&self, generation: u64, tab: TabId) {
        let mut state = self.state();
        if state.generation == generation {
            state.discovered.insert(tab, generation);
        }
    }

    /// Whether `tab`'s last discovery was made since anything changed.
    pub fn discovery_is_current(&self, tab: TabId) -> bool {
        let state = self.state();
        state.discovered.get(&tab) == Some(&state.generation)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tab(id: TabId, title: &str) -> TabInfo {
        TabInfo {
            id,
            window_id: 1,
            url: "https://a.test/".into(),
            title: title.into(),
            user_active: true,
            dialog: None,
        }
    }

    #[test]
    fn a_list_is_kept_until_something_changes() {
        let known = KnownTabs::default();
        assert!(known.tabs().is_none(), "nothing is known at first");
        let read = known.generation();
        known.keep_tabs(read, &[tab(1, "a")]);
        assert_eq!(known.tabs().unwrap()[0].title, "a");
        known.changed();
        assert!(known.tabs().is_none());
    }

    #[test]
    fn a_read_that_raced_a_change_is_not_kept() {
        let known = KnownTabs::default();
        let read = known.generation();
        known.changed();
        known.keep_tabs(read, &[tab(1, "old")]);
        known.discovered(read, 1);
        assert!(known.tabs().is_none());
        assert!(!known.discovery_is_current(1));
    }

    #[test]
    fn a_discovery_is_current_until_something_changes() {
        let known = KnownTabs::default();
        known.discovered(known.generation(), 7);
        assert!(known.discovery_is_current(7));
        assert!(!known.discovery_is_current(8));
        known.changed();
        assert!(!known.discovery_is_current(7));
        known.discovered(known.generation(), 7);
        assert!(
            known.discovery_is_current(7),
            "a new discovery is current again"
        );
    }
}

/// The same, as tools meet it: through [`super::context::ToolContext`].
#[cfg(test)]
mod through_the_context {
    use std::sync::{Arc, Mutex};

    use serde_json::json;
    use tabwire_shared::origin::OriginPolicy;
    use tabwire_shared::{Command, Discovery, Event, Reply, TabInfo, WireError};

    use crate::mcp::context::{Browser, Session, Settings, ToolContext};
    use crate::mcp::tool::BoxFuture;

    /// A browser with one tab that records the commands it gets.
    #[derive(Default)]
    struct Recorder {
        commands: Mutex<Vec<&'static str>>,
    }

    impl Browser for Recorder {
        fn call(&self, command: Command) -> BoxFuture<'_, Result<Reply, WireError>> {
            let reply = match &command {
                Command::ListTabs => Reply::Tabs {
                    tabs: vec![TabInfo {
                        id: 1,
                        window_id: 1,
                        url: "https://a.test/".into(),
                        title: "A".into(),
                        user_active: true,
                        dialog: None,
                    }],
                },
                Command::DiscoverTools { .. } => Reply::ThirdPartyTools {
                    discovery: Discovery {
                        document: "L1.1".into(),
                        url: "https://a.test/".into(),
                        origin: "https://a.test".into(),
                        refused: false,
                        groups: vec![],
                        problems: vec![],
                    },
                },
                _ => Reply::Value { value: json!(null) },
            };
            let name = match command {
                Command::ListTabs => "listTabs",
                Command::DiscoverTools { .. } => "discoverTools",
                _ => "other",
            };
            self.commands.lock().unwrap().push(name);
            Box::pin(async move { Ok(reply) })
        }
    }

    fn context() -> (ToolContext, Arc<Recorder>) {
        let browser = Arc::new(Recorder::default());
        let settings = Settings {
            third_party: Some(OriginPolicy::from_patterns(vec!["*".into()])),
            ..Settings::default()
        };
        let ctx = ToolContext {
            browser: browser.clone(),
            session: Arc::new(Session::default()),
            settings: Arc::new(settings),
            page: None,
        };
        (ctx, browser)
    }

    fn sent(browser: &Recorder) -> Vec<&'static str> {
        browser.commands.lock().unwrap().clone()
    }

    #[tokio::test]
    async fn the_tab_list_is_asked_for_once_until_the_browser_says_it_changed() {
        let (ctx, browser) = context();
        ctx.list_tabs().await.unwrap();
        ctx.list_tabs().await.unwrap();
        assert_eq!(sent(&browser), ["listTabs"]);
        ctx.session.observe(&Event::TabsChanged);
        ctx.list_tabs().await.unwrap();
        assert_eq!(sent(&browser), ["listTabs", "listTabs"]);
    }

    #[tokio::test]
    async fn a_command_that_may_change_the_tabs_makes_the_list_stale() {
        let (ctx, browser) = context();
        ctx.list_tabs().await.unwrap();
        let evaluate = Command::Evaluate {
            tab_id: 1,
            function: "() => { document.title = 'B' }".into(),
            args: vec![],
            timeout_ms: 1_000,
        };
        ctx.call(evaluate).await.unwrap();
        ctx.list_tabs().await.unwrap();
        let snapshot = Command::Snapshot {
            tab_id: 1,
            verbose: false,
        };
        ctx.call(snapshot).await.unwrap();
        ctx.list_tabs().await.unwrap();
        assert_eq!(sent(&browser), ["listTabs", "other", "listTabs", "other"]);
    }

    #[tokio::test]
    async fn a_discovery_is_served_while_its_document_is_current() {
        let (ctx, browser) = context();
        assert!(ctx.current_discovery().await.is_none(), "none made yet");
        ctx.discover_tools(1).await.unwrap();
        let held = ctx.current_discovery().await.expect("current");
        assert_eq!(held.document, "L1.1");
        ctx.session.observe(&Event::TabsChanged);
        assert!(
            ctx.current_discovery().await.is_none(),
            "the page may have navigated"
        );
        assert_eq!(sent(&browser), ["listTabs", "discoverTools"]);
    }
}
