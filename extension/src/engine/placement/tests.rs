//! Placing returned elements, on hand-made snapshots and DOM captures.

use serde_json::{json, Value};

use super::*;

/// One document's nodes as `(backend, parent backend, name)`, document order; the
/// parent `0` is none. Names starting with `#` are a document (`#document`) or text.
fn document(nodes: &[(i64, i64, &str)], strings: &mut Vec<String>) -> Value {
    let index_of = |backend: i64| {
        nodes
            .iter()
            .position(|n| n.0 == backend)
            .map_or(-1, |i| i as i64)
    };
    let mut name = |text: &str| {
        strings.push(text.to_owned());
        strings.len() - 1
    };
    let kind = |text: &str| match text {
        "#document" => 9,
        t if t.starts_with('#') => 3,
        _ => 1,
    };
    json!({"nodes": {
        "parentIndex": nodes.iter().map(|n| index_of(n.1)).collect::<Vec<_>>(),
        "nodeType": nodes.iter().map(|n| kind(n.2)).collect::<Vec<_>>(),
        "nodeName": nodes.iter().map(|n| name(n.2)).collect::<Vec<_>>(),
        "backendNodeId": nodes.iter().map(|n| n.0).collect::<Vec<_>>(),
    }})
}

/// The shape of one document.
fn shape(nodes: &[(i64, i64, &str)]) -> DomShape {
    let mut strings = Vec::new();
    let documents = vec![document(nodes, &mut strings)];
    DomShape::of(
        &serde_json::from_value(json!({"documents": documents, "strings": strings})).unwrap(),
    )
}

/// A snapshot node: backend, depth, role.
fn flat(backend: i64, depth: u32, role: &str) -> FlatNode {
    FlatNode {
        backend: Some(backend),
        depth,
        role: role.to_owned(),
        name: String::new(),
        value: None,
        states: vec![],
    }
}

/// `(depth, role)` of each node.
fn outline(nodes: &[FlatNode]) -> Vec<(u32, &str)> {
    nodes.iter().map(|n| (n.depth, n.role.as_str())).collect()
}

/// An Angular-like page: `<app-root><h1/><main><app-counter><button/><span>3</span>
/// </app-counter></main><div hidden/></app-root>`; the accessibility tree lists the
/// heading, the button and the text only.
fn angular() -> (Vec<FlatNode>, DomShape) {
    let nodes = vec![
        flat(2, 0, "RootWebArea"),
        flat(8, 1, "heading"),
        flat(11, 1, "button"),
        flat(17, 1, "StaticText"),
    ];
    let shape = shape(&[
        (2, 0, "#document"),
        (3, 2, "HTML"),
        (6, 3, "BODY"),
        (7, 6, "APP-ROOT"),
        (8, 7, "H1"),
        (9, 7, "MAIN"),
        (10, 9, "APP-COUNTER"),
        (11, 10, "BUTTON"),
        (12, 10, "SPAN"),
        (17, 12, "#text"),
        (13, 7, "DIV"),
    ]);
    (nodes, shape)
}

fn element(backend: i64, shape: &DomShape) -> FlatNode {
    element_node(backend, shape.tag(backend).unwrap())
}

#[test]
fn an_element_goes_under_its_nearest_shown_ancestor_with_its_descendants() {
    let (nodes, shape) = angular();
    let placed = place(nodes, vec![element(10, &shape)], &shape);
    assert_eq!(
        outline(&placed),
        vec![
            (0, "RootWebArea"),
            (1, "heading"),
            (1, "app-counter"),
            (2, "button"),
            (2, "StaticText"),
        ]
    );
    assert_eq!(placed[2].backend, Some(10));
    assert_eq!(placed[2].states, vec![NOT_IN_ACCESSIBILITY_TREE]);
}

#[test]
fn nested_elements_nest_in_either_order() {
    let expected = vec![
        (0, "RootWebArea"),
        (1, "app-root"),
        (2, "heading"),
        (2, "app-counter"),
        (3, "button"),
        (3, "StaticText"),
    ];
    for order in [[7, 10], [10, 7]] {
        let (nodes, shape) = angular();
        let elements = order.iter().map(|b| element(*b, &shape)).collect();
        let placed = place(nodes, elements, &shape);
        assert_eq!(outline(&placed), expected, "placed in the order {order:?}");
    }
}

