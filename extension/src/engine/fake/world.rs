//! The fake browser's isolated worlds (tests only): a tiny page per frame, and a
//! walker that numbers its nodes, pins them and answers `take` the way the real one
//! (`page/snapshot.js`) does, so engine tests drive the real engine code against it.
//!
//! A page is a list of [`FakeNode`]s in document order with their DOM depths; a node
//! is a backend id, and its JavaScript object is `node-<backend>` (as the fake's
//! `DOM.resolveNode` and `DOM.describeNode` have it). The calls the engine made are
//! kept as [`Seen`] values for tests to assert on.

use std::collections::{HashMap, HashSet};

use serde_json::{json, Value};
use tabwire_shared::TabId;

use super::Answer;
use crate::engine::world::{install_script, ADD_ROOT, ADOPT, PIN, RESOLVE, TAKE, UID_OF, UNPIN};

/// One node of a fake page.
#[derive(Debug, Clone, PartialEq)]
pub struct FakeNode {
    /// Its backend id.
    pub backend: i64,
    /// Its depth in the DOM.
    pub depth: u32,
    /// The role it is shown with.
    pub role: String,
    /// Its name.
    pub name: String,
    /// Its value (empty: none).
    pub value: String,
    /// Its states, as the walker writes them.
    pub states: Vec<String>,
    /// Whether a walk shows it (else only when pinned, as its tag).
    pub shown: bool,
    /// Its tag name.
    pub tag: String,
    /// A custom element the walker lists for Chrome to describe (`ask=`).
    pub internals: bool,
    /// The backend id of the closed shadow root it hosts, if any.
    pub closed_root: Option<i64>,
    /// The closed shadow root it is inside: shown once that root was handed over.
    pub in_root: Option<i64>,
}

impl FakeNode {
    /// A node the walk shows.
    pub fn shown(backend: i64, depth: u32, role: &str, name: &str) -> Self {
        FakeNode {
            backend,
            depth,
            role: role.to_owned(),
            name: name.to_owned(),
            value: String::new(),
            states: Vec::new(),
            shown: true,
            tag: "div".to_owned(),
            internals: false,
            closed_root: None,
            in_root: None,
        }
    }

    /// An element the walk leaves out (unless pinned).
    pub fn hidden(backend: i64, depth: u32, tag: &str) -> Self {
        FakeNode {
            shown: false,
            tag: tag.to_owned(),
            ..FakeNode::shown(backend, depth, "generic", "")
        }
    }

    /// The node with a state.
    pub fn with_state(mut self, state: &str) -> Self {
        self.states.push(state.to_owned());
        self
    }

    /// The node as a custom element whose role Chrome may know better.
    pub fn with_internals(mut self) -> Self {
        self.internals = true;
        self
    }

    /// The node as the host of closed shadow root `root`.
    pub fn hosting_closed(mut self, root: i64) -> Self {
        self.closed_root = Some(root);
        self
    }

    /// The node inside closed shadow root `root`.
    pub fn inside_closed(mut self, root: i64) -> Self {
        self.in_root = Some(root);
        self
    }
}

/// A call the engine made into a fake world.
#[derive(Debug, Clone, PartialEq)]
pub enum Seen {
    /// `Page.createIsolatedWorld`.
    Create {
        /// The frame.
        frame: String,
        /// The world's name.
        name: String,
    },
    /// The walker installed.
    Install {
        /// The context.
        context: i64,
    },
    /// `take`.
    Take(Take),
    /// `resolve(uid)`.
    Resolve {
        /// The context.
        context: i64,
        /// The uid.
        uid: String,
    },
    /// `uidOf(node, number)`, pinned if `pin`.
    UidOf {
        /// The context.
        context: i64,
        /// The node's object.
        node: String,
        /// The number.
        number: u64,
        /// Whether it was pinned too.
        pin: bool,
    },
    /// `unpin(uid)`.
    Unpin {
        /// The context.
        context: i64,
        /// The uid.
        uid: String,
    },
    /// `adopt(answers)`.
    Adopt {
        /// The context.
        context: i64,
        /// The answers, `[[uid, facts]…]`.
        answers: Value,
    },
    /// `addRoot(uid, root)`.
    AddRoot {
        /// The context.
        context: i64,
        /// The host's uid.
        uid: String,
        /// The root's object, if one was handed over.
        root: Option<String>,
    },
}

/// A `take` the engine asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct Take {
    /// The context it ran in.
    pub context: i64,
    /// The number new uids take.
    pub number: u64,
    /// Every node.
    pub verbose: bool,
    /// Only the viewport.
    pub viewport: bool,
    /// The generation the engine holds.
    pub since: Option<u64>,
}

