//! Contract tests of the snapshot walker (`extension/src/page/snapshot.js`), run as the
//! engine runs it — the embedded script, evaluated in an isolated world named `tabwire`,
//! its methods called there — in a headless Chromium driven directly (no extension, no
//! MCP): hostile builtins, shadow roots and slots, frames, uid stability, resolving,
//! pins, the unchanged-page answer, the viewport filter and the line format.

use serde_json::{json, Value};
use tabwire_extension::engine::page;

use crate::headless::{answer, Answer, Browser, Page};
use crate::page_scripts::HOSTILE_PAGE;

/// One line of a snapshot, its fields unescaped.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Line {
    uid: String,
    depth: u32,
    role: String,
    name: String,
    value: String,
    states: Vec<String>,
}

impl Line {
    /// `role "name"`, the way a failure message shows a line.
    fn short(&self) -> String {
        format!("{} {:?}", self.role, self.name)
    }
}

/// A snapshot: its header and lines.
#[derive(Debug)]
struct Snap {
    generation: u64,
    url: String,
    /// The header's further fields (`ask=…`, `closed=…`).
    extra: Vec<String>,
    lines: Vec<Line>,
}

impl Snap {
    /// The first line with this role and name; fails showing the snapshot.
    fn line(&self, role: &str, name: &str) -> &Line {
        self.lines
            .iter()
            .find(|l| l.role == role && l.name == name)
            .unwrap_or_else(|| panic!("no line {role} {name:?} in\n{}", self.shown()))
    }

    fn has(&self, role: &str, name: &str) -> bool {
        self.lines.iter().any(|l| l.role == role && l.name == name)
    }

    /// The lines as `depth role "name"` text, for comparisons and messages.
    fn shown(&self) -> String {
        self.lines
            .iter()
            .map(|l| format!("{}{}", "  ".repeat(l.depth as usize), l.short()))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Undoes the walker's escaping of one field (`\\`, `\t`, `\n`, `\r`).
fn unescape(field: &str) -> String {
    let mut out = String::with_capacity(field.len());
    let mut chars = field.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('\\') => out.push('\\'),
            other => panic!("a bad escape \\{other:?} in field {field:?}"),
        }
    }
    out
}

/// Parses a walker answer that is not `=<gen>`.
fn parse(text: &str) -> Snap {
    let mut rows = text.split('\n');
    let header = rows.next().unwrap_or_default();
    let mut head = header.split('\t');
    let (Some(generation), Some(url)) = (head.next(), head.next()) else {
        panic!("a bad header {header:?}")
    };
    let extra = head.map(str::to_owned).collect();
    let lines = rows
        .map(|row| {
            let fields: Vec<&str> = row.split('\t').collect();
            assert!(fields.len() >= 5, "a line with too few fields: {row:?}");
            Line {
                uid: unescape(fields[0]),
                depth: fields[1]
                    .parse()
                    .unwrap_or_else(|_| panic!("a bad depth in {row:?}")),
                role: unescape(fields[2]),
                name: unescape(fields[3]),
                value: unescape(fields[4]),
                states: fields[5..].iter().map(|s| unescape(s)).collect(),
            }
        })
        .collect();
    Snap {
        generation: generation
            .parse()
            .unwrap_or_else(|_| panic!("a bad generation in {header:?}")),
        url: unescape(url),
        extra,
        lines,
    }
}

/// The walker in one page's `tabwire` world.
struct Walker<'p, 'b> {
    page: &'p Page<'b>,
    context: i64,
}

impl<'b> Page<'b> {
    /// Makes (or finds: the call is idempotent) the page's `tabwire` world and installs
    /// the walker there, as the engine does.
    async fn walker(&self) -> Walker<'_, 'b> {
        let tree = self
            .cdp
            .send_to(&self.session, "Page.getFrameTree", json!({}))
            .await;
        let frame = tree["frameTree"]["frame"]["id"]
            .as_str()
            .unwrap_or_else(|| panic!("no main frame in {tree}"))
            .to_owned();
        let world = self
            .cdp
            .send_to(
                &self.session,
                "Page.createIsolatedWorld",
                json!({"frameId": frame, "worldName": "tabwire"}),
            )
            .await;
        let context = world["executionContextId"]
            .as_i64()
            .unwrap_or_else(|| panic!("no context in {world}"));
        let walker = Walker {
            page: self,
            context,
        };
        let installed = walker.evaluate(page::SNAPSHOT_WALKER).await;
        assert!(
            matches!(installed, Answer::Value(_)),
            "installing the walker: {installed:?}"
        );
        walker
    }
}

