//! A scripted fake browser and a test harness around the engine (tests only).
//!
//! [`Fake`] implements [`Chrome`] over plain data: windows and tabs, a debugger that
//! attaches unless told otherwise, CDP answers (defaults, per-method overrides, or
//! held until the test releases them), a virtual clock, and a record of everything
//! posted and logged. CDP events the fake "emits" are queued and delivered by
//! [`Harness::settle`], as Chrome would deliver them on a later turn of the event loop.
//! Each frame's isolated world, with a walker over a tiny page, is in [`world`].

pub mod world;

use std::any::type_name;
use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::rc::Rc;

use futures::channel::oneshot;
use futures::executor::{LocalPool, LocalSpawner};
use futures::future::LocalBoxFuture;
use futures::task::LocalSpawnExt;
use serde_json::{json, Value};
use tabwire_shared::{
    Command, Envelope, ErrorCode, Event, FromExtension, Reply, Request, TabId, ToExtension,
    WireError,
};

use super::Engine;
use crate::chrome::{Badge, Chrome, ChromeError, GroupState, StorageArea, TabState, WindowState};

/// How the fake answers a CDP command.
#[derive(Clone)]
pub struct Answer {
    result: Result<Value, String>,
    events: Vec<(String, Value)>,
}

impl Answer {
    /// Answers with `value`.
    pub fn value(value: Value) -> Self {
        Self::with_events(value, vec![])
    }

    /// Fails with Chrome's `message`.
    pub fn error(message: &str) -> Self {
        Self {
            result: Err(message.to_owned()),
            events: vec![],
        }
    }

    /// Answers with `value`, then emits `events` on the same tab.
    pub fn with_events(value: Value, events: Vec<(&str, Value)>) -> Self {
        Self {
            result: Ok(value),
            events: events.into_iter().map(|(m, p)| (m.to_owned(), p)).collect(),
        }
    }
}

type Held = oneshot::Sender<Result<Value, ChromeError>>;

/// Computes the answer to a CDP call from its params.
type Responder = Rc<dyn Fn(&Value) -> Answer>;

#[derive(Default)]
struct State {
    windows: Vec<WindowState>,
    last_focused: Option<i64>,
    focused: Option<i64>,
    next_tab: TabId,
    created: Vec<String>,
    attached: HashSet<TabId>,
    refusals: HashMap<TabId, String>,
    /// Tabs a debugger from elsewhere holds: `true` if it is a stale session of ours.
    held_elsewhere: HashMap<TabId, bool>,
    answers: HashMap<String, Answer>,
    responders: HashMap<String, Responder>,
    holds: Vec<(String, Option<TabId>)>,
    held: Vec<Held>,
    manual_loads: bool,
    loads: u64,
    /// Every CDP call: tab, session (`None`: the tab's own), method, params.
    sent: Vec<(TabId, Option<String>, String, Value)>,
    /// Events to deliver: tab, session, method, params.
    events: Vec<(TabId, Option<String>, String, Value)>,
    /// The tabs' cross-site iframes, attached when their parent session auto-attaches.
    oopifs: Vec<Oopif>,
    /// The child sessions attached now, with their tab.
    live_children: HashMap<String, TabId>,
    /// The sessions that asked to auto-attach (`None`: the tab's own).
    auto_attaching: HashSet<(TabId, Option<String>)>,
    /// Answers overriding the defaults in one child session: by (session, method).
    answers_in: HashMap<(String, String), Answer>,
    removed: Vec<TabId>,
    /// Tabs sent to a URL with the tabs API, in order.
    tab_updates: Vec<(TabId, String)>,
    resized: Vec<(i64, u32, u32)>,
    now: u64,
    timers: Vec<(u64, oneshot::Sender<()>)>,
    posted: Vec<Envelope<FromExtension>>,
    logs: Vec<String>,
    storage: HashMap<(StorageArea, String), Value>,
    /// Each tab's group, as Chrome would report it.
    tab_groups: HashMap<TabId, i64>,
    /// Each group's title and colour.
    group_styles: HashMap<i64, (String, String)>,
    next_group: i64,
    refuse_groups: bool,
    badges: HashMap<TabId, Badge>,
    /// The request line on the toolbar button, if one shows.
    request_shown: Option<String>,
    reopened: u64,
    changes: u64,
    worlds: world::Worlds,
}

impl State {
    /// A session asks to auto-attach: its cross-site iframes attach now (and later
    /// ones as they come). Returns the events that session reports.
    fn auto_attach(&mut self, attaching: (TabId, Option<String>)) -> Vec<(&'static str, Value)> {
        let (tab, parent) = attaching.clone();
        self.auto_attaching.insert(attaching);
        let now: Vec<Oopif> = (self.oopifs.iter())
            .filter(|o| o.tab == tab && o.parent == parent)
            .filter(|o| !self.live_children.contains_key(&o.session))
            .cloned()
            .collect();
        now.into_iter()
            .map(|oopif| {
                self.live_children.insert(oopif.session.clone(), tab);
                let (_, _, _, params) = oopif.attached_event();
                ("Target.attachedToTarget", params)
            })
            .collect()
    }
}

/// A cross-site iframe of a fake tab.
#[derive(Clone)]
struct Oopif {
    tab: TabId,
    /// The session it attaches through (`None`: the tab's own).
    parent: Option<String>,
    session: String,
    frame: String,
    url: String,
}

impl Oopif {
    fn attached_event(&self) -> (TabId, Option<String>, String, Value) {
        let params = json!({
            "sessionId": self.session,
            "targetInfo": {"targetId": self.frame, "type": "iframe", "url": self.url, "attached": true},
            "waitingForDebugger": false,
        });
        let method = "Target.attachedToTarget".to_owned();
        (self.tab, self.parent.clone(), method, params)
    }
}

/// A `Runtime.callFunctionOn` the fake received, as typed values.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionCall {
    /// The function's source.
    pub function: String,
    /// The object it is called on (`this`).
    pub object_id: String,
    /// The object group its results are kept in.
    pub object_group: String,
    /// Its arguments, in order.
    pub arguments: Vec<Arg>,
    /// The result was asked for by value.
    pub return_by_value: bool,
    /// A returned promise is awaited.
    pub await_promise: bool,
    /// Run as if the user acted.
    pub user_gesture: bool,
}

/// One argument of a [`FunctionCall`]: a JSON value or a remote object.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    /// Passed by value.
    Value(Value),
    /// A remote object, by id.
    Object(String),
}

impl Arg {
    /// A by-value argument.
    pub fn value(value: impl Into<Value>) -> Self {
        Self::Value(value.into())
    }

