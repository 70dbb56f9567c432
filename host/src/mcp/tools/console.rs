//! Debugging: the console messages, exceptions and browser issues a page produced.

use crate::mcp::output;
use schemars::JsonSchema;
use serde::Deserialize;
use tabwire_shared::requests::{self, ListConsole};
use tabwire_shared::{CONSOLE_BYTES_KEPT, CONSOLE_MESSAGES_KEPT};

use crate::mcp::context::ToolContext;
use crate::mcp::output::console::{check_types, detail, listing, page_idx, page_size};
use crate::mcp::paginate::{fitted_note, fitted_page_size, tell_dropped};
use crate::mcp::response::{Response, Section};
use crate::mcp::tool::{Category, ErasedTool, Registered, Tool, ToolSpec};
use crate::mcp::ToolError;

/// Arguments of `list_console_messages`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListConsoleParams {
    /// Only these message types (log, info, warn, error, debug, exception, issue, ...).
    #[serde(default)]
    types: Vec<String>,
    /// Messages per page (default 50).
    page_size: Option<usize>,
    /// Which page, from 0 (the oldest messages); default: the newest page.
    page_idx: Option<usize>,
    /// Also show messages from the last 2 navigations before the current one.
    #[serde(default)]
    include_preserved_messages: bool,
}

/// `list_console_messages`
pub struct ListConsoleMessages;

impl Tool for ListConsoleMessages {
    type Params = ListConsoleParams;
    const QUEUES_ON_PAGE: bool = false;
    const SPEC: ToolSpec = ToolSpec {
        name: "list_console_messages",
        description: "Lists the console messages, uncaught exceptions and browser-reported issues \
            of the selected page since tabwire first attached to it, with consecutive repeats \
            folded, and always says how many errors and exceptions there are in all (whatever \
            the types filter and page). Paginated: without pageIdx it shows the newest page, \
            oldest message first; pages count from 0 (the oldest) and the newest page is \
            full, so pass a smaller pageIdx for older messages. get_console_message shows one \
            in full.",
        category: Category::Debugging,
        read_only: true,
        page_scoped: true,
        blocked_by_dialog: false,
    };

    async fn run(
        &self,
        ctx: &ToolContext,
        p: ListConsoleParams,
        response: &mut Response,
    ) -> Result<(), ToolError> {
        let types = check_types(&p.types)?;
        let tab = ctx.page()?;
        let ask = |size: Option<usize>| ListConsole {
            tab_id: tab,
            include_preserved: p.include_preserved_messages,
            types: types.clone(),
            page_size: page_size(size),
            page_idx: page_idx(p.page_idx),
        };
        let mut page = ctx.read(ask(p.page_size)).await?;
        let mut list = listing(&page);
        let chars = list.lines.iter().map(|l| l.chars().count() + 1).sum();
        if let Some(size) = fitted_page_size(p.page_size, chars, ctx.result_chars()) {
            page = ctx.read(ask(Some(size))).await?;
            list = listing(&page);
            list.lines.push(fitted_note(size));
        }
        let bounds = ("messages", CONSOLE_MESSAGES_KEPT, CONSOLE_BYTES_KEPT);
        tell_dropped(page.dropped, bounds, &mut list.lines, &mut list.data);
        response.add_section(Section {
            title: "Console messages",
            lines: list.lines,
            data: list.data,
        });
        Ok(())
    }
}

/// Arguments of `get_console_message`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct GetConsoleParams {
    /// The message's msgid from list_console_messages.
    msgid: u64,
}

/// `get_console_message`
pub struct GetConsoleMessage;

impl Tool for GetConsoleMessage {
    type Params = GetConsoleParams;
    const QUEUES_ON_PAGE: bool = false;
    const SPEC: ToolSpec = ToolSpec {
        name: "get_console_message",
        description: "Shows one console message in full: its text, arguments and stack trace.",
        category: Category::Debugging,
        read_only: true,
        page_scoped: true,
        blocked_by_dialog: false,
    };

    async fn run(
        &self,
        ctx: &ToolContext,
        p: GetConsoleParams,
        response: &mut Response,
    ) -> Result<(), ToolError> {
        let message = ctx
            .request(requests::GetConsoleMessage {
                tab_id: ctx.page()?,
                id: p.msgid,
            })
            .await?;
        response.add_section(Section {
            title: "Console message",
            lines: detail(&message),
            data: output::entries(&output::console::Keys {
                console_message: Some(&message),
                ..Default::default()
            }),
        });
        Ok(())
    }
}

/// This group's tools, for the registry.
pub fn tools() -> Vec<Box<dyn ErasedTool>> {
    vec![
        Box::new(Registered::new(ListConsoleMessages)),
        Box::new(Registered::new(GetConsoleMessage)),
    ]
}
