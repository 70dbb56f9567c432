//! Flattening and state rules, on hand-made accessibility trees.

use serde_json::{json, Value};

use super::*;

/// A node: id (also its backend id), role, name, children, and extra fields.
fn node(id: i64, role: &str, name: &str, children: &[i64], extra: Value) -> AxNode {
    let mut value = json!({
        "nodeId": id.to_string(),
        "role": {"type": "role", "value": role},
        "name": {"type": "computedString", "value": name, "sources": [{"type": "contents"}]},
        "childIds": children.iter().map(|c| c.to_string()).collect::<Vec<_>>(),
        "backendDOMNodeId": id,
    });
    if let (Value::Object(into), Value::Object(from)) = (&mut value, extra) {
        into.extend(from);
    }
    serde_json::from_value(value).expect("a node")
}

/// Sets parent ids from child ids.
fn linked(mut nodes: Vec<AxNode>) -> Vec<AxNode> {
    let parents: Vec<(String, String)> = nodes
        .iter()
        .flat_map(|n| n.child_ids.iter().map(|c| (c.clone(), n.node_id.clone())))
        .collect();
    let parents: std::collections::HashMap<String, String> = parents.into_iter().collect();
    for n in &mut nodes {
        if let Some(parent) = parents.get(&n.node_id) {
            n.parent_id = Some(parent.clone());
        }
    }
    nodes
}

fn props(list: &[(&str, Value)]) -> Value {
    let properties: Vec<Value> = list
        .iter()
        .map(|(name, value)| json!({"name": name, "value": {"type": "x", "value": value}}))
        .collect();
    json!({ "properties": properties })
}

fn lines(flat: &Flattened) -> Vec<String> {
    flat.nodes
        .iter()
        .map(|n| {
            let mut line = format!("{}{} {:?}", "  ".repeat(n.depth as usize), n.role, n.name);
            if let Some(v) = &n.value {
                line.push_str(&format!(" value={v:?}"));
            }
            for s in &n.states {
                line.push_str(&format!(" {s}"));
            }
            line
        })
        .collect()
}

fn flat(nodes: &[AxNode], verbose: bool, pinned: &[i64]) -> Flattened {
    let frames = [FrameNodes { owner: None, nodes }];
    flatten(
        &frames,
        verbose,
        &|n| pinned.contains(&n),
        "http://app.test/page?q=1#top",
    )
}

/// A small page: wrappers, a heading, a button with inner text, a link, a text field,
/// a paragraph of text, a line break.
fn page() -> Vec<AxNode> {
    let focusable = || props(&[("focusable", json!(true))]);
    linked(vec![
        node(
            1,
            "RootWebArea",
            "Shop",
            &[2],
            props(&[("focusable", json!(true))]),
        ),
        node(2, "none", "", &[3], json!({"ignored": true})),
        node(3, "generic", "", &[4, 5, 7, 9, 11, 14], json!({})),
        node(
            4,
            "heading",
            "Welcome",
            &[40],
            props(&[("level", json!(1))]),
        ),
        node(40, "StaticText", "Welcome", &[41], json!({})),
        node(41, "InlineTextBox", "Welcome", &[], json!({})),
        node(5, "button", "Save now", &[50, 51], focusable()),
        node(50, "StaticText", "Save ", &[], json!({})),
        node(51, "StaticText", "now", &[], json!({})),
        node(
            7,
            "link",
            "Docs",
            &[70],
            props(&[
                ("focusable", json!(true)),
                ("url", json!("http://app.test/docs")),
            ]),
        ),
        node(70, "StaticText", "Docs", &[], json!({})),
        node(9, "textbox", "Email", &[90], {
            let mut p = props(&[
                ("focusable", json!(true)),
                ("required", json!(true)),
                ("invalid", json!("false")),
            ]);
            p["value"] = json!({"type": "string", "value": "ada@x.test"});
            p
        }),
        node(
            90,
            "generic",
            "",
            &[91],
            props(&[("editable", json!("plaintext"))]),
        ),
        node(91, "StaticText", "ada@x.test", &[], json!({})),
        node(11, "paragraph", "", &[12, 13], json!({})),
        node(12, "StaticText", "Plain text ", &[], json!({})),
        node(13, "LineBreak", "\n", &[], json!({})),
        node(14, "StaticText", "   ", &[], json!({})),
    ])
}

