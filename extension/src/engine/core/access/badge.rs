//! How tabwire's toolbar button looks on one tab: the badge's text and colours, and
//! the tooltip.
//!
//! The badge is what tells a user, without opening anything, that the tab in front is
//! in an agent's hands. A tab shared with one agent wears that agent's tab-group colour,
//! so badge and group say the same thing; one shared with several wears tabwire's own
//! colour; a tab an agent is asking for wears a colour used for nothing else, with a
//! `?`. The count of agents is the text. A tab nobody shares has no badge.
//!
//! Only the look is decided here; [`share`](super::share) sets it on the button.

use crate::chrome::Badge;

/// tabwire's own colour (the icon's indigo): a tab shared with several agents.
const TABWIRE: &str = "#3730A3";

/// Amber, for a tab an agent asks to work on (the `?` sets it apart from a yellow
/// group's count).
const ASKING: &str = "#F9AB00";

/// Text on a light badge.
const DARK_TEXT: &str = "#202124";

/// Text on a dark badge.
const LIGHT_TEXT: &str = "#FFFFFF";

/// Chrome's tab-group colours by name (as `chrome.tabGroups` names them), and the text
/// colour that reads on each. The popup's colour dots use the same values.
const GROUP_COLORS: [(&str, &str, &str); 9] = [
    ("grey", "#5F6368", LIGHT_TEXT),
    ("blue", "#1A73E8", LIGHT_TEXT),
    ("red", "#D93025", LIGHT_TEXT),
    ("yellow", "#F9AB00", DARK_TEXT),
    ("green", "#1E8E3E", LIGHT_TEXT),
    ("pink", "#D01884", LIGHT_TEXT),
    ("purple", "#9334E6", LIGHT_TEXT),
    ("cyan", "#007B83", LIGHT_TEXT),
    ("orange", "#FA903E", DARK_TEXT),
];

/// One agent a tab is shared with, as the badge needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sharer {
    /// Its name, for the tooltip.
    pub name: String,
    /// Its tab-group colour name (`blue`, `red`, …).
    pub color: String,
}

/// The badge of a tab shared with `sharers` (none: no badge).
pub fn shared(sharers: &[Sharer]) -> Badge {
    let Some(first) = sharers.first() else {
        return Badge {
            text: String::new(),
            tooltip: "tabwire: this tab is not shared".to_owned(),
            // No text of its own: an agent's request (the button's global "?") shows
            // through, and should look the same here as on every other tab.
            background: ASKING.to_owned(),
            text_color: DARK_TEXT.to_owned(),
        };
    };
    let (background, text_color) = if sharers.len() == 1 {
        group_color(&first.color)
    } else {
        (TABWIRE, LIGHT_TEXT)
    };
    let names: Vec<&str> = sharers.iter().map(|s| s.name.as_str()).collect();
    Badge {
        text: sharers.len().to_string(),
        tooltip: format!("tabwire: shared with {}", names.join(", ")),
        background: background.to_owned(),
        text_color: text_color.to_owned(),
    }
}

/// The button's look while an agent asks for the tab in front (`line` says who and
/// why): on every tab that has no badge of its own.
pub fn asking(line: &str) -> Badge {
    Badge {
        text: "?".to_owned(),
        tooltip: format!("tabwire: {line} (click to answer)"),
        background: ASKING.to_owned(),
        text_color: DARK_TEXT.to_owned(),
    }
}

/// The badge and text colours of the tab-group colour `name` (tabwire's own for a name
/// Chrome does not have).
fn group_color(name: &str) -> (&'static str, &'static str) {
    GROUP_COLORS
        .iter()
        .find(|(known, _, _)| *known == name)
        .map_or((TABWIRE, LIGHT_TEXT), |(_, background, text)| {
            (*background, *text)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sharer(name: &str, color: &str) -> Sharer {
        Sharer {
            name: name.to_owned(),
            color: color.to_owned(),
        }
    }

    #[test]
    fn one_agent_its_group_colour_several_tabwires() {
        let one = shared(&[sharer("claude", "red")]);
        assert_eq!(one.text, "1");
        assert_eq!(
            (one.background.as_str(), one.text_color.as_str()),
            ("#D93025", "#FFFFFF")
        );
        assert_eq!(one.tooltip, "tabwire: shared with claude");
        let light = shared(&[sharer("codex", "yellow")]);
        assert_eq!(light.text_color, DARK_TEXT, "dark text on a light badge");
        let two = shared(&[sharer("claude", "red"), sharer("codex", "yellow")]);
        assert_eq!(two.text, "2");
        assert_eq!(two.background, TABWIRE);
        assert_eq!(two.tooltip, "tabwire: shared with claude, codex");
    }

    #[test]
    fn nobody_no_badge_and_unknown_colours_are_tabwires() {
        assert_eq!(shared(&[]).text, "");
        let odd = shared(&[sharer("x", "mauve")]);
        assert_eq!(odd.background, TABWIRE);
    }

    #[test]
    fn asking_stands_apart_from_every_shared_look() {
        let ask = asking("claude asks to work on the tab in front: why");
        assert_eq!(ask.text, "?");
        assert!(ask.tooltip.contains("claude asks"), "{}", ask.tooltip);
        let unshared = shared(&[]);
        assert_eq!(
            (&unshared.background, &unshared.text_color),
            (&ask.background, &ask.text_color),
            "the request shows through a tab's empty badge in its own colours"
        );
        for (name, _, _) in GROUP_COLORS {
            for sharers in [1, 2] {
                let look = shared(&vec![sharer("a", name); sharers]);
                assert_ne!(
                    (&look.text, &look.background),
                    (&ask.text, &ask.background),
                    "{name}"
                );
            }
        }
    }

    #[test]
    fn every_group_colour_chrome_has_is_known() {
        for name in [
            "grey", "blue", "red", "yellow", "green", "pink", "purple", "cyan", "orange",
        ] {
            assert_ne!(group_color(name).0, TABWIRE, "{name}");
        }
    }
}