/// One frame's document and world.
#[derive(Debug, Default)]
struct Frame {
    href: String,
    page: Vec<FakeNode>,
    context: Option<i64>,
    installed: bool,
    gen: u64,
    uids: HashMap<i64, String>,
    by_uid: HashMap<String, i64>,
    next: HashMap<u64, u64>,
    pinned: HashSet<String>,
    /// What every `take` answers instead of a walk, if set.
    raw: Option<String>,
    /// Adopted facts by backend id: role, name, value, states.
    adopted: HashMap<i64, (String, String, String, Vec<String>)>,
    /// Closed roots handed over, and hosts said to have none.
    roots: HashSet<i64>,
    no_root: HashSet<i64>,
}

impl Frame {
    fn uid_for(&mut self, backend: i64, number: u64) -> String {
        if let Some(uid) = self.uids.get(&backend) {
            return uid.clone();
        }
        let next = self.next.entry(number).or_insert(0);
        let uid = loop {
            *next += 1;
            let uid = format!("{number}_{next}");
            if !self.by_uid.contains_key(&uid) {
                break uid;
            }
        };
        self.uids.insert(backend, uid.clone());
        self.by_uid.insert(uid.clone(), backend);
        uid
    }

    fn take(&mut self, number: u64, verbose: bool, since: Option<u64>) -> String {
        if let Some(raw) = &self.raw {
            return raw.clone();
        }
        if since == Some(self.gen) {
            return format!("={}", self.gen);
        }
        let mut out = String::new();
        let (mut ask, mut closed) = (Vec::new(), Vec::new());
        let mut open: Vec<u32> = Vec::new();
        for node in self.page.clone() {
            if node.in_root.is_some_and(|r| !self.roots.contains(&r)) {
                continue;
            }
            while open.last().is_some_and(|d| *d >= node.depth) {
                open.pop();
            }
            if node.internals {
                ask.push(self.uid_for(node.backend, number));
            }
            let closed_now = node.closed_root.is_some_and(|r| !self.roots.contains(&r))
                && !self.no_root.contains(&node.backend);
            if closed_now {
                closed.push(self.uid_for(node.backend, number));
            }
            let pinned = self
                .uids
                .get(&node.backend)
                .is_some_and(|uid| self.pinned.contains(uid));
            if !(node.shown || verbose || pinned) {
                continue;
            }
            let depth = open.len();
            open.push(node.depth);
            let uid = self.uid_for(node.backend, number);
            let (mut role, mut name, mut value) = (node.role, node.name, node.value);
            let (role, states) = if node.shown || verbose {
                let mut states = node.states.clone();
                if let Some((r, n, v, s)) = self.adopted.get(&node.backend) {
                    (role, name, value, states) = (r.clone(), n.clone(), v.clone(), s.clone());
                }
                if closed_now {
                    states.push("shadow-root=closed".to_owned());
                }
                (role, states)
            } else {
                (
                    node.tag.clone(),
                    vec!["not-in-accessibility-tree".to_owned()],
                )
            };
            out.push_str(&format!(
                "\n{uid}\t{depth}\t{}\t{}\t{}",
                escape(&role),
                escape(&name),
                escape(&value)
            ));
            for state in states {
                out.push('\t');
                out.push_str(&escape(&state));
            }
        }
        let mut head = format!("{}\t{}", self.gen, escape(&self.href));
        if !ask.is_empty() {
            head.push_str(&format!("\task={}", ask.join(" ")));
        }
        if !closed.is_empty() {
            head.push_str(&format!("\tclosed={}", closed.join(" ")));
        }
        head + &out
    }

    /// `adopt`: how many answers changed.
    fn adopt(&mut self, answers: &Value) -> u64 {
        let mut changed = 0;
        for pair in answers.as_array().into_iter().flatten() {
            let Some(backend) = pair[0].as_str().and_then(|u| self.by_uid.get(u)).copied() else {
                continue;
            };
            let facts = &pair[1];
            let text = |key: &str| facts[key].as_str().unwrap_or_default().to_owned();
            let states = (facts["states"].as_array().into_iter().flatten())
                .filter_map(|s| s.as_str().map(str::to_owned))
                .collect();
            let new = (text("role"), text("name"), text("value"), states);
            if self.adopted.get(&backend) != Some(&new) {
                self.adopted.insert(backend, new);
                changed += 1;
            }
        }
        if changed > 0 {
            self.gen += 1;
        }
        changed
    }

