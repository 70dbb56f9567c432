//! The one list of tools, sorted by name, filtered by the agent's category switches.

use std::collections::HashMap;

use super::tool::{Category, ErasedTool, Registered};
use super::tools;

/// Every tool tabwire offers, before category switches apply.
fn all_tools() -> Vec<Box<dyn ErasedTool>> {
    vec![
        Box::new(Registered::new(tools::pages::ListPages)),
        Box::new(Registered::new(tools::pages::SelectPage)),
        Box::new(Registered::new(tools::pages::NewPage)),
        Box::new(Registered::new(tools::pages::RequestPage)),
        Box::new(Registered::new(tools::pages::NavigatePage)),
        Box::new(Registered::new(tools::pages::ClosePage)),
        Box::new(Registered::new(tools::script::EvaluateScript)),
        Box::new(Registered::new(tools::snapshot::TakeSnapshot)),
        Box::new(Registered::new(tools::third_party::ListThirdPartyTools)),
        Box::new(Registered::new(tools::third_party::ExecuteThirdPartyTool)),
        Box::new(Registered::new(tools::webmcp::ListWebMcpTools)),
        Box::new(Registered::new(tools::webmcp::ExecuteWebMcpTool)),
        Box::new(Registered::new(tools::pages::WaitFor)),
        Box::new(Registered::new(tools::input::Click)),
        Box::new(Registered::new(tools::input::ClickAt)),
        Box::new(Registered::new(tools::input::Hover)),
        Box::new(Registered::new(tools::input::Fill)),
        Box::new(Registered::new(tools::input::FillForm)),
        Box::new(Registered::new(tools::input::TypeText)),
        Box::new(Registered::new(tools::input::PressKey)),
        Box::new(Registered::new(tools::input::Drag)),
        Box::new(Registered::new(tools::input::UploadFile)),
        Box::new(Registered::new(tools::input::HandleDialog)),
        Box::new(Registered::new(tools::screenshot::TakeScreenshot)),
        Box::new(Registered::new(tools::console::ListConsoleMessages)),
        Box::new(Registered::new(tools::console::GetConsoleMessage)),
        Box::new(Registered::new(tools::network::ListNetworkRequests)),
        Box::new(Registered::new(tools::network::GetNetworkRequest)),
        Box::new(Registered::new(tools::emulation::Emulate)),
        Box::new(Registered::new(tools::emulation::ResizePage)),
        Box::new(Registered::new(tools::performance::PerformanceStartTrace)),
        Box::new(Registered::new(tools::performance::PerformanceStopTrace)),
        Box::new(Registered::new(
            tools::performance::PerformanceAnalyzeInsight,
        )),
        Box::new(Registered::new(tools::css::GetCssStyles)),
        Box::new(Registered::new(tools::memory::GetMemoryUsage)),
    ]
}

/// The tools this agent may call.
pub struct Registry {
    tools: Vec<Box<dyn ErasedTool>>,
}

impl Registry {
    /// Builds the registry with the categories `switches` turn on or off (others keep
    /// their defaults).
    pub fn new(switches: &HashMap<Category, bool>) -> Self {
        let mut tools: Vec<_> = all_tools()
            .into_iter()
            .filter(|t| Self::category_enabled(switches, t.spec().category))
            .collect();
        tools.sort_by_key(|t| t.spec().name);
        Self { tools }
    }

    /// Whether `category` is on, given the agent's switches.
    pub fn category_enabled(switches: &HashMap<Category, bool>, category: Category) -> bool {
        switches
            .get(&category)
            .copied()
            .unwrap_or(category.enabled_by_default())
    }

    /// Every enabled tool, sorted by name.
    pub fn tools(&self) -> &[Box<dyn ErasedTool>] {
        &self.tools
    }

    /// The enabled tool with this name.
    pub fn get(&self, name: &str) -> Option<&dyn ErasedTool> {
        self.tools
            .binary_search_by(|t| t.spec().name.cmp(name))
            .ok()
            .map(|i| self.tools[i].as_ref())
    }

    /// Every tool that exists, enabled or not (for docs and the category check).
    pub fn every_tool() -> Vec<Box<dyn ErasedTool>> {
        let mut tools = all_tools();
        tools.sort_by_key(|t| t.spec().name);
        tools
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_sorted() {
        let tools = Registry::every_tool();
        let names: Vec<_> = tools.iter().map(|t| t.spec().name).collect();
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(names, sorted);
    }

    #[test]
    fn every_parameter_is_documented() {
        for tool in Registry::every_tool() {
            let schema = tool.input_schema();
            let props = schema["properties"]
                .as_object()
                .cloned()
                .unwrap_or_default();
            for (name, prop) in props {
                assert!(
                    prop.get("description").and_then(|d| d.as_str()).is_some(),
                    "{}.{name} has no description",
                    tool.spec().name
                );
            }
            assert!(!tool.spec().description.is_empty());
        }
    }

    #[test]
    fn a_category_switched_off_removes_its_tools() {
        let mut switches = HashMap::new();
        switches.insert(Category::Debugging, false);
        let registry = Registry::new(&switches);
        assert!(registry.get("evaluate_script").is_none());
        assert!(registry.get("list_pages").is_some());
    }
}
