//! What this agent's server knows without asking the browser: the last answers to the
//! reads whose changes the extension announces (the tab list, console pages), and which
//! pages' last tool discoveries are still those of their documents.
//!
//! `list_pages` and a repeated `list_console_messages` are answered from here while
//! nothing may have changed since: no round trip to the extension, and no new discovery
//! for a page whose document was already asked. A generation counter says what "since"
//! means. It moves on with every event the browser sends
//! ([`TabsChanged`](tabwire_shared::Event::TabsChanged) when a tab opens, closes, moves,
//! navigates, is retitled or activated, a window takes focus or what is shared changes;
//! [`ConsoleChanged`](tabwire_shared::Event::ConsoleChanged) when a page logs; dialogs,
//! detaches, closes, the browser coming and going), and around every command this
//! server sends that may change the tabs (before it goes and when its answer comes: the
//! agent's own actions show at once, whenever the extension's event arrives). A read
//! notes the generation it started in and is kept only if the generation is the same
//! when its answer comes, so an answer that raced a change is used once and not kept.
//! Events reach the server before any reply sent after them
//! ([`crate::link::EventObserver`]).
//!
//! It holds no discoveries itself (the session does, for running tools); only which
//! of them are current.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use tabwire_shared::{Command, Reply, TabId};

/// Most answers kept (the oldest goes first): a few console pages and the tab list.
const MAX_REPLIES: usize = 8;

/// The kept answers and the current discoveries, by generation.
#[derive(Debug, Default)]
pub struct Known {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// Moves on with every change that may make what is kept stale.
    generation: u64,
    /// Answers read in `generation`, oldest first, each with its command.
    replies: Vec<(Command, Reply)>,
    /// The generation each page's last discovery was made in.
    discovered: HashMap<TabId, u64>,
}

impl Known {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Something may have changed the tabs: forget every answer, and that any
    /// discovery is current.
    pub fn changed(&self) {
        let mut state = self.state();
        state.generation += 1;
        state.replies.clear();
        state.discovered.clear();
    }

    /// The generation now, for a read about to start.
    pub fn generation(&self) -> u64 {
        self.state().generation
    }

    /// The answer `command` got, if nothing may have changed it since.
    pub fn reply(&self, command: &Command) -> Option<Reply> {
        let state = self.state();
        let kept = state.replies.iter().find(|(asked, _)| asked == command);
        kept.map(|(_, reply)| reply.clone())
    }