    /// `addRoot`: whether the host took it.
    fn add_root(&mut self, uid: &str, root: Option<&str>) -> bool {
        let Some(host) = self.by_uid.get(uid).copied() else {
            return false;
        };
        match root.and_then(backend_of) {
            Some(root) => {
                self.roots.insert(root);
                self.gen += 1;
            }
            None => {
                self.no_root.insert(host);
                self.gen += 1;
            }
        }
        true
    }
}

fn escape(field: &str) -> String {
    field
        .replace('\\', "\\\\")
        .replace('\t', "\\t")
        .replace('\n', "\\n")
        .replace('\r', "\\r")
}

/// The backend id of a fake node object (`node-<backend>`).
fn backend_of(object: &str) -> Option<i64> {
    object.strip_prefix("node-")?.parse().ok()
}

/// Every tab's frames and their worlds.
#[derive(Debug, Default)]
pub struct Worlds {
    frames: HashMap<(TabId, String), Frame>,
    /// Live contexts → their frame.
    contexts: HashMap<i64, (TabId, String)>,
    /// Contexts of worlds that died.
    dead: HashSet<i64>,
    next_context: i64,
    seen: Vec<(TabId, Seen)>,
}

impl Worlds {
    /// Sets what a frame shows (a change of the page: the walker's generation moves).
    pub fn set_page(&mut self, tab: TabId, frame: &str, href: &str, page: Vec<FakeNode>) {
        let entry = self.frames.entry((tab, frame.to_owned())).or_default();
        entry.href = href.to_owned();
        entry.page = page;
        entry.gen += 1;
    }

    /// Makes every later `take` in the frame answer `text`, as a broken walker would.
    pub fn answer_takes(&mut self, tab: TabId, frame: &str, text: &str) {
        let entry = self.frames.entry((tab, frame.to_owned())).or_default();
        entry.raw = Some(text.to_owned());
    }

    /// The frame shows a new document: its world, walker and uids are gone.
    pub fn new_document(&mut self, tab: TabId, frame: &str) {
        let Some(entry) = self.frames.get_mut(&(tab, frame.to_owned())) else {
            return;
        };
        if let Some(context) = entry.context.take() {
            self.contexts.remove(&context);
            self.dead.insert(context);
        }
        let page = std::mem::take(&mut entry.page);
        let href = std::mem::take(&mut entry.href);
        *entry = Frame {
            href,
            page,
            gen: entry.gen + 1,
            ..Frame::default()
        };
    }

    /// The calls made on `tab`'s worlds, in order.
    pub fn seen(&self, tab: TabId) -> Vec<Seen> {
        let seen = self.seen.iter().filter(|(t, _)| *t == tab);
        seen.map(|(_, s)| s.clone()).collect()
    }

    /// The context of a frame's world, if it has one.
    pub fn context(&self, tab: TabId, frame: &str) -> Option<i64> {
        self.frames.get(&(tab, frame.to_owned()))?.context
    }

    /// Answers a CDP call that is about a world: `Page.createIsolatedWorld`, and
    /// `Runtime.*`/`DOM.resolveNode` calls in a world's context. `None`: not one.
    pub fn handle(&mut self, tab: TabId, method: &str, params: &Value) -> Option<Answer> {
        if method == "Page.createIsolatedWorld" {
            return Some(self.create(tab, params));
        }
        let key = match method {
            "Runtime.evaluate" => "contextId",
            "Runtime.callFunctionOn" | "DOM.resolveNode" => "executionContextId",
            _ => return None,
        };
        let context = params[key].as_i64()?;
        if self.dead.contains(&context) {
            return Some(Answer::error("Cannot find context with specified id"));
        }
        let frame = self.contexts.get(&context)?.clone();
        match method {
            // Any node resolves in a live world (as the default answer has it).
            "DOM.resolveNode" => None,
            "Runtime.evaluate" => Some(self.evaluate(tab, context, &frame, params)),
            _ => Some(self.call(tab, context, &frame, params)),
        }
    }

    fn create(&mut self, tab: TabId, params: &Value) -> Answer {
        let frame = params["frameId"].as_str().unwrap_or_default().to_owned();
        let name = params["worldName"].as_str().unwrap_or_default().to_owned();
        self.seen.push((
            tab,
            Seen::Create {
                frame: frame.clone(),
                name,
            },
        ));
        let entry = self.frames.entry((tab, frame.clone())).or_default();
        let context = match entry.context {
            Some(context) => context,
            None => {
                self.next_context += 1;
                let context = 100 + self.next_context;
                entry.context = Some(context);
                self.contexts.insert(context, (tab, frame));
                context
            }
        };
        Answer::value(json!({ "executionContextId": context }))
    }

