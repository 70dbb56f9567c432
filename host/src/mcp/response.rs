//! Responses: handlers state intent, one renderer writes.
//!
//! A handler sets markers on a [`Response`] (a line of text, "include the page list",
//! "include a snapshot", "here is the script's result"). [`render`] then fetches only
//! what was asked for and writes the sections in one fixed order: message, error,
//! results, open dialog, pages, third-party tools, snapshot. Each section writes its text
//! and its `structuredContent` entries in the same call, so the two cannot disagree:
//! the structured form carries everything the text does (some clients show the model
//! only one of them). `structuredContent` is sent only when the agent started tabwire
//! with `--experimentalStructuredContent`. Large results are spilled to files here,
//! once for every tool, with one limit ([`spill::INLINE_LIMIT`]).

use std::path::PathBuf;
use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{json, Map, Value};
use tabwire_shared::{DialogInfo, Discovery, Emulation, Snapshot, TabId, TabInfo};

use super::context::ToolContext;
use super::{snapshot, spill, structured, third_party, ToolError};

/// How a snapshot is wanted.
#[derive(Debug, Clone, Default)]
pub struct SnapshotRequest {
    /// Every node, not only the interesting ones.
    pub verbose: bool,
    /// Write it to this file and say only where it is.
    pub file_path: Option<PathBuf>,
}

/// A value a tool produced, and the element uids in it.
#[derive(Debug, Clone)]
pub struct ToolOutput {
    /// The section it goes under (`Script result`, `Tool result`).
    pub title: &'static str,
    /// The JSON value.
    pub value: Value,
}

/// A section a handler composed itself (a console list, a request's details).
#[derive(Debug, Clone)]
pub struct Section {
    /// The heading.
    pub title: &'static str,
    /// Its lines of text.
    pub lines: Vec<String>,
    /// Its `structuredContent` entries, made from the same data as `lines`.
    pub data: Map<String, Value>,
}

impl Section {
    /// `structuredContent` entries holding one `key`.
    pub fn entry(key: &str, value: Value) -> Map<String, Value> {
        let mut data = Map::new();
        data.insert(key.into(), value);
        data
    }
}

/// An image to return.
#[derive(Debug, Clone)]
pub struct Image {
    /// Base64 data.
    pub data: String,
    /// MIME type.
    pub mime_type: String,
    /// Where to save it instead of returning it inline.
    pub file_path: Option<PathBuf>,
}

/// Inline images larger than this (decoded) are saved to a temporary file instead.
pub const INLINE_IMAGE_LIMIT: usize = 2 * 1024 * 1024;

/// What a handler wants the agent to get back.
#[derive(Debug, Default)]
pub struct Response {
    lines: Vec<String>,
    include_pages: bool,
    outputs: Vec<ToolOutput>,
    sections: Vec<Section>,
    image: Option<Image>,
    snapshot: Option<SnapshotRequest>,
    third_party: ThirdParty,
}

/// Whether and how third-party tools are listed.
#[derive(Debug, Default)]
enum ThirdParty {
    #[default]
    No,
    /// Discover on the selected page while rendering; a failure is a note, not an error.
    BestEffort,
    /// Show this discovery (already made by the handler).
    Found(Arc<Discovery>),
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

    /// Adds a JSON value the tool produced, under `title`.
    pub fn add_output(&mut self, title: &'static str, value: Value) {
        self.outputs.push(ToolOutput { title, value });
    }

    /// Adds a section the handler composed.
    pub fn add_section(&mut self, section: Section) {
        self.sections.push(section);
    }

    /// Attaches an image (inline, or saved to a file when asked or when large).
    pub fn attach_image(&mut self, image: Image) {
        self.image = Some(image);
    }

    /// Asks for an accessibility snapshot of the page.
    pub fn include_snapshot(&mut self, request: SnapshotRequest) {
        self.snapshot = Some(request);
    }

    /// Asks for the selected page's third-party tools, when that category is on.
    pub fn include_third_party_tools(&mut self) {
        if matches!(self.third_party, ThirdParty::No) {
            self.third_party = ThirdParty::BestEffort;
        }
    }

    /// Shows a discovery the handler made itself.
    pub fn set_third_party_tools(&mut self, discovery: Arc<Discovery>) {
        self.third_party = ThirdParty::Found(discovery);
    }
}

/// Text and structured output written side by side.
struct Sections {
    text: String,
    data: Map<String, Value>,
    /// The agent asked for `structuredContent`.
    structured: bool,
    /// A section failed to write (see [`Sections::late_error`]).
    failed_late: bool,
}

