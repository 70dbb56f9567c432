//! What the insights of one set read, worked out once per set: the trace's events,
//! requests and CPU profiles, the load's span, main frame, main threads and page, and
//! what more than one insight needs (the LCP).
//!
//! A set is either one main-frame navigation ([`LoadContext::navigation`]) or, for a
//! trace without one, the whole trace ([`LoadContext::whole_trace`]); the insights
//! only ask the context, so the two cases differ here and nowhere else.

use std::cell::OnceCell;

use crate::insights::lcp_breakdown::{self, Lcp};
use crate::load::events::Event;
use crate::load::network::Request;
use crate::load::profiles::Profile;
use crate::load::{renderer_main_threads, Navigation};
use crate::{browser, NO_NAVIGATION};

/// What a whole trace holds that every set reads: found once per trace.
pub struct Trace<'a> {
    /// The trace's events, in time order.
    pub events: &'a [Event],
    /// Every request of the trace.
    pub requests: Vec<Request>,
    /// The CPU profiles V8 recorded.
    pub profiles: Vec<Profile>,
    /// The main-frame navigations, in order.
    pub navigations: Vec<Navigation>,
    /// The first event's time (µs).
    pub start: f64,
    /// The last event's end (µs).
    pub end: f64,
}

impl<'a> Trace<'a> {
    /// What `events` (sorted by time) hold.
    pub fn new(events: &'a [Event]) -> Self {
        let start = events
            .iter()
            .map(|e| e.ts)
            .find(|ts| *ts > 0.0)
            .unwrap_or(0.0);
        Trace {
            events,
            requests: super::network::requests(events),
            profiles: super::profiles::profiles(events),
            navigations: super::navigations(events),
            start,
            end: events.iter().map(Event::end).fold(start, f64::max),
        }
    }
}

/// One insight set's load: the part of the trace its insights look at.
pub struct LoadContext<'a> {
    /// The whole trace.
    pub trace: &'a Trace<'a>,
    /// The navigation, or `None` for a trace without one.
    pub nav: Option<&'a Navigation>,
    /// The start (µs); times are measured from here.
    pub from: f64,
    /// The end (µs).
    pub until: f64,
    /// The main frame, when known.
    pub frame: Option<String>,
    /// The renderer's main threads (process, thread) to look at.
    pub threads: Vec<(i64, i64)>,
    /// The navigation's document request, when recorded.
    pub document: Option<&'a Request>,
    lcp: OnceCell<Option<Lcp>>,
}

impl<'a> LoadContext<'a> {
    /// The load of the main-frame navigation `nav`.
    pub fn navigation(trace: &'a Trace<'a>, nav: &'a Navigation) -> Self {
        LoadContext {
            trace,
            nav: Some(nav),
            from: nav.ts,
            until: nav.until,
            frame: Some(nav.frame.clone()),
            threads: vec![(nav.pid, nav.tid)],
            document: trace.requests.iter().find(|r| r.id == nav.id),
            lcp: OnceCell::new(),
        }
    }

    /// The whole of a trace without a navigation: every renderer's main thread and the
    /// main frame the trace's start names.
    pub fn whole_trace(trace: &'a Trace<'a>) -> Self {
        LoadContext {
            trace,
            nav: None,
            from: trace.start,
            until: trace.end,
            frame: browser::main_frame_id(trace.events),
            threads: renderer_main_threads(trace.events),
            document: None,
            lcp: OnceCell::new(),
        }
    }

    /// The trace's events.
    pub fn events(&self) -> &'a [Event] {
        self.trace.events
    }

    /// Every request of the trace.
    pub fn requests(&self) -> &'a [Request] {
        &self.trace.requests
    }

    /// The set's id: the navigation's, or [`NO_NAVIGATION`].
    pub fn id(&self) -> &str {
        self.nav.map_or(NO_NAVIGATION, |n| n.id.as_str())
    }

    /// The page loaded (empty without a navigation).
    pub fn url(&self) -> &str {
        self.nav.map_or("", |n| n.url.as_str())
    }

    /// The main frame, when known.
    pub fn frame(&self) -> Option<&str> {
        self.frame.as_deref()
    }

    /// The renderer's process, when the load names it.
    pub fn pid(&self) -> Option<i64> {
        self.nav.map(|n| n.pid)
    }

    /// The load's LCP (none without a navigation), found the first time it is asked.
    pub fn lcp(&self) -> Option<&Lcp> {
        self.lcp
            .get_or_init(|| {
                let nav = self.nav?;
                lcp_breakdown::lcp(self.events(), nav, self.document, self.requests())
            })
            .as_ref()
    }
}
