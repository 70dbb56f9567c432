//! tabwire's isolated world in each frame, and the snapshot walker that lives there.
//!
//! Every frame gets a world named [`WORLD_NAME`] (`Page.createIsolatedWorld`, which
//! gives the same world again while the frame's document lives): it sees the page's
//! DOM but none of the page's JavaScript, so what the page does to its builtins never
//! reaches tabwire's code there. The walker (`page/snapshot.js`) is installed in it
//! once and keeps its state (uids among it) for the life of the document, across
//! debugger sessions: a detach does not take the world along.
//!
//! What the engine knows of a world — its context id, and whether the walker is in it
//! — belongs to one debugging session ([`Worlds`] lives in the tab's attachment). It
//! learns a world's context when it makes the world or when Chrome announces one of
//! that name (`Runtime.executionContextCreated`), and forgets it when Chrome destroys
//! or clears the context. A call that finds the context gone (the frame navigated
//! meanwhile) makes the world again, once; a uid from the old document names nothing
//! in the new world, so it is stale, as it should be.
//!
//! [`Walkers`] reaches the worlds: made by the engine for the call at hand over the
//! browser and the tabs' state it borrows, it makes a world and installs the walker
//! when needed, and calls the walker.
//!
//! The walker's methods are called with the world's global object as `this`
//! ([`RuntimeCallFunctionIn`]); their answers come back by value, or as objects in the
//! object group the caller names.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;
use tabwire_shared::{TabId, WalkOptions};

use super::page;
use super::session::send_in;
use super::tab::Tabs;
use super::uids::FrameKey;
use crate::cdp::dom::DomResolveNode;
use crate::cdp::refusal::Refusal;
use crate::cdp::world::{PageCreateIsolatedWorld, RuntimeCallFunctionIn, RuntimeEvaluateIn};
use crate::cdp::{CallArgument, Evaluated, PageEvent, RemoteObject};
use crate::chrome::Chrome;
use crate::error::EngineError;

/// The name of tabwire's isolated world in every frame.
pub const WORLD_NAME: &str = "tabwire";

/// What a walker call throws when the world has no walker (see [`call_declaration`]).
const NO_WALKER: &str = "tabwire-no-walker";

/// A page with more frames than this is not tracked in full.
const MAX_WORLDS: usize = 1_000;

/// One frame's world, as far as this debugging session knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct World {
    /// Its JavaScript context.
    pub context: i64,
    /// The walker was installed in it during this session (it may be there anyway).
    pub installed: bool,
}

/// The worlds of a tab's frames, by frame.
#[derive(Debug, Default)]
pub struct Worlds(HashMap<FrameKey, World>);

impl Worlds {
    /// The frame's world, if known.
    pub fn get(&self, frame: &FrameKey) -> Option<World> {
        self.0.get(frame).copied()
    }

    /// Notes a frame's world context (a new context has no walker yet, as far as this
    /// session knows).
    pub fn learn(&mut self, frame: FrameKey, context: i64) {
        if self.0.len() >= MAX_WORLDS && !self.0.contains_key(&frame) {
            return;
        }
        let installed = self
            .0
            .get(&frame)
            .is_some_and(|w| w.context == context && w.installed);
        self.0.insert(frame, World { context, installed });
    }

    /// Notes that the walker is installed in `context`.
    fn installed(&mut self, frame: &FrameKey, context: i64) {
        if let Some(world) = self.0.get_mut(frame).filter(|w| w.context == context) {
            world.installed = true;
        }
    }

    /// Forgets a frame's world if its context is still `context`.
    fn forget(&mut self, frame: &FrameKey, context: i64) {
        if self.0.get(frame).is_some_and(|w| w.context == context) {
            self.0.remove(frame);
        }
    }

    /// Keeps the worlds in step with Chrome's context events (of the tab's session).
    pub fn track(&mut self, event: &PageEvent) {
        self.track_in(None, event);
    }

