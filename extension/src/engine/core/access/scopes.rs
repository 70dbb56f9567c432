//! Who may touch which tab: each agent's scope.
//!
//! An agent is known by the session key its server sends in its hello; the relay's
//! client ids (which change whenever the native host restarts) map onto sessions. Each
//! session holds the tabs the user shared with it, the tab groups that show them, and
//! when it was last active. Only the user adds tabs to a scope (the popup, auto-share),
//! except for tabs an agent opens itself. In a browser launched for an agent
//! (`agent_profile`) every tab is in every scope.
//!
//! This module is bookkeeping only: plain data, no browser calls. The engine's
//! [`share`](super::share) module turns its changes into groups, badges and detaches.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use tabwire_shared::{ClientHello, TabId};

/// The colours Chrome's tab groups come in, handed to agents in turn.
const COLORS: [&str; 8] = [
    "blue", "red", "yellow", "green", "pink", "purple", "cyan", "orange",
];

/// One agent (one agent server's lifetime).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Agent {
    /// The name shown for it: the MCP client's name (once known) and its project
    /// folder's name, e.g. "claude-code · shop-app"; made unique among agents.
    pub name: String,
    /// The project folder it works in, as its server said (cleaned for display).
    #[serde(default)]
    pub folder: Option<String>,
    /// The tabs shared with it.
    pub tabs: BTreeSet<TabId>,
    /// The tab group showing its tabs, per window (a group cannot span windows).
    #[serde(default)]
    pub groups: BTreeMap<i64, i64>,
    /// Its tab groups' colour.
    #[serde(default)]
    pub color: String,
    /// When it last called (ms since the epoch).
    #[serde(default)]
    pub last_activity_ms: u64,
    /// Since when it has had no connection (ms since the epoch); `None` while connected.
    #[serde(default)]
    pub orphaned_since_ms: Option<u64>,
    /// The tabwire version its server runs, as its last hello said.
    #[serde(default)]
    pub version: String,
}

/// What a hello meant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Greeting {
    /// A session never seen before.
    New,
    /// A known session, on a new or the same connection.
    Returning,
    /// A session the user disconnected: refuse it.
    Revoked,
    /// The connection already speaks for another session: ignored (one session per
    /// connection, the first one stays).
    Conflict,
}

/// Why a caller may not run a command at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallerRefusal {
    /// The connection sent no hello yet.
    Unknown,
    /// The user disconnected this agent.
    Revoked,
}

/// The scopes of every agent, and which connection is which agent.
#[derive(Debug, Default)]
pub struct Sharing {
    /// The browser belongs to the agents: every tab is in every scope.
    agent_profile: bool,
    agents: BTreeMap<String, Agent>,
    /// Live relay connections, by client id, to their session.
    clients: BTreeMap<u64, String>,
    revoked: BTreeSet<String>,
}

/// What survives a service-worker restart.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SavedSharing {
    /// The agents by session.
    pub agents: BTreeMap<String, Agent>,
    /// The sessions the user disconnected.
    pub revoked: BTreeSet<String>,
}

impl Sharing {
    /// Whether every tab is shared with every agent.
    pub fn agent_profile(&self) -> bool {
        self.agent_profile
    }

    /// The host said whose browser this is.
    pub fn set_agent_profile(&mut self, agent_profile: bool) {
        self.agent_profile = agent_profile;
    }

    /// A connection introduced itself (first time, or again with a new name).
    pub fn hello(&mut self, client: u64, hello: &ClientHello, now_ms: u64) -> Greeting {
        if self
            .clients
            .get(&client)
            .is_some_and(|known| *known != hello.session)
        {
            return Greeting::Conflict;
        }
        self.clients.insert(client, hello.session.clone());
        if self.revoked.contains(&hello.session) {
            return Greeting::Revoked;
        }
        let folder = hello.folder.as_deref().and_then(clean_folder);
        let wanted = label(&clean_name(&hello.client_name), folder.as_deref());
        let name = self.unique_name(&hello.session, &wanted);
        if let Some(agent) = self.agents.get_mut(&hello.session) {
            agent.name = name;
            agent.folder = folder;
            agent.orphaned_since_ms = None;
            agent.version.clone_from(&hello.version);
            return Greeting::Returning;
        }
        let agent = Agent {
            name,
            folder,
            tabs: BTreeSet::new(),
            groups: BTreeMap::new(),
            color: self.color_for(&hello.session).to_owned(),
            last_activity_ms: now_ms,
            orphaned_since_ms: None,
            version: hello.version.clone(),
        };
        self.agents.insert(hello.session.clone(), agent);
        Greeting::New
    }