    /// A remote-object argument.
    pub fn object(id: &str) -> Self {
        Self::Object(id.to_owned())
    }

    /// The value of a by-value argument.
    pub fn as_value(&self) -> Option<&Value> {
        match self {
            Self::Value(value) => Some(value),
            Self::Object(_) => None,
        }
    }

    /// The id of a remote-object argument.
    pub fn as_object(&self) -> Option<&str> {
        match self {
            Self::Object(id) => Some(id),
            Self::Value(_) => None,
        }
    }
}

impl FunctionCall {
    /// Reads the params of a recorded call.
    pub fn read(params: &Value) -> Self {
        let text = |key: &str| params[key].as_str().unwrap_or_default().to_owned();
        let flag = |key: &str| params[key].as_bool().unwrap_or(false);
        let arguments = params["arguments"]
            .as_array()
            .map(|args| {
                args.iter()
                    .map(|arg| match arg["objectId"].as_str() {
                        Some(id) => Arg::Object(id.to_owned()),
                        None => Arg::Value(arg["value"].clone()),
                    })
                    .collect()
            })
            .unwrap_or_default();
        Self {
            function: text("functionDeclaration"),
            object_id: text("objectId"),
            object_group: text("objectGroup"),
            arguments,
            return_by_value: flag("returnByValue"),
            await_promise: flag("awaitPromise"),
            user_gesture: flag("userGesture"),
        }
    }
}

/// The fake browser. Cloning shares the same state.
#[derive(Clone)]
pub struct Fake {
    state: Rc<RefCell<State>>,
    spawner: LocalSpawner,
}

fn tab(id: TabId, window_id: i64, url: &str, active: bool) -> TabState {
    TabState {
        id,
        window_id,
        url: url.to_owned(),
        title: format!("Title of {url}"),
        active,
    }
}

impl Fake {
    /// Adds a normal window with `(id, url, active)` tabs.
    pub fn add_window(&self, id: i64, tabs: &[(TabId, &str, bool)]) {
        let tabs = tabs
            .iter()
            .map(|(t, url, active)| tab(*t, id, url, *active))
            .collect();
        self.state.borrow_mut().windows.push(WindowState {
            id,
            minimized: false,
            focused: true,
            tabs,
        });
    }

    /// Sets whether the window `id` has the focus (every window has, as in headless
    /// Chromium, until a test says otherwise).
    pub fn set_has_focus(&self, id: i64, focused: bool) {
        for window in &mut self.state.borrow_mut().windows {
            if window.id == id {
                window.focused = focused;
            }
        }
    }

    /// Sets whether the window `id` is minimized.
    pub fn set_minimized(&self, id: i64, minimized: bool) {
        for window in &mut self.state.borrow_mut().windows {
            if window.id == id {
                window.minimized = minimized;
            }
        }
    }

    /// Sets what `chrome.windows.getLastFocused` answers.
    pub fn set_last_focused(&self, window: Option<i64>) {
        self.state.borrow_mut().last_focused = window;
    }

    /// Overrides the answer to every later `method` call.
    pub fn answer(&self, method: &str, answer: Answer) {
        self.state
            .borrow_mut()
            .answers
            .insert(method.to_owned(), answer);
    }

    /// Answers every later `method` call with what `respond` makes of its params.
    pub fn answer_with(&self, method: &str, respond: impl Fn(&Value) -> Answer + 'static) {
        self.state
            .borrow_mut()
            .responders
            .insert(method.to_owned(), Rc::new(respond));
    }

    /// The methods sent to `tab`'s own session, in order.
    pub fn methods(&self, tab: TabId) -> Vec<String> {
        self.methods_in(tab, None)
    }

    /// The methods sent in one session of `tab` (`None`: its own), in order.
    pub fn methods_in(&self, tab: TabId, session: Option<&str>) -> Vec<String> {
        let state = self.state.borrow();
        state
            .sent
            .iter()
            .filter(|(t, s, _, _)| *t == tab && s.as_deref() == session)
            .map(|(_, _, m, _)| m.clone())
            .collect()
    }

    /// Gives `tab` a cross-site iframe showing `url` in frame `frame`, reached through
    /// child session `session`, nested in the frame of session `parent` (`None`: in
    /// the page). It attaches when its parent session auto-attaches (at once if it
    /// already does, as a frame added to a page).
    pub fn add_oopif(
        &self,
        tab: TabId,
        parent: Option<&str>,
        session: &str,
        frame: &str,
        url: &str,
    ) {
        let oopif = Oopif {
            tab,
            parent: parent.map(str::to_owned),
            session: session.to_owned(),
            frame: frame.to_owned(),
            url: url.to_owned(),
        };
        let mut state = self.state.borrow_mut();
        if state.auto_attaching.contains(&(tab, oopif.parent.clone())) {
            state.live_children.insert(oopif.session.clone(), tab);
            state.events.push(oopif.attached_event());
        }
        state.oopifs.push(oopif);
    }

    /// The cross-site iframe of child session `session` goes away (and those nested
    /// in it): each parent session says `Target.detachedFromTarget`.
    pub fn remove_oopif(&self, session: &str) {
        let mut state = self.state.borrow_mut();
        let mut stack = vec![session.to_owned()];
        while let Some(session) = stack.pop() {
            let Some(at) = state.oopifs.iter().position(|o| o.session == session) else {
                continue;
            };
            let gone = state.oopifs.remove(at);
            stack.extend(
                (state.oopifs.iter())
                    .filter(|o| o.parent.as_deref() == Some(session.as_str()))
                    .map(|o| o.session.clone()),
            );
            if state.live_children.remove(&gone.session).is_some() {
                let params = json!({"sessionId": gone.session, "targetId": gone.frame});
                let method = "Target.detachedFromTarget".to_owned();
                state.events.push((gone.tab, gone.parent, method, params));
            }
            let auto = (gone.tab, Some(gone.session));
            state.auto_attaching.remove(&auto);
        }
    }

    /// Answers `method` in child session `session` with `answer` from now on.
    pub fn answer_in(&self, session: &str, method: &str, answer: Answer) {
        let key = (session.to_owned(), method.to_owned());
        self.state.borrow_mut().answers_in.insert(key, answer);
    }

    /// What `method` is answered with in child session `session`, if a test said.
    pub fn answers_in(&self, session: &str, method: &str) -> Option<Answer> {
        let key = (session.to_owned(), method.to_owned());
        self.state.borrow().answers_in.get(&key).cloned()
    }

