//! Navigation: listing, selecting, opening, navigating and closing pages.

use schemars::JsonSchema;
use serde::Deserialize;
use tabwire_shared::requests::{RequestTab, TabRequestAnswer};
use tabwire_shared::{ActivateTab, CloseTab, Navigate, Navigation, NewTab, TabId, WaitForText};

use super::{NoParams, Timeout};
use crate::mcp::context::ToolContext;
use crate::mcp::response::Response;
use crate::mcp::tool::{Category, ErasedTool, Registered, Tool, ToolSpec};
use crate::mcp::ToolError;

/// `list_pages`
pub struct ListPages;

impl Tool for ListPages {
    type Params = NoParams;
    const SPEC: ToolSpec = ToolSpec {
        name: "list_pages",
        description: "Lists the pages (tabs) open in the browser, with their pageId, title and \
            URL. Marks the page selected for page tools and the tab the user is looking at. \
            With third-party developer tools on, also lists the selected page's tools (as \
            found in its current document; list_3p_developer_tools asks the page again).",
        category: Category::Navigation,
        read_only: true,
        page_scoped: false,
        blocked_by_dialog: false,
    };

    async fn run(
        &self,
        ctx: &ToolContext,
        _: NoParams,
        response: &mut Response,
    ) -> Result<(), ToolError> {
        response.include_pages();
        // A discovery made since anything may have changed the page finds what asking
        // again would: it is shown as it is, without a trip to the page.
        match ctx.current_discovery().await {
            Some(discovery) => response.set_third_party_tools(discovery),
            None => response.include_third_party_tools(),
        }
        Ok(())
    }
}

/// Arguments of `select_page`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SelectPageParams {
    /// The page to select, a pageId from list_pages.
    page_id: TabId,
    /// Also bring the page to the front of its window (the user will see it).
    #[serde(default)]
    bring_to_front: bool,
}

/// `select_page`
pub struct SelectPage;

impl Tool for SelectPage {
    type Params = SelectPageParams;
    const SPEC: ToolSpec = ToolSpec {
        name: "select_page",
        description: "Selects the page that page tools act on from now on.",
        category: Category::Navigation,
        read_only: true,
        page_scoped: false,
        blocked_by_dialog: false,
    };

    async fn run(
        &self,
        ctx: &ToolContext,
        params: SelectPageParams,
        response: &mut Response,
    ) -> Result<(), ToolError> {
        let tabs = ctx.list_tabs().await?;
        if !tabs.iter().any(|t| t.id == params.page_id) {
            let ids: Vec<String> = tabs.iter().map(|t| t.id.to_string()).collect();
            return Err(ToolError::new(format!(
                "No page with id {}. Open pages: {}. Call list_pages for details.",
                params.page_id,
                ids.join(", ")
            )));
        }
        if params.bring_to_front {
            ctx.request(ActivateTab {
                tab_id: params.page_id,
            })
            .await?;
        }
        ctx.select(params.page_id);
        response.line(format!("Selected page {}.", params.page_id));
        response.include_pages();
        response.include_third_party_tools();
        Ok(())
    }
}

/// Arguments of `new_page`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NewPageParams {
    /// The URL to open.
    url: String,
    /// Open the page without switching the user's view to it. Default: in the
    /// background in the user's own browser (they keep working in their tab), in front
    /// in a browser tabwire launched for the agent.
    background: Option<bool>,
    /// How long to wait for the page to load, in milliseconds (default 30000, also when 0 is given; at most 600000, ten
    /// minutes: a larger value is refused).
    timeout: Option<Timeout>,
}

/// `new_page`
pub struct NewPage;

impl Tool for NewPage {
    type Params = NewPageParams;
    const SPEC: ToolSpec = ToolSpec {
        name: "new_page",
        description: "Opens a new page (tab) at a URL, waits for it to load and selects it. \
            Browser pages (chrome:, devtools:, view-source:, extension pages, about: other \
            than about:blank) are refused, and no page is opened for them.",
        category: Category::Navigation,
        read_only: false,
        page_scoped: false,
        blocked_by_dialog: false,
    };

    async fn run(
        &self,
        ctx: &ToolContext,
        params: NewPageParams,
        response: &mut Response,
    ) -> Result<(), ToolError> {
        ctx.settings().restrictions.check_navigation(&params.url)?;
        let tab = ctx
            .request(NewTab {
                url: params.url,
                background: params.background,
                timeout_ms: Timeout::ms(params.timeout),
            })
            .await?;
        ctx.select(tab.id);
        response.line(format!("Opened page {} at {}.", tab.id, tab.url));
        response.include_pages();
        response.include_third_party_tools();
        Ok(())
    }
}

