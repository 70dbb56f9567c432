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
    /// Runs one operation of `CONTROL` on an element, as `fill` does: its answer.
    async fn control(&self, element: &str, op: &str, value: &str) -> Value {
        self.call(
            page::CONTROL,
            element,
            vec![json!({ "value": op }), json!({ "value": value })],
            true,
        )
        .await
        .value(op)
    }

    /// `STRINGIFY` of `object` (by reference) within `limit`, called on the global
    /// object `global` as the engine calls it.
    async fn stringify(&self, global: &str, object: &str, limit: u64) -> Answer {
        self.call(
            page::STRINGIFY,
            global,
            vec![json!({ "objectId": object }), json!({ "value": limit })],
            true,
        )
        .await
    }

    /// `WAIT_TEXT` for `texts` within `budget` ms, called on the global object
    /// `global` as the engine calls it: the text it found.
    async fn wait_text(&self, global: &str, texts: Value, budget: u64) -> Value {
        self.call(
            page::WAIT_TEXT,
            global,
            vec![json!({ "value": texts }), json!({ "value": budget })],
            true,
        )
        .await
        .value("WAIT_TEXT")
    }

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

    /// Runs tool `name` of [`HOSTILE_PAGE`]'s group through the kit (`EXECUTE`):
    /// `{status, text, nodes, run}`.
    async fn execute(&self, kit: &str, name: &str, args: &str) -> Value {
        self.execute_in(kit, "hostile", name, args).await
    }

    /// [`Page::execute`] for a tool of group `group`.
    async fn execute_in(&self, kit: &str, group: &str, name: &str, args: &str) -> Value {
        self.execute_within(kit, group, name, args, page::result_limits())
            .await
    }

    /// [`Page::execute_in`] with other limits.
    async fn execute_within(
        &self,
        kit: &str,
        group: &str,
        name: &str,
        args: &str,
        limits: Value,
    ) -> Value {
        self.call(
            page::EXECUTE,
            kit,
            vec![
                json!({"value": name}),
                json!({ "value": group }),
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
    assert_eq!(
        text(&huge).as_str().map(str::len),
        Some(3 << 20),
        "a long string is kept whole: {huge_text:.200}"
    );

    // The whole text stops near its limit (a smaller one than the extension's, so that
    // the test's own CDP client can read it).
    let total = 1_000_000;
    let limits = json!({"depth": page::MAX_DEPTH, "total": total});
    let wide = page
        .execute_within(&kit, "hostile", "wide", "{}", limits.clone())
        .await;
    let wide_text = wide["text"].as_str().unwrap_or_default();
    assert!(
        wide_text.len() <= total + 4096 && wide_text.contains("<Truncated: "),
        "the whole text stays within its limit: {} characters",
        wide_text.len()
    );
    text(&wide);
    // A string that would take the text past its limit keeps what fits, and says so.
    let cut = page
        .execute_within(&kit, "hostile", "huge", "{}", limits)
        .await;
    let cut_text = cut["text"].as_str().unwrap_or_default();
    assert!(
        cut_text.len() <= total && cut_text.contains("<truncated: 3145728 characters in all>"),
        "a string past the whole text's limit is cut: {} characters",
        cut_text.len()
    );
    text(&cut);

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
        .stringify(&global, &object, 1000)
        .await
        .value("STRINGIFY");
    assert_eq!(text, r#"{"b":1,"a":[2,{"d":null,"c":"x"}]}"#);
    let long = page
        .stringify(&global, &object, 5)
        .await
        .value("STRINGIFY past its limit");
    assert_eq!(long, 34, "past the limit, the length");
    // A cyclic value cannot be written: it throws, which the engine reports.
    let cyclic = page
        .evaluate("(() => { const a = {}; a.a = a; return a; })()", false)
        .await
        .object("a cyclic object");
    let threw = page.stringify(&global, &cyclic, 1000).await;
    assert!(
        matches!(threw, Answer::Threw(ref why) if why.contains("circular")),
        "{threw:?}"
    );

    // WAIT_TEXT: text already there, text that comes later, text that never does.
    assert_eq!(
        page.wait_text(&global, json!(["nowhere", "ready"]), 5000)
            .await,
        "ready"
    );
    page.run_page_code("setTimeout(() => { document.body.append('later on'); }, 50), true")
        .await;
    assert_eq!(
        page.wait_text(&global, json!(["later on"]), 10_000).await,
        "later on"
    );
    assert_eq!(
        page.wait_text(&global, json!(["never"]), 100).await,
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
        .stringify(&global, &object, 1000)
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
        "try { window.__tabwire = {tabwire: 6}; } catch (e) {} \
         try { delete window.__tabwire; } catch (e) {} \
         try { Object.defineProperty(window, '__tabwire', {value: {tabwire: 6}}); } catch (e) {} true",
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

    // Nor can a page make the scripts find another holder by replacing how properties
    // are looked up.
    page.run_page_code(
        "const fake = {tabwire: 6, apply: () => 'faked', stringify: () => 'faked'}; \
         Object.getOwnPropertyDescriptor = () => ({value: fake}); \
         Reflect.getOwnPropertyDescriptor = () => ({value: fake}); true",
    )
    .await;
    let global = page.global().await;
    let object = page.evaluate("({a: 1})", false).await.object("an object");
    let text = page
        .stringify(&global, &object, 1000)
        .await
        .value("STRINGIFY");
    assert_eq!(
        text, r#"{"a":1}"#,
        "the scripts use the document's own holder"
    );
}

/// A form for `fill`: a text field with a value, a select whose first option's text
/// has spaces around it, a checkbox and a date input.
const FORM_PAGE: &str = "<title>form</title><body>\
    <input id=name value=old>\
    <select id=fruit><option value=a> Apple </option><option value=b>Banana</option></select>\
    <input id=agree type=checkbox>\
    <input id=when type=date>\
    </body>";

/// The form page's own code: it notes every `input` and `change` event that reaches
/// the document (`(script)` marks one not made by the user) and offers `seen()`, the
/// notes and the controls' values read with the builtins it started with; then it
/// breaks every builtin that reading or setting a control could lean on.
const BREAK_FORMS: &str = r#"(() => {
  const R = Reflect.apply;
  const D = Object.getOwnPropertyDescriptor;
  const value = D(HTMLInputElement.prototype, 'value').get;
  const checked = D(HTMLInputElement.prototype, 'checked').get;
  const selected = D(HTMLSelectElement.prototype, 'value').get;
  const byId = (id) => R(Document.prototype.getElementById, document, [id]);
  let log = '';
  const note = (e) => { log += (log ? ' ' : '') + e.type + ':' + e.target.id + (e.isTrusted ? '' : '(script)'); };
  document.addEventListener('input', note);
  document.addEventListener('change', note);
  window.seen = () => ({log, name: R(value, byId('name'), []), fruit: R(selected, byId('fruit'), []),
    agree: R(checked, byId('agree'), []), when: R(value, byId('when'), [])});
  const boom = (what) => function () { throw new Error(what + ' is broken'); };
  const define = Object.defineProperty;
  const accessor = (proto, name) => define(proto, name, {get: boom(name), set: boom(name), configurable: true});
  accessor(Element.prototype, 'localName');
  accessor(Node.prototype, 'ownerDocument');
  accessor(HTMLElement.prototype, 'isContentEditable');
  accessor(HTMLInputElement.prototype, 'type');
  accessor(HTMLInputElement.prototype, 'value');
  accessor(HTMLInputElement.prototype, 'checked');
  accessor(HTMLSelectElement.prototype, 'options');
  accessor(HTMLSelectElement.prototype, 'length');
  accessor(HTMLSelectElement.prototype, 'selectedIndex');
  accessor(HTMLOptionElement.prototype, 'text');
  accessor(HTMLOptionElement.prototype, 'value');
  define(Object.prototype, 'composed', {get: boom('a getter on Object.prototype'), configurable: true});
  define(Array.prototype, '0', {set: boom('an index setter'), configurable: true});
  Array.prototype.push = boom('Array.prototype.push');
  Array.prototype.findIndex = boom('Array.prototype.findIndex');
  Array.prototype.map = boom('Array.prototype.map');
  Array.prototype.indexOf = boom('Array.prototype.indexOf');
  String.prototype.trim = boom('String.prototype.trim');
  String.prototype.toLowerCase = boom('String.prototype.toLowerCase');
  HTMLInputElement.prototype.select = boom('select');
  HTMLSelectElement.prototype.item = boom('item');
  Document.prototype.getSelection = boom('getSelection');
  window.Event = boom('Event');
  EventTarget.prototype.dispatchEvent = boom('dispatchEvent');
  Function.prototype.call = boom('Function.prototype.call');
  Function.prototype.apply = boom('Function.prototype.apply');
  Object.getOwnPropertyDescriptor = boom('Object.getOwnPropertyDescriptor');
  Reflect.getOwnPropertyDescriptor = boom('Reflect.getOwnPropertyDescriptor');
  Object.defineProperty = boom('Object.defineProperty');
  return true;
})()"#;

#[tokio::test]
async fn fill_keeps_its_contract_on_a_page_that_broke_builtins() {
    let browser = Browser::start().await;
    let page = browser.page_of(true, FORM_PAGE).await;
    let mut controls = Vec::new();
    for id in ["name", "fruit", "agree", "when"] {
        let found = page
            .evaluate(&format!("document.getElementById('{id}')"), false)
            .await;
        controls.push(found.object(id));
    }
    let [name, fruit, agree, when] = &controls[..] else {
        unreachable!("four controls")
    };
    page.run_page_code(BREAK_FORMS).await;
    let cdp = page.cdp;

    // A text field: described, focused, its text selected and typed over.
    assert_eq!(
        page.control(name, "describe", "").await,
        json!({"kind": "text", "tag": "input", "type": "text", "checked": false})
    );
    cdp.send_to(&page.session, "DOM.focus", json!({ "objectId": name }))
        .await;
    assert_eq!(page.control(name, "selectAll", "").await, true);
    cdp.send_to(&page.session, "Input.insertText", json!({"text": "Ada"}))
        .await;

    // A select, by its option's trimmed text; asked for one it lacks, it lists those
    // it has and changes nothing.
    assert_eq!(
        page.control(fruit, "describe", "").await,
        json!({"kind": "select", "tag": "select", "type": "", "checked": false})
    );
    assert_eq!(
        page.control(fruit, "choose", "Cherry").await,
        json!({"chosen": false, "options": ["Apple", "Banana"]})
    );
    assert_eq!(
        page.control(fruit, "choose", "Apple").await,
        json!({"chosen": true, "options": []})
    );

    // A checkbox: its state read, then clicked where it is, as a user would.
    assert_eq!(
        page.control(agree, "describe", "").await,
        json!({"kind": "checkbox", "tag": "input", "type": "checkbox", "checked": false})
    );
    let model = cdp
        .send_to(
            &page.session,
            "DOM.getBoxModel",
            json!({ "objectId": agree }),
        )
        .await;
    let quad: Vec<f64> = model["model"]["content"]
        .as_array()
        .map(|q| q.iter().filter_map(Value::as_f64).collect())
        .unwrap_or_default();
    assert_eq!(quad.len(), 8, "the checkbox's box: {model}");
    let (x, y) = ((quad[0] + quad[4]) / 2.0, (quad[1] + quad[5]) / 2.0);
    for kind in ["mousePressed", "mouseReleased"] {
        cdp.send_to(
            &page.session,
            "Input.dispatchMouseEvent",
            json!({"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}),
        )
        .await;
    }
    assert_eq!(page.control(agree, "describe", "").await["checked"], true);

    // A date input: set through the native setter.
    assert_eq!(
        page.control(when, "describe", "").await,
        json!({"kind": "value", "tag": "input", "type": "date", "checked": false})
    );
    assert_eq!(page.control(when, "set", "2026-12-01").await, true);

    let seen = page
        .evaluate("window.seen()", true)
        .await
        .value("what the page saw");
    assert_eq!(
        seen,
        json!({
            // The text field's own change comes when the click takes the focus away.
            "log": "input:name input:fruit(script) change:fruit(script) change:name \
                    input:agree change:agree input:when(script) change:when(script)",
            "name": "Ada",
            "fruit": "a",
            "agree": true,
            "when": "2026-12-01",
        })
    );
}

/// A page that offers tools, then makes every object a thenable whose `then` never
/// settles, makes promises' own `then` never settle, watches `Promise[Symbol.species]`
/// and replaces `Promise`; `thenLog()` says which of these ran.
const THEN_PAGE: &str = r#"(() => {
  const P = Promise;
  const tool = (name, execute) => ({
    name, description: 'the ' + name + ' tool', execute,
    inputSchema: {type: 'object', properties: {a: {type: 'number'}, b: {type: 'number'}}},
  });
  addEventListener('devtoolstooldiscovery', (e) => e.respondWith({
    name: 'thenable',
    description: 'a page where everything has a then',
    tools: [
      tool('sum', ({a, b}) => ({sum: a + b})),
      tool('later', ({a}) => new P((resolve) => setTimeout(() => resolve(a * 2), 0))),
      tool('text', async () => 'done'),
    ],
  }));
  let log = '';
  const note = (what) => { log += (log ? ' ' : '') + what; };
  Object.prototype.then = function () { note('Object.prototype.then'); };
  Promise.prototype.then = function () { note('Promise.prototype.then'); };
  Object.defineProperty(Promise, Symbol.species, {
    get() { note('Promise[Symbol.species]'); return undefined; }, configurable: true,
  });
  window.Promise = function Promise() { note('Promise'); throw new Error('not this Promise'); };
  window.thenLog = () => log;
  return true;
})()"#;

#[tokio::test]
async fn a_then_on_every_object_and_promise_breaks_no_script() {
    let browser = Browser::start().await;
    let page = browser.page_of(true, FORM_PAGE).await;
    let fruit = page
        .evaluate("document.getElementById('fruit')", false)
        .await
        .object("the select");
    // Taken first: once every object has a then, an evaluation that awaits its
    // result (as this test's, not the engine's, does) never ends.
    let global = page.global().await;
    page.run_page_code(THEN_PAGE).await;

    let (kit, report) = page.discover(1).await;
    assert_eq!(report["groups"][0]["name"], "thenable", "{report}");
    assert_eq!(names(&report), ["sum", "later", "text"], "{report}");
    assert_eq!(report["problems"], json!([]), "{report}");

    let sum = page
        .execute_in(&kit, "thenable", "sum", r#"{"a":1,"b":2}"#)
        .await;
    assert_eq!(sum["status"], "ok", "{sum}");
    assert_eq!(sum["text"], r#"{"sum":3}"#, "{sum}");
    let later = page
        .execute_in(&kit, "thenable", "later", r#"{"a":2}"#)
        .await;
    assert_eq!(later["text"], "4", "{later}");
    let text = page.execute_in(&kit, "thenable", "text", "{}").await;
    assert_eq!(text["text"], r#""done""#, "{text}");

    assert_eq!(
        page.control(&fruit, "choose", "Banana").await,
        json!({"chosen": true, "options": []})
    );
    assert_eq!(page.wait_text(&global, json!(["form"]), 5000).await, "form");

    let log = page
        .evaluate("window.thenLog()", true)
        .await
        .value("the page's log");
    assert_eq!(log, "", "none of the page's thens ran on tabwire's values");
}