impl Sections {
    fn new(tool: &str, structured: bool) -> Self {
        Self {
            text: format!("# {tool} response\n"),
            data: Map::new(),
            structured,
            failed_late: false,
        }
    }

    fn heading(&mut self, title: &str) {
        self.text.push_str("## ");
        self.text.push_str(title);
        self.text.push('\n');
    }

    fn line(&mut self, line: &str) {
        self.text.push_str(line);
        self.text.push('\n');
    }

    fn message(&mut self, lines: &[String]) {
        if lines.is_empty() {
            return;
        }
        for line in lines {
            self.line(line);
        }
        self.data.insert("message".into(), json!(lines.join("\n")));
    }

    fn error(&mut self, error: &ToolError) {
        self.heading("Error");
        self.line(&error.message);
        self.data
            .insert("errorMessage".into(), json!(error.message));
    }

    fn output(&mut self, output: &ToolOutput, key: &str) {
        self.heading(output.title);
        let pretty = serde_json::to_string_pretty(&output.value)
            .unwrap_or_else(|_| output.value.to_string());
        if pretty.chars().count() <= spill::INLINE_LIMIT {
            self.text.push_str(&format!("```json\n{pretty}\n```\n"));
            self.data.insert(key.into(), output.value.clone());
            return;
        }
        match spill::to_private_file(key, "json", pretty.as_bytes()) {
            Ok(path) => {
                let preview = spill::preview(&pretty, Some(&output.value));
                self.line(&format!(
                    "The result is too long to show here ({} characters at most); it was saved \
                     to {}. Read that file for the details. {preview}",
                    spill::INLINE_LIMIT,
                    path.display()
                ));
                self.data.insert(
                    format!("{key}File"),
                    json!({"filePath": path, "preview": preview}),
                );
            }
            Err(e) => self.late_error(&e),
        }
    }

    /// A failure while writing a section (a file that could not be saved): said where
    /// it happened, added to `errorMessage`, and the result marked as an error.
    fn late_error(&mut self, error: &ToolError) {
        self.line(&error.message);
        let message = match self.data.get("errorMessage").and_then(Value::as_str) {
            Some(earlier) => format!("{earlier}\n{}", error.message),
            None => error.message.clone(),
        };
        self.data.insert("errorMessage".into(), json!(message));
        self.failed_late = true;
    }

    fn section(&mut self, section: &Section) {
        self.heading(section.title);
        for line in &section.lines {
            self.line(line);
        }
        self.data.extend(section.data.clone());
    }

    fn emulation(&mut self, page: TabId, emulation: &Emulation) {
        self.heading("Emulation");
        let described = describe_emulation(emulation);
        self.line(&format!(
            "Page {page} emulates: {}. Call emulate to change or clear it.",
            described.join("; ")
        ));
        self.data.insert(
            "emulation".into(),
            serde_json::to_value(emulation).unwrap_or(Value::Null),
        );
    }

    /// Returns the image content block to add, if the image goes inline.
    ///
    /// With structured output on, an inline image is saved to a private file as well:
    /// some clients drop image content when `structuredContent` is present, and a
    /// path the agent can open beats a byte count.
    fn image(&mut self, image: &Image) -> Result<Option<ContentBlock>, ToolError> {
        let bytes = spill::base64_decode(&image.data).unwrap_or_default();
        let extension = image.mime_type.rsplit('/').next().unwrap_or("img");
        let inline = image.file_path.is_none() && bytes.len() <= INLINE_IMAGE_LIMIT;
        let saved = match &image.file_path {
            Some(path) => {
                spill::write_bytes(path, &bytes)?;
                Some(path.clone())
            }
            None if !inline => Some(spill::to_private_file("screenshot", extension, &bytes)?),
            // The copy for clients that drop images: the image goes inline even if the
            // copy cannot be made.
            None if self.structured => spill::to_private_file("screenshot", extension, &bytes).ok(),
            None => None,
        };
        let mut data = json!({"mimeType": image.mime_type, "bytes": bytes.len()});
        let mut line = format!("The image ({} bytes, {})", bytes.len(), image.mime_type);
        if inline {
            line.push_str(" is attached");
            data["attached"] = json!(true);
        }
        if let Some(path) = &saved {
            line.push_str(if inline { " and" } else { "" });
            line.push_str(&format!(" was saved to {}", path.display()));
            data["filePath"] = json!(path);
        }
        line.push('.');
        self.line(&line);
        self.data.insert("image".into(), data);
        Ok(inline.then(|| ContentBlock::image(image.data.clone(), image.mime_type.clone())))
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
        self.line(" It blocks the page's scripts: call handle_dialog to accept or dismiss it.");
        self.data.insert(
            "dialog".into(),
            json!({"pageId": page, "type": dialog.kind, "message": dialog.message,
                   "defaultValue": dialog.default_prompt}),
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
            if page.crashed {
                marks.push_str(" [renderer crashed: reload it with navigate_page {type: reload}]");
            }
            let title = if page.title.is_empty() {
                "(no title)"
            } else {
                &page.title
            };
            self.line(&format!("{}: {title} <{}>{marks}", page.id, page.url));
            list.push(structured::page_entry(page, Some(page.id) == selected));
        }
        if pages.is_empty() {
            self.line(super::context::NO_PAGE);
        }
        self.data.insert("pages".into(), Value::Array(list));
    }