    /// Keeps the worlds of one session (`None`: the tab's own; else a cross-site
    /// frame's child session) in step with that session's context events: context
    /// ids are per session.
    pub fn track_in(&mut self, session: Option<&str>, event: &PageEvent) {
        let ours = |frame: &FrameKey| frame.session.as_deref() == session;
        match event {
            PageEvent::ContextCreated {
                id,
                frame_id,
                is_default: false,
                name,
            } if name == WORLD_NAME => {
                let frame = FrameKey {
                    session: session.map(str::to_owned),
                    frame: frame_id.clone(),
                };
                self.learn(frame, *id);
            }
            PageEvent::ContextDestroyed { id } => {
                self.0.retain(|frame, w| !ours(frame) || w.context != *id)
            }
            PageEvent::ContextsCleared => self.0.retain(|frame, _| !ours(frame)),
            _ => {}
        }
    }

    /// Forgets the worlds of child sessions that ended.
    pub fn forget_sessions(&mut self, gone: &[String]) {
        self.0
            .retain(|frame, _| frame.session.as_ref().is_none_or(|s| !gone.contains(s)));
    }
}

/// `take`'s `opts`: the walk options as the wire carries them (the one
/// [`WalkOptions`] from the tool to the walker), and the generation the engine holds a
/// walk of.
#[derive(Serialize)]
struct TakeOpts<'a> {
    #[serde(flatten)]
    walk: &'a WalkOptions,
    #[serde(skip_serializing_if = "Option::is_none")]
    since: Option<u64>,
}

/// One call of a walker method.
#[derive(Debug)]
pub enum WalkerCall {
    /// `take(number, opts)`: the frame's snapshot text (or `=<gen>` when unchanged
    /// since `since`).
    Take {
        /// The number new uids take.
        number: u64,
        /// What to walk.
        options: WalkOptions,
        /// The generation the engine holds a walk of.
        since: Option<u64>,
    },
    /// `resolve(uid)`: the node, or null.
    Resolve(String),
    /// `uidOf(node, number)`: the uid of a node of this world (an object id).
    UidOf {
        /// The node, as an object of the world.
        node: String,
        /// The number a new uid takes.
        number: u64,
    },
    /// `uidOf` then `pin`: the uid of a node returned by a tool, shown from now on.
    Pin {
        /// The node, as an object of the world.
        node: String,
        /// The number a new uid takes.
        number: u64,
    },
    /// `unpin(uid)`.
    Unpin(String),
    /// `adopt(answers)`: Chrome's facts for candidate hosts, `[[uid, facts or null]…]`;
    /// answers how many changed.
    Adopt(Value),
    /// `addRoot(uid, root)`: a closed shadow root (an object of the world) handed to its
    /// host, or `None`: the host has none.
    AddRoot {
        /// The host's uid.
        uid: String,
        /// The root.
        root: Option<String>,
    },
}

impl WalkerCall {
    /// The function declaration and arguments of the call.
    fn parts(&self) -> (&'static str, Vec<CallArgument>) {
        match self {
            WalkerCall::Take {
                number,
                options,
                since,
            } => {
                let opts = TakeOpts {
                    walk: options,
                    since: *since,
                };
                // Booleans and a number always serialise; a null `opts` would be the
                // walker's defaults.
                let opts = serde_json::to_value(opts).unwrap_or(Value::Null);
                (
                    TAKE,
                    vec![
                        CallArgument::value(Value::from(*number)),
                        CallArgument::value(opts),
                    ],
                )
            }
            WalkerCall::Resolve(uid) => (
                RESOLVE,
                vec![CallArgument::value(Value::from(uid.as_str()))],
            ),
            WalkerCall::UidOf { node, number } => (
                UID_OF,
                vec![
                    CallArgument::object(node.clone()),
                    CallArgument::value(Value::from(*number)),
                ],
            ),
            WalkerCall::Pin { node, number } => (
                PIN,
                vec![
                    CallArgument::object(node.clone()),
                    CallArgument::value(Value::from(*number)),
                ],
            ),
            WalkerCall::Unpin(uid) => (UNPIN, vec![CallArgument::value(Value::from(uid.as_str()))]),
            WalkerCall::Adopt(answers) => (ADOPT, vec![CallArgument::value(answers.clone())]),
            WalkerCall::AddRoot { uid, root } => (
                ADD_ROOT,
                vec![
                    CallArgument::value(Value::from(uid.as_str())),
                    match root {
                        Some(root) => CallArgument::object(root.clone()),
                        None => CallArgument::value(Value::Null),
                    },
                ],
            ),
        }
    }

