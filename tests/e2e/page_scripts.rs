//! Contract tests of the page scripts (extension/src/page/), run as the extension runs
//! them — the same composed scripts, called the same way over CDP — in a headless
//! Chromium driven directly (no extension, no MCP), on pages that turn JavaScript's
//! builtins against them.
//!
//! Each test starts a browser, opens a page, installs the pristine builtins before the
//! page's own code (as the extension does on a new document), lets the page break what
//! it likes, then checks what each script hands back (the browser and page helpers are in
//! `headless.rs`).

use serde_json::{json, Value};
use tabwire_extension::engine::page;

use crate::headless::{Answer, Browser, Page};

impl Page<'_> {
    /// Makes the kit (`KIT`) and runs a discovery on it: the kit and the report.
    async fn discover(&self, listeners: u64) -> (String, Value) {
        let kit = self.evaluate(page::KIT, false).await.object("KIT");
        let report = self
            .call(
                page::DISCOVER,
                &kit,
                vec![
                    json!({"value": 2000}),
                    json!({"value": listeners}),
                    json!({"value": page::discovery_limits()}),
                ],
                true,
            )
            .await
            .value("DISCOVER");
        let text = report.as_str().expect("the report is JSON text");
        let report = serde_json::from_str(text).unwrap_or_else(|e| panic!("report {text}: {e}"));
        (kit, report)
    }

    /// Runs tool `name` through the kit (`EXECUTE`): `{status, text, nodes, run}`.
    async fn execute(&self, kit: &str, name: &str, args: &str) -> Value {
        self.execute_within(kit, name, args, page::result_limits())
            .await
    }

    /// [`Page::execute`] with other limits.
    async fn execute_within(&self, kit: &str, name: &str, args: &str, limits: Value) -> Value {
        self.call(
            page::EXECUTE,
            kit,
            vec![
                json!({"value": name}),
                json!({"value": "hostile"}),
                json!({"value": args}),
                json!({"value": []}),
                json!({ "value": limits }),
            ],
            true,
        )
        .await
        .value(name)
    }
}

/// A page that offers tools whose results are hostile, takes `window.__dtmcp` for
/// itself, then replaces or breaks every builtin a careless script would lean on.
pub(crate) const HOSTILE_PAGE: &str = r#"(() => {
  const deep = () => { let v = 'bottom'; for (let i = 0; i < 1000; i++) v = [v]; return v; };
  const tool = (name, execute) => ({
    name, description: 'the ' + name + ' tool', execute,
    inputSchema: {type: 'object', properties: {}},
  });
  addEventListener('devtoolstooldiscovery', (e) => e.respondWith({
    name: 'hostile',
    description: 'a page that broke its builtins',
    tools: [
      tool('echo', (args) => args),
      tool('cyclic', () => { const a = {n: 1, list: [null]}; a.self = a; a.list[0] = a; return a; }),
      tool('getter', () => ({ok: 1, get bad() { throw new Error('no reading'); }})),
      tool('deep', deep),
      tool('huge', () => 'x'.repeat(3 << 20)),
      tool('wide', () => { const o = {}; for (let i = 0; i < 200000; i++) o['k' + i] = 'v'.repeat(100); return o; }),
      tool('throws', () => { throw new Error('the tool failed'); }),
      tool('element', () => ({p: document.querySelector('p')})),
    ],
  }));
  window.__dtmcp = {toolGroups: 'the page set this', executeTool: 'and this'};
  const boom = (what) => function () { throw new Error(what + ' is broken'); };
  Object.defineProperty(Array.prototype, '0', {set: boom('an index setter'), configurable: true});
  Object.defineProperty(Object.prototype, 'status', {get: boom('a getter on Object.prototype'), configurable: true});
  Array.prototype.map = boom('Array.prototype.map');
  Array.prototype.push = boom('Array.prototype.push');
  Array.isArray = boom('Array.isArray');
  JSON.stringify = boom('JSON.stringify');
  JSON.parse = boom('JSON.parse');
  Object.keys = boom('Object.keys');
  Object.freeze = boom('Object.freeze');
  String.prototype.slice = boom('String.prototype.slice');
  window.Promise = boom('Promise');
  window.CustomEvent = boom('CustomEvent');
  EventTarget.prototype.dispatchEvent = boom('dispatchEvent');
  EventTarget.prototype.addEventListener = boom('addEventListener');
  Function.prototype.call = boom('Function.prototype.call');
  Function.prototype.apply = boom('Function.prototype.apply');
  Function.prototype.bind = boom('Function.prototype.bind');
  Object.defineProperty = boom('Object.defineProperty');
  return true;
})()"#;

