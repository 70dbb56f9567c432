//! The insights: what an insight is ([`Insight`]), the one table of them
//! ([`INSIGHTS`]), and the set of them one load gets ([`InsightSet`]). One file per
//! insight, named after it, holds its data, its computation and its words.
//!
//! An insight is a name, a computation over one load ([`LoadContext`]), its lines of
//! the summary, and its details (lines and data). Everything that goes through every
//! insight (the names `performance_analyze_insight` takes, the summary, the details)
//! goes through the table.

pub mod cache;
pub mod character_set;
pub mod cls_culprits;
pub mod cpu_profile;
pub mod document_latency;
pub mod dom_size;
pub mod font_display;
pub mod forced_reflow;
pub mod image_delivery;
pub mod inp_breakdown;
pub mod lcp_breakdown;
pub mod lcp_discovery;
pub mod long_tasks;
pub mod modern_http;
pub mod network_dependency_tree;
pub mod not_computed;
pub mod render_blocking;
pub mod slow_css_selector;
pub mod third_parties;
pub mod viewport;

use serde::Serialize;
use serde_json::Value;

use crate::load::LoadContext;
use document_latency::DocumentLatency;
use render_blocking::BlockingRequest;

/// One performance insight, as DevTools' trace engine names and defines it.
pub trait Insight {
    /// Its name, as `performance_analyze_insight` takes it.
    const NAME: &'static str;
    /// What it finds, in a few words, for the description of
    /// `performance_analyze_insight`'s argument (empty when its name says it).
    const ABOUT: &'static str;
    /// What it finds in one load: its field of [`InsightSet`].
    type Data;
    /// Finds it in the load `load`.
    fn compute(load: &LoadContext) -> Self::Data;
    /// Its lines of the set's summary, each starting `- NAME: ` (none when it has
    /// nothing to say for this set).
    fn summary(set: &InsightSet) -> Vec<String>;
    /// Its details: writes its lines (after the heading the caller writes) and returns
    /// its data.
    fn details(set: &InsightSet, lines: &mut Vec<String>) -> Value;
}

/// An insight as the table holds it: what its words need, without its data's type.
pub struct Entry {
    /// [`Insight::NAME`].
    pub name: &'static str,
    /// [`Insight::ABOUT`].
    pub about: &'static str,
    /// [`Insight::summary`].
    pub summary: fn(&InsightSet) -> Vec<String>,
    /// [`Insight::details`].
    pub details: fn(&InsightSet, &mut Vec<String>) -> Value,
}

/// The table's row for `I`.
const fn entry<I: Insight>() -> Entry {
    Entry {
        name: I::NAME,
        about: I::ABOUT,
        summary: I::summary,
        details: I::details,
    }
}

/// Every insight tabwire computes, in the order `performance_analyze_insight` lists
/// them.
pub const INSIGHTS: [Entry; 19] = [
    entry::<lcp_breakdown::LcpBreakdownInsight>(),
    entry::<lcp_discovery::LcpDiscoveryInsight>(),
    entry::<inp_breakdown::InpBreakdownInsight>(),
    entry::<cls_culprits::ClsCulpritsInsight>(),
    entry::<long_tasks::LongTasksInsight>(),
    entry::<render_blocking::RenderBlockingInsight>(),
    entry::<document_latency::DocumentLatencyInsight>(),
    entry::<network_dependency_tree::NetworkDependencyTreeInsight>(),
    entry::<forced_reflow::ForcedReflowInsight>(),
    entry::<dom_size::DomSizeInsight>(),
    entry::<cpu_profile::CpuProfileInsight>(),
    entry::<third_parties::ThirdPartiesInsight>(),
    entry::<cache::CacheInsight>(),
    entry::<image_delivery::ImageDeliveryInsight>(),
    entry::<modern_http::ModernHttpInsight>(),
    entry::<viewport::ViewportInsight>(),
    entry::<font_display::FontDisplayInsight>(),
    entry::<character_set::CharacterSetInsight>(),
    entry::<slow_css_selector::SlowCssSelectorInsight>(),
];

/// The insight names `performance_analyze_insight` takes: the table's.
pub const INSIGHT_NAMES: [&str; INSIGHTS.len()] = {
    let mut names = [""; INSIGHTS.len()];
    let mut i = 0;
    while i < INSIGHTS.len() {
        names[i] = INSIGHTS[i].name;
        i += 1;
    }
    names
};

/// The description of `performance_analyze_insight`'s `insightName`: every insight of
/// the table, in its order, with what it finds, then those left out.
pub fn insight_name_description() -> String {
    let named: Vec<String> = INSIGHTS
        .iter()
        .map(|entry| match entry.about {
            "" => entry.name.to_owned(),
            about => format!("{} ({about})", entry.name),
        })
        .collect();
    let left_out: Vec<&str> = not_computed::NOT_COMPUTED
        .iter()
        .map(|(name, _)| *name)
        .collect();
    let left_out = match left_out.split_last() {
        Some((last, [])) => format!("{last} is"),
        Some((last, rest)) => format!("{} and {last} are", rest.join(", ")),
        None => String::new(),
    };
    let mut description = format!(
        "The insight, as the summary names it: {}.",
        named.join(", ")
    );
    if !left_out.is_empty() {
        description += &format!(" DevTools' {left_out} not computed: asking for one says why.");
    }
    description
}