    /// Whether the answer is wanted as a value (else as an object).
    fn by_value(&self) -> bool {
        !matches!(self, WalkerCall::Resolve(_))
    }
}

/// Wraps a walker method call so that a world without a walker says so.
macro_rules! call_declaration {
    ($params:literal, $body:literal) => {
        concat!(
            "function (",
            $params,
            ") { const w = globalThis.__tabwireSnapshot; if (!w) throw 'tabwire-no-walker'; ",
            $body,
            " }"
        )
    };
}

/// `take(number, opts)`, by value.
pub const TAKE: &str = call_declaration!("number, opts", "return w.take(number, opts);");
/// `resolve(uid)`, as an object.
pub const RESOLVE: &str = call_declaration!("uid", "return w.resolve(uid);");
/// `uidOf(node, number)`, by value.
pub const UID_OF: &str = call_declaration!("node, number", "return w.uidOf(node, number);");
/// `uidOf(node, number)` and `pin` of that uid, by value.
pub const PIN: &str = call_declaration!(
    "node, number",
    "const uid = w.uidOf(node, number); if (typeof uid === 'string') w.pin(uid); return uid;"
);
/// `unpin(uid)`, by value.
pub const UNPIN: &str = call_declaration!("uid", "return w.unpin(uid);");
/// `adopt(answers)`, by value.
pub const ADOPT: &str = call_declaration!("answers", "return w.adopt(answers);");
/// `addRoot(uid, root)`, by value.
pub const ADD_ROOT: &str = call_declaration!("uid, root", "return w.addRoot(uid, root);");

/// The script that installs the walker in a world (and answers nothing).
pub fn install_script() -> String {
    format!("{}\n;undefined", page::SNAPSHOT_WALKER)
}

/// What a call into a world may meet.
enum Outcome {
    /// The answer.
    Done(RemoteObject),
    /// The world's context is gone.
    Gone,
    /// The world has no walker.
    NoWalker,
}

/// tabwire's worlds in a tab's frames, as calls reach them: the browser to send to,
/// and the tabs, whose attachments know each frame's world. Made by the engine for
/// the call at hand (`Engine::walkers`); it holds nothing of its own.
pub(super) struct Walkers<'a, C> {
    /// The browser.
    pub(super) chrome: &'a C,
    /// The tabs, with what each session knows of its worlds.
    pub(super) tabs: &'a Tabs,
}