    fn third_party_tools(&mut self, page: TabId, discovery: &Discovery, compact: bool) {
        self.heading(third_party::SECTION_TITLE);
        if discovery.refused {
            self.third_party_note(&third_party::refusal(discovery));
            return;
        }
        if discovery.groups.is_empty() && discovery.problems.is_empty() {
            self.data
                .insert("thirdPartyDeveloperTools".into(), json!([]));
            self.third_party_note(&no_tools(page, discovery));
            return;
        }
        let count: usize = discovery.groups.iter().map(|g| g.tools.len()).sum();
        if compact && count > COMPACT_ABOVE {
            return self.third_party_names(page, discovery, count);
        }
        let groups = serde_json::to_value(&discovery.groups).unwrap_or(Value::Null);
        let list = third_party_list(page, discovery);
        let longest = list.chars().count().max(groups.to_string().chars().count());
        if longest <= spill::INLINE_LIMIT {
            self.text.push_str(&list);
            if discovery.groups.is_empty() {
                self.data.insert(
                    "thirdPartyDeveloperToolsNote".into(),
                    json!(no_tools(page, discovery)),
                );
            }
            self.data.insert("thirdPartyDeveloperTools".into(), groups);
            if !discovery.problems.is_empty() {
                self.data
                    .insert("thirdPartyToolProblems".into(), json!(discovery.problems));
            }
            return;
        }
        // A page offering more than a reply can hold: the list goes to a file.
        match spill::to_private_file("third-party-tools", "txt", list.as_bytes()) {
            Ok(path) => {
                let preview = spill::preview(&list, None);
                self.line(&format!(
                    "Page {page} ({}) offers tools whose descriptions are too long to show \
                     here ({} characters at most); the list was saved to {}. Read it for \
                     their names and input schemas. {preview}",
                    discovery.url,
                    spill::INLINE_LIMIT,
                    path.display()
                ));
                self.data.insert(
                    "thirdPartyDeveloperToolsFile".into(),
                    json!({"filePath": path, "preview": preview}),
                );
            }
            Err(e) => self.late_error(&e),
        }
    }

    /// A line about third-party tools that is not a list of them.
    fn third_party_note(&mut self, note: &str) {
        self.line(note);
        self.data
            .insert("thirdPartyDeveloperToolsNote".into(), json!(note));
    }

    fn snapshot(
        &mut self,
        page: TabId,
        snapshot: &Snapshot,
        request: &SnapshotRequest,
    ) -> Result<(), ToolError> {
        let text = snapshot::format(snapshot);
        self.heading("Page snapshot");
        let nodes = snapshot.nodes.len();
        if let Some(path) = &request.file_path {
            spill::write_file(path, &text)?;
            self.line(&format!(
                "Snapshot of page {page} ({nodes} nodes) saved to {}.",
                path.display()
            ));
            self.data.insert("snapshotFilePath".into(), json!(path));
            return Ok(());
        }
        // Structured output carries the tree as JSON, longer than the text: the limit
        // holds for whichever form a client shows.
        let tree = self.structured.then(|| structured::snapshot_tree(snapshot));
        let longest = tree
            .as_ref()
            .map_or(0, |tree| tree.to_string().chars().count())
            .max(text.chars().count());
        if longest > spill::INLINE_LIMIT {
            let path = spill::to_private_file("snapshot", "txt", text.as_bytes())?;
            let preview = spill::preview(&text, None);
            self.line(&format!(
                "The snapshot of page {page} ({nodes} nodes) is too long to show here ({} \
                 characters at most); it was saved to {}. Read that file for the uids, or \
                 look for what you need with evaluate_script. {}\n{preview}",
                spill::INLINE_LIMIT,
                path.display(),
                snapshot::LEGEND,
            ));
            self.data.insert("snapshotFilePath".into(), json!(path));
            self.data.insert("snapshotPreview".into(), json!(preview));
        } else {
            self.line(snapshot::LEGEND);
            self.text.push_str(&text);
            if let Some(tree) = tree.filter(|tree| !tree.is_null()) {
                self.data.insert("snapshot".into(), tree);
            }
        }
        Ok(())
    }