/// How long `request_page` waits for the user by default: less than the 60 s some
/// agent clients allow a tool call.
const REQUEST_WAIT_MS: u64 = 50_000;

/// Arguments of `request_page`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RequestPageParams {
    /// Why you need the tab, in a short sentence the user reads (e.g. "to check why the
    /// cart total is wrong").
    reason: String,
    /// How long to wait for the user's answer, in milliseconds (default 50000, also when 0 is given; at most
    /// 600000, ten minutes: a larger value is refused).
    timeout: Option<Timeout>,
}

/// `request_page`
pub struct RequestPage;

impl Tool for RequestPage {
    type Params = RequestPageParams;
    const SPEC: ToolSpec = ToolSpec {
        name: "request_page",
        description: "Asks the user to share the tab they are looking at with you, giving \
            your reason: tabwire's toolbar button and a notification show the request, and \
            the user answers Share or Not now in its popup. Waits for the answer (up to \
            `timeout`) and, when shared, selects the page and lists the pages. Use it when no \
            page is shared with you, or you need another one. No tab is shared without the \
            user's click.",
        category: Category::Navigation,
        read_only: true,
        page_scoped: false,
        blocked_by_dialog: false,
    };

    async fn run(
        &self,
        ctx: &ToolContext,
        params: RequestPageParams,
        response: &mut Response,
    ) -> Result<(), ToolError> {
        let timeout_ms = Timeout::ms_or(params.timeout, REQUEST_WAIT_MS);
        let answer = ctx
            .request(RequestTab {
                reason: params.reason,
                timeout_ms,
            })
            .await?;
        match answer {
            TabRequestAnswer::Shared { tab } => {
                ctx.select(tab.id);
                response.line(format!(
                    "The user shared page {} ({}) with you; it is selected.",
                    tab.id, tab.url
                ));
                response.include_pages();
                response.include_third_party_tools();
                Ok(())
            }
            TabRequestAnswer::Declined => Err(ToolError::new(
                "The user declined to share a tab (they pressed \"Not now\"). Do not ask again \
                 at once: tell the user what you need the page for, or open a page of your own \
                 with new_page.",
            )),
            TabRequestAnswer::Unanswered => Err(ToolError::new(format!(
                "No answer from the user within {} s: the request is withdrawn and nothing \
                 was shared. Tell the user you are waiting for a tab (tabwire's toolbar \
                 button), then call request_page again, with a longer timeout if they need \
                 one.",
                timeout_ms / 1000
            ))),
        }
    }
}

/// How `navigate_page` moves.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum NavigationType {
    /// Go to `url`.
    Url,
    /// One step back in history.
    Back,
    /// One step forward in history.
    Forward,
    /// Reload the page.
    Reload,
}

impl NavigationType {
    /// The name the agent uses for it.
    fn as_str(self) -> &'static str {
        match self {
            NavigationType::Url => "url",
            NavigationType::Back => "back",
            NavigationType::Forward => "forward",
            NavigationType::Reload => "reload",
        }
    }
}

/// Arguments of `navigate_page`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NavigatePageParams {
    /// `url` (the default when a url is given), `back`, `forward` or `reload`.
    #[serde(rename = "type")]
    kind: Option<NavigationType>,
    /// Where to go, for type `url`.
    url: Option<String>,
    /// For `reload`: bypass the cache.
    #[serde(default)]
    ignore_cache: bool,
    /// How long to wait for the load, in milliseconds (default 30000, also when 0 is given; at most 600000, ten
    /// minutes: a larger value is refused).
    timeout: Option<Timeout>,
}

/// `navigate_page`
pub struct NavigatePage;

impl Tool for NavigatePage {
    type Params = NavigatePageParams;
    const SPEC: ToolSpec = ToolSpec {
        name: "navigate_page",
        description: "Navigates the selected page to a URL, back, forward, or reloads it, and \
            waits for the load. Browser pages (chrome:, devtools:, view-source:, extension \
            pages, about: other than about:blank) are refused and the page stays where it \
            was. A page whose renderer crashed comes back with type reload.",
        category: Category::Navigation,
        read_only: false,
        page_scoped: true,
        blocked_by_dialog: true,
    };

