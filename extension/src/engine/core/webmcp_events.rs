//! The page's WebMCP tools as the `WebMCP` domain's events tell them, kept per
//! session as they come (the tab's own and each cross-site frame's), and the domain
//! turned on in a cross-site frame that joins a tab whose own session has it. What
//! the commands do with them is `super::super::webmcp`.

use tabwire_shared::{Event, TabId};

use super::Engine;
use crate::cdp::webmcp::WebMcpEnable;
use crate::cdp::{PageEvent, PageGetFrameTree};
use crate::chrome::Chrome;

impl<C: Chrome + 'static> Engine<C> {
    /// Takes in a page event of the tab's own session; tells the agents when the
    /// tools changed.
    pub(super) fn track_webmcp(&self, tab: TabId, event: &PageEvent) {
        let changed = self
            .tabs
            .update(tab, |t| {
                let state = &mut t.attachment.webmcp;
                state.track(event) && state.enabled
            })
            .unwrap_or(false);
        if changed {
            self.webmcp_changed(tab);
        }
    }

    /// Takes in a page event of a cross-site frame's session; tells the agents when
    /// its tools changed.
    pub(super) fn track_child_webmcp(&self, tab: TabId, session: &str, event: &PageEvent) {
        let changed = self
            .tabs
            .update(tab, |t| {
                let state = &mut t.attachment.children.get_mut(session)?.webmcp;
                Some(state.track(event) && state.enabled)
            })
            .flatten()
            .unwrap_or(false);
        if changed {
            self.webmcp_changed(tab);
        }
    }

    /// Tells the agents the tab's WebMCP tools changed, once until they ask again.
    pub(super) fn webmcp_changed(&self, tab: TabId) {
        let tell = self
            .tabs
            .update(tab, |t| {
                !std::mem::replace(&mut t.attachment.webmcp.announced, true)
            })
            .unwrap_or(false);
        if tell {
            self.post_event(Event::WebMcpChanged { tab_id: tab });
        }
    }

    /// Whether the tab's own session has the WebMCP domain on (a new cross-site frame
    /// then gets it too).
    pub(super) fn webmcp_enabled(&self, tab: TabId) -> bool {
        self.tabs
            .read(tab, |t| t.attachment.webmcp.enabled)
            .unwrap_or(false)
    }

    /// Enables the WebMCP domain in a cross-site frame's session; a failure (the
    /// frame gone, its renderer without the domain) leaves its tools unlisted. The
    /// tools it announces before it answers are news to the agents. The frame's URL,
    /// which its tools are shown with, is read anew: a frame attached while its
    /// `<iframe>` was still blank committed its document before its Page domain was
    /// on to say so.
    pub(super) async fn enable_child_webmcp(&self, tab: TabId, session: &str) {
        let (enabled, tree) = futures::join!(
            self.send_in(tab, Some(session), &WebMcpEnable {}),
            self.send_in(tab, Some(session), &PageGetFrameTree {}),
        );
        if enabled.is_err() {
            return;
        }
        let frame = tree.ok().map(|t| t.frame_tree.frame);
        let announced = self
            .tabs
            .update(tab, |t| {
                let child = t.attachment.children.get_mut(session)?;
                child.webmcp.enabled = true;
                if let Some(frame) = frame.filter(|f| f.id == child.frame_id) {
                    child.url = frame.url;
                }
                Some(!child.webmcp.tools.is_empty())
            })
            .flatten()
            .unwrap_or(false);
        if announced {
            self.webmcp_changed(tab);
        }
    }
}
