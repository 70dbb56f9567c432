//! The page list: every page the agent may use, which one is selected, which one the
//! user has in front.

use schemars::JsonSchema;
use serde::Serialize;
use tabwire_shared::{TabId, TabInfo};

use crate::mcp::response::Section;

/// The `structuredContent` key of the pages section.
#[derive(Debug, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Keys {
    /// The pages shared with this agent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pages: Option<Vec<Page>>,
}

/// A page of the page list.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Page {
    /// Its pageId.
    pub id: TabId,
    /// Its URL.
    pub url: String,
    /// Its title.
    pub title: String,
    /// Tools act on it when no pageId is given.
    pub selected: bool,
    /// It is the tab the user has in front.
    pub user_active: bool,
    /// The page's renderer crashed: reload it with navigate_page {type: reload}.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub crashed: bool,
}

impl Page {
    /// `page` as the list shows it.
    pub fn new(page: &TabInfo, selected: bool) -> Self {
        Self {
            id: page.id,
            url: page.url.clone(),
            title: page.title.clone(),
            selected,
            user_active: page.user_active,
            crashed: page.crashed,
        }
    }
}

/// The pages section: one line per page, its marks after it.
pub fn section(pages: &[TabInfo], selected: Option<TabId>) -> Section {
    let mut lines = Vec::with_capacity(pages.len().max(1));
    let mut list = Vec::with_capacity(pages.len());
    for page in pages {
        let mut marks = String::new();
        if Some(page.id) == selected {
            marks.push_str(" [selected]");
        }
        if page.user_active {
            marks.push_str(" [user's active tab]");
        }
        if page.crashed {
            marks.push_str(" [renderer crashed: reload it with navigate_page {type: reload}]");
        }
        let title = if page.title.is_empty() {
            "(no title)"
        } else {
            &page.title
        };
        lines.push(format!("{}: {title} <{}>{marks}", page.id, page.url));
        list.push(Page::new(page, Some(page.id) == selected));
    }
    if pages.is_empty() {
        lines.push(crate::mcp::context::NO_PAGE.to_owned());
    }
    Section {
        title: "Pages",
        lines,
        data: super::entries(&Keys { pages: Some(list) }),
    }
}

#[cfg(test)]
pub(super) fn sample() -> serde_json::Map<String, serde_json::Value> {
    let page = Page {
        id: 1,
        url: "about:blank".into(),
        title: String::new(),
        selected: true,
        user_active: false,
        crashed: true,
    };
    super::entries(&Keys {
        pages: Some(vec![page]),
    })
}
