//! CSS: the rules that apply to one element.

use schemars::JsonSchema;
use serde::Deserialize;

use tabwire_shared::requests;

use crate::mcp::context::ToolContext;
use crate::mcp::output::css::styles_page;
use crate::mcp::response::{Response, Section};
use crate::mcp::tool::{Category, ErasedTool, Registered, Tool, ToolSpec};
use crate::mcp::ToolError;

/// Arguments of `get_css_styles`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GetCssStylesParams {
    /// The element's uid from take_snapshot (a text's uid stands for its element).
    uid: String,
    /// Rules per page (default 10).
    #[schemars(range(min = 1))]
    page_size: Option<usize>,
    /// Which page, from 0 (default 0: the rules that weigh most).
    page_idx: Option<usize>,
}

/// `get_css_styles`
pub struct GetCssStyles;

impl Tool for GetCssStyles {
    type Params = GetCssStylesParams;
    const SPEC: ToolSpec = ToolSpec {
        name: "get_css_styles",
        description: "Shows the CSS that applies to an element (by uid from take_snapshot), \
            written as CSS, the rules that weigh most first: its style attribute, the rules \
            that matched it, each inside its @layer/@media/@container/@scope/@supports \
            and with the stylesheet URL and line:column above it, then what its ancestors \
            pass on (inherited properties and custom properties; each ancestor and each \
            query container named with its uid), its pseudo-elements' \
            rules, the @keyframes of its animations and its @position-try fallbacks, the \
            registrations of the custom properties it sets or reads (@property rules, \
            CSS.registerProperty() calls), and the @font-face rules of its font-family \
            (and the @font-feature-values, @font-palette-values and @counter-style rules \
            it uses). Elements inside cross-site iframes work too. The \
            cascade is worked out (importance, layers, specificity, order, \
            inheritance): a declaration that loses is tagged [overridden]; one that is not \
            tagged applies. 10 rules per page by default; pageIdx shows the others.",
        category: Category::Debugging,
        read_only: true,
        page_scoped: true,
        blocked_by_dialog: true,
    };

    async fn run(
        &self,
        ctx: &ToolContext,
        p: GetCssStylesParams,
        response: &mut Response,
    ) -> Result<(), ToolError> {
        let styles = ctx
            .request(requests::GetCssStyles {
                tab_id: ctx.page()?,
                uid: p.uid.clone(),
            })
            .await?;
        let (lines, data) = styles_page(&styles, &p.uid, p.page_size, p.page_idx);
        response.add_section(Section {
            title: "CSS styles",
            lines,
            data,
        });
        Ok(())
    }
}

/// This group's tools, for the registry.
pub fn tools() -> Vec<Box<dyn ErasedTool>> {
    vec![Box::new(Registered::new(GetCssStyles))]
}
