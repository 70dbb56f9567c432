//! Which button, if any, has the focus when the popup opens.
//!
//! A focused button is pressed by Enter, and a user who opened the popup for something
//! else (to take a tab back, to disconnect an agent) may press Enter by reflex. So a
//! *Share* button takes the focus only when sharing this tab is the one thing the popup
//! can be for: this tab can be shared with exactly one connected agent, and no tab
//! at all is shared with any agent (there is nothing to take back). In every other
//! case nothing is focused and the user moves with Tab. The popup applies this once,
//! on its first render; later renders keep the focus where the user put it.
//! docs/security.md gives the rule to users.

use super::popup::{AgentView, TargetView};

/// The session whose *Share this tab* button takes the focus when the popup about
/// `target` opens, given every known agent.
pub fn share_to_focus(target: Option<&TargetView>, agents: &[AgentView]) -> Option<String> {
    let target = target?;
    let nothing_to_take_back = agents.iter().all(|a| a.tabs.is_empty());
    match target.can_share_with.as_slice() {
        [only]
            if nothing_to_take_back
                && target.refusal.is_none()
                && target.shared_with.is_empty() =>
        {
            Some(only.session.clone())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::fake::Harness;
    use serde_json::json;

    /// The session whose share button the popup about `tab` focuses on opening.
    fn focused(h: &mut Harness, tab: i64) -> Option<String> {
        let engine = h.engine.clone();
        h.run(async move { engine.popup_state(Some(tab)).await })
            .focus_on_open
    }

    #[test]
    fn one_agent_and_nothing_shared_focuses_its_share_button() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        assert_eq!(focused(&mut h, 10).as_deref(), Some("k1"));
    }

    #[test]
    fn a_tab_shared_anywhere_leaves_the_focus_alone() {
        let mut h = Harness::strict();
        h.hello(1, "k1", "claude");
        h.share("k1", 11);
        // Opened on another tab, maybe to take tab 11 back: Enter must not share 10.
        assert_eq!(focused(&mut h, 10), None);
        assert_eq!(focused(&mut h, 11), None, "this tab is shared already");
        let unshare = json!({"action": "unshare", "session": "k1", "tab": 11});
        assert_eq!(h.popup(unshare), Ok(()));
        assert_eq!(focused(&mut h, 10).as_deref(), Some("k1"));
    }

    #[test]
    fn several_agents_none_or_a_refused_tab_leave_the_focus_alone() {
        let mut h = Harness::strict();
        assert_eq!(focused(&mut h, 10), None, "no agent");
        h.hello(1, "k1", "claude");
        h.fake.set_url(11, "chrome://settings/");
        assert_eq!(focused(&mut h, 11), None, "a browser page");
        h.hello(2, "k2", "codex");
        assert_eq!(focused(&mut h, 10), None, "the user chooses");
    }
}