    /// The cross-site iframe of child session `old` will attach under session `new`
    /// from now on, as Chrome names a frame's session anew on every attach (call it
    /// while the frame is not attached).
    pub fn rename_oopif_session(&self, old: &str, new: &str) {
        let mut state = self.state.borrow_mut();
        for oopif in &mut state.oopifs {
            if oopif.session == old {
                oopif.session = new.to_owned();
            }
            if oopif.parent.as_deref() == Some(old) {
                oopif.parent = Some(new.to_owned());
            }
        }
    }

    /// Whether child session `session` is attached.
    pub fn child_attached(&self, session: &str) -> bool {
        self.state.borrow().live_children.contains_key(session)
    }

    /// Queues an event from one session of `tab` (`None`: its own), delivered on
    /// the next [`Harness::settle`].
    pub fn emit(&self, tab: TabId, session: Option<&str>, method: &str, params: Value) {
        let event = (tab, session.map(str::to_owned), method.to_owned(), params);
        self.state.borrow_mut().events.push(event);
    }

    /// Whether the debugger is attached to `tab`.
    pub fn is_attached(&self, tab: TabId) -> bool {
        self.state.borrow().attached.contains(&tab)
    }

    /// Holds every later `method` call until [`release_held`](Self::release_held)
    /// (`tabs.create` holds opening tabs).
    pub fn hold(&self, method: &str) {
        self.state
            .borrow_mut()
            .holds
            .push((method.to_owned(), None));
    }

    /// Holds later `method` calls on one tab only.
    pub fn hold_on_tab(&self, method: &str, tab: TabId) {
        self.state
            .borrow_mut()
            .holds
            .push((method.to_owned(), Some(tab)));
    }

    /// Answers every held call with `value` and stops holding.
    pub fn release_held(&self, value: Value) {
        self.release(Ok(value));
    }

    /// Fails every held call with `message` and stops holding.
    pub fn release_held_error(&self, message: &str) {
        self.release(Err(ChromeError(message.to_owned())));
    }

    fn release(&self, outcome: Result<Value, ChromeError>) {
        let held = {
            let mut state = self.state.borrow_mut();
            state.holds.clear();
            std::mem::take(&mut state.held)
        };
        for sender in held {
            let _ = sender.send(outcome.clone());
        }
    }

    /// `Page.navigate` answers but emits no events: the test drives the load.
    pub fn manual_loads(&self) {
        self.state.borrow_mut().manual_loads = true;
    }

    /// Makes attaching to `tab` fail with `reason`.
    pub fn refuse_attach(&self, tab: TabId, reason: &str) {
        self.state
            .borrow_mut()
            .refusals
            .insert(tab, reason.to_owned());
    }

    /// Another session already holds `tab`; `ours` if it is our own from before.
    pub fn mark_attached_elsewhere(&self, tab: TabId, ours: bool) {
        self.state.borrow_mut().held_elsewhere.insert(tab, ours);
    }

    /// Chrome drops the session (the caller reports it to the engine).
    pub fn detach_externally(&self, tab: TabId) {
        let mut state = self.state.borrow_mut();
        state.attached.remove(&tab);
        state.live_children.retain(|_, t| *t != tab);
        state.auto_attaching.retain(|(t, _)| *t != tab);
    }

    /// Removes a tab without telling the engine.
    pub fn remove_tab_silently(&self, id: TabId) {
        let mut state = self.state.borrow_mut();
        for window in &mut state.windows {
            window.tabs.retain(|t| t.id != id);
        }
        state.attached.remove(&id);
        state.live_children.retain(|_, t| *t != id);
        state.auto_attaching.retain(|(t, _)| *t != id);
    }

    /// Changes a tab's URL.
    pub fn set_url(&self, id: TabId, url: &str) {
        self.find_mut(id, |t| t.url = url.to_owned());
    }

    fn find_mut<R>(&self, id: TabId, f: impl FnOnce(&mut TabState) -> R) -> Option<R> {
        let mut state = self.state.borrow_mut();
        let found = state
            .windows
            .iter_mut()
            .flat_map(|w| w.tabs.iter_mut())
            .find(|t| t.id == id);
        found.map(f)
    }

    /// The params of every `method` call sent to `tab`'s own session, in order.
    pub fn sent(&self, tab: TabId, method: &str) -> Vec<Value> {
        self.sent_in(tab, None, method)
    }

    /// The params of every `method` call sent in one session of `tab` (`None`: its
    /// own), in order.
    pub fn sent_in(&self, tab: TabId, session: Option<&str>, method: &str) -> Vec<Value> {
        let state = self.state.borrow();
        state
            .sent
            .iter()
            .filter(|(t, s, m, _)| *t == tab && s.as_deref() == session && m == method)
            .map(|(_, _, _, p)| p.clone())
            .collect()
    }

    /// The `Runtime.callFunctionOn` calls on objects sent to `tab` (not those into an
    /// isolated world: see [`world_calls`](Self::world_calls)), in order, read into
    /// typed values.
    pub fn function_calls(&self, tab: TabId) -> Vec<FunctionCall> {
        self.sent(tab, "Runtime.callFunctionOn")
            .iter()
            .filter(|params| params.get("executionContextId").is_none())
            .map(FunctionCall::read)
            .collect()
    }

    /// The calls of page function `function` sent to `tab`, in order.
    pub fn calls_of(&self, tab: TabId, function: &str) -> Vec<FunctionCall> {
        let mut calls = self.function_calls(tab);
        calls.retain(|c| c.function == function);
        calls
    }

    /// The window sizes asked for, in order.
    pub fn resized(&self) -> Vec<(i64, u32, u32)> {
        self.state.borrow().resized.clone()
    }

    /// The tabs sent to a URL with the tabs API (not the debugger), in order.
    pub fn tab_updates(&self) -> Vec<(TabId, String)> {
        self.state.borrow().tab_updates.clone()
    }

    /// The URLs tabs were created with.
    pub fn created_urls(&self) -> Vec<String> {
        self.state.borrow().created.clone()
    }

    /// The selected tab of a window.
    pub fn active_tab(&self, window: i64) -> Option<TabId> {
        let state = self.state.borrow();
        let window = state.windows.iter().find(|w| w.id == window)?;
        window.tabs.iter().find(|t| t.active).map(|t| t.id)
    }

    /// The window last brought to the front with `focus_window`.
    pub fn focused_window(&self) -> Option<i64> {
        self.state.borrow().focused
    }

    /// Everything posted to the host.
    pub fn posted(&self) -> Vec<Envelope<FromExtension>> {
        self.state.borrow().posted.clone()
    }