#[test]
fn an_element_holding_no_shown_node_goes_after_its_ancestors_last_child() {
    let (nodes, shape) = angular();
    let elements = vec![element(7, &shape), element(13, &shape)];
    let placed = place(nodes, elements, &shape);
    assert_eq!(
        outline(&placed),
        vec![
            (0, "RootWebArea"),
            (1, "app-root"),
            (2, "heading"),
            (2, "button"),
            (2, "StaticText"),
            (2, "div"),
        ]
    );
}

#[test]
fn the_element_takes_the_place_of_the_first_child_it_holds_and_keeps_their_order() {
    // <ul>: a, <x-group>b</x-group>, c — with x-group holding b and d, which the
    // accessibility tree lists apart (d is moved there by aria-owns, say).
    let nodes = vec![
        flat(1, 0, "RootWebArea"),
        flat(2, 1, "list"),
        flat(3, 2, "listitem"),
        flat(5, 2, "listitem"),
        flat(6, 2, "listitem"),
        flat(7, 2, "listitem"),
        flat(8, 3, "StaticText"),
    ];
    let shape = shape(&[
        (1, 0, "#document"),
        (2, 1, "UL"),
        (3, 2, "LI"),
        (4, 2, "X-GROUP"),
        (5, 4, "LI"),
        (6, 2, "LI"),
        (7, 4, "LI"),
        (8, 7, "#text"),
    ]);
    let placed = place(nodes, vec![element(4, &shape)], &shape);
    let order: Vec<_> = placed.iter().map(|n| (n.depth, n.backend)).collect();
    assert_eq!(
        order,
        vec![
            (0, Some(1)),
            (1, Some(2)),
            (2, Some(3)),
            (2, Some(4)),
            (3, Some(5)),
            (3, Some(7)),
            (4, Some(8)),
            (2, Some(6)),
        ]
    );
}

#[test]
fn without_a_shown_ancestor_an_element_goes_under_the_root() {
    let (nodes, _) = angular();
    let detached = element_node(99, "div");
    let placed = place(nodes, vec![detached], &DomShape::default());
    assert_eq!(
        placed.last().map(|n| (n.depth, n.backend)),
        Some((1, Some(99)))
    );
    assert_eq!(placed.len(), 5);

    let alone = place(vec![], vec![element_node(99, "div")], &DomShape::default());
    assert_eq!(outline(&alone), vec![(0, "div")]);
}

#[test]
fn an_element_in_a_frame_goes_under_the_frame() {
    let mut strings = Vec::new();
    let mut main = document(
        &[(1, 0, "#document"), (2, 1, "BODY"), (3, 2, "IFRAME")],
        &mut strings,
    );
    main["nodes"]["contentDocumentIndex"] = json!({"index": [2], "value": [1]});
    let inner = document(
        &[(20, 0, "#document"), (21, 20, "X-CARD"), (22, 21, "BUTTON")],
        &mut strings,
    );
    let captured: Captured =
        serde_json::from_value(json!({"documents": [main, inner], "strings": strings})).unwrap();
    let shape = DomShape::of(&captured);
    let nodes = vec![
        flat(1, 0, "RootWebArea"),
        flat(3, 1, "Iframe"),
        flat(20, 2, "RootWebArea"),
        flat(22, 3, "button"),
    ];
    let placed = place(nodes, vec![element(21, &shape)], &shape);
    assert_eq!(
        outline(&placed),
        vec![
            (0, "RootWebArea"),
            (1, "Iframe"),
            (2, "RootWebArea"),
            (3, "x-card"),
            (4, "button"),
        ]
    );
}

#[test]
fn a_broken_capture_neither_panics_nor_loops() {
    let captured: Captured = serde_json::from_value(json!({
        "documents": [
            {"nodes": {"parentIndex": [1, 0, 7], "nodeType": [1, 1], "nodeName": [0, 9],
                       "backendNodeId": [5, 6, 7],
                       "contentDocumentIndex": {"index": [0, 4], "value": [3, 0]}}},
            {}
        ],
        "strings": ["DIV"]
    }))
    .unwrap();
    let shape = DomShape::of(&captured);
    assert_eq!(shape.tag(5), Some("div"));
    assert_eq!(shape.tag(6), None, "its name is no string");
    let placed = place(
        vec![flat(1, 0, "RootWebArea")],
        vec![element_node(5, "div")],
        &shape,
    );
    assert_eq!(outline(&placed), vec![(0, "RootWebArea"), (1, "div")]);
}
