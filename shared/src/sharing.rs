//! How the user shares a tab with an agent, worded once for every message that tells
//! an agent to ask for it (the popup's button is the only way a tab gets shared).

/// The toolbar button that opens tabwire's popup.
macro_rules! toolbar_button {
    () => {
        "the tabwire button in Chrome's toolbar"
    };
}

/// The popup's button that shares the current tab.
macro_rules! share_button {
    () => {
        "\"Share this tab\""
    };
}

/// Where to share a tab, for a parenthesis: "(the tabwire button …, then "Share this
/// tab")".
pub const HOW_TO_SHARE: &str = concat!(toolbar_button!(), ", then ", share_button!());

/// The same as steps for the user: "click the tabwire button … and press "Share this
/// tab"".
pub const SHARE_STEPS: &str = concat!("click ", toolbar_button!(), " and press ", share_button!());

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_wordings_name_the_same_buttons() {
        assert_eq!(
            HOW_TO_SHARE,
            "the tabwire button in Chrome's toolbar, then \"Share this tab\""
        );
        assert_eq!(
            SHARE_STEPS,
            "click the tabwire button in Chrome's toolbar and press \"Share this tab\""
        );
    }
}