    /// Everything logged.
    pub fn logs(&self) -> Vec<String> {
        self.state.borrow().logs.clone()
    }

    /// What storage holds under `key`.
    pub fn stored(&self, area: StorageArea, key: &str) -> Option<Value> {
        let state = self.state.borrow();
        state.storage.get(&(area, key.to_owned())).cloned()
    }

    /// Puts `value` in storage under `key` (as a previous worker or the user did).
    pub fn store(&self, area: StorageArea, key: &str, value: Value) {
        let mut state = self.state.borrow_mut();
        state.storage.insert((area, key.to_owned()), value);
    }

    /// The browser quits and starts again with the same profile and tabs: what
    /// `chrome.storage.session` held is gone, and so are the open tab groups (a test
    /// restores those it wants with [`restore_group`](Self::restore_group)).
    pub fn quit_and_restart(&self) {
        let mut state = self.state.borrow_mut();
        state
            .storage
            .retain(|(area, _), _| *area == StorageArea::Local);
        state.tab_groups.clear();
        state.group_styles.clear();
    }

    /// The group a tab is in.
    pub fn group_of(&self, tab: TabId) -> Option<i64> {
        self.state.borrow().tab_groups.get(&tab).copied()
    }

    /// A group's title and colour.
    pub fn group_style(&self, group: i64) -> Option<(String, String)> {
        self.state.borrow().group_styles.get(&group).cloned()
    }

    /// Makes every tab-group call fail (as in a browser without tab groups).
    pub fn refuse_groups(&self) {
        self.state.borrow_mut().refuse_groups = true;
    }

    /// Puts a tab in a new group titled `title`, as a restored session (or the user)
    /// would; returns the group.
    pub fn restore_group(&self, tab: TabId, title: &str) -> i64 {
        let mut state = self.state.borrow_mut();
        state.next_group += 1;
        let group = state.next_group;
        state.tab_groups.insert(tab, group);
        let style = (title.to_owned(), "grey".to_owned());
        state.group_styles.insert(group, style);
        group
    }

    /// Moves a tab to another group (-1: none), as the user dragging it would.
    pub fn drag_to_group(&self, tab: TabId, group: i64) {
        let mut state = self.state.borrow_mut();
        if group < 0 {
            state.tab_groups.remove(&tab);
        } else {
            state.tab_groups.insert(tab, group);
        }
    }

    /// The agent's request the toolbar button shows, if any.
    pub fn request_shown(&self) -> Option<String> {
        self.state.borrow().request_shown.clone()
    }

    /// The badge text and tooltip of a tab.
    pub fn badge(&self, tab: TabId) -> Option<(String, String)> {
        let state = self.state.borrow();
        let badge = state.badges.get(&tab)?;
        Some((badge.text.clone(), badge.tooltip.clone()))
    }

    /// The badge of a tab, colours included.
    pub fn badge_look(&self, tab: TabId) -> Option<Badge> {
        self.state.borrow().badges.get(&tab).cloned()
    }

    /// How often the engine asked to reopen the native port.
    pub fn reopened(&self) -> u64 {
        self.state.borrow().reopened
    }

    /// How often the engine said the popup's state changed.
    pub fn changes(&self) -> u64 {
        self.state.borrow().changes
    }

    fn lookup(&self, id: TabId) -> Option<TabState> {
        let state = self.state.borrow();
        let mut tabs = state.windows.iter().flat_map(|w| w.tabs.iter());
        tabs.find(|t| t.id == id).cloned()
    }

    /// Decides the answer to a CDP call in a child session, recording it: the
    /// session's own overrides, else the defaults (never the tab's overrides).
    fn respond_in(&self, tab: TabId, session: &str, method: &str, params: &Value) -> Answer {
        let mut state = self.state.borrow_mut();
        let entry = (
            tab,
            Some(session.to_owned()),
            method.to_owned(),
            params.clone(),
        );
        state.sent.push(entry);
        // A cross-site frame's world is its frame's, as in the tab's own session
        // (contexts are numbered across sessions, so none is taken for another).
        if let Some(answer) = state.worlds.handle(tab, method, params) {
            return answer;
        }
        let key = (session.to_owned(), method.to_owned());
        if let Some(answer) = state.answers_in.get(&key) {
            return answer.clone();
        }
        match method {
            "Target.setAutoAttach" => {
                let attaching = (tab, Some(session.to_owned()));
                Answer::with_events(json!({}), state.auto_attach(attaching))
            }
            "Page.getFrameTree" => {
                let frame = state.oopifs.iter().find(|o| o.session == session);
                let (id, url) = frame.map_or((String::new(), String::new()), |o| {
                    (o.frame.clone(), o.url.clone())
                });
                Answer::value(
                    json!({"frameTree": {"frame": {"id": id, "parentId": "main", "loaderId": "C0", "url": url}}}),
                )
            }
            _ => {
                drop(state);
                Self::default_answer(method, params)
            }
        }
    }

    /// Sets what `frame` of `tab` shows, as its world's walker sees it (a change of
    /// the page).
    pub fn set_page(&self, tab: TabId, frame: &str, href: &str, page: Vec<world::FakeNode>) {
        let mut state = self.state.borrow_mut();
        state.worlds.set_page(tab, frame, href, page);
    }

    /// `frame` of `tab` shows a new document: its world, walker and uids are gone
    /// (Chrome is not made to say so).
    pub fn new_document(&self, tab: TabId, frame: &str) {
        self.state.borrow_mut().worlds.new_document(tab, frame);
    }

    /// Makes every later walk of `frame` answer `text`.
    pub fn answer_takes(&self, tab: TabId, frame: &str, text: &str) {
        self.state
            .borrow_mut()
            .worlds
            .answer_takes(tab, frame, text);
    }

    /// The calls made on `tab`'s isolated worlds, in order.
    pub fn world_calls(&self, tab: TabId) -> Vec<world::Seen> {
        self.state.borrow().worlds.seen(tab)
    }

    /// The walker `take`s asked for on `tab`, in order.
    pub fn takes(&self, tab: TabId) -> Vec<world::Take> {
        let calls = self.world_calls(tab).into_iter();
        calls
            .filter_map(|call| match call {
                world::Seen::Take(take) => Some(take),
                _ => None,
            })
            .collect()
    }

    /// The context of `frame`'s isolated world in `tab`, if it has one.
    pub fn world_context(&self, tab: TabId, frame: &str) -> Option<i64> {
        self.state.borrow().worlds.context(tab, frame)
    }