    fn finish(self, is_error: bool, image: Option<ContentBlock>) -> CallToolResult {
        let mut content = vec![ContentBlock::text(self.text)];
        content.extend(image);
        let mut result = if is_error || self.failed_late {
            CallToolResult::error(content)
        } else {
            CallToolResult::success(content)
        };
        if self.structured {
            result.structured_content = Some(Value::Object(self.data));
        }
        result
    }
}

/// What a page that offers no valid tool is said to expose.
/// Past this many tools, a listing that comes with another tool's reply shows names
/// only: their descriptions and schemas are one `list_3p_developer_tools` away.
pub const COMPACT_ABOVE: usize = 20;

/// How many characters of tool names a compact listing shows at most.
const COMPACT_NAMES_CHARS: usize = 4_000;

impl Sections {
    /// A big tool set, by name only (up to [`COMPACT_NAMES_CHARS`]), and its problems.
    fn third_party_names(&mut self, page: TabId, discovery: &Discovery, count: usize) {
        let mut budget = COMPACT_NAMES_CHARS;
        let mut groups = Vec::new();
        let note = format!(
            "Page {page} ({}) exposes {count} tools; their names follow, and \
             list_3p_developer_tools gives their descriptions and input schemas.",
            discovery.url
        );
        self.line(&note);
        // A client that shows only the JSON gets the sentence too.
        self.data
            .insert("thirdPartyDeveloperToolsNote".into(), json!(note));
        for group in &discovery.groups {
            let shown: Vec<&str> = group
                .tools
                .iter()
                .map(|t| t.name.as_str())
                .take_while(|name| {
                    let fits = name.len() + 2 <= budget;
                    if fits {
                        budget -= name.len() + 2;
                    }
                    fits
                })
                .collect();
            let more = group.tools.len() - shown.len();
            let tail = if more > 0 {
                format!(" … and {more} more")
            } else {
                String::new()
            };
            self.line(&format!(
                "### {} ({} tools): {}{tail}",
                group.name,
                group.tools.len(),
                shown.join(", ")
            ));
            groups.push(json!({"group": group.name, "tools": shown, "more": more}));
        }
        self.data
            .insert("thirdPartyDeveloperToolNames".into(), Value::Array(groups));
        if !discovery.problems.is_empty() {
            self.line("Problems with what the page offered:");
            for problem in &discovery.problems {
                self.line(&format!("- {problem}"));
            }
            self.data
                .insert("thirdPartyToolProblems".into(), json!(discovery.problems));
        }
    }
}

fn no_tools(page: TabId, discovery: &Discovery) -> String {
    format!(
        "Page {page} ({}) exposes no third-party developer tools.",
        discovery.url
    )
}

/// The text of a page's tool list: each group and tool with its schema, then what
/// was wrong with what the page offered.
fn third_party_list(page: TabId, discovery: &Discovery) -> String {
    let mut out = String::new();
    let mut line = |text: &str| {
        out.push_str(text);
        out.push('\n');
    };
    if discovery.groups.is_empty() {
        line(&no_tools(page, discovery));
    } else {
        line(&format!("Page {page} ({}) exposes:", discovery.url));
        for group in &discovery.groups {
            line(&format!("### {}", group.name));
            if let Some(description) = &group.description {
                line(description);
            }
            for tool in &group.tools {
                line(&format!("- {}: {}", tool.name, tool.description));
                line(&format!("  inputSchema: {}", tool.input_schema));
            }
        }
        line(
            "Call them with execute_3p_developer_tool, or from evaluate_script with \
             window.__dtmcp.executeTool(name, args).",
        );
    }
    if !discovery.problems.is_empty() {
        line("Problems with what the page offered:");
        for problem in &discovery.problems {
            line(&format!("- {problem}"));
        }
    }
    out
}

