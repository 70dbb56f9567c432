//! Pagination of long lists (console messages, network requests), in one place.

use super::output::{self, lists};

/// Default number of entries on a page of a list.
pub const DEFAULT_PAGE_SIZE: usize = 50;

/// A smaller page size for a list page of `chars` characters shown with the default
/// size, when it would not leave room in a reply of `budget` characters (the client's,
/// [`crate::mcp::budget`]) and the agent did not choose a size (`asked`); `None` when
/// it fits or the agent chose. The page line then says which page of how many.
pub fn fitted_page_size(asked: Option<usize>, chars: usize, budget: usize) -> Option<usize> {
    // The rest of the reply: headings, the page list, a note or two.
    let room = budget.saturating_sub(2_000).max(1_000);
    if asked.is_some() || chars <= room {
        return None;
    }
    Some((DEFAULT_PAGE_SIZE * room / chars * 9 / 10).max(1))
}

/// The line said when a list's pages were made smaller to fit the client's replies.
pub fn fitted_note(size: usize) -> String {
    format!("Pages of {size} entries, to fit this client's replies (pageSize sets another size).")
}

/// Says, at the end of a list's `lines` and as `dropped` in its `data`, how many older
/// `things` of the pages listed the extension let go of to stay within its bounds of
/// `count` entries and `bytes` bytes per page; nothing when none were.
pub fn tell_dropped(
    dropped: tabwire_shared::Dropped,
    (things, count, bytes): (&str, usize, usize),
    lines: &mut Vec<String>,
    data: &mut serde_json::Map<String, serde_json::Value>,
) {
    let Some(note) = dropped.note(things, count, bytes) else {
        return;
    };
    data.extend(output::entries(&lists::Keys {
        dropped: Some(lists::Dropped {
            for_count: dropped.for_count,
            for_space: dropped.for_space,
            note: note.clone(),
        }),
        ..lists::Keys::default()
    }));
    lines.push(note);
}

/// One page of a list, and the line that tells the agent where it is.
#[derive(Debug, PartialEq, Eq)]
pub struct Page {
    /// Index of the first entry shown.
    pub start: usize,
    /// One past the last entry shown.
    pub end: usize,
    /// The page shown, from 0.
    pub index: usize,
    /// How many pages there are (at least 1).
    pub pages: usize,
    /// How many entries the whole list holds.
    pub total: usize,
    /// The page asked for did not exist, so the first is shown.
    pub invalid: bool,
    /// "Showing 1-20 of 137 (Page 1 of 7). Next page: 1.", plus a notice when the asked
    /// page did not exist.
    pub summary: String,
}

impl Page {
    /// The page's position as `structuredContent`'s `pagination`, in the shape Chrome
    /// DevTools for Agents uses, with the summary line and the list's total beside it.
    pub fn pagination(&self) -> lists::Pagination {
        lists::Pagination {
            current_page: self.index,
            total_pages: self.pages,
            has_next_page: self.index + 1 < self.pages,
            has_previous_page: self.index > 0,
            start_index: self.start,
            end_index: self.end,
            invalid_page: self.invalid,
            total: self.total,
            summary: self.summary.clone(),
        }
    }
}

/// Where a page of a list is, as [`Page::at`] takes it.
#[derive(Debug, Clone, Copy)]
pub struct Position {
    /// Index of the first entry shown.
    pub start: usize,
    /// One past the last entry shown.
    pub end: usize,
    /// The page shown, from 0.
    pub index: usize,
    /// How many pages there are (at least 1).
    pub pages: usize,
    /// How many entries the whole list holds.
    pub total: usize,
    /// The page asked for, when it did not exist and `instead` is shown.
    pub missing: Option<usize>,
}

