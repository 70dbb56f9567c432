//! Responses: handlers state intent, one renderer writes.
//!
//! A handler sets markers on a [`Response`] (a line of text, "include the page list",
//! "here is the script's result"). [`render`] then fetches only what was asked for and
//! writes the sections in one fixed order. Each section writes its text and its
//! `structuredContent` entry in the same call, so the two cannot disagree.

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{json, Map, Value};
use tabwire_shared::{DialogInfo, TabId, TabInfo};

use super::context::ToolContext;
use super::ToolError;

/// What a handler wants the agent to get back.
#[derive(Debug, Default)]
pub struct Response {
    lines: Vec<String>,
    include_pages: bool,
    script_result: Option<Value>,
}

impl Response {
    /// Adds a line of plain text to the response's message.
    pub fn line(&mut self, text: impl Into<String>) {
        self.lines.push(text.into());
    }

    /// Asks for the list of open pages to be included.
    pub fn include_pages(&mut self) {
        self.include_pages = true;
    }

    /// Sets the JSON value a script produced.
    pub fn set_script_result(&mut self, value: Value) {
        self.script_result = Some(value);
    }
}

/// Text and structured output written side by side.
struct Sections {
    text: String,
    data: Map<String, Value>,
}

impl Sections {
    fn new(tool: &str) -> Self {
        Self {
            text: format!("# {tool} response\n"),
            data: Map::new(),
        }
    }

    fn heading(&mut self, title: &str) {
        self.text.push_str(&format!("## {title}\n"));
    }

    fn message(&mut self, lines: &[String]) {
        if lines.is_empty() {
            return;
        }
        for line in lines {
            self.text.push_str(line);
            self.text.push('\n');
        }
        self.data.insert("message".into(), json!(lines.join("\n")));
    }

    fn error(&mut self, error: &ToolError) {
        self.heading("Error");
        self.text.push_str(&error.message);
        self.text.push('\n');
        self.data.insert("error".into(), json!(error.message));
    }

    fn script_result(&mut self, value: &Value) {
        self.heading("Script result");
        let pretty = serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string());
        self.text.push_str(&format!("```json\n{pretty}\n```\n"));
        self.data.insert("result".into(), value.clone());
    }

    fn dialog(&mut self, page: TabId, dialog: &DialogInfo) {
        self.heading("Open dialog");
        self.text.push_str(&format!(
            "Page {page} shows a {} dialog: {:?}.",
            dialog.kind, dialog.message
        ));
        if let Some(default) = &dialog.default_prompt {
            self.text
                .push_str(&format!(" Default answer: {default:?}."));
        }
        self.text.push_str(
            " It blocks the page's scripts: call handle_dialog to accept or dismiss it.\n",
        );
        self.data.insert(
            "dialog".into(),
            json!({"pageId": page, "type": dialog.kind, "message": dialog.message,
                   "defaultPrompt": dialog.default_prompt}),
        );
    }

    fn pages(&mut self, pages: &[TabInfo], selected: Option<TabId>) {
        self.heading("Pages");
        let mut list = Vec::with_capacity(pages.len());
        for page in pages {
            let mut marks = String::new();
            if Some(page.id) == selected {
                marks.push_str(" [selected]");
            }
            if page.user_active {
                marks.push_str(" [user's active tab]");
            }
            let title = if page.title.is_empty() {
                "(no title)"
            } else {
                &page.title
            };
            self.text
                .push_str(&format!("{}: {title} <{}>{marks}\n", page.id, page.url));
            list.push(json!({
                "pageId": page.id, "url": page.url, "title": page.title,
                "selected": Some(page.id) == selected, "userActive": page.user_active,
            }));
        }
        if pages.is_empty() {
            self.text.push_str("No open pages.\n");
        }
        self.data.insert("pages".into(), Value::Array(list));
    }

    fn finish(self, is_error: bool) -> CallToolResult {
        let mut result = if is_error {
            CallToolResult::error(vec![ContentBlock::text(self.text)])
        } else {
            CallToolResult::success(vec![ContentBlock::text(self.text)])
        };
        result.structured_content = Some(Value::Object(self.data));
        result
    }
}

/// Writes the agent's answer: what the handler asked for, and the error if it failed.
///
/// A failed handler still gets its page context rendered: the agent sees the error
/// *and* the state it has to deal with.
pub async fn render(
    tool: &str,
    response: Response,
    error: Option<ToolError>,
    ctx: &ToolContext,
) -> CallToolResult {
    let mut out = Sections::new(tool);
    let mut error = error;

    // What was asked for and could not be fetched is an error too, unless the handler
    // already failed (its error is the one the agent needs).
    let pages = if response.include_pages {
        match ctx.list_tabs().await {
            Ok(pages) => Some(pages),
            Err(e) => {
                error.get_or_insert(e);
                None
            }
        }
    } else {
        None
    };

    out.message(&response.lines);
    if let Some(error) = &error {
        out.error(error);
    }
    if let Some(value) = &response.script_result {
        out.script_result(value);
    }
    let page = ctx.page.or_else(|| ctx.session.selected());
    if let Some(page) = page {
        if let Some(dialog) = ctx.session.dialog(page) {
            out.dialog(page, &dialog);
        }
    }
    if let Some(pages) = &pages {
        out.pages(pages, ctx.session.selected());
    }
    out.finish(error.is_some())
}
