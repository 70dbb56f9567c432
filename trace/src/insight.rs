//! What an insight is: a name, and a computation over one load ([`LoadContext`]).
//! Each insight implements [`Insight`] beside its computation.

use super::context::LoadContext;

/// One performance insight, as DevTools' trace engine names and defines it.
pub trait Insight {
    /// Its name, as `performance_analyze_insight` takes it.
    const NAME: &'static str;
    /// What it finds in one load: its field of [`crate::InsightSet`].
    type Data;
    /// Finds it in the load `load`.
    fn compute(load: &LoadContext) -> Self::Data;
}