    /// Keeps the answer to a read sent in `generation`, unless something changed
    /// meanwhile or the extension does not announce its changes.
    pub fn keep_reply(&self, generation: u64, command: &Command, reply: &Reply) {
        if !command.changes_are_announced() {
            return;
        }
        let mut state = self.state();
        if state.generation != generation {
            return;
        }
        state.replies.retain(|(asked, _)| asked != command);
        if state.replies.len() >= MAX_REPLIES {
            state.replies.remove(0);
        }
        state.replies.push((command.clone(), reply.clone()));
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
    use tabwire_shared::requests::*;
    use tabwire_shared::TabInfo;

    fn tabs(title: &str) -> Reply {
        Reply::new(&vec![TabInfo {
            id: 1,
            window_id: 1,
            url: "https://a.test/".into(),
            title: title.into(),
            user_active: true,
            dialog: None,
            crashed: false,
        }])
        .unwrap()
    }

    fn console(page_idx: Option<u32>) -> Command {
        Command::ListConsole(ListConsole {
            tab_id: 1,
            include_preserved: false,
            types: vec![],
            page_size: 50,
            page_idx,
        })
    }

    #[test]
    fn an_answer_is_kept_until_something_changes() {
        let known = Known::default();
        assert!(
            known.reply(&Command::ListTabs(ListTabs)).is_none(),
            "nothing at first"
        );
        known.keep_reply(known.generation(), &Command::ListTabs(ListTabs), &tabs("a"));
        assert_eq!(known.reply(&Command::ListTabs(ListTabs)), Some(tabs("a")));
        known.changed();
        assert!(known.reply(&Command::ListTabs(ListTabs)).is_none());
    }

    #[test]
    fn answers_are_kept_by_their_exact_command() {
        let known = Known::default();
        let generation = known.generation();
        known.keep_reply(generation, &console(None), &Reply::new(&()).unwrap());
        assert_eq!(known.reply(&console(None)), Some(Reply::new(&()).unwrap()));
        assert!(known.reply(&console(Some(0))).is_none(), "another page");
        for page in 0..MAX_REPLIES as u32 {
            known.keep_reply(generation, &console(Some(page)), &Reply::new(&()).unwrap());
        }
        assert!(
            known.reply(&console(None)).is_none(),
            "the oldest went first"
        );
    }

    #[test]
    fn only_announced_reads_are_kept() {
        let known = Known::default();
        let snapshot = Command::TakeSnapshot(TakeSnapshot::whole(1));
        known.keep_reply(known.generation(), &snapshot, &Reply::new(&()).unwrap());
        assert!(known.reply(&snapshot).is_none());
    }

    #[test]
    fn a_read_that_raced_a_change_is_not_kept() {
        let known = Known::default();
        let read = known.generation();
        known.changed();
        known.keep_reply(read, &Command::ListTabs(ListTabs), &tabs("old"));
        known.discovered(read, 1);
        assert!(known.reply(&Command::ListTabs(ListTabs)).is_none());
        assert!(!known.discovery_is_current(1));
    }

    #[test]
    fn a_discovery_is_current_until_something_changes() {
        let known = Known::default();
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
    use tabwire_shared::requests::*;
    use tabwire_shared::{Command, Discovery, Event, Reply, TabInfo, WireError};

    use crate::mcp::context::{Browser, Session, Settings, ToolContext};
    use futures_util::future::BoxFuture;

    /// A browser with one tab that records the commands it gets.
    #[derive(Default)]
    struct Recorder {
        commands: Mutex<Vec<&'static str>>,
    }

    impl Browser for Recorder {
        fn call(&self, command: Command) -> BoxFuture<'_, Result<Reply, WireError>> {
            let reply = match &command {
                Command::ListTabs(ListTabs) => Reply::new(&vec![TabInfo {
                    id: 1,
                    window_id: 1,
                    url: "https://a.test/".into(),
                    title: "A".into(),
                    user_active: true,
                    dialog: None,
                    crashed: false,
                }])
                .unwrap(),
                Command::DiscoverThirdPartyTools(DiscoverThirdPartyTools { .. }) => {
                    Reply::new(&Discovery {
                        document: "L1.1".into(),
                        url: "https://a.test/".into(),
                        origin: "https://a.test".into(),
                        refused: false,
                        groups: vec![],
                        problems: vec![],
                    })
                    .unwrap()
                }
                Command::TakeSnapshot(TakeSnapshot { .. }) => {
                    Reply::new(&tabwire_shared::Snapshot {
                        url: "https://a.test/".into(),
                        title: "A".into(),
                        nodes: vec![],
                    })
                    .unwrap()
                }
                Command::ListConsole(ListConsole { .. }) => {
                    Reply::new(&tabwire_shared::ConsolePage {
                        entries: vec![],
                        position: tabwire_shared::PagePosition {
                            index: 0,
                            pages: 1,
                            start: 0,
                            end: 0,
                            total: 0,
                            missing: None,
                        },
                        totals: tabwire_shared::ConsoleTotals::default(),
                        dropped: Default::default(),
                    })
                    .unwrap()
                }
                _ => Reply::new(&json!(null)).unwrap(),
            };
            let name = match command {
                Command::ListTabs(ListTabs) => "listTabs",
                Command::DiscoverThirdPartyTools(DiscoverThirdPartyTools { .. }) => "discoverTools",
                Command::ListConsole(ListConsole { .. }) => "listConsole",
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
        let ctx = ToolContext::new(
            browser.clone(),
            Arc::new(Session::default()),
            Arc::new(settings),
        );
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
        ctx.observe(&Event::TabsChanged);
        ctx.list_tabs().await.unwrap();
        assert_eq!(sent(&browser), ["listTabs", "listTabs"]);
    }

    #[tokio::test]
    async fn a_command_that_may_change_the_tabs_makes_the_list_stale() {
        let (ctx, browser) = context();
        ctx.list_tabs().await.unwrap();
        let evaluate = Evaluate {
            tab_id: 1,
            function: "() => { document.title = 'B' }".into(),
            args: vec![],
            timeout_ms: 1_000,
        };
        ctx.request(evaluate).await.unwrap();
        ctx.list_tabs().await.unwrap();
        let snapshot = TakeSnapshot::whole(1);
        ctx.request(snapshot).await.unwrap();
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
        ctx.observe(&Event::TabsChanged);
        assert!(
            ctx.current_discovery().await.is_none(),
            "the page may have navigated"
        );
        assert_eq!(sent(&browser), ["listTabs", "discoverTools"]);
    }

    #[tokio::test]
    async fn a_console_page_is_read_again_once_the_page_logged() {
        let (ctx, browser) = context();
        let list = |page_idx| ListConsole {
            tab_id: 1,
            include_preserved: false,
            types: vec![],
            page_size: 50,
            page_idx,
        };
        ctx.read(list(None)).await.unwrap();
        ctx.read(list(None)).await.unwrap();
        ctx.read(list(Some(0))).await.unwrap();
        assert_eq!(sent(&browser), ["listConsole", "listConsole"]);
        ctx.observe(&Event::ConsoleChanged { tab_id: 1 });
        ctx.read(list(None)).await.unwrap();
        assert_eq!(
            sent(&browser),
            ["listConsole", "listConsole", "listConsole"]
        );
    }
}