    /// The group colour of a new agent: the one its session key picks, so an agent that
    /// comes back to a restarted browser (same key) keeps its colour, unless another
    /// agent wears it; then the next free one.
    fn color_for(&self, session: &str) -> &'static str {
        let start = session.bytes().fold(0usize, |h, b| {
            h.wrapping_mul(31).wrapping_add(usize::from(b))
        });
        let in_use = |c: &&str| self.agents.values().any(|a| a.color == *c);
        (0..COLORS.len())
            .map(|i| COLORS[(start + i) % COLORS.len()])
            .find(|c| !in_use(c))
            .unwrap_or(COLORS[start % COLORS.len()])
    }

    /// `wanted`, or `wanted (2)`, `(3)`… if another agent goes by that name already:
    /// the user must tell agents apart in the popup and the tab groups.
    fn unique_name(&self, session: &str, wanted: &str) -> String {
        let taken = |name: &str| {
            let others = self.agents.iter().filter(|(s, _)| s.as_str() != session);
            others.map(|(_, a)| &a.name).any(|n| n == name)
        };
        let mut name = wanted.to_owned();
        let mut n = 1;
        while taken(&name) {
            n += 1;
            name = format!("{wanted} ({n})");
        }
        name
    }

    /// The session a call comes from, or why it may not call at all.
    pub fn caller(&self, client: Option<u64>) -> Result<String, CallerRefusal> {
        let session = client
            .and_then(|c| self.clients.get(&c))
            .ok_or(CallerRefusal::Unknown)?;
        if self.revoked.contains(session) || !self.agents.contains_key(session) {
            return Err(CallerRefusal::Revoked);
        }
        Ok(session.clone())
    }

    /// Whether `session` may touch `tab`.
    pub fn may_use(&self, session: &str, tab: TabId) -> bool {
        self.agent_profile
            || self
                .agents
                .get(session)
                .is_some_and(|a| a.tabs.contains(&tab))
    }

    /// Records a call by `session`.
    pub fn touch(&mut self, session: &str, now_ms: u64) {
        if let Some(agent) = self.agents.get_mut(session) {
            agent.last_activity_ms = now_ms;
        }
    }

    /// Adds a tab to a scope; false if it was there already or the agent is unknown.
    pub fn share(&mut self, session: &str, tab: TabId) -> bool {
        self.agents
            .get_mut(session)
            .is_some_and(|a| a.tabs.insert(tab))
    }

    /// Takes a tab out of a scope; false if it was not in it.
    pub fn unshare(&mut self, session: &str, tab: TabId) -> bool {
        self.agents
            .get_mut(session)
            .is_some_and(|a| a.tabs.remove(&tab))
    }

    /// The sessions a tab is shared with (explicitly; ignores `agent_profile`).
    pub fn sharers(&self, tab: TabId) -> Vec<String> {
        let sharing = self.agents.iter().filter(|(_, a)| a.tabs.contains(&tab));
        sharing.map(|(s, _)| s.clone()).collect()
    }

    /// Each agent's session and the tabs shared with it.
    pub fn scopes(&self) -> impl Iterator<Item = (&str, &BTreeSet<TabId>)> {
        self.agents.iter().map(|(s, a)| (s.as_str(), &a.tabs))
    }

    /// Who should hear about something in `tab`: `None` means every client.
    pub fn audience(&self, tab: TabId) -> Option<Vec<u64>> {
        if self.agent_profile {
            return None;
        }
        let clients = self.clients.iter().filter(|(_, s)| {
            !self.revoked.contains(*s) && self.agents.get(*s).is_some_and(|a| a.tabs.contains(&tab))
        });
        Some(clients.map(|(c, _)| *c).collect())
    }

    /// One agent.
    pub fn agent(&self, session: &str) -> Option<&Agent> {
        self.agents.get(session)
    }

    /// One agent, to change its groups.
    pub fn agent_mut(&mut self, session: &str) -> Option<&mut Agent> {
        self.agents.get_mut(session)
    }

    /// Every agent, by session.
    pub fn agents(&self) -> &BTreeMap<String, Agent> {
        &self.agents
    }

    /// Whether a live connection speaks for `session`.
    pub fn connected(&self, session: &str) -> bool {
        self.clients.values().any(|s| s == session)
    }

    /// The live connections of `session`.
    pub fn clients_of(&self, session: &str) -> Vec<u64> {
        let mine = self.clients.iter().filter(|(_, s)| *s == session);
        mine.map(|(c, _)| *c).collect()
    }

    /// The agents that are connected now (and not revoked).
    pub fn connected_sessions(&self) -> Vec<String> {
        let live = self.agents.keys().filter(|s| self.connected(s));
        live.cloned().collect()
    }

    /// A connection went away for good. Returns its agent if that agent has no other
    /// connection left: its shares end now.
    pub fn client_gone(&mut self, client: u64) -> Option<(String, Agent)> {
        let session = self.clients.remove(&client)?;
        if self.connected(&session) {
            return None;
        }
        let agent = self.agents.remove(&session)?;
        Some((session, agent))
    }

    /// The user disconnected an agent: it is refused from now on, even with a new
    /// hello. Returns its agent (to undo its shares) and its live connections.
    pub fn revoke(&mut self, session: &str) -> (Option<Agent>, Vec<u64>) {
        self.revoked.insert(session.to_owned());
        (self.agents.remove(session), self.clients_of(session))
    }

    /// The native port dropped: every connection is gone, but agents keep their shares
    /// for a grace period in case they come back (a host restart).
    pub fn port_dropped(&mut self, now_ms: u64) {
        self.clients.clear();
        for agent in self.agents.values_mut() {
            agent.orphaned_since_ms.get_or_insert(now_ms);
        }
    }

    /// The agents orphaned for at least `grace_ms` by `now_ms`, removed.
    pub fn expire_orphans(&mut self, now_ms: u64, grace_ms: u64) -> Vec<(String, Agent)> {
        let expired: Vec<String> = self
            .agents
            .iter()
            .filter(|(s, a)| {
                !self.connected(s)
                    && a.orphaned_since_ms
                        .is_some_and(|since| now_ms.saturating_sub(since) >= grace_ms)
            })
            .map(|(s, _)| s.clone())
            .collect();
        let agents = expired.into_iter().filter_map(|s| {
            let agent = self.agents.remove(&s)?;
            Some((s, agent))
        });
        agents.collect()
    }

    /// A tab closed: it leaves every scope. Returns the sessions that held it.
    pub fn tab_removed(&mut self, tab: TabId) -> Vec<String> {
        let holders = self.sharers(tab);
        for session in &holders {
            self.unshare(session, tab);
        }
        holders
    }

    /// What to keep across a service-worker restart.
    pub fn saved(&self) -> SavedSharing {
        SavedSharing {
            agents: self.agents.clone(),
            revoked: self.revoked.clone(),
        }
    }

    /// Takes back what a previous worker saved: its agents wait, orphaned, for their
    /// servers to say hello again.
    pub fn restore(&mut self, saved: SavedSharing, now_ms: u64) {
        for (session, mut agent) in saved.agents {
            agent.orphaned_since_ms.get_or_insert(now_ms);
            self.agents.entry(session).or_insert(agent);
        }
        self.revoked.extend(saved.revoked);
    }
}