#[test]
fn the_interesting_nodes_are_kept_and_wrappers_and_noise_go() {
    let out = flat(&page(), false, &[]);
    assert_eq!(
        lines(&out),
        vec![
            "RootWebArea \"Shop\"",
            "  heading \"Welcome\" level=1",
            "  button \"Save now\"",
            "  link \"Docs\" url=/docs",
            "  textbox \"Email\" value=\"ada@x.test\" required",
            "  StaticText \"Plain text \"",
        ]
    );
    assert!(out.listed.contains(&13) && out.listed.contains(&2));
}

#[test]
fn verbose_keeps_every_node_at_its_depth() {
    let out = flat(&page(), true, &[]);
    assert_eq!(out.nodes.len(), page().len());
    let lines = lines(&out);
    assert_eq!(lines[1], "  none \"\" ignored");
    assert!(lines.contains(&"          InlineTextBox \"Welcome\"".to_owned()));
}

#[test]
fn pinned_nodes_are_kept_even_inside_leaves_and_ignored() {
    let out = flat(&page(), false, &[51, 2, 14]);
    let lines = lines(&out);
    assert!(
        lines.contains(&"  none \"\" ignored".to_owned()),
        "{lines:?}"
    );
    assert!(
        lines.contains(&"      StaticText \"now\"".to_owned()),
        "{lines:?}"
    );
    assert!(
        lines.iter().any(|l| l.trim() == "StaticText \"   \""),
        "{lines:?}"
    );
}

#[test]
fn text_repeating_its_parents_name_is_dropped() {
    let nodes = linked(vec![
        node(1, "RootWebArea", "T", &[2], json!({})),
        node(2, "dialog", "Confirm", &[3, 4], json!({})),
        node(3, "StaticText", "Confirm", &[], json!({})),
        node(4, "StaticText", "Are you sure?", &[], json!({})),
    ]);
    assert_eq!(
        lines(&flat(&nodes, false, &[])),
        vec![
            "RootWebArea \"T\"",
            "  dialog \"Confirm\"",
            "    StaticText \"Are you sure?\""
        ]
    );
}

#[test]
fn named_landmarks_stay_and_unnamed_ones_go() {
    let nodes = linked(vec![
        node(1, "RootWebArea", "T", &[2, 4], json!({})),
        node(2, "navigation", "Main", &[3], json!({})),
        node(3, "link", "Home", &[], props(&[("focusable", json!(true))])),
        node(4, "list", "", &[5], json!({})),
        node(5, "listitem", "", &[6], json!({})),
        node(6, "StaticText", "Item", &[], json!({})),
    ]);
    assert_eq!(
        lines(&flat(&nodes, false, &[])),
        vec![
            "RootWebArea \"T\"",
            "  navigation \"Main\"",
            "    link \"Home\"",
            "  StaticText \"Item\""
        ]
    );
}

#[test]
fn child_frames_hang_under_their_iframe_and_unreachable_ones_say_so() {
    let main = linked(vec![
        node(1, "RootWebArea", "Top", &[2, 3], json!({})),
        node(2, "Iframe", "", &[], json!({})),
        node(3, "Iframe", "", &[], json!({})),
    ]);
    let child = linked(vec![
        node(10, "RootWebArea", "Inner", &[11], json!({})),
        node(
            11,
            "button",
            "Inside",
            &[],
            props(&[("focusable", json!(true))]),
        ),
    ]);
    let frames = [
        FrameNodes {
            owner: None,
            nodes: &main,
        },
        FrameNodes {
            owner: Some(2),
            nodes: &child,
        },
    ];
    let out = flatten(&frames, false, &|_| false, "http://a.test/");
    assert_eq!(
        lines(&out),
        vec![
            "RootWebArea \"Top\"",
            "  Iframe \"\"",
            "    RootWebArea \"Inner\"",
            "      button \"Inside\"",
            "  Iframe \"\" frame-not-captured",
        ]
    );
}