    /// Decides the answer to a CDP call, recording it.
    fn respond(&self, tab: TabId, method: &str, params: &Value) -> Answer {
        let mut state = self.state.borrow_mut();
        state
            .sent
            .push((tab, None, method.to_owned(), params.clone()));
        // Calls in an isolated world go to it, whatever a test answers for the method.
        if method != "Page.createIsolatedWorld" {
            if let Some(answer) = state.worlds.handle(tab, method, params) {
                return answer;
            }
        }
        if let Some(respond) = state.responders.get(method).cloned() {
            drop(state);
            return respond(params);
        }
        if let Some(answer) = state.answers.get(method) {
            return answer.clone();
        }
        match method {
            "Page.navigate" => {
                state.loads += 1;
                let loader = format!("L{}", state.loads);
                let value = json!({"frameId": "main", "loaderId": loader});
                if state.manual_loads {
                    return Answer::value(value);
                }
                drop(state);
                let url = params["url"].as_str().unwrap_or_default();
                self.set_url(tab, url);
                let frame = json!({"frame": {"id": "main", "loaderId": loader, "url": url}});
                Answer::with_events(
                    value,
                    vec![
                        ("Page.frameNavigated", frame),
                        ("Page.loadEventFired", json!({})),
                    ],
                )
            }
            "Page.reload" if !state.manual_loads => {
                state.loads += 1;
                let frame =
                    json!({"frame": {"id": "main", "loaderId": format!("L{}", state.loads)}});
                Answer::with_events(
                    json!({}),
                    vec![
                        ("Page.frameNavigated", frame),
                        ("Page.loadEventFired", json!({})),
                    ],
                )
            }
            "Target.setAutoAttach" => {
                let events = state.auto_attach((tab, None));
                Answer::with_events(json!({}), events)
            }
            "Page.createIsolatedWorld" => state
                .worlds
                .handle(tab, method, params)
                .unwrap_or_else(|| Answer::error("No frame for given id found")),
            _ => {
                drop(state);
                Self::default_answer(method, params)
            }
        }
    }

    /// The answer to a call no test overrode.
    fn default_answer(method: &str, params: &Value) -> Answer {
        match method {
            "Runtime.evaluate" => {
                Answer::value(json!({"result": {"type": "object", "objectId": "global"}}))
            }
            "Runtime.callFunctionOn" => {
                Answer::value(json!({"result": {"type": "number", "value": 42}}))
            }
            "Page.getFrameTree" => Answer::value(
                json!({"frameTree": {"frame": {"id": "main", "loaderId": "L0", "url": "https://a.test/"}}}),
            ),
            // Elements: backend node n is the object `node-n`.
            "DOM.resolveNode" => {
                let node = params["backendNodeId"].as_i64().unwrap_or_default();
                Answer::value(
                    json!({"object": {"type": "object", "subtype": "node", "objectId": format!("node-{node}")}}),
                )
            }
            "DOM.describeNode" => {
                let node = match (
                    params["backendNodeId"].as_i64(),
                    params["objectId"].as_str(),
                ) {
                    (Some(node), _) => node,
                    (None, Some(object)) => object
                        .strip_prefix("node-")
                        .and_then(|n| n.parse().ok())
                        .unwrap_or_default(),
                    _ => 0,
                };
                Answer::value(
                    json!({"node": {"backendNodeId": node, "nodeType": 1, "nodeName": "DIV", "localName": "div"}}),
                )
            }
            "DOMDebugger.getEventListeners" => Answer::value(json!({"listeners": []})),
            _ => Answer::value(json!({})),
        }
    }

    fn is_held(&self, tab: TabId, method: &str) -> bool {
        let state = self.state.borrow();
        state
            .holds
            .iter()
            .any(|(m, t)| m == method && t.is_none_or(|t| t == tab))
    }
}

impl Chrome for Fake {
    async fn normal_windows(&self) -> Result<Vec<WindowState>, ChromeError> {
        Ok(self.state.borrow().windows.clone())
    }

    async fn last_focused_window(&self) -> Result<Option<i64>, ChromeError> {
        Ok(self.state.borrow().last_focused)
    }

    async fn tab(&self, tab: TabId) -> Result<Option<TabState>, ChromeError> {
        Ok(self.lookup(tab))
    }

    async fn create_tab(&self, url: &str, active: bool) -> Result<TabState, ChromeError> {
        if self.is_held(0, "tabs.create") {
            let (sender, receiver) = oneshot::channel();
            self.state.borrow_mut().held.push(sender);
            receiver
                .await
                .unwrap_or_else(|_| Err(ChromeError("dropped".into())))?;
        }
        let mut state = self.state.borrow_mut();
        state.next_tab += 1;
        let created = tab(100 + state.next_tab, 1, url, active);
        state.created.push(url.to_owned());
        let window = state
            .windows
            .first_mut()
            .ok_or(ChromeError("no window".into()))?;
        if active {
            window.tabs.iter_mut().for_each(|t| t.active = false);
        }
        window.tabs.push(created.clone());
        Ok(created)
    }

    async fn navigate_tab(&self, id: TabId, url: &str) -> Result<(), ChromeError> {
        if self.lookup(id).is_none() {
            return Err(ChromeError(format!("No tab with id: {id}.")));
        }
        self.set_url(id, url);
        let mut state = self.state.borrow_mut();
        // Away from the page the debugger could not reach, it may attach again.
        state.refusals.remove(&id);
        state.tab_updates.push((id, url.to_owned()));
        Ok(())
    }

    async fn activate_tab(&self, id: TabId) -> Result<(), ChromeError> {
        let mut state = self.state.borrow_mut();
        for window in &mut state.windows {
            if window.tabs.iter().any(|t| t.id == id) {
                window.tabs.iter_mut().for_each(|t| t.active = t.id == id);
            }
        }
        Ok(())
    }

    async fn focus_window(&self, window: i64) -> Result<(), ChromeError> {
        let mut state = self.state.borrow_mut();
        state.focused = Some(window);
        state.last_focused = Some(window);
        Ok(())
    }

    async fn resize_window(&self, window: i64, width: u32, height: u32) -> Result<(), ChromeError> {
        self.state
            .borrow_mut()
            .resized
            .push((window, width, height));
        Ok(())
    }

    async fn remove_tab(&self, id: TabId) -> Result<(), ChromeError> {
        self.remove_tab_silently(id);
        self.state.borrow_mut().removed.push(id);
        Ok(())
    }