/// Emulated settings in words, for the agent.
pub fn describe_emulation(e: &Emulation) -> Vec<String> {
    let mut parts = Vec::new();
    if let Some(n) = &e.network {
        parts.push(format!("network {}", n.name));
    }
    if let Some(rate) = e.cpu_throttling_rate {
        parts.push(format!("CPU {rate}× slower"));
    }
    if let Some(v) = &e.viewport {
        let mut traits = String::new();
        for (on, name) in [
            (v.mobile, ",mobile"),
            (v.touch, ",touch"),
            (v.landscape, ",landscape"),
        ] {
            if on {
                traits.push_str(name);
            }
        }
        parts.push(format!(
            "viewport {}x{}x{}{traits}",
            v.width, v.height, v.device_scale_factor
        ));
    }
    if let Some(ua) = &e.user_agent {
        parts.push(format!("user agent {ua:?}"));
    }
    if let Some(scheme) = &e.color_scheme {
        parts.push(format!("color scheme {scheme}"));
    }
    if let Some(g) = &e.geolocation {
        parts.push(format!("geolocation {},{}", g.latitude, g.longitude));
    }
    if let Some(headers) = &e.extra_http_headers {
        let names: Vec<&str> = headers.keys().map(String::as_str).collect();
        parts.push(format!("extra HTTP headers {}", names.join(", ")));
    }
    parts
}

/// What the renderer fetched for the sections that were asked for.
#[derive(Default)]
struct Gathered {
    pages: Option<Vec<TabInfo>>,
    third_party: Option<(TabId, Arc<Discovery>)>,
    /// Why looking for third-party tools failed (best effort: a note, not an error).
    third_party_failure: Option<String>,
    snapshot: Option<(TabId, Snapshot)>,
}

/// Fetches what the markers ask for. A failure to fetch something asked for is an
/// error (unless the handler already failed); best-effort extras become notes.
async fn gather(response: &Response, ctx: &ToolContext, error: &mut Option<ToolError>) -> Gathered {
    let mut gathered = Gathered::default();
    let pages = async {
        if response.include_pages {
            Some(ctx.list_tabs().await)
        } else {
            None
        }
    };
    let third_party = async {
        match &response.third_party {
            ThirdParty::No => None,
            ThirdParty::Found(discovery) => {
                let page = ctx.resolved_page().or_else(|| ctx.selected())?;
                Some(Ok((page, discovery.clone())))
            }
            ThirdParty::BestEffort => {
                ctx.settings().third_party.as_ref()?;
                Some(discover_on_selected_page(ctx).await)
            }
        }
    };
    let (pages, third_party) = tokio::join!(pages, third_party);
    match pages {
        Some(Ok(pages)) => gathered.pages = Some(pages),
        Some(Err(e)) => {
            error.get_or_insert(e);
        }
        None => {}
    }
    match third_party {
        Some(Ok(found)) => gathered.third_party = Some(found),
        Some(Err(e)) => gathered.third_party_failure = Some(e.message),
        None => {}
    }
    // The snapshot comes last: it must see the page after everything else.
    if let Some(request) = &response.snapshot {
        match snapshot_of_page(ctx, request.verbose).await {
            Ok(found) => gathered.snapshot = Some(found),
            Err(e) => {
                error.get_or_insert(e);
            }
        }
    }
    gathered
}

/// The page an extra section is about, and the lock on it when the pipeline did not
/// already take one (tools that are not page-scoped run unlocked).
async fn page_for_extras(
    ctx: &ToolContext,
) -> Result<(TabId, Option<tokio::sync::OwnedMutexGuard<()>>), ToolError> {
    match ctx.resolved_page() {
        Some(page) => Ok((page, None)),
        None => {
            let page = ctx.default_page().await?;
            let guard = ctx.page_lock(page).lock_owned().await;
            Ok((page, Some(guard)))
        }
    }
}

async fn discover_on_selected_page(
    ctx: &ToolContext,
) -> Result<(TabId, Arc<Discovery>), ToolError> {
    let (page, _guard) = page_for_extras(ctx).await?;
    Ok((page, ctx.discover_tools_automatically(page).await?))
}