#[test]
fn states_use_the_compact_vocabulary_in_a_stable_order() {
    let nodes = linked(vec![
        node(1, "RootWebArea", "T", &[2, 3, 4, 5, 6, 7], json!({})),
        node(
            2,
            "checkbox",
            "A",
            &[],
            props(&[
                ("focusable", json!(true)),
                ("checked", json!("mixed")),
                ("disabled", json!(true)),
                ("focused", json!(true)),
                ("invalid", json!("spelling")),
            ]),
        ),
        node(
            3,
            "button",
            "Menu",
            &[],
            props(&[
                ("focusable", json!(true)),
                ("expanded", json!(false)),
                ("haspopup", json!("menu")),
                ("pressed", json!("true")),
            ]),
        ),
        node(4, "slider", "Volume", &[], {
            let mut p = props(&[
                ("focusable", json!(true)),
                ("valuemin", json!(0)),
                ("valuemax", json!(100)),
                ("valuetext", json!("half")),
            ]);
            p["value"] = json!({"type": "number", "value": 50});
            p
        }),
        node(
            5,
            "spinbutton",
            "Qty",
            &[],
            props(&[
                ("focusable", json!(true)),
                ("valuemin", json!(0)),
                ("valuemax", json!(0)),
            ]),
        ),
        node(6, "link", "Far", &[], {
            let mut p = props(&[
                ("focusable", json!(true)),
                ("url", json!("https://other.test/a b")),
            ]);
            p["description"] = json!({"type": "string", "value": "Opens \"elsewhere\""});
            p
        }),
        node(
            7,
            "generic",
            "",
            &[],
            props(&[("focusable", json!(true)), ("editable", json!("richtext"))]),
        ),
    ]);
    assert_eq!(
        lines(&flat(&nodes, false, &[]))[1..],
        [
            "  checkbox \"A\" focused disabled checked=mixed invalid=spelling",
            "  button \"Menu\" pressed collapsed haspopup=menu",
            "  slider \"Volume\" value=\"50\" valuemin=0 valuemax=100 valuetext=half",
            "  spinbutton \"Qty\"",
            "  link \"Far\" url=\"https://other.test/a b\" description=\"Opens \\\"elsewhere\\\"\"",
            "  generic \"\" editable",
        ]
    );
}

#[test]
fn link_urls_are_shortened_against_the_page() {
    let urls = UrlShortener::new("http://app.test:8080/page?q=1#top");
    assert_eq!(
        urls.shorten("http://app.test:8080/page?q=1#other"),
        "#other"
    );
    assert_eq!(urls.shorten("http://app.test:8080/docs"), "/docs");
    assert_eq!(
        urls.shorten("http://app.test:80/docs"),
        "http://app.test:80/docs"
    );
    assert_eq!(
        urls.shorten("https://elsewhere.test/"),
        "https://elsewhere.test/"
    );
    assert_eq!(urls.shorten("http://app.test:8080"), "http://app.test:8080");
    let long = format!("data:{}", "a".repeat(600));
    assert!(cut(&long, MAX_URL_CHARS).ends_with("…(605 chars)"));
}

#[test]
fn a_very_deep_page_is_walked_without_recursion() {
    let depth = 50_000;
    let mut nodes: Vec<AxNode> = (1..depth)
        .map(|i| node(i, "generic", "", &[i + 1], json!({})))
        .collect();
    nodes.push(node(
        depth,
        "button",
        "Deep",
        &[],
        props(&[("focusable", json!(true))]),
    ));
    nodes[0] = node(1, "RootWebArea", "T", &[2], json!({}));
    let nodes = linked(nodes);
    let out = flat(&nodes, false, &[]);
    assert_eq!(lines(&out), vec!["RootWebArea \"T\"", "  button \"Deep\""]);
    let verbose = flat(&nodes, true, &[]);
    assert_eq!(
        verbose.nodes.last().map(|n| n.depth),
        Some(depth as u32 - 1)
    );
}

#[test]
fn malformed_trees_do_not_loop() {
    let nodes = vec![
        node(1, "RootWebArea", "T", &[2], json!({})),
        node(2, "button", "B", &[1, 2, 99], json!({"parentId": "1"})),
    ];
    let out = flat(&nodes, true, &[]);
    assert_eq!(out.nodes.len(), 2);
}