    async fn attach_debugger(&self, id: TabId) -> Result<(), ChromeError> {
        if self.lookup(id).is_none() {
            return Err(ChromeError(format!("No tab with given id {id}.")));
        }
        let mut state = self.state.borrow_mut();
        if let Some(reason) = state.refusals.get(&id) {
            return Err(ChromeError(reason.clone()));
        }
        if state.held_elsewhere.contains_key(&id) || state.attached.contains(&id) {
            return Err(ChromeError(format!(
                "Another debugger is already attached to the tab with id: {id}."
            )));
        }
        state.attached.insert(id);
        Ok(())
    }

    async fn detach_debugger(&self, id: TabId) -> Result<(), ChromeError> {
        let mut state = self.state.borrow_mut();
        if state.held_elsewhere.get(&id) == Some(&true) {
            state.held_elsewhere.remove(&id);
            return Ok(());
        }
        if state.attached.remove(&id) {
            // The tab's child sessions end with its own.
            state.live_children.retain(|_, tab| *tab != id);
            state.auto_attaching.retain(|(tab, _)| *tab != id);
            return Ok(());
        }
        Err(ChromeError(format!(
            "Debugger is not attached to the tab with id: {id}."
        )))
    }

    async fn send_command_text(
        &self,
        tab: TabId,
        session: Option<&str>,
        method: &str,
        params: Value,
    ) -> Result<String, ChromeError> {
        if !self.state.borrow().attached.contains(&tab) {
            return Err(ChromeError(format!(
                "Debugger is not attached to the tab with id: {tab}."
            )));
        }
        if let Some(session) = session {
            let live = self.state.borrow().live_children.get(session) == Some(&tab);
            if !live {
                return Err(ChromeError(format!("No session with given id: {session}")));
            }
        }
        let session = session.map(str::to_owned);
        if self.is_held(tab, method) {
            self.state
                .borrow_mut()
                .sent
                .push((tab, session, method.to_owned(), params));
            let (sender, receiver) = oneshot::channel();
            self.state.borrow_mut().held.push(sender);
            return receiver
                .await
                .unwrap_or_else(|_| Err(ChromeError("dropped".into())))
                .map(|answer| answer.to_string());
        }
        let answer = match &session {
            Some(child) => self.respond_in(tab, child, method, &params),
            None => self.respond(tab, method, &params),
        };
        let mut state = self.state.borrow_mut();
        for (method, params) in answer.events {
            state.events.push((tab, session.clone(), method, params));
        }
        answer
            .result
            .map(|answer| answer.to_string())
            .map_err(ChromeError)
    }

    async fn storage_get(
        &self,
        area: StorageArea,
        key: &str,
    ) -> Result<Option<Value>, ChromeError> {
        Ok(self.stored(area, key))
    }

    async fn storage_set(
        &self,
        area: StorageArea,
        key: &str,
        value: Value,
    ) -> Result<(), ChromeError> {
        self.store(area, key, value);
        Ok(())
    }

    async fn group_tab(&self, tab: TabId, group: Option<i64>) -> Result<i64, ChromeError> {
        let mut state = self.state.borrow_mut();
        if state.refuse_groups {
            return Err(ChromeError("Tab groups are not available.".into()));
        }
        let group = match group {
            Some(group) if state.tab_groups.values().any(|g| *g == group) => group,
            Some(group) => return Err(ChromeError(format!("No group with id: {group}."))),
            None => {
                state.next_group += 1;
                state.next_group
            }
        };
        state.tab_groups.insert(tab, group);
        Ok(group)
    }

    async fn style_group(&self, group: i64, title: &str, color: &str) -> Result<(), ChromeError> {
        let mut state = self.state.borrow_mut();
        let style = (title.to_owned(), color.to_owned());
        state.group_styles.insert(group, style);
        Ok(())
    }

    async fn ungroup_tab(&self, tab: TabId) -> Result<(), ChromeError> {
        self.state.borrow_mut().tab_groups.remove(&tab);
        Ok(())
    }

    async fn tab_groups(&self) -> Result<Vec<GroupState>, ChromeError> {
        let state = self.state.borrow();
        let open: BTreeSet<i64> = state.tab_groups.values().copied().collect();
        let groups = open.into_iter().map(|id| GroupState {
            id,
            title: state
                .group_styles
                .get(&id)
                .map(|(title, _)| title.clone())
                .unwrap_or_default(),
        });
        Ok(groups.collect())
    }

    async fn dissolve_group(&self, group: i64) -> Result<(), ChromeError> {
        self.state
            .borrow_mut()
            .tab_groups
            .retain(|_, g| *g != group);
        Ok(())
    }

    async fn show_request(&self, request: Option<(&str, &Badge)>) -> Result<(), ChromeError> {
        self.state.borrow_mut().request_shown = request.map(|(line, _)| line.to_owned());
        Ok(())
    }

    async fn set_badge(&self, tab: TabId, badge: &Badge) -> Result<(), ChromeError> {
        self.state.borrow_mut().badges.insert(tab, badge.clone());
        Ok(())
    }

    fn now_ms(&self) -> u64 {
        self.state.borrow().now
    }

    fn reopen_port(&self) {
        self.state.borrow_mut().reopened += 1;
    }

    fn state_changed(&self) {
        self.state.borrow_mut().changes += 1;
    }

    async fn sleep(&self, ms: u64) {
        let (sender, receiver) = oneshot::channel();
        {
            let mut state = self.state.borrow_mut();
            let deadline = state.now + ms;
            state.timers.push((deadline, sender));
        }
        let _ = receiver.await;
    }

    fn spawn(&self, task: LocalBoxFuture<'static, ()>) {
        if self.spawner.spawn_local(task).is_err() {
            panic!("the test executor is gone");
        }
    }

    fn post(&self, message: &Envelope<FromExtension>) {
        self.state.borrow_mut().posted.push(message.clone());
    }

    fn log(&self, line: &str) {
        self.state.borrow_mut().logs.push(line.to_owned());
    }
}

/// An engine over a [`Fake`], with a deterministic executor and clock.
pub struct Harness {
    pool: LocalPool,
    /// The fake browser.
    pub fake: Fake,
    /// The engine under test.
    pub engine: Rc<Engine<Fake>>,
}

impl Harness {
    /// One window (1) with tabs 10 (active, https://a.test/) and 11 (https://b.test/).
    pub fn new() -> Self {
        let mut harness = Self::browser(true);
        harness.hello(1, "s1", "agent");
        harness.settle();
        harness
    }

    /// Like [`new`](Self::new), in the user's own browser (strict sharing), and no
    /// agent connected yet.
    pub fn strict() -> Self {
        Self::browser(false)
    }

