//! Why the browser went: the native host's last look at it before saying goodbye.
//!
//! Chrome closes the native port (the host's stdin ends) both when the browser quits
//! and when only the extension's service worker stops (or the extension is reloaded or
//! disabled): the port alone does not tell them apart. The host's parent does. Chrome
//! starts the host itself (the wrapper script `exec`s it), so the parent is the browser
//! process. When the browser quits, that process exits a moment after closing its ports
//! and the host is handed to init (or a subreaper): `getppid()` changes. When only the
//! worker stopped, the browser lives on, and Chrome kills the host (SIGKILL) 2 s after
//! closing the port. So the host looks for at most [`WATCH`], well inside those 2 s:
//! parent gone means [`Departure::BrowserQuit`], parent still there at the end means
//! [`Departure::BrowserRunning`].
//!
//! Seen in headless Chromium (2-core machine under load): after `Browser.close` stdin
//! ended and the host was re-parented 0.14 s later; a stopped worker left the browser
//! running and the host was killed 2.0 s after its stdin ended; a SIGTERM to the
//! browser's process group (what `tabwire mcp --launch` sends on exit) reached the host
//! too (it is in that group), its stdin ended 0.07 s later, and it was re-parented at
//! once. A browser that takes longer than [`WATCH`] to exit after closing its ports is
//! reported as still running: agents then wait out the reconnect grace, as they would
//! for a worker restart.
//!
//! On Windows Chrome starts the host through `cmd.exe`, and a process whose parent
//! exits keeps that parent's id, so the host holds a handle on the first ancestor that
//! is not `cmd.exe` (the browser) and looks at whether it has exited
//! (`ProcessParent` in `platform/windows.rs`); the rest is the same.
//!
//! One more sign ends the look early: a new native host has taken the relay's address
//! (the host stops listening before it looks). Only a running browser starts one, for
//! its restarted worker, so the browser still runs: agents then reach the new host at
//! once instead of after the whole watch.
//!
//! It does no I/O but asking for the parent's id and calling the caller's `successor`
//! check, and sends nothing ([`super::server`] does).

use std::time::Duration;

use tabwire_shared::Departure;

/// The longest the host looks at its parent before saying goodbye.
pub const WATCH: Duration = Duration::from_millis(1500);

/// How often it looks.
const POLL: Duration = Duration::from_millis(20);

/// The process that started the native host, as the host sees it.
pub trait Parent: Send + Sync + 'static {
    /// Whether it has exited.
    fn gone(&self) -> bool;
}

pub use crate::platform::ProcessParent;

impl Parent for ProcessParent {
    fn gone(&self) -> bool {
        ProcessParent::gone(self)
    }
}

/// What the host looks at on the way out, and for how long.
pub struct Lookout {
    parent: Box<dyn Parent>,
    watch: Duration,
}

impl Lookout {
    /// The real browser: this process's parent now, looked at for [`WATCH`]. Call at
    /// start, before anything can go away.
    pub fn browser() -> Self {
        Self::new(ProcessParent::at_start(), WATCH)
    }

    /// Looks at `parent` for up to `watch`.
    pub fn new(parent: impl Parent, watch: Duration) -> Self {
        Self {
            parent: Box::new(parent),
            watch,
        }
    }

    /// [`Departure::BrowserQuit`] as soon as the parent has gone,
    /// [`Departure::BrowserRunning`] as soon as `successor()` says a new native host
    /// took over, or if the parent is still there at the end of the watch.
    pub async fn look(&self, successor: impl Fn() -> bool) -> Departure {
        let deadline = tokio::time::Instant::now() + self.watch;
        loop {
            if self.parent.gone() {
                return Departure::BrowserQuit;
            }
            if successor() {
                return Departure::BrowserRunning;
            }
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            if left.is_zero() {
                return Departure::BrowserRunning;
            }
            tokio::time::sleep(POLL.min(left)).await;
        }
    }
}

/// A parent for tests: gone from a given (virtual) instant on, or never.
#[cfg(test)]
pub(crate) struct FakeParent {
    /// When it exits; `None`: it never does.
    pub exits_at: std::sync::Mutex<Option<tokio::time::Instant>>,
}

#[cfg(test)]
impl FakeParent {
    /// A parent that outlives the host.
    pub fn alive() -> std::sync::Arc<Self> {
        std::sync::Arc::new(Self {
            exits_at: std::sync::Mutex::new(None),
        })
    }

    /// Makes it exit `after` from now.
    pub fn exit_in(&self, after: Duration) {
        *self.exits_at.lock().unwrap() = Some(tokio::time::Instant::now() + after);
    }
}

#[cfg(test)]
impl Parent for std::sync::Arc<FakeParent> {
    fn gone(&self) -> bool {
        self.exits_at
            .lock()
            .unwrap()
            .is_some_and(|at| tokio::time::Instant::now() >= at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_parent_that_exits_soon_means_the_browser_quit() {
        let parent = FakeParent::alive();
        parent.exit_in(Duration::from_millis(140));
        let started = tokio::time::Instant::now();
        assert_eq!(
            Lookout::new(parent, WATCH).look(|| false).await,
            Departure::BrowserQuit
        );
        let took = started.elapsed();
        assert!(took < Duration::from_millis(200), "noticed after {took:?}");
    }

    #[tokio::test(start_paused = true)]
    async fn a_parent_still_there_after_the_watch_means_the_browser_runs() {
        let parent = FakeParent::alive();
        let started = tokio::time::Instant::now();
        assert_eq!(
            Lookout::new(parent, WATCH).look(|| false).await,
            Departure::BrowserRunning
        );
        assert_eq!(started.elapsed(), WATCH);
    }

    #[tokio::test(start_paused = true)]
    async fn a_browser_slower_to_exit_than_the_watch_counts_as_running() {
        let parent = FakeParent::alive();
        parent.exit_in(WATCH + Duration::from_millis(100));
        assert_eq!(
            Lookout::new(parent, WATCH).look(|| false).await,
            Departure::BrowserRunning
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_new_host_taking_over_means_the_browser_runs_at_once() {
        let parent = FakeParent::alive();
        let started = tokio::time::Instant::now();
        let back = started + Duration::from_millis(300);
        let successor = || tokio::time::Instant::now() >= back;
        assert_eq!(
            Lookout::new(parent, WATCH).look(successor).await,
            Departure::BrowserRunning
        );
        let took = started.elapsed();
        assert!(took < Duration::from_millis(350), "noticed after {took:?}");
    }

    #[tokio::test(start_paused = true)]
    async fn a_parent_gone_is_a_quit_even_with_a_new_host() {
        let parent = FakeParent::alive();
        parent.exit_in(Duration::ZERO);
        assert_eq!(
            Lookout::new(parent, WATCH).look(|| true).await,
            Departure::BrowserQuit
        );
    }

    #[tokio::test(start_paused = true)]
    async fn this_process_still_has_its_parent() {
        let parent = ProcessParent::at_start();
        assert!(!parent.gone());
        let lookout = Lookout::new(parent, Duration::from_millis(30));
        assert_eq!(lookout.look(|| false).await, Departure::BrowserRunning);
    }
}