impl Walker<'_, '_> {
    async fn evaluate(&self, expression: &str) -> Answer {
        let result = self
            .page
            .cdp
            .send_to(
                &self.page.session,
                "Runtime.evaluate",
                json!({"expression": expression, "contextId": self.context, "returnByValue": true}),
            )
            .await;
        answer(result)
    }

    /// Evaluates `expression` in the world, by value; fails if it throws.
    async fn value(&self, expression: &str) -> Value {
        self.evaluate(expression).await.value(expression)
    }

    /// `take(number, opts)`, as text.
    async fn take_text(&self, number: u64, opts: Value) -> String {
        let call = format!("__tabwireSnapshot.take({number}, {opts})");
        let text = self.value(&call).await;
        text.as_str()
            .unwrap_or_else(|| panic!("{call} gave {text}"))
            .to_owned()
    }

    async fn take(&self, number: u64, opts: Value) -> Snap {
        let text = self.take_text(number, opts).await;
        assert!(!text.starts_with('='), "a full answer, not {text:?}");
        parse(&text)
    }
}

/// Builds the test page's body in the page's own world; `code` may end with a promise
/// (frames loading) that the page resolves.
async fn build(page: &Page<'_>, html: &str, code: &str) {
    let script = format!(
        "document.body.innerHTML = {html}; {code}",
        html = serde_json::to_string(html).unwrap_or_default()
    );
    page.run_page_code(&script).await;
}

const FORM: &str = r##"<h1>Orders</h1>
<nav aria-label="Main"><a href="#top">Top</a> <a href="/next">Next</a></nav>
<label for="email">Email</label><input id="email" value="ada@example.com" required>
<label><input type="checkbox" checked> Subscribe</label>
<select aria-label="Size"><option>Small</option><option selected>Large</option></select>
<button id="go" aria-expanded="false" aria-haspopup="menu">Go</button>
<p id="note">Some <b>bold</b> text.</p>
<div id="gone" style="display:none">Not shown</div>"##;

/// Breaks what a DOM walker could lean on, in the page's own world.
const BREAK_DOM_BUILTINS: &str = r#"(() => {
  const boom = (what) => function () { throw new Error(what + ' is broken'); };
  Element.prototype.getAttribute = boom('getAttribute');
  Element.prototype.hasAttribute = boom('hasAttribute');
  Element.prototype.closest = boom('closest');
  Element.prototype.matches = boom('matches');
  Element.prototype.querySelector = boom('querySelector');
  Element.prototype.getClientRects = boom('getClientRects');
  window.getComputedStyle = boom('getComputedStyle');
  Object.defineProperty(Node.prototype, 'childNodes', {get: boom('childNodes')});
  Object.defineProperty(Element.prototype, 'shadowRoot', {get: boom('shadowRoot')});
  Object.defineProperty(HTMLInputElement.prototype, 'value', {get: boom('value')});
  Object.defineProperty(Document.prototype, 'title', {get: boom('title')});
  String.prototype.replace = boom('String.prototype.replace');
  String.prototype.trim = boom('String.prototype.trim');
  String.prototype.split = boom('String.prototype.split');
  RegExp.prototype.test = boom('RegExp.prototype.test');
  RegExp.prototype.exec = boom('RegExp.prototype.exec');
  Array.prototype.join = boom('Array.prototype.join');
  window.WeakMap = boom('WeakMap');
  window.WeakRef = boom('WeakRef');
  window.Map = boom('Map');
  window.Set = boom('Set');
  window.MutationObserver = boom('MutationObserver');
  Object.getOwnPropertyDescriptor = boom('Object.getOwnPropertyDescriptor');
  return true;
})()"#;

