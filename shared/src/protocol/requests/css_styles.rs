//! The CSS rules that apply to one element.

use std::time::Duration;

use crate::css::CssStyles;
use crate::protocol::{Request, TabId, PLAIN_CALL};
use serde::{Deserialize, Serialize};

/// The CSS rules that apply to the element a uid names, with the cascade worked out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetCssStyles {
    /// The tab.
    pub tab_id: TabId,
    /// The element's snapshot uid (a text node's uid stands for its parent element).
    pub uid: String,
}

impl Request for GetCssStyles {
    type Reply = CssStyles;
    const RESENDABLE: bool = true;
    const LEAVES_TABS_ALONE: bool = true;
    fn tab(&self) -> Option<TabId> {
        Some(self.tab_id)
    }
    fn timeout(&self) -> Duration {
        PLAIN_CALL
    }
}

/// Its command and reply as they travel, pinned.
impl crate::protocol::Golden for GetCssStyles {
    const COMMANDS: &[&str] = &[
        r#"{"command":"cssStyles","tabId":3,"uid":"1_4"}"#,
    ];
    const REPLIES: &[&str] = &[
        r#"{"element":"p#t","rules":[{"kind":"matched","selector":"a, p","matchingSelectors":["p"],"origin":"author","source":{"url":"https://a.test/","line":3,"column":1,"inline":true,"constructed":true},"wrappers":[{"kind":"layer","text":"base"},{"kind":"startingStyle","text":""}],"inheritedFrom":{"selector":"div","depth":1},"pseudo":"::before","declarations":[{"name":"color","value":"red","important":true,"status":"overridden"}]},{"kind":"inline","selector":"element.style","origin":"userAgent","declarations":[{"name":"x","value":"","status":"invalid"}]}]}"#,
    ];
}