impl<C: Chrome> Walkers<'_, C> {
    /// Calls a walker method in `frame`'s world: makes the world and installs the walker
    /// first when this session has not, and makes the world again once if its context
    /// is gone. `call` makes the call for the world's context. The answer's object, if
    /// any, is kept in `group`; with it comes the context that answered.
    pub(super) async fn call(
        &self,
        tab: TabId,
        frame: &FrameKey,
        call: impl Fn(i64) -> WalkerCall,
        group: &str,
    ) -> Result<(i64, RemoteObject), EngineError> {
        let call = &call;
        self.in_world(tab, frame, |context| async move {
            self.walker_in(tab, frame, context, &call(context), group)
                .await
        })
        .await
    }

    /// The uid of a DOM node (by backend id) in `frame`'s world: `pin`ned if asked.
    pub(super) async fn uid_of(
        &self,
        tab: TabId,
        frame: &FrameKey,
        backend: i64,
        number: u64,
        pin: bool,
        group: &str,
    ) -> Result<Option<String>, EngineError> {
        let answer = self
            .in_world(tab, frame, |context| async move {
                let resolve = DomResolveNode {
                    backend_node_id: backend,
                    object_group: group.to_owned(),
                    execution_context_id: Some(context),
                };
                let session = frame.session.as_deref();
                let node = match send_in(self.chrome, tab, session, &resolve).await {
                    Ok(resolved) => resolved.object.object_id,
                    Err(error) if refusal(&error) == Some(Refusal::ContextGone) => {
                        return Ok(Outcome::Gone)
                    }
                    Err(error) => return Err(error),
                };
                let Some(node) = node else {
                    return Ok(Outcome::Done(RemoteObject::default()));
                };
                let call = if pin {
                    WalkerCall::Pin { node, number }
                } else {
                    WalkerCall::UidOf { node, number }
                };
                self.walker_in(tab, frame, context, &call, group).await
            })
            .await?
            .1;
        Ok(answer.value.and_then(|v| v.as_str().map(str::to_owned)))
    }

    /// One walker call in a known context (no new world made): `None` when the context
    /// is gone or has no walker, which a later snapshot sets right.
    pub(super) async fn call_in(
        &self,
        tab: TabId,
        frame: &FrameKey,
        context: i64,
        call: &WalkerCall,
        group: &str,
    ) -> Result<Option<RemoteObject>, EngineError> {
        Ok(
            match self.walker_in(tab, frame, context, call, group).await? {
                Outcome::Done(answer) => Some(answer),
                Outcome::Gone | Outcome::NoWalker => None,
            },
        )
    }

    /// Runs `op` in `frame`'s world, ready (made, walker installed), again once in a
    /// new world if it finds the world gone or without a walker.
    async fn in_world<F, Fut>(
        &self,
        tab: TabId,
        frame: &FrameKey,
        op: F,
    ) -> Result<(i64, RemoteObject), EngineError>
    where
        F: Fn(i64) -> Fut,
        Fut: std::future::Future<Output = Result<Outcome, EngineError>>,
    {
        let mut retried = false;
        loop {
            let context = self.ready(tab, frame).await?;
            let gone = match op(context).await? {
                Outcome::Done(answer) => return Ok((context, answer)),
                Outcome::Gone => true,
                Outcome::NoWalker => false,
            };
            self.tabs.update(tab, |t| {
                let worlds = &mut t.attachment.worlds;
                if gone {
                    worlds.forget(frame, context);
                } else if let Some(world) = worlds.0.get_mut(frame) {
                    world.installed = false;
                }
            });
            if retried {
                return Err(EngineError::UnreadablePageData(if gone {
                    "the frame's document went away while it was read".to_owned()
                } else {
                    "the snapshot walker is missing from tabwire's world".to_owned()
                }));
            }
            retried = true;
        }
    }

    /// The context of `frame`'s world, with the walker in it.
    pub(super) async fn ready(&self, tab: TabId, frame: &FrameKey) -> Result<i64, EngineError> {
        let known = self
            .tabs
            .read(tab, |t| t.attachment.worlds.get(frame))
            .flatten();
        let world = match known {
            Some(world) => world,
            None => {
                let create = PageCreateIsolatedWorld {
                    frame_id: frame.frame.clone(),
                    world_name: WORLD_NAME.to_owned(),
                };
                let session = frame.session.as_deref();
                let context = send_in(self.chrome, tab, session, &create)
                    .await?
                    .execution_context_id;
                self.tabs
                    .update(tab, |t| t.attachment.worlds.learn(frame.clone(), context));
                World {
                    context,
                    installed: false,
                }
            }
        };
        if !world.installed {
            let install = RuntimeEvaluateIn {
                expression: install_script(),
                context_id: world.context,
                return_by_value: true,
                silent: true,
            };
            let installed = send_in(self.chrome, tab, frame.session.as_deref(), &install).await?;
            if let Some(details) = installed.exception_details {
                return Err(EngineError::UnreadablePageData(format!(
                    "the snapshot walker did not start: {}",
                    details.describe()
                )));
            }
            self.tabs.update(tab, |t| {
                t.attachment.worlds.installed(frame, world.context);
            });
        }
        Ok(world.context)
    }

    /// One walker call in a context.
    async fn walker_in(
        &self,
        tab: TabId,
        frame: &FrameKey,
        context: i64,
        call: &WalkerCall,
        group: &str,
    ) -> Result<Outcome, EngineError> {
        let (declaration, arguments) = call.parts();
        let by_value = call.by_value();
        let run = RuntimeCallFunctionIn {
            function_declaration: declaration.to_owned(),
            execution_context_id: context,
            arguments,
            object_group: if by_value {
                String::new()
            } else {
                group.to_owned()
            },
            return_by_value: by_value,
            silent: true,
        };
        let session = frame.session.as_deref();
        let answer: Evaluated = match send_in(self.chrome, tab, session, &run).await {
            Ok(answer) => answer,
            Err(error) if refusal(&error) == Some(Refusal::ContextGone) => {
                return Ok(Outcome::Gone)
            }
            Err(error) => return Err(error),
        };
        match answer.exception_details {
            None => Ok(Outcome::Done(answer.result)),
            Some(details) => {
                let said = details.describe();
                if said.contains(NO_WALKER) {
                    Ok(Outcome::NoWalker)
                } else {
                    Err(EngineError::UnreadablePageData(format!(
                        "the snapshot walker failed: {said}"
                    )))
                }
            }
        }
    }
}

