//! What Chrome's CDP error messages mean, for the refusals the engine acts on.
//!
//! CDP answers these with its generic server-error code and a sentence, so the sentence
//! is all that tells them apart. Its words are read here, once, into a [`Refusal`]; the
//! engine matches on that instead of on words.

/// A refusal from Chrome that the engine treats in its own way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The debugger may not touch the page (a browser page, another extension's).
    PageOutOfReach,
    /// What was given as a URL to navigate to is not one.
    InvalidUrl,
    /// No JavaScript dialog is open to answer.
    NoDialog,
    /// The debugging session is gone.
    Detached,
    /// The JavaScript context the call ran in went away: the page navigated or closed.
    ContextGone,
    /// A remote object the call named no longer exists.
    ObjectGone,
}

/// The words of each refusal, as Chrome writes them.
const WORDS: [(&str, Refusal); 9] = [
    ("Cannot access", Refusal::PageOutOfReach),
    ("invalid URL", Refusal::InvalidUrl),
    ("No dialog", Refusal::NoDialog),
    ("etached", Refusal::Detached),
    ("not attached", Refusal::Detached),
    ("context was destroyed", Refusal::ContextGone),
    ("navigated or closed", Refusal::ContextGone),
    ("Cannot find context", Refusal::ContextGone),
    ("Could not find object", Refusal::ObjectGone),
];

impl Refusal {
    /// The refusal Chrome's `message` states, if it is one the engine knows.
    pub fn of(message: &str) -> Option<Self> {
        WORDS
            .iter()
            .find(|(words, _)| message.contains(words))
            .map(|(_, refusal)| *refusal)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chromes_sentences_are_read_into_refusals() {
        let cases = [
            (
                "Cannot access a chrome:// URL",
                Some(Refusal::PageOutOfReach),
            ),
            ("Cannot navigate to invalid URL", Some(Refusal::InvalidUrl)),
            ("No dialog is showing", Some(Refusal::NoDialog)),
            (
                "Debugger is not attached to the tab with id: 7.",
                Some(Refusal::Detached),
            ),
            ("Detached while handling command.", Some(Refusal::Detached)),
            (
                "Execution context was destroyed.",
                Some(Refusal::ContextGone),
            ),
            (
                "Inspected target navigated or closed",
                Some(Refusal::ContextGone),
            ),
            (
                "Cannot find context with specified id",
                Some(Refusal::ContextGone),
            ),
            (
                "Could not find object with given id",
                Some(Refusal::ObjectGone),
            ),
            ("Internal error", None),
        ];
        for (message, want) in cases {
            assert_eq!(Refusal::of(message), want, "{message}");
        }
    }
}