#[tokio::test]
async fn the_walker_sees_the_page_as_it_is_whatever_the_page_did_to_its_builtins() {
    let browser = Browser::start().await;
    let clean = browser.page(false).await;
    build(&clean, FORM, "true").await;
    let expected = clean.walker().await.take(1, json!({})).await;

    let hostile = browser.page(false).await;
    build(&hostile, FORM, "true").await;
    hostile.run_page_code(BREAK_DOM_BUILTINS).await;
    hostile.run_page_code(HOSTILE_PAGE).await;
    let broken = hostile
        .evaluate(
            "(() => { try { document.body.getAttribute('x'); return false; } catch (e) { return true; } })()",
            true,
        )
        .await
        .value("the page's builtins");
    assert_eq!(broken, true, "the page did break its builtins");
    let walker = hostile.walker().await;
    let got = walker.take(1, json!({})).await;
    assert_eq!(
        got.shown(),
        expected.shown(),
        "the same snapshot as on a clean page"
    );
    assert_eq!(got.lines, expected.lines);

    // And it is the right one.
    let root = &got.lines[0];
    assert_eq!((root.depth, root.role.as_str()), (0, "RootWebArea"));
    assert_eq!(root.name, "contract");
    assert_eq!(got.line("heading", "Orders").states, ["level=1"]);
    assert_eq!(got.line("navigation", "Main").depth, 1);
    let top = got.line("link", "Top");
    assert_eq!(
        (top.depth, top.states.clone()),
        (2, vec!["url=#top".to_owned()])
    );
    assert_eq!(got.line("link", "Next").states, ["url=/next"]);
    let email = got.line("textbox", "Email");
    assert_eq!(email.value, "ada@example.com");
    assert_eq!(email.states, ["required"]);
    assert_eq!(got.line("checkbox", "Subscribe").states, ["checked"]);
    let size = got.line("combobox", "Size");
    assert_eq!(size.value, "Large");
    assert!(size.states.contains(&"collapsed".to_owned()), "{size:?}");
    assert!(got
        .line("option", "Large")
        .states
        .contains(&"selected".to_owned()));
    assert_eq!(
        got.line("button", "Go").states,
        ["collapsed", "haspopup=menu"]
    );
    assert!(got.has("StaticText", "bold"), "{}", got.shown());
    assert!(!got.has("StaticText", "Not shown"), "{}", got.shown());
    assert!(got.url.starts_with("data:text/html"), "{}", got.url);

    // The page cannot see the walker's world.
    let seen = hostile
        .evaluate("typeof window.__tabwireSnapshot", true)
        .await
        .value("the page's view");
    assert_eq!(seen, "undefined");
    // Evaluating the script again gives the same walker, state kept.
    let again = walker
        .value(&format!(
            "({}) === __tabwireSnapshot && __tabwireSnapshot.take(2, {{}}).split('\\n')[2].split('\\t')[0]",
            page::SNAPSHOT_WALKER.trim_end()
        ))
        .await;
    assert_eq!(
        again,
        json!(got.lines[1].uid),
        "uids kept by the one walker"
    );
    browser.cdp.close_browser().await;
}

const SHADOWS: &str = r#"<open-host id="one"><span slot="a"><button>Slotted</button></span></open-host>
<open-host id="two"></open-host>
<closed-host id="closed"></closed-host>
<iframe id="same" title="Same" srcdoc="<title>Inner</title><button>In frame</button>"></iframe>
<iframe id="other" title="Other" src="data:text/html,<button>Elsewhere</button>"></iframe>"#;

const SHADOW_CODE: &str = r#"
customElements.define('open-host', class extends HTMLElement {
  constructor() {
    super();
    this.attachShadow({mode: 'open'}).innerHTML =
      '<button>Inside</button><slot name="a"></slot><slot>Fallback text</slot>';
  }
  get shadowRoot() { throw new Error('the page hides its roots'); }
});
customElements.define('closed-host', class extends HTMLElement {
  constructor() {
    super();
    this.attachShadow({mode: 'closed'}).innerHTML = '<button>Hidden away</button>';
  }
});
// Set in the task that made the frames, before either can have loaded.
Promise.all([...document.querySelectorAll('iframe')].map((f) =>
  new Promise((resolve) => { f.onload = resolve; }))).then(() => true)"#;