    async fn run(
        &self,
        ctx: &ToolContext,
        params: NavigatePageParams,
        response: &mut Response,
    ) -> Result<(), ToolError> {
        let tab_id = ctx.page()?;
        let kind = params.kind.unwrap_or(if params.url.is_some() {
            NavigationType::Url
        } else {
            NavigationType::Reload
        });
        let to = match (kind, params.url) {
            (NavigationType::Url, Some(url)) => {
                ctx.settings().restrictions.check_navigation(&url)?;
                Navigation::Url { url }
            }
            (NavigationType::Url, None) => {
                return Err(ToolError::new(
                    "navigate_page with type `url` needs a `url` argument.",
                ))
            }
            (other, Some(_)) => {
                return Err(ToolError::new(format!(
                    "`url` only applies to type `url`, not `{}`. Drop it, or set type to `url`.",
                    other.as_str()
                )))
            }
            (NavigationType::Back, None) => Navigation::Back,
            (NavigationType::Forward, None) => Navigation::Forward,
            (NavigationType::Reload, None) => Navigation::Reload {
                ignore_cache: params.ignore_cache,
            },
        };
        let tab = ctx
            .request(Navigate {
                tab_id,
                to,
                timeout_ms: Timeout::ms(params.timeout),
            })
            .await?;
        response.line(format!("Page {} is now at {}.", tab.id, tab.url));
        response.include_pages();
        response.include_third_party_tools();
        Ok(())
    }
}

/// Arguments of `close_page`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClosePageParams {
    /// The page to close, a pageId from list_pages. The last open page cannot be closed.
    page_id: TabId,
}

/// `close_page`
pub struct ClosePage;

impl Tool for ClosePage {
    type Params = ClosePageParams;
    const SPEC: ToolSpec = ToolSpec {
        name: "close_page",
        description: "Closes a page by its pageId, at once: a call still running on it is \
            stopped and reports that the page closed. The last open page cannot be closed.",
        category: Category::Navigation,
        read_only: false,
        page_scoped: false,
        blocked_by_dialog: false,
    };

    async fn run(
        &self,
        ctx: &ToolContext,
        params: ClosePageParams,
        response: &mut Response,
    ) -> Result<(), ToolError> {
        // Not behind the page's lock: closing stops a call running on the page (which
        // then says the page closed) instead of waiting for it.
        ctx.request(CloseTab {
            tab_id: params.page_id,
        })
        .await?;
        ctx.closed_by_agent(params.page_id);
        response.line(format!("Closed page {}.", params.page_id));
        response.include_pages();
        response.include_third_party_tools();
        Ok(())
    }
}

/// One text or several.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Texts {
    /// One text.
    One(String),
    /// Several texts; the first to appear wins.
    Many(Vec<String>),
}

/// Arguments of `wait_for`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WaitForParams {
    /// The text to wait for, or a list of texts (resolves when any of them appears).
    text: Texts,
    /// How long to wait, in milliseconds (default 30000, also when 0 is given; at most 600000, ten
    /// minutes: a larger value is refused).
    timeout: Option<Timeout>,
}

/// `wait_for`
pub struct WaitFor;

impl Tool for WaitFor {
    type Params = WaitForParams;
    const SPEC: ToolSpec = ToolSpec {
        name: "wait_for",
        description: "Waits until a text (or any of several texts) appears on the selected page.",
        category: Category::Navigation,
        read_only: true,
        page_scoped: true,
        blocked_by_dialog: true,
    };

    async fn run(
        &self,
        ctx: &ToolContext,
        p: WaitForParams,
        response: &mut Response,
    ) -> Result<(), ToolError> {
        let texts = match p.text {
            Texts::One(text) => vec![text],
            Texts::Many(texts) => texts,
        };
        if texts.is_empty() || texts.iter().any(|t| t.trim().is_empty()) {
            return Err(ToolError::new(
                "Give at least one non-empty text to wait for.",
            ));
        }
        let text = ctx
            .request(WaitForText {
                tab_id: ctx.page()?,
                texts,
                timeout_ms: Timeout::ms(p.timeout),
            })
            .await?;
        response.line(format!("Found {text:?} on the page."));
        Ok(())
    }
}

/// This group's tools, for the registry.
pub fn tools() -> Vec<Box<dyn ErasedTool>> {
    vec![
        Box::new(Registered::new(ListPages)),
        Box::new(Registered::new(SelectPage)),
        Box::new(Registered::new(NewPage)),
        Box::new(Registered::new(RequestPage)),
        Box::new(Registered::new(NavigatePage)),
        Box::new(Registered::new(ClosePage)),
        Box::new(Registered::new(WaitFor)),
    ]
}
