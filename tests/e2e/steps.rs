//! Steps many tests take with an agent, each one call: open a fixture page, run a
//! script and read its result, read the page list. They sit beside the harness (which
//! starts agents and calls tools) so that a test reads as what it does.

use serde_json::{json, Value};

use crate::harness::{page, Agent, Reply};

impl Agent {
    /// Opens the fixture page `name` in a new page (`new_page`, which must succeed).
    pub async fn open(&self, name: &str) -> Reply {
        self.ok("new_page", json!({ "url": page(name) })).await
    }

    /// Opens the fixture page `name` in a new page and takes a snapshot of it.
    pub async fn open_and_snapshot(&self, name: &str) -> Reply {
        self.open(name).await;
        self.ok("take_snapshot", json!({})).await
    }

    /// Runs `function` in the selected page (`evaluate_script`, which must succeed):
    /// its result.
    pub async fn evaluate(&self, function: &str) -> Value {
        let reply = self
            .ok("evaluate_script", json!({ "function": function }))
            .await;
        reply.json["result"].clone()
    }

    /// The `textContent` of the selected page's element with id `id`.
    pub async fn text_of(&self, id: &str) -> Value {
        let function = format!("() => document.getElementById({}).textContent", json!(id));
        self.evaluate(&function).await
    }

    /// The names of the page tools (`page_…`) the server lists now, sorted.
    pub async fn page_tool_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .tools()
            .await
            .into_iter()
            .map(|t| t.name.to_string())
            .filter(|n| n.starts_with("page_"))
            .collect();
        names.sort();
        names
    }

    /// Fails unless the page tool `name` is offered now (`offered`) or is not.
    pub async fn expect_page_tool(&self, name: &str, offered: bool) {
        let names = self.page_tool_names().await;
        assert_eq!(
            names.iter().any(|n| n == name),
            offered,
            "page tool {name} should {}be offered; the page tools are {names:?}",
            if offered { "" } else { "not " }
        );
    }

    /// The pages `list_pages` shows, as (id, url).
    pub async fn pages(&self) -> Vec<(i64, String)> {
        self.ok("list_pages", json!({})).await.pages()
    }
}

impl Reply {
    /// The pages a reply with a page list shows, as (id, url).
    pub fn pages(&self) -> Vec<(i64, String)> {
        let pages = self.json["pages"].as_array().cloned().unwrap_or_default();
        pages
            .iter()
            .map(|p| {
                let id = p["id"].as_i64().unwrap_or_default();
                (id, p["url"].as_str().unwrap_or_default().to_owned())
            })
            .collect()
    }

    /// The line of a reply's page list that shows page `id`.
    pub fn page_line(&self, id: i64) -> &str {
        let start = format!("{id}: ");
        self.text
            .lines()
            .find(|l| l.starts_with(&start))
            .unwrap_or_else(|| panic!("page {id} listed:\n{}", self.text))
    }

    /// The id of the listed page whose URL ends with `end`.
    pub fn page_id_ending(&self, end: &str) -> i64 {
        self.pages()
            .into_iter()
            .find(|(_, url)| url.ends_with(end))
            .map(|(id, _)| id)
            .unwrap_or_else(|| panic!("no page at …{end} in {}", self.text))
    }
}