#[tokio::test]
async fn shadow_roots_slots_and_frames_are_walked_in_place() {
    let browser = Browser::start().await;
    let page = browser.page(false).await;
    build(&page, SHADOWS, SHADOW_CODE).await;
    let snap = page.walker().await.take(4, json!({})).await;
    let shown = snap.shown();
    let expected = [
        "RootWebArea \"contract\"",
        "  button \"Inside\"",
        "  button \"Slotted\"",
        "  StaticText \"Fallback text\"",
        "  button \"Inside\"",
        "  StaticText \"Fallback text\"",
        "  generic \"\"",
        "  Iframe \"Same\"",
        "    RootWebArea \"Inner\"",
        "      button \"In frame\"",
        "  Iframe \"Other\"",
    ]
    .join("\n");
    assert_eq!(shown, expected);
    let closed = &snap.lines[6];
    assert_eq!(closed.states, ["shadow-root=closed"], "{closed:?}");
    assert!(!snap.has("button", "Hidden away"));
    assert_eq!(snap.line("Iframe", "Other").states, ["frame-not-captured"]);
    assert!(snap.line("Iframe", "Same").states.is_empty());
    // Every uid is new, numbered by this take, and names its node.
    for (n, line) in snap.lines.iter().enumerate() {
        assert_eq!(line.uid, format!("4_{}", n + 1), "{line:?}");
    }

    // The engine can hand the closed root in: found through CDP, resolved into the
    // world, taken with addRoot; then it is walked in place like an open one.
    let walker = page.walker().await;
    let host = walker
        .page
        .cdp
        .send_to(
            &page.session,
            "Runtime.evaluate",
            json!({"expression": format!("__tabwireSnapshot.resolve('{}')", closed.uid), "contextId": walker.context}),
        )
        .await;
    let host = host["result"]["objectId"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let described = page
        .cdp
        .send_to(
            &page.session,
            "DOM.describeNode",
            json!({"objectId": host, "depth": 1, "pierce": true}),
        )
        .await;
    let root = described["node"]["shadowRoots"][0].clone();
    assert_eq!(root["shadowRootType"], "closed", "{described}");
    let resolved = page
        .cdp
        .send_to(
            &page.session,
            "DOM.resolveNode",
            json!({"backendNodeId": root["backendNodeId"], "executionContextId": walker.context}),
        )
        .await;
    let added = page
        .call(
            "function (uid) { return __tabwireSnapshot.addRoot(uid, this); }",
            resolved["object"]["objectId"].as_str().unwrap_or_default(),
            vec![json!({"value": closed.uid})],
            true,
        )
        .await
        .value("addRoot");
    assert_eq!(added, true);
    assert_eq!(
        snap.extra,
        [format!("closed={}", closed.uid)],
        "listed to look up"
    );
    let opened = walker.take(5, json!({})).await;
    assert!(opened.extra.is_empty(), "{:?}", opened.extra);
    assert!(opened.has("button", "Hidden away"), "{}", opened.shown());
    assert!(!opened.has("generic", ""), "{}", opened.shown());
    browser.cdp.close_browser().await;
}

const LIST: &str = r#"<ul id="list"><li><button id="a">Alpha</button></li><li><button id="b">Beta</button></li></ul>
<input id="field" aria-label="Field" value="one">
<div id="secret" style="display:none"><span id="deep">Deep</span></div>
<p id="words">Some words</p>"#;

#[tokio::test]
async fn uids_stay_with_their_nodes_and_resolve_while_connected() {
    let browser = Browser::start().await;
    let page = browser.page(false).await;
    build(&page, LIST, "true").await;
    let walker = page.walker().await;
    let first = walker.take(1, json!({})).await;
    let second = walker.take(2, json!({})).await;
    assert_eq!(
        first.lines, second.lines,
        "an unchanged page: the same lines, the same uids"
    );

    page.run_page_code(
        "document.getElementById('list').insertAdjacentHTML('afterbegin', '<li><button id=\"new\">New</button></li>'); true",
    )
    .await;
    let third = walker.take(3, json!({})).await;
    for name in ["Alpha", "Beta", "Field"] {
        let role = if name == "Field" { "textbox" } else { "button" };
        assert_eq!(
            third.line(role, name).uid,
            first.line(role, name).uid,
            "{name} keeps its uid"
        );
    }
    assert!(
        third.line("button", "New").uid.starts_with("3_"),
        "a new node gets a uid of the take that saw it first: {}",
        third.line("button", "New").uid
    );

    // resolve: the node while it is in the document, null once it is gone.
    let beta = first.line("button", "Beta").uid.clone();
    let id = walker
        .value(&format!("__tabwireSnapshot.resolve('{beta}').id"))
        .await;
    assert_eq!(id, "b");
    page.run_page_code("document.getElementById('b').remove(); true")
        .await;
    let gone = walker
        .value(&format!("__tabwireSnapshot.resolve('{beta}') === null"))
        .await;
    assert_eq!(gone, true, "a removed node does not resolve");
    let unknown = walker
        .value("[__tabwireSnapshot.resolve('99_1'), __tabwireSnapshot.resolve(7)]")
        .await;
    assert_eq!(unknown, json!([null, null]));

    // pin: a display:none element shows in its place, until unpinned.
    let uid = walker
        .value("__tabwireSnapshot.uidOf(document.getElementById('deep'), 5)")
        .await;
    let uid = uid.as_str().unwrap_or_default().to_owned();
    assert_eq!(uid, "5_1");
    assert_eq!(
        walker
            .value(&format!("__tabwireSnapshot.pin('{uid}')"))
            .await,
        true
    );
    let pinned = walker.take(6, json!({})).await;
    let at = pinned
        .lines
        .iter()
        .position(|l| l.uid == uid)
        .unwrap_or_else(|| panic!("the pinned node is shown:\n{}", pinned.shown()));
    let line = &pinned.lines[at];
    assert_eq!(line.role, "span");
    assert_eq!(line.states, ["not-in-accessibility-tree"]);
    assert_eq!(
        pinned.lines[at - 1].short(),
        "textbox \"Field\"",
        "in its DOM place, after what comes before it:\n{}",
        pinned.shown()
    );
    assert_eq!(pinned.lines[at + 1].short(), "StaticText \"Some words\"");
    assert_eq!(
        walker
            .value(&format!(
                "[__tabwireSnapshot.unpin('{uid}'), __tabwireSnapshot.unpin('{uid}')]"
            ))
            .await,
        json!([true, false])
    );
    let unpinned = walker.take(7, json!({})).await;
    assert!(
        !unpinned.lines.iter().any(|l| l.uid == uid),
        "{}",
        unpinned.shown()
    );
    browser.cdp.close_browser().await;
}

#[tokio::test]
async fn an_unchanged_page_is_answered_by_its_generation() {
    let browser = Browser::start().await;
    let page = browser.page(false).await;
    build(&page, LIST, "true").await;
    let walker = page.walker().await;
    let mut last = walker.take(1, json!({})).await.generation;
    assert_eq!(
        walker.take_text(2, json!({"since": last})).await,
        format!("={last}"),
        "nothing changed"
    );
    assert!(
        !walker
            .take_text(2, json!({"since": last + 1}))
            .await
            .starts_with('='),
        "another generation: a full answer"
    );
    for (what, change) in [
        (
            "an attribute",
            "document.getElementById('a').setAttribute('aria-label', 'First')",
        ),
        (
            "a text",
            "document.getElementById('words').firstChild.data = 'Other words'",
        ),
        (
            "an input's value",
            "document.getElementById('field').value = 'two'",
        ),
        ("the focus", "document.getElementById('a').focus()"),
    ] {
        page.run_page_code(&format!("{change}; true")).await;
        let text = walker.take_text(3, json!({"since": last})).await;
        assert!(
            !text.starts_with('='),
            "after a change of {what}, a full answer: {text}"
        );
        let snap = parse(&text);
        last = snap.generation;
        assert_eq!(
            walker.take_text(3, json!({"since": last})).await,
            format!("={last}"),
            "and unchanged again after {what}"
        );
    }
    let snap = walker.take(4, json!({})).await;
    assert_eq!(snap.line("button", "First").states, ["focused"]);
    assert_eq!(snap.line("textbox", "Field").value, "two");
    assert!(snap.has("StaticText", "Other words"));
    browser.cdp.close_browser().await;
}

#[tokio::test]
async fn the_viewport_option_keeps_what_is_on_screen_and_its_ancestors() {
    let browser = Browser::start().await;
    let page = browser.page(false).await;
    let rows: String = (1..=40)
        .map(|i| format!("<li><button style=\"height:100px;display:block\">Row {i}</button></li>"))
        .collect();
    let html = format!("<nav aria-label=\"Rows\"><ul>{rows}</ul></nav><a href=\"#end\">End</a>");
    build(&page, &html, "true").await;
    let walker = page.walker().await;
    let all = walker.take(1, json!({})).await;
    assert!(all.has("button", "Row 40") && all.has("link", "End"));
    let seen = walker.take(2, json!({"viewport": true})).await;
    assert!(
        seen.has("navigation", "Rows"),
        "the ancestors stay:\n{}",
        seen.shown()
    );
    assert!(seen.has("button", "Row 1"), "{}", seen.shown());
    assert!(!seen.has("button", "Row 20"), "{}", seen.shown());
    assert!(!seen.has("link", "End"), "{}", seen.shown());
    assert_eq!(
        seen.line("button", "Row 1").uid,
        all.line("button", "Row 1").uid
    );
    page.run_page_code("document.querySelector('a').scrollIntoView(); true")
        .await;
    let end = walker.take(3, json!({"viewport": true})).await;
    assert!(end.has("link", "End"), "{}", end.shown());
    assert!(!end.has("button", "Row 1"), "{}", end.shown());
    browser.cdp.close_browser().await;
}

#[tokio::test]
async fn fields_escape_backslashes_tabs_and_line_breaks() {
    let browser = Browser::start().await;
    let page = browser.page(false).await;
    build(
        &page,
        r#"<textarea aria-label="Path C:\dir\file"></textarea><div role="slider" aria-label="Dial" aria-valuenow="3"></div>"#,
        r"document.querySelector('textarea').value = 'a\tb\nc\\d';
          document.querySelector('[role=slider]').setAttribute('aria-valuetext', 'x\ty\nz\rw\\v');
          document.title = 'Tab\\title'; true",
    )
    .await;
    let text = page.walker().await.take_text(1, json!({})).await;
    let row = |role: &str| -> Vec<String> {
        text.split('\n')
            .find(|row| row.split('\t').nth(2) == Some(role))
            .unwrap_or_else(|| panic!("no {role} line in {text:?}"))
            .split('\t')
            .skip(2)
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(
        row("textbox"),
        [
            "textbox",
            "Path C:\\\\dir\\\\file",
            "a\\tb\\nc\\\\d",
            "multiline"
        ]
    );
    assert_eq!(
        row("slider"),
        [
            "slider",
            "Dial",
            "3",
            "valuemin=0",
            "valuemax=100",
            "valuetext=x\\ty\\nz\\rw\\\\v"
        ]
    );
    let snap = parse(&text);
    assert_eq!(snap.lines[0].name, "Tab\\title");
    assert_eq!(
        snap.line("textbox", "Path C:\\dir\\file").value,
        "a\tb\nc\\d"
    );
    assert_eq!(
        snap.line("slider", "Dial").states[2],
        "valuetext=x\ty\nz\rw\\v"
    );
    browser.cdp.close_browser().await;
}

const CUSTOM: &str = r#"<x-radio aria-label="Small" tabindex="0"></x-radio>
<x-list><span>Item</span></x-list>
<x-button-host></x-button-host>
<x-plain>Just text</x-plain>
<x-roled role="group" aria-label="Roled"></x-roled>"#;

const CUSTOM_CODE: &str = r#"
customElements.define('x-radio', class extends HTMLElement {
  constructor() { super(); this.attachInternals().role = 'radio'; this.attachShadow({mode: 'open'}).innerHTML = '<span></span>'; }
});
customElements.define('x-list', class extends HTMLElement {
  constructor() { super(); this.attachInternals().role = 'list'; this.attachShadow({mode: 'open'}).innerHTML = '<slot></slot>'; }
});
customElements.define('x-button-host', class extends HTMLElement {
  constructor() { super(); this.attachShadow({mode: 'open'}).innerHTML = '<button>Native inside</button>'; }
});
true"#;

#[tokio::test]
async fn custom_element_hosts_are_listed_for_chrome_and_keep_its_answer() {
    let browser = Browser::start().await;
    let page = browser.page(false).await;
    build(&page, CUSTOM, CUSTOM_CODE).await;
    let walker = page.walker().await;
    let snap = walker.take(1, json!({})).await;
    let listed = walker.value("__tabwireSnapshot.candidates()").await;
    let tags = walker
        .value("__tabwireSnapshot.candidates().map((u) => __tabwireSnapshot.resolve(u).localName)")
        .await;
    assert_eq!(
        tags,
        json!(["x-radio", "x-list"]),
        "the focusable host and the host with no native element inside; not the host of \
         a button, a host without a shadow root or one with a role attribute"
    );
    let radio = listed[0].as_str().unwrap_or_default().to_owned();
    assert_eq!(
        snap.line("generic", "Small").uid,
        radio,
        "the walker alone sees a generic host"
    );

    assert_eq!(
        snap.extra,
        [format!(
            "ask={}",
            listed
                .as_array()
                .unwrap()
                .iter()
                .map(|u| u.as_str().unwrap())
                .collect::<Vec<_>>()
                .join(" ")
        )],
        "the take's header lists them"
    );

    // Answers: one good, one malformed (ignored), one for an unknown uid.
    let adopt = format!(
        "__tabwireSnapshot.adopt([['{radio}', {{role: 'radio', name: 'Small', states: ['checked']}}], \
          ['{radio}', {{role: ''}}], ['9_9', {{role: 'radio'}}], 'junk'])"
    );
    assert_eq!(walker.value(&adopt).await, json!(1), "one answer changed");
    assert_eq!(
        walker.value(&adopt).await,
        json!(0),
        "the same again changes nothing"
    );
    let after = walker.take(2, json!({})).await;
    let line = after.line("radio", "Small");
    assert_eq!(line.uid, radio, "Chrome's answer, same uid");
    assert_eq!(line.states, ["checked"]);
    let tags = walker
        .value("__tabwireSnapshot.candidates().map((u) => __tabwireSnapshot.resolve(u).localName)")
        .await;
    assert_eq!(
        tags,
        json!(["x-radio", "x-list"]),
        "an answered host is still listed: it is asked again at every snapshot"
    );

    // A role attribute wins over an adopted answer; null forgets one.
    page.run_page_code("document.querySelector('x-radio').setAttribute('role', 'switch'); true")
        .await;
    let changed = walker.take(3, json!({})).await;
    assert!(changed.has("switch", "Small"), "{}", changed.shown());
    page.run_page_code("document.querySelector('x-radio').removeAttribute('role'); true")
        .await;
    assert_eq!(
        walker
            .value(&format!("__tabwireSnapshot.adopt([['{radio}', null]])"))
            .await,
        json!(1)
    );
    let forgotten = walker.take(4, json!({})).await;
    assert!(forgotten.has("generic", "Small"), "{}", forgotten.shown());
    browser.cdp.close_browser().await;
}

#[tokio::test]
async fn at_most_50000_uids_are_kept_forgetting_unseen_unpinned_ones_first() {
    let browser = Browser::start().await;
    let page = browser.page(false).await;
    let buttons = "const add = (box) => { const b = document.createElement('div'); \
        for (let i = 0; i < 30000; i++) { const e = document.createElement('button'); e.textContent = 'b' + i; b.append(e); } \
        document.body.append(b); return b; };";
    build(
        &page,
        "",
        &format!("{{ {buttons} window.oldBox = add(); }} true"),
    )
    .await;
    let walker = page.walker().await;
    let first = walker.take(1, json!({})).await;
    assert_eq!(first.lines.len(), 30_001);
    let old = first.line("button", "b5").uid.clone();
    let kept = first.line("button", "b7").uid.clone();
    assert_eq!(
        walker
            .value(&format!("__tabwireSnapshot.pin('{kept}')"))
            .await,
        true
    );
    // The old buttons stay in the document, hidden; 30,000 new ones come.
    page.run_page_code(&format!(
        "{{ {buttons} oldBox.style.display = 'none'; add(); }} true"
    ))
    .await;
    let second = walker.take(2, json!({})).await;
    assert!(
        second.lines.iter().any(|l| l.uid == kept),
        "the pinned one is shown"
    );
    let resolved = walker
        .value(&format!(
            "[__tabwireSnapshot.resolve('{old}'), !!__tabwireSnapshot.resolve('{kept}'), \
              !!__tabwireSnapshot.resolve('{}')]",
            second.line("button", "b5").uid
        ))
        .await;
    assert_eq!(
        resolved,
        json!([null, true, true]),
        "past 50,000 uids, an unseen one is forgotten; a pinned and a seen one are kept"
    );
    browser.cdp.close_browser().await;
}