fn names(report: &Value) -> Vec<&str> {
    report["groups"][0]["tools"]
        .as_array()
        .map(|tools| tools.iter().filter_map(|t| t["name"].as_str()).collect())
        .unwrap_or_default()
}

#[tokio::test]
async fn discovery_and_tools_keep_their_contract_on_a_hostile_page() {
    let browser = Browser::start().await;
    let page = browser.page(true).await;
    page.run_page_code(HOSTILE_PAGE).await;
    let broken = page
        .evaluate(
            "(() => { try { [1].map((x) => x); return false; } catch (e) { return true; } })()",
            true,
        )
        .await
        .value("the page's builtins");
    assert_eq!(broken, true, "the page did break its builtins");

    let (kit, report) = page.discover(1).await;
    assert_eq!(report["groups"][0]["name"], "hostile", "{report}");
    assert_eq!(
        names(&report),
        ["echo", "cyclic", "getter", "deep", "huge", "wide", "throws", "element"],
        "{report}"
    );
    assert_eq!(report["problems"], json!([]), "{report}");
    // The reference's window.__dtmcp, whatever the page had put there.
    let dtmcp = page
        .evaluate(
            "[Reflect.getOwnPropertyDescriptor(__dtmcp.toolGroups, 'length').value, typeof __dtmcp.executeTool]",
            true,
        )
        .await
        .value("__dtmcp");
    assert_eq!(dtmcp, json!([1, "function"]));

    let text = |outcome: &Value| -> Value {
        assert_eq!(outcome["status"], "ok", "{outcome}");
        let text = outcome["text"].as_str().expect("text");
        serde_json::from_str(text).unwrap_or_else(|e| panic!("result text {text:.200}: {e}"))
    };

    // Arguments travel as text, nulls and key order kept.
    let echoed = page
        .execute(&kit, "echo", r#"{"z":null,"a":[1,null,{"b":"é\u0000"}]}"#)
        .await;
    assert_eq!(echoed["text"], r#"{"z":null,"a":[1,null,{"b":"é\u0000"}]}"#);

    let cyclic = text(&page.execute(&kit, "cyclic", "{}").await);
    assert_eq!(cyclic["n"], 1);
    assert_eq!(cyclic["self"], "<Circular reference>", "{cyclic}");
    assert_eq!(cyclic["list"][0], "<Circular reference>", "{cyclic}");

    let getter = text(&page.execute(&kit, "getter", "{}").await);
    assert_eq!(getter["ok"], 1);
    assert!(
        getter["bad"]
            .as_str()
            .is_some_and(|s| s.contains("no reading")),
        "{getter}"
    );

    let deep = page.execute(&kit, "deep", "{}").await;
    let deep_text = deep["text"].as_str().unwrap_or_default();
    assert!(
        deep_text.contains("<Too deep>"),
        "cut at the depth limit: {deep_text:.200}"
    );
    text(&deep);

    let huge = page.execute(&kit, "huge", "{}").await;
    let huge_text = huge["text"].as_str().unwrap_or_default();
    assert!(
        (huge_text.len() as u64) < page::MAX_RESULT_STRING + 1000
            && huge_text.contains("<truncated: 3145728 characters in all>"),
        "a string past the limit is cut: {} characters",
        huge_text.len()
    );
    text(&huge);

    // The whole text stops near its limit (a smaller one than the extension's, so that
    // the test's own CDP client can read it).
    let total = 1_000_000;
    let limits =
        json!({"depth": page::MAX_DEPTH, "string": page::MAX_RESULT_STRING, "total": total});
    let wide = page.execute_within(&kit, "wide", "{}", limits).await;
    let wide_text = wide["text"].as_str().unwrap_or_default();
    assert!(
        wide_text.len() <= total + 4096 && wide_text.contains("<Truncated: "),
        "the whole text stays within its limit: {} characters",
        wide_text.len()
    );
    text(&wide);

    let threw = page.execute(&kit, "throws", "{}").await;
    assert_eq!(threw["status"], "threw", "{threw}");
    let why = threw["text"].as_str().unwrap_or_default();
    assert!(why.contains("the tool failed"), "{why}");
    assert!(
        !why.contains("tabwireExecute"),
        "tabwire's frames are cut: {why}"
    );

    let element = page.execute(&kit, "element", "{}").await;
    assert_eq!(element["status"], "ok", "{element}");
    assert_eq!(element["nodes"], 1, "{element}");
    let nodes = page
        .call(
            page::TAKE_NODES,
            &kit,
            vec![element["run"].clone().into_value_arg()],
            false,
        )
        .await
        .object("TAKE_NODES");
    let tag = page
        .call(
            "function () { return this[0].localName; }",
            &nodes,
            vec![],
            true,
        )
        .await
        .value("the node");
    assert_eq!(tag, "p");

    let missing = page.execute(&kit, "nothing", "{}").await;
    assert_eq!(missing["status"], "notFound", "{missing}");
}

/// `json!({"value": v})`, the CDP call argument for a value.
trait ValueArg {
    fn into_value_arg(self) -> Value;
}

impl ValueArg for Value {
    fn into_value_arg(self) -> Value {
        json!({ "value": self })
    }
}

#[tokio::test]
async fn splice_stringify_and_waits_keep_their_contract_on_a_hostile_page() {
    let browser = Browser::start().await;
    let page = browser.page(true).await;
    page.run_page_code(HOSTILE_PAGE).await;
    let global = page.global().await;

    // SPLICE: the element goes where the path says; nulls stay.
    let body = page
        .evaluate("document.body", false)
        .await
        .object("document.body");
    let spliced = page
        .call(
            page::SPLICE,
            &global,
            vec![
                json!({"value": r#"{"a":[1,null,{"b":0}]}"#}),
                json!({"value": [["a", 2, "b"]]}),
                json!({"objectId": body}),
            ],
            false,
        )
        .await
        .object("SPLICE");
    let checked = page
        .call(
            "function () { return [this.a[2].b === document.body, this.a[1] === null, this.a[0]]; }",
            &spliced,
            vec![],
            true,
        )
        .await
        .value("the spliced value");
    assert_eq!(checked, json!([true, true, 1]));

    // STRINGIFY: the page's key order, with the JSON.stringify of before the page ran.
    let object = page
        .evaluate("({b: 1, a: [2, {d: null, c: 'x'}]})", false)
        .await
        .object("an object");
    let text = page
        .call(
            page::STRINGIFY,
            &global,
            vec![json!({"objectId": object}), json!({"value": 1000})],
            true,
        )
        .await
        .value("STRINGIFY");
    assert_eq!(text, r#"{"b":1,"a":[2,{"d":null,"c":"x"}]}"#);
    let long = page
        .call(
            page::STRINGIFY,
            &global,
            vec![json!({"objectId": object}), json!({"value": 5})],
            true,
        )
        .await
        .value("STRINGIFY past its limit");
    assert_eq!(long, 34, "past the limit, the length");
    // A cyclic value cannot be written: it throws, which the engine reports.
    let cyclic = page
        .evaluate("(() => { const a = {}; a.a = a; return a; })()", false)
        .await
        .object("a cyclic object");
    let threw = page
        .call(
            page::STRINGIFY,
            &global,
            vec![json!({"objectId": cyclic}), json!({"value": 1000})],
            true,
        )
        .await;
    assert!(
        matches!(threw, Answer::Threw(ref why) if why.contains("circular")),
        "{threw:?}"
    );

    // WAIT_TEXT: text already there, text that comes later, text that never does.
    let wait = |texts: Value, budget: u64| {
        page.call(
            page::WAIT_TEXT,
            &global,
            vec![json!({ "value": texts }), json!({ "value": budget })],
            true,
        )
    };
    assert_eq!(
        wait(json!(["nowhere", "ready"]), 5000)
            .await
            .value("WAIT_TEXT"),
        "ready"
    );
    page.run_page_code("setTimeout(() => { document.body.append('later on'); }, 50), true")
        .await;
    assert_eq!(
        wait(json!(["later on"]), 10_000)
            .await
            .value("WAIT_TEXT later"),
        "later on"
    );
    assert_eq!(
        wait(json!(["never"]), 100).await.value("WAIT_TEXT never"),
        Value::Null
    );

    // WATCH / SINCE / STOP: a watcher that counts from the last change.
    let watcher = page.evaluate(page::WATCH, false).await.object("WATCH");
    let since = page
        .call(page::SINCE, &watcher, vec![], true)
        .await
        .value("SINCE");
    assert!(since.as_f64().is_some_and(|ms| ms >= 0.0), "{since}");
    let stopped = page.call(page::STOP, &watcher, vec![], true).await;
    assert!(matches!(stopped, Answer::Value(Value::Null)), "{stopped:?}");
}

#[tokio::test]
async fn a_page_that_broke_builtins_before_tabwire_gets_problems_not_failures() {
    let browser = Browser::start().await;
    let page = browser.page(false).await;
    page.run_page_code(
        "addEventListener('devtoolstooldiscovery', (e) => e.respondWith({name: 'g', tools: []})); \
         window.CustomEvent = function () { throw new Error('no events'); }; \
         JSON.stringify = () => '\"not JSON\"'; true",
    )
    .await;

    // No pristine CustomEvent to be had: discovery says why, in its report.
    let (kit, report) = page.discover(1).await;
    let problems = report["problems"].to_string();
    assert!(
        problems.contains("replaced JavaScript builtins before tabwire attached"),
        "{report}"
    );
    let missing = page.execute(&kit, "echo", "{}").await;
    assert_eq!(missing["status"], "notFound", "{missing}");

    // STRINGIFY gives up rather than trust a JSON.stringify that does not behave.
    let global = page.global().await;
    let object = page.evaluate("({a: 1})", false).await.object("an object");
    let text = page
        .call(
            page::STRINGIFY,
            &global,
            vec![json!({"objectId": object}), json!({"value": 1000})],
            true,
        )
        .await
        .value("STRINGIFY");
    assert_eq!(text, Value::Null);

    // A page that broke everything first: the kit is made or fails with an exception
    // (which the engine reports); it does not hang.
    let worst = browser.page(false).await;
    worst.run_page_code(HOSTILE_PAGE).await;
    let kit = worst.evaluate(page::KIT, false).await;
    assert!(!matches!(kit, Answer::Value(_)), "{kit:?}");
}

#[tokio::test]
async fn the_pristine_holder_cannot_be_replaced_by_the_page() {
    let browser = Browser::start().await;
    let page = browser.page(true).await;
    page.run_page_code(
        "try { window.__tabwire = {tabwire: 3}; } catch (e) {} \
         try { delete window.__tabwire; } catch (e) {} \
         try { Object.defineProperty(window, '__tabwire', {value: {tabwire: 3}}); } catch (e) {} true",
    )
    .await;
    let kept = page
        .evaluate("typeof window.__tabwire.stringify", true)
        .await
        .value("__tabwire");
    assert_eq!(
        kept, "function",
        "the holder the document started with stays"
    );
}