/// The name shown for a client working in `folder`: "client · folder-name".
fn label(client: &str, folder: Option<&str>) -> String {
    let last = folder
        .and_then(|f| f.rsplit(['/', '\\']).find(|part| !part.is_empty()))
        .and_then(tabwire_shared::names::display_name);
    match last {
        Some(last) => format!("{client} · {last}"),
        None => client.to_owned(),
    }
}

/// A folder path as shown (see [`tabwire_shared::names::display_text`]).
fn clean_folder(raw: &str) -> Option<String> {
    /// The longest folder path shown, in characters.
    const MAX_FOLDER_CHARS: usize = 240;
    tabwire_shared::names::display_text(raw, MAX_FOLDER_CHARS)
}

/// An agent's name as shown: see [`tabwire_shared::names`]; "agent" if nothing
/// visible is left.
pub fn clean_name(name: &str) -> String {
    tabwire_shared::names::display_name(name).unwrap_or_else(|| "agent".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hello(name: &str, session: &str) -> ClientHello {
        ClientHello {
            client_name: name.into(),
            version: "0".into(),
            session: session.into(),
            probe: false,
            folder: None,
        }
    }

    #[test]
    fn a_scope_holds_only_what_was_shared() {
        let mut s = Sharing::default();
        assert_eq!(s.hello(1, &hello("a", "k1"), 0), Greeting::New);
        assert_eq!(s.hello(2, &hello("b", "k2"), 0), Greeting::New);
        assert!(s.share("k1", 10));
        assert!(s.may_use("k1", 10));
        assert!(!s.may_use("k2", 10));
        assert!(!s.may_use("k1", 11));
        assert_eq!(s.audience(10), Some(vec![1]));
        s.set_agent_profile(true);
        assert!(s.may_use("k2", 11));
        assert_eq!(s.audience(10), None);
    }

    #[test]
    fn callers_need_a_hello_and_must_not_be_revoked() {
        let mut s = Sharing::default();
        assert_eq!(s.caller(Some(1)), Err(CallerRefusal::Unknown));
        assert_eq!(s.caller(None), Err(CallerRefusal::Unknown));
        s.hello(1, &hello("a", "k1"), 0);
        assert_eq!(s.caller(Some(1)), Ok("k1".to_owned()));
        let (agent, clients) = s.revoke("k1");
        assert!(agent.is_some());
        assert_eq!(clients, vec![1]);
        assert_eq!(s.caller(Some(1)), Err(CallerRefusal::Revoked));
        assert_eq!(s.hello(3, &hello("a", "k1"), 0), Greeting::Revoked);
        assert_eq!(s.caller(Some(3)), Err(CallerRefusal::Revoked));
    }

    #[test]
    fn a_second_hello_renames_and_keeps_the_scope() {
        let mut s = Sharing::default();
        s.hello(1, &hello("tabwire", "k1"), 0);
        s.share("k1", 10);
        assert_eq!(
            s.hello(1, &hello("claude-code", "k1"), 0),
            Greeting::Returning
        );
        let agent = s.agent("k1").unwrap();
        assert_eq!(agent.name, "claude-code");
        assert!(agent.tabs.contains(&10));
    }

    #[test]
    fn client_gone_ends_the_session_only_when_no_connection_is_left() {
        let mut s = Sharing::default();
        s.hello(1, &hello("a", "k1"), 0);
        s.hello(2, &hello("a", "k1"), 0);
        s.share("k1", 10);
        assert!(s.client_gone(1).is_none());
        let (session, agent) = s.client_gone(2).unwrap();
        assert_eq!(session, "k1");
        assert!(agent.tabs.contains(&10));
        assert!(s.agent("k1").is_none());
    }

    #[test]
    fn orphans_expire_after_the_grace_period_unless_they_return() {
        let mut s = Sharing::default();
        s.hello(1, &hello("a", "k1"), 0);
        s.hello(2, &hello("b", "k2"), 0);
        s.port_dropped(1_000);
        s.hello(7, &hello("a", "k1"), 30_000);
        assert!(s.expire_orphans(60_999, 60_000).is_empty());
        let expired = s.expire_orphans(61_000, 60_000);
        assert_eq!(expired.len(), 1);
        assert_eq!(expired[0].0, "k2");
        assert!(s.agent("k1").is_some());
    }

    #[test]
    fn saved_state_comes_back_orphaned() {
        let mut s = Sharing::default();
        s.hello(1, &hello("a", "k1"), 0);
        s.share("k1", 10);
        s.hello(2, &hello("b", "k2"), 0);
        s.revoke("k2");
        let saved = s.saved();
        let text = serde_json::to_string(&saved).unwrap();
        let mut again = Sharing::default();
        again.restore(serde_json::from_str(&text).unwrap(), 5);
        assert_eq!(again.agent("k1").unwrap().orphaned_since_ms, Some(5));
        assert!(!again.connected("k1"));
        assert_eq!(again.hello(9, &hello("a", "k1"), 6), Greeting::Returning);
        assert!(again.may_use("k1", 10));
        assert_eq!(again.hello(8, &hello("b", "k2"), 6), Greeting::Revoked);
    }

    #[test]
    fn closing_a_tab_takes_it_out_of_every_scope() {
        let mut s = Sharing::default();
        s.hello(1, &hello("a", "k1"), 0);
        s.hello(2, &hello("b", "k2"), 0);
        s.share("k1", 10);
        s.share("k2", 10);
        assert_eq!(s.tab_removed(10), vec!["k1".to_owned(), "k2".to_owned()]);
        assert!(s.sharers(10).is_empty());
    }

    #[test]
    fn one_connection_speaks_for_one_session() {
        let mut s = Sharing::default();
        s.hello(1, &hello("a", "k1"), 0);
        assert_eq!(s.hello(1, &hello("b", "k2"), 0), Greeting::Conflict);
        assert_eq!(s.caller(Some(1)), Ok("k1".to_owned()), "the first stays");
        assert!(s.agent("k2").is_none());
        assert_eq!(s.hello(1, &hello("c", "k1"), 0), Greeting::Returning);
        assert_eq!(s.agent("k1").unwrap().name, "c");
    }

    #[test]
    fn agent_names_are_cleaned_capped_and_told_apart() {
        let mut s = Sharing::default();
        s.hello(1, &hello("claude\u{1b}[31m\n", "k1"), 0);
        assert_eq!(s.agent("k1").unwrap().name, "claude [31m");
        s.hello(2, &hello(&"x".repeat(500), "k2"), 0);
        assert_eq!(
            s.agent("k2").unwrap().name.chars().count(),
            tabwire_shared::names::MAX_NAME_CHARS
        );
        s.hello(3, &hello("\u{7}", "k3"), 0);
        assert_eq!(s.agent("k3").unwrap().name, "agent");
        s.hello(4, &hello("claude\u{200B} [31m", "k4"), 0);
        assert_eq!(s.agent("k4").unwrap().name, "claude [31m (2)");
        s.hello(4, &hello("claude [31m", "k4"), 0);
        assert_eq!(s.agent("k4").unwrap().name, "claude [31m (2)", "stable");
        s.hello(5, &hello("claude\u{202E} [31m", "k5"), 0);
        assert_eq!(s.agent("k5").unwrap().name, "claude [31m (3)");
    }

    fn hello_in(name: &str, session: &str, folder: &str) -> ClientHello {
        ClientHello {
            folder: Some(folder.into()),
            ..hello(name, session)
        }
    }

    #[test]
    fn two_sessions_of_one_client_are_named_after_their_folders() {
        let mut s = Sharing::default();
        s.hello(1, &hello_in("claude-code", "k1", "/home/u/shop-app"), 0);
        s.hello(2, &hello_in("claude-code", "k2", "C:\\work\\blog\\"), 0);
        s.hello(3, &hello_in("claude-code", "k3", "/home/u/shop-app"), 0);
        s.hello(4, &hello_in("codex", "k4", "/"), 0);
        let name = |s: &Sharing, k: &str| s.agent(k).unwrap().name.clone();
        assert_eq!(name(&s, "k1"), "claude-code · shop-app");
        assert_eq!(name(&s, "k2"), "claude-code · blog");
        assert_eq!(
            name(&s, "k3"),
            "claude-code · shop-app (2)",
            "same folder: numbered"
        );
        assert_eq!(name(&s, "k4"), "codex", "no folder name to show");
        let folder = s.agent("k1").unwrap().folder.clone();
        assert_eq!(folder.as_deref(), Some("/home/u/shop-app"));
        s.hello(5, &hello_in("x", "k5", "/tmp/\u{202E}evil\n"), 0);
        assert_eq!(name(&s, "k5"), "x · evil", "a folder's name is cleaned too");
    }

    #[test]
    fn an_agent_keeps_its_colour_across_a_browser_restart_and_none_share_one() {
        let mut first = Sharing::default();
        first.hello(1, &hello("a", "session-one"), 0);
        let colour = first.agent("session-one").unwrap().color.clone();
        // A restarted browser knows nobody: the same session gets the same colour.
        let mut restarted = Sharing::default();
        restarted.hello(7, &hello("a", "session-one"), 0);
        assert_eq!(restarted.agent("session-one").unwrap().color, colour);
        // Eight agents at once wear eight colours.
        let mut many = Sharing::default();
        for n in 0..8 {
            many.hello(n, &hello("a", &format!("k{n}")), 0);
        }
        let colours: BTreeSet<&str> = many.agents().values().map(|a| a.color.as_str()).collect();
        assert_eq!(colours.len(), 8);
    }
}