    /// The two-tab browser both constructors start from, told by its host whether it
    /// belongs to an agent.
    fn browser(agent_profile: bool) -> Self {
        let pool = LocalPool::new();
        let fake = Fake {
            state: Rc::default(),
            spawner: pool.spawner(),
        };
        fake.add_window(
            1,
            &[
                (10, "https://a.test/", true),
                (11, "https://b.test/", false),
            ],
        );
        fake.set_last_focused(Some(1));
        let engine = Engine::new(fake.clone());
        let mut harness = Self { pool, fake, engine };
        harness.host_ready(agent_profile);
        harness
    }

    /// The host says whose browser this is.
    pub fn host_ready(&mut self, agent_profile: bool) {
        let ready = json!({"body": {"hostReady": {"version": "0", "agentProfile": agent_profile}}});
        self.engine.on_port_message(&ready.to_string());
    }

    /// Relay connection `client` says hello for agent `session` named `name`.
    pub fn hello(&mut self, client: u64, session: &str, name: &str) {
        let hello = json!({"client": client, "body": {"hello": {"clientName": name, "version": "0", "session": session}}});
        self.engine.on_port_message(&hello.to_string());
        self.settle();
    }

    /// Relay connection `client` went away.
    pub fn gone(&mut self, client: u64) {
        let gone = json!({"client": client, "body": "clientGone"});
        self.engine.on_port_message(&gone.to_string());
        self.settle();
    }

    /// Sends a call from the host, as JSON over the port, from relay connection 1.
    pub fn call(&mut self, id: u64, command: impl Into<Command>) {
        self.call_as(1, id, command);
    }

    /// Sends a call from relay connection `client`.
    pub fn call_as(&mut self, client: u64, id: u64, command: impl Into<Command>) {
        let mut envelope = Envelope::request(id, ToExtension::Call(command.into()));
        envelope.client = Some(client);
        let json = serde_json::to_string(&envelope).expect("serialisable");
        self.engine.on_port_message(&json);
    }

    /// A new service worker: a fresh engine over the same browser and storage,
    /// restored from what the old one saved.
    pub fn restart_worker(&mut self) {
        self.engine = Engine::new(self.fake.clone());
        let engine = self.engine.clone();
        self.run(async move { engine.restore().await });
    }

    /// The share of agent `session` in tab `tab`, as the popup would make it.
    pub fn share(&mut self, session: &str, tab: TabId) {
        let action = json!({"action": "share", "session": session, "tab": tab});
        assert_eq!(self.popup(action), Ok(()));
    }

    /// Every event posted to relay connection `client` (or to everyone), but
    /// [`Event::TabsChanged`] (see [`tabs_changed_events`](Self::tabs_changed_events)).
    pub fn events_for(&self, client: u64) -> Vec<Event> {
        self.fake
            .posted()
            .into_iter()
            .filter(|e| e.id.is_none() && e.client.is_none_or(|c| c == client))
            .filter_map(|e| match e.body {
                FromExtension::Event(Event::TabsChanged) => None,
                FromExtension::Event(event) => Some(event),
                _ => None,
            })
            .collect()
    }

    /// How many [`Event::TabsChanged`] were posted.
    pub fn tabs_changed_events(&self) -> usize {
        let posted = self.fake.posted().into_iter();
        posted
            .filter(|e| matches!(e.body, FromExtension::Event(Event::TabsChanged)))
            .count()
    }

    /// Runs a popup action and settles.
    pub fn popup(&mut self, action: Value) -> Result<(), String> {
        let outcome = Rc::new(RefCell::new(None));
        let (engine, out) = (self.engine.clone(), outcome.clone());
        let task = async move {
            *out.borrow_mut() = Some(engine.popup_action(&action.to_string()).await);
        };
        self.fake.spawn(Box::pin(task));
        self.settle();
        let result = outcome.borrow_mut().take();
        result.unwrap_or_else(|| Err("the action did not finish".into()))
    }

    /// Runs an engine future to completion (settling around it).
    pub fn run<T: 'static>(&mut self, work: impl std::future::Future<Output = T> + 'static) -> T {
        let outcome = Rc::new(RefCell::new(None));
        let out = outcome.clone();
        self.fake.spawn(Box::pin(async move {
            *out.borrow_mut() = Some(work.await);
        }));
        self.settle();
        let result = outcome.borrow_mut().take();
        result.expect("the work finished")
    }

    /// Runs every task until nothing more can happen without the clock moving:
    /// delivers queued CDP events and tab removals, and fires due timers.
    pub fn settle(&mut self) {
        loop {
            self.pool.run_until_stalled();
            let (events, removed, due) = {
                let mut state = self.fake.state.borrow_mut();
                let now = state.now;
                let (due, later) = std::mem::take(&mut state.timers)
                    .into_iter()
                    .partition::<Vec<_>, _>(|(deadline, _)| *deadline <= now);
                state.timers = later;
                (
                    std::mem::take(&mut state.events),
                    std::mem::take(&mut state.removed),
                    due,
                )
            };
            if events.is_empty() && removed.is_empty() && due.is_empty() {
                return;
            }
            for (tab, session, method, params) in events {
                (self.engine).on_session_event(tab, session.as_deref(), &method, &params);
            }
            for tab in removed {
                self.engine.on_tab_removed(tab);
            }
            for (_, timer) in due {
                let _ = timer.send(());
            }
        }
    }

    /// Moves the clock forward, then settles.
    pub fn advance(&mut self, ms: u64) {
        self.fake.state.borrow_mut().now += ms;
        self.settle();
    }

    /// The reply to request `id`, if one was posted.
    pub fn reply(&self, id: u64) -> Option<Result<Reply, WireError>> {
        self.fake.posted().into_iter().find_map(|e| match e.body {
            FromExtension::Reply(outcome) if e.id == Some(id) => Some(outcome),
            _ => None,
        })
    }

    /// The reply to request `id`, read as the reply type of `R`, the request it
    /// answers (`None` while there is none; a reply of another shape fails the test).
    pub fn reply_to<R: Request>(&self, id: u64) -> Option<Result<R::Reply, WireError>> {
        let outcome = self.reply(id)?;
        Some(outcome.map(|reply| {
            reply
                .read()
                .unwrap_or_else(|e| panic!("reply {id} is no {}: {e}", type_name::<R>()))
        }))
    }

    /// The error request `id` failed with, after checking its code and that its
    /// message says `words`.
    pub fn failed(&self, id: u64, code: ErrorCode, words: &str) -> WireError {
        let error = match self.reply(id) {
            Some(Err(error)) => error,
            other => panic!("request {id} did not fail: {other:?}"),
        };
        assert_eq!(error.code, code, "{}", error.message);
        assert!(error.message.contains(words), "{}", error.message);
        error
    }

    /// Every event posted, in order, but [`Event::TabsChanged`] (see
    /// [`tabs_changed_events`](Self::tabs_changed_events)).
    pub fn events(&self) -> Vec<Event> {
        self.fake
            .posted()
            .into_iter()
            .filter_map(|e| match e.body {
                FromExtension::Event(Event::TabsChanged) => None,
                FromExtension::Event(event) => Some(event),
                FromExtension::Reply(_)
                | FromExtension::Ping { .. }
                | FromExtension::Pong { .. } => None,
            })
            .collect()
    }
}

