//! Where a page of a long list lies (console messages, network requests, CSS rules),
//! and what the browser let go of to keep the lists within their bounds.

use schemars::JsonSchema;
use serde::Serialize;

/// The `structuredContent` keys a paged list writes beside its entries.
#[derive(Debug, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Keys {
    /// Where the page shown lies in the list.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pagination: Option<Pagination>,
    /// How many older entries of the navigations listed the browser let go of to keep
    /// the page within its bounds (count, space).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dropped: Option<Dropped>,
}

/// A page's position, in the shape Chrome DevTools for Agents uses, with the summary
/// line and the list's total beside it.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Pagination {
    /// The page shown, from 0.
    pub current_page: usize,
    /// How many pages there are.
    pub total_pages: usize,
    /// A later page exists.
    pub has_next_page: bool,
    /// An earlier page exists.
    pub has_previous_page: bool,
    /// Index of the first entry shown.
    pub start_index: usize,
    /// One past the last entry shown.
    pub end_index: usize,
    /// The page asked for does not exist, so another is shown.
    pub invalid_page: bool,
    /// How many entries the whole list holds.
    pub total: usize,
    /// Where the page lies, in words.
    pub summary: String,
}

/// Entries let go of, by the bound that made them go.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Dropped {
    /// Let go of to stay within the count kept.
    pub for_count: u32,
    /// Let go of to stay within the bytes kept.
    pub for_space: u32,
    /// The same, in words.
    pub note: String,
}

#[cfg(test)]
pub(super) fn sample() -> serde_json::Map<String, serde_json::Value> {
    super::entries(&Keys {
        pagination: Some(Pagination {
            current_page: 0,
            total_pages: 2,
            has_next_page: true,
            has_previous_page: false,
            start_index: 0,
            end_index: 50,
            invalid_page: false,
            total: 70,
            summary: "Showing 1-50 of 70 (Page 1 of 2). Next page: 1.".into(),
        }),
        dropped: Some(Dropped {
            for_count: 3,
            for_space: 0,
            note: "3 older messages were let go of.".into(),
        }),
    })
}
