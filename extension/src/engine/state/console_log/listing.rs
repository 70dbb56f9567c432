//! One page of a console listing, made where the messages are: filter by type, fold
//! consecutive repeats, count, and cut out the page asked for (see
//! [`tabwire_shared::console`] for how pages are counted).
//!
//! Only the page's entries are copied, in list form (see [`ConsoleEntry`]); the rest
//! of the list is walked by reference. It knows nothing of tabs: the caller hands it the
//! messages in scope, each with the navigation it belongs to (0: the current document).

use tabwire_shared::{
    ConsoleEntry, ConsoleMessage, ConsolePage, ConsoleTotals, PagePosition, Repeats,
};

/// What to list: the filter and the page.
#[derive(Debug, Clone, Copy)]
pub struct Query<'a> {
    /// Only these types (by [`ConsoleMessage::kind`]); empty: every type.
    pub types: &'a [tabwire_shared::ConsoleType],
    /// Entries per page (0 counts as 1).
    pub page_size: u32,
    /// Which page, from 0 (the oldest); `None`: the newest.
    pub page_idx: Option<u32>,
}

/// A run of identical consecutive messages of one navigation, by reference.
struct Run<'a> {
    navigation: u32,
    first: &'a ConsoleMessage,
    count: u32,
    last_id: u64,
}

/// The page `query` asks for of `messages` (oldest first, each with its navigation),
/// texts cut to `text_chars`.
pub fn page<'a>(
    messages: impl Iterator<Item = (u32, &'a ConsoleMessage)>,
    query: Query<'_>,
    text_chars: usize,
) -> ConsolePage {
    let mut totals = ConsoleTotals::default();
    let mut runs: Vec<Run<'a>> = Vec::new();
    for (navigation, message) in messages {
        count(&mut totals, message);
        let wanted =
            query.types.is_empty() || query.types.iter().any(|t| t.as_str() == message.kind);
        if !wanted {
            continue;
        }
        match runs.last_mut() {
            Some(run) if run.navigation == navigation && repeats(run.first, message) => {
                run.count = run.count.saturating_add(1);
                run.last_id = message.id;
            }
            _ => runs.push(Run {
                navigation,
                first: message,
                count: 1,
                last_id: message.id,
            }),
        }
    }
    let position = position(runs.len(), query.page_size, query.page_idx);
    let entries = runs[position.start as usize..position.end as usize]
        .iter()
        .map(|run| ConsoleEntry {
            id: run.first.id,
            kind: run.first.kind.clone(),
            text: super::shorten(&run.first.text, text_chars),
            navigation: run.navigation,
            repeated: (run.count > 1).then_some(Repeats {
                count: run.count,
                last_id: run.last_id,
            }),
        })
        .collect();
    ConsolePage {
        entries,
        position,
        totals,
        dropped: Default::default(),
    }
}

fn count(totals: &mut ConsoleTotals, message: &ConsoleMessage) {
    totals.messages = totals.messages.saturating_add(1);
    match message.kind.as_str() {
        "error" => totals.errors = totals.errors.saturating_add(1),
        "exception" => totals.exceptions = totals.exceptions.saturating_add(1),
        _ => {}
    }
}

/// Whether `next` repeats `first` (in the same document): same type and text.
fn repeats(first: &ConsoleMessage, next: &ConsoleMessage) -> bool {
    first.kind == next.kind && first.text == next.text
}