/// The commands many tests send, built once.
pub mod commands {
    use tabwire_shared::requests::{Evaluate, ListConsole};
    use tabwire_shared::{Command, TabId};

    /// Evaluates `() => 1` in `tab`.
    pub fn evaluate_one(tab: TabId, timeout_ms: u64) -> Command {
        Command::Evaluate(Evaluate {
            tab_id: tab,
            function: "() => 1".into(),
            args: vec![],
            timeout_ms,
        })
    }

    /// Lists the first page of `tab`'s console, preserved messages left out.
    pub fn list_console(tab: TabId) -> Command {
        Command::ListConsole(ListConsole {
            tab_id: tab,
            include_preserved: false,
            types: vec![],
            page_size: 50,
            page_idx: None,
        })
    }
}

/// A page with tools, for the snapshot and third-party tool tests.
pub mod page {
    use serde_json::{json, Value};

    use super::world::FakeNode;
    use super::{Answer, Harness};
    use crate::engine::page::{DISCOVER, EXECUTE, KIT, SPLICE, TAKE_NODES};

    /// The main frame's page (tab 10, `https://a.test/`): a root (1) titled "App"
    /// with these buttons.
    pub fn set_buttons(h: &Harness, buttons: &[(i64, &str)]) {
        let mut nodes = vec![FakeNode::shown(1, 0, "RootWebArea", "App")];
        nodes.extend(
            buttons
                .iter()
                .map(|(id, name)| FakeNode::shown(*id, 1, "button", name)),
        );
        h.fake.set_page(10, "main", "https://a.test/", nodes);
    }

    /// The main frame now shows the document of loader `loader` (and says so).
    pub fn navigate_to(h: &mut Harness, tab: i64, loader: &str) {
        h.fake.new_document(tab, "main");
        h.fake.answer(
            "Page.getFrameTree",
            Answer::value(json!({"frameTree": {"frame": {"id": "main", "loaderId": loader, "url": "https://a.test/"}}})),
        );
        h.engine.on_cdp_event(
            tab,
            "Page.frameNavigated",
            &json!({"frame": {"id": "main", "loaderId": loader}, "type": "Navigation"}),
        );
        h.settle();
    }

    /// The page listens for discovery, reports `report`, and its tools answer with
    /// `outcome` (status, text, then the nodes of the result).
    pub fn with_tools(h: &Harness, report: Value, outcome: Vec<Value>) {
        h.fake.answer(
            "DOMDebugger.getEventListeners",
            Answer::value(
                json!({"listeners": [{"type": "click"}, {"type": "devtoolstooldiscovery"}]}),
            ),
        );
        answer_kit(h);
        let report = report.to_string();
        h.fake.answer_with("Runtime.callFunctionOn", move |params| {
            let function = params["functionDeclaration"].as_str().unwrap_or_default();
            if function == DISCOVER {
                Answer::value(json!({"result": {"type": "string", "value": report}}))
            } else if function == EXECUTE {
                OUTCOME
                    .with_borrow(|outcome| Answer::value(json!({"result": outcome_value(outcome)})))
            } else if function == TAKE_NODES {
                Answer::value(
                    json!({"result": {"type": "object", "subtype": "array", "objectId": "nodes"}}),
                )
            } else if function == SPLICE {
                Answer::value(json!({"result": {"type": "object", "objectId": "spliced"}}))
            } else {
                Answer::value(json!({"result": {"type": "number", "value": 42}}))
            }
        });
        set_outcome(h, outcome);
    }

    /// `Runtime.evaluate` answers the kit for [`KIT`] and the global object otherwise.
    pub fn answer_kit(h: &Harness) {
        h.fake.answer_with("Runtime.evaluate", |params| {
            let object = if params["expression"] == KIT {
                "kit"
            } else {
                "global"
            };
            Answer::value(json!({"result": {"type": "object", "objectId": object}}))
        });
    }

    thread_local! {
        /// What the next tool run answers (status, text, nodes).
        static OUTCOME: std::cell::RefCell<Vec<Value>> = const { std::cell::RefCell::new(Vec::new()) };
    }

    /// The by-value answer of [`EXECUTE`] for an outcome.
    fn outcome_value(outcome: &[Value]) -> Value {
        let field = |i: usize| outcome.get(i).map_or(Value::Null, |v| v["value"].clone());
        let nodes = outcome.len().saturating_sub(2);
        json!({"type": "object", "value": {"status": field(0), "text": field(1), "nodes": nodes}})
    }

    /// What the next tool run answers.
    pub fn set_outcome(h: &Harness, outcome: Vec<Value>) {
        let properties: Vec<Value> = outcome
            .iter()
            .skip(2)
            .enumerate()
            .map(|(i, value)| json!({"name": i.to_string(), "value": value}))
            .chain([json!({"name": "length", "value": {"type": "number", "value": outcome.len().saturating_sub(2)}})])
            .collect();
        h.fake.answer(
            "Runtime.getProperties",
            Answer::value(json!({ "result": properties })),
        );
        OUTCOME.set(outcome);
    }

    /// A string property of the runner's outcome.
    pub fn text(value: &str) -> Value {
        json!({"type": "string", "value": value})
    }

    /// A node property of the runner's outcome (backend node `node`).
    pub fn element(node: i64) -> Value {
        json!({"type": "object", "subtype": "node", "objectId": format!("node-{node}")})
    }

    /// A one-group report with these tools.
    pub fn report(tools: &[&str]) -> Value {
        let tools: Vec<Value> = tools
            .iter()
            .map(|t| json!({"name": t, "description": format!("{t} tool"), "inputSchema": {"type": "object"}}))
            .collect();
        json!({"groups": [{"name": "G", "description": "g", "tools": tools}], "problems": []})
    }
}
