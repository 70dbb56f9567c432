//! The tools an agent may call: every group's list ([`tools::GROUPS`]), sorted by
//! name, filtered by the agent's category switches.

use std::collections::HashMap;

use super::tool::{Category, ErasedTool};
use super::tools;

/// Every tool tabwire offers, before category switches apply: each group's own list.
fn all_tools() -> Vec<Box<dyn ErasedTool>> {
    tools::GROUPS.iter().flat_map(|group| group()).collect()
}

/// The tools this agent may call.
pub struct Registry {
    tools: Vec<Box<dyn ErasedTool>>,
    /// Tools a restriction took away, with what the agent is told if it calls one.
    taken_away: Vec<(&'static str, &'static str)>,
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
        Self {
            tools,
            taken_away: Vec::new(),
        }
    }

    /// This registry without the tools `away` names ((name, why) pairs, from
    /// [`Restrictions::tools_taken_away`](super::restrictions::Restrictions::tools_taken_away)):
    /// they are not listed, and a call to one is told why.
    pub fn without(mut self, away: &[(&'static str, &'static str)]) -> Self {
        self.tools
            .retain(|t| !away.iter().any(|(name, _)| *name == t.spec().name));
        self.taken_away.extend_from_slice(away);
        self
    }

    /// Why the tool `name` was taken away, if a restriction took it.
    pub fn why_taken_away(&self, name: &str) -> Option<&'static str> {
        self.taken_away
            .iter()
            .find(|(away, _)| *away == name)
            .map(|(_, why)| *why)
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

    /// Every tool that exists, enabled or not, in the order their groups define them
    /// ([`tools::GROUPS`], then each group's list): README.md's tool table.
    pub fn as_defined() -> Vec<Box<dyn ErasedTool>> {
        all_tools()
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