/// Which entries page `asked` of `total` holds, pages aligned on the newest entry: page
/// `pages - 1` is the newest and full, page 0 the oldest and possibly short. A page that
/// does not exist gets the newest, marked missing.
pub fn position(total: usize, page_size: u32, asked: Option<u32>) -> PagePosition {
    let total = u32::try_from(total).unwrap_or(u32::MAX);
    let size = page_size.max(1);
    let pages = total.div_ceil(size).max(1);
    let newest = pages - 1;
    let (index, missing) = match asked {
        Some(asked) if asked < pages => (asked, None),
        Some(asked) => (newest, Some(asked)),
        None => (newest, None),
    };
    // Counted back from the end: page `newest` ends at `total`.
    let back = (newest - index).saturating_mul(size);
    let end = total.saturating_sub(back);
    let start = end.saturating_sub(size);
    PagePosition {
        index,
        pages,
        start,
        end,
        total,
        missing,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabwire_shared::ConsoleType;

    fn msg(id: u64, kind: &str, text: &str) -> ConsoleMessage {
        ConsoleMessage {
            id,
            kind: kind.into(),
            text: text.into(),
            args: vec![serde_json::json!(text)],
            url: Some("https://a.test/app.js".into()),
            stack: vec![],
            timestamp: 0.0,
            navigation: 0,
        }
    }

    fn query(types: &[ConsoleType], page_size: u32, page_idx: Option<u32>) -> Query<'_> {
        Query {
            types,
            page_size,
            page_idx,
        }
    }

    #[test]
    fn pages_are_aligned_on_the_newest_entry() {
        let newest = position(137, 20, None);
        assert_eq!(
            (newest.index, newest.pages, newest.start, newest.end),
            (6, 7, 117, 137)
        );
        let oldest = position(137, 20, Some(0));
        assert_eq!(
            (oldest.start, oldest.end),
            (0, 17),
            "the oldest page is the short one"
        );
        let middle = position(137, 20, Some(5));
        assert_eq!((middle.start, middle.end), (97, 117));
        let exact = position(40, 20, Some(0));
        assert_eq!((exact.start, exact.end, exact.pages), (0, 20, 2));
    }

    #[test]
    fn a_missing_page_gets_the_newest_and_says_so() {
        let shown = position(30, 20, Some(9));
        assert_eq!((shown.index, shown.start, shown.end), (1, 10, 30));
        assert_eq!(shown.missing, Some(9));
    }

    #[test]
    fn empty_lists_and_zero_sizes_are_safe() {
        let empty = position(0, 50, None);
        assert_eq!(
            (empty.index, empty.pages, empty.start, empty.end),
            (0, 1, 0, 0)
        );
        let tiny = position(3, 0, None);
        assert_eq!((tiny.start, tiny.end, tiny.pages), (2, 3, 3));
    }

    #[test]
    fn repeats_fold_into_one_entry_with_a_count() {
        let messages = [
            msg(1, "log", "a"),
            msg(2, "log", "a"),
            msg(3, "log", "a"),
            msg(4, "warn", "a"),
            msg(5, "log", "a"),
        ];
        let page = page(messages.iter().map(|m| (0, m)), query(&[], 50, None), 100);
        let runs: Vec<_> = page
            .entries
            .iter()
            .map(|e| {
                (
                    e.id,
                    e.kind.as_str(),
                    e.count(),
                    e.repeated.map(|r| r.last_id),
                )
            })
            .collect();
        assert_eq!(
            runs,
            vec![
                (1, "log", 3, Some(3)),
                (4, "warn", 1, None),
                (5, "log", 1, None)
            ]
        );
        assert_eq!(page.position.total, 3);
    }

    #[test]
    fn the_filter_applies_before_folding_and_the_totals_ignore_it() {
        let messages: Vec<_> = (0..137)
            .map(|i| {
                msg(
                    i,
                    if i % 2 == 0 { "log" } else { "error" },
                    &format!("m{i}"),
                )
            })
            .chain([msg(200, "exception", "boom")])
            .collect();
        let page = page(
            messages.iter().map(|m| (0, m)),
            query(&[ConsoleType::Error], 20, Some(1)),
            100,
        );
        assert_eq!(page.position.total, 68);
        assert_eq!((page.position.start, page.position.end), (8, 28));
        assert!(page.entries.iter().all(|e| e.kind == "error"));
        assert_eq!(
            page.totals,
            ConsoleTotals {
                messages: 138,
                errors: 68,
                exceptions: 1
            }
        );
    }

    #[test]
    fn only_the_page_is_copied_in_list_form() {
        let messages = [msg(1, "log", &"x".repeat(50)), msg(2, "log", "short")];
        let page = page(messages.iter().map(|m| (0, m)), query(&[], 1, Some(0)), 10);
        assert_eq!(page.entries[0].text, format!("{}…", "x".repeat(10)));
        assert_eq!(page.entries.len(), 1);
    }
}