    fn evaluate(
        &mut self,
        tab: TabId,
        context: i64,
        frame: &(TabId, String),
        params: &Value,
    ) -> Answer {
        if params["expression"].as_str() == Some(install_script().as_str()) {
            self.seen.push((tab, Seen::Install { context }));
            if let Some(entry) = self.frames.get_mut(frame) {
                entry.installed = true;
            }
        }
        Answer::value(json!({"result": {"type": "undefined"}}))
    }

    fn call(
        &mut self,
        tab: TabId,
        context: i64,
        frame: &(TabId, String),
        params: &Value,
    ) -> Answer {
        let function = params["functionDeclaration"].as_str().unwrap_or_default();
        let args: Vec<Value> = params["arguments"]
            .as_array()
            .map(|args| {
                args.iter()
                    .map(|a| {
                        a.get("value")
                            .or(a.get("objectId"))
                            .cloned()
                            .unwrap_or_default()
                    })
                    .collect()
            })
            .unwrap_or_default();
        let arg = |i: usize| args.get(i).cloned().unwrap_or_default();
        let text = |i: usize| arg(i).as_str().unwrap_or_default().to_owned();
        let number = |i: usize| arg(i).as_u64().unwrap_or_default();
        let seen = match function {
            f if f == TAKE => Seen::Take(Take {
                context,
                number: number(0),
                verbose: arg(1)["verbose"] == true,
                viewport: arg(1)["viewport"] == true,
                since: arg(1)["since"].as_u64(),
            }),
            f if f == RESOLVE => Seen::Resolve {
                context,
                uid: text(0),
            },
            f if f == UID_OF || f == PIN => Seen::UidOf {
                context,
                node: text(0),
                number: number(1),
                pin: f == PIN,
            },
            f if f == UNPIN => Seen::Unpin {
                context,
                uid: text(0),
            },
            f if f == ADOPT => Seen::Adopt {
                context,
                answers: arg(0),
            },
            f if f == ADD_ROOT => Seen::AddRoot {
                context,
                uid: text(0),
                root: arg(1).as_str().map(str::to_owned),
            },
            _ => return Answer::value(json!({"result": {"type": "undefined"}})),
        };
        self.seen.push((tab, seen.clone()));
        let Some(entry) = self.frames.get_mut(frame) else {
            return Answer::error("Cannot find context with specified id");
        };
        if !entry.installed {
            return Answer::value(json!({
                "result": {"type": "string", "value": "tabwire-no-walker"},
                "exceptionDetails": {"text": "Uncaught",
                    "exception": {"type": "string", "value": "tabwire-no-walker"}}}));
        }
        let string = |s: String| Answer::value(json!({"result": {"type": "string", "value": s}}));
        match seen {
            Seen::Take(take) => string(entry.take(take.number, take.verbose, take.since)),
            Seen::Resolve { uid, .. } => match entry.by_uid.get(&uid).copied() {
                Some(backend) if entry.page.iter().any(|n| n.backend == backend) => {
                    Answer::value(json!({"result": {"type": "object", "subtype": "node",
                        "objectId": format!("node-{backend}")}}))
                }
                _ => Answer::value(
                    json!({"result": {"type": "object", "subtype": "null", "value": null}}),
                ),
            },
            Seen::UidOf {
                node, number, pin, ..
            } => {
                let Some(backend) = backend_of(&node) else {
                    return Answer::value(
                        json!({"result": {"type": "object", "subtype": "null", "value": null}}),
                    );
                };
                let uid = entry.uid_for(backend, number);
                if pin && entry.pinned.insert(uid.clone()) {
                    entry.gen += 1;
                }
                string(uid)
            }
            Seen::Unpin { uid, .. } => {
                let unpinned = entry.pinned.remove(&uid);
                if unpinned {
                    entry.gen += 1;
                }
                Answer::value(json!({"result": {"type": "boolean", "value": unpinned}}))
            }
            Seen::Adopt { answers, .. } => {
                let changed = entry.adopt(&answers);
                Answer::value(json!({"result": {"type": "number", "value": changed}}))
            }
            Seen::AddRoot { uid, root, .. } => {
                let added = entry.add_root(&uid, root.as_deref());
                Answer::value(json!({"result": {"type": "boolean", "value": added}}))
            }
            Seen::Create { .. } | Seen::Install { .. } => Answer::value(json!({})),
        }
    }
}