async fn snapshot_of_page(
    ctx: &ToolContext,
    verbose: bool,
) -> Result<(TabId, Snapshot), ToolError> {
    let (page, _guard) = page_for_extras(ctx).await?;
    Ok((page, ctx.snapshot(page, verbose).await?))
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
    let mut error = error;
    let gathered = gather(&response, ctx, &mut error).await;
    let mut out = Sections::new(tool, ctx.settings().structured_content);

    out.message(&response.lines);
    if let Some(error) = &error {
        out.error(error);
    }
    for (i, output) in response.outputs.iter().enumerate() {
        let key = if i == 0 {
            "result".to_string()
        } else {
            format!("result{i}")
        };
        out.output(output, &key);
    }
    for section in &response.sections {
        out.section(section);
    }
    let page = ctx.resolved_page().or_else(|| ctx.selected());
    if let Some(page) = page {
        if let Some(dialog) = ctx.dialog(page) {
            out.dialog(page, &dialog);
        }
        if let Some(emulation) = ctx.emulation(page) {
            out.emulation(page, &emulation);
        }
    }
    if let Some(pages) = &gathered.pages {
        out.pages(pages, ctx.selected());
    }
    if let Some((page, discovery)) = &gathered.third_party {
        // Listed with another tool's reply, a big tool set is shown by name only.
        let compact = matches!(response.third_party, ThirdParty::BestEffort);
        out.third_party_tools(*page, discovery, compact);
    }
    // A failure the response already states (no page is shared, say) is said once.
    if let Some(why) = gathered
        .third_party_failure
        .as_ref()
        .filter(|why| !out.text.contains(why.as_str()))
    {
        out.heading(third_party::SECTION_TITLE);
        out.third_party_note(&format!(
            "Could not look for third-party developer tools: {why}"
        ));
    }
    if let (Some((page, snapshot)), Some(request)) = (&gathered.snapshot, &response.snapshot) {
        if let Err(e) = out.snapshot(*page, snapshot, request) {
            out.late_error(&e);
        }
    }
    let mut image_block = None;
    if let Some(image) = &response.image {
        out.heading("Image");
        match out.image(image) {
            Ok(block) => image_block = block,
            Err(e) => out.late_error(&e),
        }
    }
    out.finish(error.is_some(), image_block)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabwire_shared::{ToolDefinition, ToolGroup};

    fn discovery_of(tools: usize) -> Discovery {
        Discovery {
            document: "d".into(),
            url: "http://127.0.0.1/".into(),
            origin: "http://127.0.0.1".into(),
            refused: false,
            groups: vec![ToolGroup {
                name: "Store".into(),
                description: None,
                tools: (0..tools)
                    .map(|i| ToolDefinition {
                        name: format!("tool_{i}"),
                        description: "Does a thing.".into(),
                        input_schema: json!({"type": "object"}),
                    })
                    .collect(),
            }],
            problems: vec!["Dropped 9000 tools over the limit.".into()],
        }
    }

    #[test]
    fn a_big_tool_set_listed_with_another_reply_shows_names_only() {
        let mut out = Sections::new("list_pages", true);
        out.third_party_tools(1, &discovery_of(1_000), true);
        assert!(out.text.contains("exposes 1000 tools"), "{}", out.text);
        assert!(out.text.contains("list_3p_developer_tools"));
        assert!(out.text.contains("tool_0, tool_1"));
        assert!(!out.text.contains("inputSchema"));
        assert!(out.text.contains("Dropped 9000 tools"));
        assert!(
            out.text.len() < COMPACT_NAMES_CHARS + 1_000,
            "{}",
            out.text.len()
        );
        let names = &out.data["thirdPartyDeveloperToolNames"][0];
        let shown = names["tools"].as_array().unwrap().len();
        assert_eq!(shown as u64 + names["more"].as_u64().unwrap(), 1_000);
        assert!(out.text.contains(&format!("and {} more", 1_000 - shown)));
        assert!(out.data.get("thirdPartyDeveloperTools").is_none());
        assert!(out.data["thirdPartyDeveloperToolsNote"]
            .as_str()
            .unwrap()
            .contains("list_3p_developer_tools"));
    }

    #[test]
    fn a_small_tool_set_or_an_explicit_listing_is_shown_in_full() {
        let mut out = Sections::new("list_pages", true);
        out.third_party_tools(1, &discovery_of(COMPACT_ABOVE), true);
        assert!(out.text.contains("inputSchema"));
        let mut out = Sections::new("list_3p_developer_tools", true);
        out.third_party_tools(1, &discovery_of(300), false);
        assert!(out.text.contains("- tool_299: Does a thing."));
    }
}
