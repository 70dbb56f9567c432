//! What an insight is, and the one table of them.
//!
//! An insight is a name, a computation over one load ([`LoadContext`]), its lines of
//! the summary, and its details (lines and data). Each insight implements [`Insight`]
//! beside its computation; [`INSIGHTS`] lists them, and everything that goes through
//! every insight (the names `performance_analyze_insight` takes, the summary, the
//! details) goes through that table.

use serde_json::Value;

use super::context::LoadContext;
use super::InsightSet;

/// One performance insight, as DevTools' trace engine names and defines it.
pub trait Insight {
    /// Its name, as `performance_analyze_insight` takes it.
    const NAME: &'static str;
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
    /// [`Insight::summary`].
    pub summary: fn(&InsightSet) -> Vec<String>,
    /// [`Insight::details`].
    pub details: fn(&InsightSet, &mut Vec<String>) -> Value,
}

/// The table's row for `I`.
const fn entry<I: Insight>() -> Entry {
    Entry {
        name: I::NAME,
        summary: I::summary,
        details: I::details,
    }
}

/// Every insight tabwire computes, in the order `performance_analyze_insight` lists
/// them.
pub const INSIGHTS: [Entry; 19] = [
    entry::<super::lcp::LcpBreakdownInsight>(),
    entry::<super::discovery::LcpDiscoveryInsight>(),
    entry::<super::inp::InpBreakdownInsight>(),
    entry::<super::cls::ClsCulpritsInsight>(),
    entry::<super::tasks::LongTasksInsight>(),
    entry::<super::network::RenderBlockingInsight>(),
    entry::<super::DocumentLatencyInsight>(),
    entry::<super::network_dependency_tree::NetworkDependencyTreeInsight>(),
    entry::<super::reflow::ForcedReflowInsight>(),
    entry::<super::dom_size::DomSizeInsight>(),
    entry::<super::bottom_up::CpuProfileInsight>(),
    entry::<super::third_parties::ThirdPartiesInsight>(),
    entry::<super::cache::CacheInsight>(),
    entry::<super::image_delivery::ImageDeliveryInsight>(),
    entry::<super::modern_http::ModernHttpInsight>(),
    entry::<super::viewport::ViewportInsight>(),
    entry::<super::font_display::FontDisplayInsight>(),
    entry::<super::charset::CharacterSetInsight>(),
    entry::<super::slow_css_selector::SlowCssSelectorInsight>(),
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