/// The refusal a failed CDP command states, if any.
fn refusal(error: &EngineError) -> Option<Refusal> {
    match error {
        EngineError::Cdp { message, .. } => Refusal::of(message),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn worlds_follow_their_contexts() {
        let mut worlds = Worlds::default();
        let main = FrameKey::tab("main");
        worlds.track(&PageEvent::ContextCreated {
            id: 4,
            frame_id: "main".into(),
            is_default: false,
            name: WORLD_NAME.into(),
        });
        for other in [(5, true, ""), (6, false, "another")] {
            worlds.track(&PageEvent::ContextCreated {
                id: other.0,
                frame_id: "main".into(),
                is_default: other.1,
                name: other.2.into(),
            });
        }
        assert_eq!(
            worlds.get(&main),
            Some(World {
                context: 4,
                installed: false
            })
        );
        worlds.installed(&main, 4);
        worlds.learn(main.clone(), 4);
        assert!(worlds.get(&main).unwrap().installed, "the same context");
        worlds.learn(main.clone(), 9);
        assert!(!worlds.get(&main).unwrap().installed, "a new context");
        worlds.track(&PageEvent::ContextDestroyed { id: 9 });
        assert_eq!(worlds.get(&main), None);
        worlds.learn(main.clone(), 10);
        worlds.forget(&main, 4);
        assert!(worlds.get(&main).is_some(), "not that context");
        worlds.track(&PageEvent::ContextsCleared);
        assert_eq!(worlds.get(&main), None);
    }

    #[test]
    fn calls_fail_loudly_in_a_world_without_a_walker() {
        for declaration in [TAKE, RESOLVE, UID_OF, PIN, UNPIN, ADOPT, ADD_ROOT] {
            assert!(declaration.contains(NO_WALKER), "{declaration}");
            assert!(declaration.starts_with("function ("));
        }
        let take = WalkerCall::Take {
            number: 3,
            options: WalkOptions {
                verbose: true,
                viewport: false,
            },
            since: Some(8),
        };
        let (_, arguments) = take.parts();
        assert_eq!(
            serde_json::to_value(arguments).unwrap(),
            json!([{"value": 3}, {"value": {"verbose": true, "since": 8}}]),
            "the options as the wire has them, viewport left off when false"
        );
        let take = WalkerCall::Take {
            number: 3,
            options: WalkOptions {
                verbose: false,
                viewport: true,
            },
            since: Some(8),
        };
        let (declaration, arguments) = take.parts();
        assert_eq!(declaration, TAKE);
        assert_eq!(
            serde_json::to_value(arguments).unwrap(),
            json!([{"value": 3}, {"value": {"verbose": false, "viewport": true, "since": 8}}])
        );
        assert!(take.by_value());
        assert!(!WalkerCall::Resolve("1_1".into()).by_value());
    }
}