/// The insight named `name`, compared without case as DevTools' names are
/// (`lcpbreakdown` is LCPBreakdown).
pub fn find(name: &str) -> Option<&'static Entry> {
    INSIGHTS
        .iter()
        .find(|known| known.name.eq_ignore_ascii_case(name))
}

/// The table in the order the summary states the insights: the table's, but for
/// CharacterSet, a fact of the document, which it states before FontDisplay.
pub fn in_summary_order() -> Vec<&'static Entry> {
    let mut order: Vec<&Entry> = INSIGHTS.iter().collect();
    let place = |name: &str, order: &[&Entry]| order.iter().position(|e| e.name == name);
    if let (Some(charset), Some(fonts)) =
        (place("CharacterSet", &order), place("FontDisplay", &order))
    {
        let moved = order.remove(charset);
        order.insert(fonts, moved);
    }
    order
}

/// The insights of one page load (or of the whole trace, without one).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InsightSet {
    /// What `performance_analyze_insight` calls it: the navigation's id, or
    /// `NO_NAVIGATION`.
    pub id: String,
    /// The page loaded (empty without a navigation).
    pub url: String,
    /// Largest Contentful Paint.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lcp: Option<lcp_breakdown::Lcp>,
    /// Cumulative Layout Shift.
    pub cls: cls_culprits::Cls,
    /// Main-thread tasks over 50 ms.
    pub long_tasks: Vec<long_tasks::LongTask>,
    /// Requests that held up the first render.
    pub render_blocking: Vec<BlockingRequest>,
    /// The main document's request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub document: Option<DocumentLatency>,
    /// The chains of critical requests the load waited on.
    pub network_dependency_tree: network_dependency_tree::NetworkDependencyTree,
    /// Whether the tab drew any frame (a hidden tab draws none: then there is no paint
    /// to measure, and no LCP, CLS or render-blocking request).
    pub drew_frames: bool,
    /// Interaction to Next Paint, when the page was interacted with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inp: Option<inp_breakdown::Inp>,
    /// Layouts and style recalculations scripts forced.
    pub forced_reflows: forced_reflow::ForcedReflows,
    /// The size of the DOM and the updates it made slow.
    pub dom_size: dom_size::DomSize,
    /// The main thread's CPU profile (when the trace sampled it within the load): the
    /// functions that ran most.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_profile: Option<cpu_profile::CpuProfile>,
    /// The sites the load fetched from and ran, the page's own among them.
    pub third_parties: third_parties::ThirdParties,
    /// Static resources served with no or a short cache lifetime.
    pub cache: cache::Cache,
    /// Images that cost more bytes than they need.
    pub image_delivery: image_delivery::ImageDelivery,
    /// Requests over HTTP/1.x that HTTP/2 would multiplex.
    pub modern_http: modern_http::ModernHttp,
    /// Whether the page is optimized for mobile screens.
    pub viewport: viewport::Viewport,
    /// Whether the page declares its character encoding in time (a page load only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub character_set: Option<character_set::CharacterSet>,
    /// Web fonts whose text stays invisible while they load.
    pub font_display: font_display::FontDisplay,
    /// The CSS selectors style recalculation spent its time on (when recorded).
    pub slow_css_selector: slow_css_selector::SlowCssSelector,
}

impl InsightSet {
    /// Every insight of the load `load`.
    pub fn compute(load: &LoadContext) -> InsightSet {
        InsightSet {
            id: load.id().to_owned(),
            url: load.url().to_owned(),
            lcp: lcp_breakdown::LcpBreakdownInsight::compute(load),
            cls: cls_culprits::ClsCulpritsInsight::compute(load),
            long_tasks: long_tasks::LongTasksInsight::compute(load),
            render_blocking: render_blocking::RenderBlockingInsight::compute(load),
            document: document_latency::DocumentLatencyInsight::compute(load),
            network_dependency_tree: network_dependency_tree::NetworkDependencyTreeInsight::compute(
                load,
            ),
            drew_frames: crate::load::events::drew_frames(load.events(), load.from, load.until),
            inp: inp_breakdown::InpBreakdownInsight::compute(load),
            forced_reflows: forced_reflow::ForcedReflowInsight::compute(load),
            dom_size: dom_size::DomSizeInsight::compute(load),
            cpu_profile: cpu_profile::CpuProfileInsight::compute(load),
            third_parties: third_parties::ThirdPartiesInsight::compute(load),
            cache: cache::CacheInsight::compute(load),
            image_delivery: image_delivery::ImageDeliveryInsight::compute(load),
            modern_http: modern_http::ModernHttpInsight::compute(load),
            viewport: viewport::ViewportInsight::compute(load),
            character_set: character_set::CharacterSetInsight::compute(load),
            font_display: font_display::FontDisplayInsight::compute(load),
            slow_css_selector: slow_css_selector::SlowCssSelectorInsight::compute(load),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_are_unique() {
        for (i, name) in super::INSIGHT_NAMES.iter().enumerate() {
            assert!(
                !super::INSIGHT_NAMES[..i]
                    .iter()
                    .any(|n| n.eq_ignore_ascii_case(name)),
                "{name} twice"
            );
        }
    }

    #[test]
    fn the_summary_states_every_insight_once() {
        let order = super::in_summary_order();
        assert_eq!(order.len(), super::INSIGHTS.len());
        for entry in &super::INSIGHTS {
            assert_eq!(order.iter().filter(|e| e.name == entry.name).count(), 1);
        }
    }
}