impl Page {
    /// The page at `position`, with its summary line: "Showing 21-40 of 137 (Page 2 of
    /// 7). Previous page: 0. Next page: 2." A missing page's notice names the page shown
    /// `instead` ("first", "newest"); the last page is marked as the newest when
    /// `newest_last` (lists shown newest page first).
    pub fn at(position: Position, instead: &str, newest_last: bool) -> Page {
        let Position {
            start,
            end,
            index,
            pages,
            total,
            missing,
        } = position;
        let mut summary = match missing {
            Some(asked) => format!(
                "Page {asked} does not exist (there are {pages}); showing the {instead} page instead. "
            ),
            None => String::new(),
        };
        if total == 0 {
            summary.push_str("Showing 0 of 0.");
        } else {
            let newest = if newest_last && index + 1 == pages {
                ", the newest"
            } else {
                ""
            };
            summary.push_str(&format!(
                "Showing {}-{end} of {total} (Page {} of {pages}{newest}).",
                start + 1,
                index + 1
            ));
        }
        if index > 0 {
            summary.push_str(&format!(" Previous page: {}.", index - 1));
        }
        if index + 1 < pages {
            summary.push_str(&format!(" Next page: {}.", index + 1));
        }
        Page {
            start,
            end,
            index,
            pages,
            total,
            invalid: missing.is_some(),
            summary,
        }
    }
}

/// Chooses the slice of `total` entries to show. Pages are 0-based; a page that does not
/// exist falls back to the first, with a notice.
pub fn paginate(total: usize, page_size: Option<usize>, page_idx: Option<usize>) -> Page {
    let size = page_size.unwrap_or(DEFAULT_PAGE_SIZE).max(1);
    let pages = total.div_ceil(size).max(1);
    let asked = page_idx.unwrap_or(0);
    let (index, missing) = if asked < pages {
        (asked, None)
    } else {
        (0, Some(asked))
    };
    let start = (index * size).min(total);
    let end = (start + size).min(total);
    let position = Position {
        start,
        end,
        index,
        pages,
        total,
        missing,
    };
    Page::at(position, "first", false)
}

#[cfg(test)]
mod dropped_tests {
    use super::*;

    #[test]
    fn what_was_dropped_for_space_is_said_in_text_and_data() {
        let (mut lines, mut data) = (vec![], serde_json::Map::new());
        let none = tabwire_shared::Dropped::default();
        tell_dropped(none, ("messages", 5_000, 4 << 20), &mut lines, &mut data);
        assert!(lines.is_empty() && data.is_empty());
        let dropped = tabwire_shared::Dropped {
            for_count: 0,
            for_space: 1_958,
        };
        tell_dropped(dropped, ("messages", 5_000, 4 << 20), &mut lines, &mut data);
        assert_eq!(
            lines,
            [
                "1958 older messages were dropped for space (at most 4 MiB of messages are kept \
              per page); the newest are listed."
            ]
        );
        assert_eq!(data["dropped"]["forSpace"], 1_958);
        assert_eq!(data["dropped"]["note"], lines[0].as_str());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_too_long_for_the_client_gets_smaller_unless_the_agent_chose() {
        assert_eq!(fitted_page_size(None, 5_000, 11_000), None);
        let size = fitted_page_size(None, 16_500, 11_000).unwrap();
        // 50 entries took 16,500: the smaller page fits in the 9,000 left.
        assert!(size * 16_500 / DEFAULT_PAGE_SIZE <= 9_000, "{size}");
        assert!(size >= 20, "{size}");
        assert_eq!(fitted_page_size(Some(50), 16_500, 11_000), None);
        assert_eq!(fitted_page_size(None, 10_000_000, 11_000), Some(1));
    }

    #[test]
    fn first_page_says_where_it_is_and_what_comes_next() {
        let page = paginate(137, Some(20), None);
        assert_eq!((page.start, page.end), (0, 20));
        assert_eq!(
            page.summary,
            "Showing 1-20 of 137 (Page 1 of 7). Next page: 1."
        );
    }

    #[test]
    fn last_page_is_partial() {
        let page = paginate(137, Some(20), Some(6));
        assert_eq!((page.start, page.end), (120, 137));
        assert_eq!(
            page.summary,
            "Showing 121-137 of 137 (Page 7 of 7). Previous page: 5."
        );
    }

    #[test]
    fn an_out_of_range_page_falls_back_to_the_first_with_a_notice() {
        let page = paginate(30, Some(20), Some(9));
        assert_eq!((page.start, page.end), (0, 20));
        assert!(
            page.summary.contains("Page 9 does not exist (there are 2)"),
            "{}",
            page.summary
        );
    }

    #[test]
    fn empty_lists_and_zero_sizes_are_safe() {
        assert_eq!(paginate(0, None, None).summary, "Showing 0 of 0.");
        let page = paginate(3, Some(0), None);
        assert_eq!((page.start, page.end), (0, 1));
    }
}
