//! `get_css_styles` end to end: an element's rules through the extension's CSS
//! domain, the cascade marked as Chromium applies it (checked against the computed
//! style), paging, bad uids, a tab the user is not looking at, and an element of a
//! cross-site frame (read in the frame's own debugging session).

use serde_json::{json, Value};

use crate::frames::frame_said;
use crate::harness::{cross_site_page, page, Agent, Reply};

/// The fixture's styled paragraph, as the snapshot shows it (its text is uppercased
/// by a container query).
const TARGET: &str = "STYLED TEXT";

/// The rule with this selector and a declaration of `property` whose wrappers include
/// `wrapper` (a layer's name, a query), or that has none when `wrapper` is empty.
fn rule<'a>(reply: &'a Reply, selector: &str, wrapper: &str, property: &str) -> &'a Value {
    let rules = reply.json["cssStyles"]["rules"]
        .as_array()
        .unwrap_or_else(|| panic!("no cssStyles.rules in {}", reply.json));
    rules
        .iter()
        .find(|r| {
            let wrappers = r["wrappers"].as_array().cloned().unwrap_or_default();
            r["selector"] == selector
                && r["pseudo"].is_null()
                && r["declarations"]
                    .as_array()
                    .is_some_and(|d| d.iter().any(|d| d["name"] == property))
                && match wrapper {
                    "" => wrappers.is_empty(),
                    w => wrappers.iter().any(|x| x["text"] == w),
                }
        })
        .unwrap_or_else(|| {
            panic!(
                "no rule {selector} setting {property} in {wrapper:?}:\n{}",
                reply.text
            )
        })
}

/// The status of the declaration `name` in `rule`.
fn status<'a>(rule: &'a Value, name: &str) -> &'a str {
    rule["declarations"]
        .as_array()
        .and_then(|d| d.iter().find(|d| d["name"] == name))
        .and_then(|d| d["status"].as_str())
        .unwrap_or_else(|| panic!("no {name} in {rule}"))
}

#[tokio::test]
async fn the_cascade_is_shown_with_its_wrappers_sources_inheritance_and_losers() {
    let agent = Agent::launch(&[]).await;
    let snap = agent.open_and_snapshot("css/page.html").await;
    let uid = snap.uid_of(TARGET);
    let all = agent
        .ok("get_css_styles", json!({"uid": uid, "pageSize": 100}))
        .await;
    all.says("Styles of p#target.target")
        .says("@layer base {")
        .says("@layer theme {")
        .says("@media (min-width: 1px) {")
        .lacks("max-width: 1px")
        .says("@container card (min-width: 10px) {")
        .says("@scope (.card) to (.outside) {")
        .says("@supports (display: grid) {")
        .says("Inherited from div.card.box (the parent, uid \"")
        .says("[overridden] color: navy;")
        .says("--accent: rebeccapurple;")
        .says("/* ::before pseudo-element; <style> in ")
        .says("/* user agent stylesheet */");
    assert_eq!(all.json["cssStyles"]["rules"][0]["kind"], "inline");

    // Layers: for normal declarations the later layer wins; for !important ones the
    // earlier, whatever the specificity.
    let base = rule(&all, "#target.target", "base", "padding");
    let theme = rule(&all, ".target", "theme", "padding");
    let theme_important = rule(&all, ".target", "theme", "border-color");
    assert_eq!(status(base, "border-color"), "active");
    assert_eq!(theme_important["declarations"][0]["important"], true);
    assert_eq!(status(theme_important, "border-color"), "overridden");
    assert_eq!(status(theme, "border-color"), "overridden");
    assert_eq!(status(theme, "padding"), "active");
    assert_eq!(status(base, "padding"), "overridden");
    let source = &base["source"];
    assert!(
        source["url"]
            .as_str()
            .is_some_and(|u| u.ends_with("/css/styles.css")),
        "{source}"
    );
    assert_eq!(
        (source["line"].as_u64(), source["column"].as_u64()),
        (Some(12), Some(3))
    );

    // !important beats a more specific rule; the more specific one is marked.
    assert_eq!(
        status(rule(&all, "p", "", "font-weight"), "font-weight"),
        "active"
    );
    assert_eq!(
        status(
            rule(&all, "div.box > p.target", "", "font-weight"),
            "font-weight"
        ),
        "overridden"
    );
    // A shorthand stays active while one of its longhands wins.
    let plain = rule(&all, ".target", "", "margin");
    assert_eq!(status(plain, "margin"), "active");
    assert_eq!(status(plain, "color"), "active");
    assert_eq!(plain["source"]["inline"], true);
    assert_eq!(plain["source"]["line"], 10);
    assert_eq!(
        status(
            rule(&all, ".target", "(min-width: 1px)", "letter-spacing"),
            "letter-spacing"
        ),
        "active"
    );
    assert_eq!(
        status(
            rule(&all, ".target", "card (min-width: 10px)", "text-transform"),
            "text-transform"
        ),
        "active"
    );

    // Inherited: the nearest ancestor's value, and only what inherits.
    let card = rule(&all, ".card", "", "color");
    assert_eq!(card["inheritedFrom"]["selector"], "div.card.box");
    assert_eq!(card["inheritedFrom"]["depth"], 1);
    assert!(card["inheritedFrom"]["uid"].is_string(), "{card}");
    assert_eq!(status(card, "color"), "overridden");
    assert_eq!(status(card, "font-size"), "active");
    assert!(
        !card.to_string().contains("container-type"),
        "a property that does not inherit is left out: {card}"
    );
    assert_eq!(
        status(rule(&all, ":root", "", "--accent"), "--accent"),
        "active"
    );

    // What the marks say is what Chromium applies.
    let computed = agent
        .evaluate(
            "() => { const s = getComputedStyle(document.getElementById('target')); \
             return [s.borderTopColor, s.paddingTop, s.fontWeight, s.color, s.fontSize, s.letterSpacing]; }",
        )
        .await;
    assert_eq!(
        computed,
        json!([
            "rgb(255, 0, 0)",
            "4px",
            "400",
            "rgb(102, 51, 153)",
            "18px",
            "1px"
        ])
    );

    // Paging: the same rules, a few at a time.
    let total = all.json["pagination"]["total"].as_u64().unwrap_or(0);
    assert!(total > 10, "{}", all.text);
    let first = agent.ok("get_css_styles", json!({"uid": uid})).await;
    assert_eq!(
        first.json["cssStyles"]["rules"].as_array().map(Vec::len),
        Some(10)
    );
    first.says(&format!(
        "Showing 1-10 of {total} (Page 1 of {}). Next page: 1.",
        total.div_ceil(10)
    ));
    let second = agent
        .ok(
            "get_css_styles",
            json!({"uid": uid, "pageSize": 3, "pageIdx": 1}),
        )
        .await;
    assert_eq!(
        second.json["cssStyles"]["rules"],
        json!(all.json["cssStyles"]["rules"]
            .as_array()
            .map(|r| r[3..6].to_vec()))
    );
    assert_eq!(second.json["pagination"]["currentPage"], 1);

    // A plain button has the browser's styles.
    let button = agent
        .ok(
            "get_css_styles",
            json!({"uid": snap.uid_of("button \"Plain\"")}),
        )
        .await;
    button
        .says("Styles of button#plain")
        .says("user agent stylesheet");

    // Unknown and stale uids.
    agent
        .err("get_css_styles", json!({"uid": "99_99"}))
        .await
        .says("unknown or stale");
    agent.ok("navigate_page", json!({"type": "reload"})).await;
    agent
        .err("get_css_styles", json!({"uid": uid}))
        .await
        .says("unknown or stale")
        .says("take_snapshot");
    agent.err("get_css_styles", json!({})).await.says("uid");
    agent.quit().await;
}

#[tokio::test]
async fn a_hidden_tab_shows_its_styles() {
    let agent = Agent::launch(&[]).await;
    agent
        .ok(
            "new_page",
            json!({"url": page("css/page.html"), "background": true}),
        )
        .await;
    assert_eq!(
        agent.evaluate("() => document.visibilityState").await,
        "hidden"
    );
    let snap = agent.ok("take_snapshot", json!({})).await;
    let styles = agent
        .ok("get_css_styles", json!({"uid": snap.uid_of(TARGET)}))
        .await;
    styles
        .says("Styles of p#target.target")
        .says("element.style {");
    assert_eq!(
        agent.evaluate("() => document.visibilityState").await,
        "hidden",
        "reading styles leaves the tab behind the user's"
    );
    agent.quit().await;
}

#[tokio::test]
async fn an_animations_keyframes_and_a_position_try_fallback_are_shown() {
    let agent = Agent::launch(&[]).await;
    let snap = agent.open_and_snapshot("css/page.html").await;
    let styles = agent
        .ok(
            "get_css_styles",
            json!({"uid": snap.uid_of(TARGET), "pageSize": 100}),
        )
        .await;
    styles
        .says("/* a keyframe of an animation it runs; <style> in ")
        .says("@keyframes nudge {")
        .says("outline-offset: 4px;");
    let rules = styles.json["cssStyles"]["rules"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let keyframes: Vec<&Value> = rules.iter().filter(|r| r["kind"] == "keyframe").collect();
    assert_eq!(
        keyframes
            .iter()
            .map(|r| r["selector"].as_str().unwrap_or_default())
            .collect::<Vec<_>>(),
        ["0%", "100%"],
        "{}",
        styles.text
    );
    assert_eq!(keyframes[0]["wrappers"][0]["kind"], "keyframes");
    assert_eq!(keyframes[0]["wrappers"][0]["text"], "nudge");
    assert!(
        keyframes[0]["source"]["url"]
            .as_str()
            .is_some_and(|u| u.ends_with("/css/page.html")),
        "a keyframe says where it is written: {}",
        keyframes[0]
    );

    let tip = agent
        .ok(
            "get_css_styles",
            json!({"uid": snap.uid_of("button \"Tip\""), "pageSize": 100}),
        )
        .await;
    tip.says("@position-try --below {")
        .says("top: anchor(bottom);");
    let fallback = tip.json["cssStyles"]["rules"]
        .as_array()
        .and_then(|r| r.iter().find(|r| r["kind"] == "positionTry").cloned())
        .unwrap_or_else(|| panic!("no positionTry rule:\n{}", tip.text));
    assert_eq!(fallback["selector"], "@position-try --below");
    agent.quit().await;
}

#[tokio::test]
async fn the_query_container_and_the_ancestors_are_named_by_uids_that_work() {
    let agent = Agent::launch(&[]).await;
    let snap = agent.open_and_snapshot("css/page.html").await;
    let styles = agent
        .ok(
            "get_css_styles",
            json!({"uid": snap.uid_of(TARGET), "pageSize": 100}),
        )
        .await;
    let rules = styles.json["cssStyles"]["rules"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let container = rules
        .iter()
        .flat_map(|r| r["wrappers"].as_array().cloned().unwrap_or_default())
        .find(|w| w["kind"] == "container")
        .unwrap_or_else(|| panic!("no @container wrapper:\n{}", styles.text));
    assert_eq!(
        container["container"]["selector"], "div.card.box",
        "{container}"
    );
    let card = container["container"]["uid"]
        .as_str()
        .unwrap_or_else(|| panic!("the container has a uid: {container}"))
        .to_owned();
    styles.says(&format!("/* container: div.card.box, uid \"{card}\" */"));
    let parent = rules
        .iter()
        .find(|r| r["inheritedFrom"]["depth"] == 1)
        .unwrap_or_else(|| panic!("no rule inherited from the parent:\n{}", styles.text));
    assert_eq!(
        parent["inheritedFrom"]["uid"], card,
        "the parent is the container"
    );
    styles.says(&format!(
        "Inherited from div.card.box (the parent, uid \"{card}\"):"
    ));
    // The uid is one tools take: the container's own styles.
    agent
        .ok("get_css_styles", json!({"uid": card}))
        .await
        .says("Styles of div.card.box")
        .says("container-type: inline-size;");
    agent.quit().await;
}

/// An element of a cross-site frame: its rules come from the frame's own style sheets
/// (located at the frame's origin), with the @font-face and custom property
/// registrations it uses; its ancestors are named by uids of the frame, and the tab
/// stays in the background.
#[tokio::test]
async fn an_element_in_a_cross_site_frame_shows_its_styles() {
    let agent = Agent::launch(&[]).await;
    let inner = cross_site_page("css/framed.html");
    let url = format!("{}?inner={inner}", page("frames/cross-site.html"));
    agent
        .ok("new_page", json!({"url": url, "background": true}))
        .await;
    frame_said(&agent, "loaded /css/framed.html").await;
    let snap = agent.ok("take_snapshot", json!({})).await;
    let uid = snap.uid_of("Framed text");
    let styles = agent
        .ok("get_css_styles", json!({"uid": uid, "pageSize": 100}))
        .await;
    styles
        .says("Styles of p#framed.framed")
        .says("--gap: 5px;")
        .says("Inherited from div.box (the parent, uid \"");
    let own = rule(&styles, ".framed", "", "font-family");
    assert!(
        own["source"]["url"]
            .as_str()
            .is_some_and(|u| u == cross_site_page("css/fonts.css")),
        "the frame's sheet, at the frame's origin: {own}"
    );
    assert_eq!(own["source"]["line"], 2);
    // The at-rules it uses, and only those: the @font-face of its font-family, the
    // @property of the custom property it sets, the script's registration of the
    // one it reads.
    styles
        .says("/* a font face of its font-family; <style> in ")
        .says("@font-face {")
        .says("font-family: \"Frame Sans\";")
        .lacks("Unused Face")
        .says("/* registers a custom property it uses; <style> in ")
        .says("@property --gap {")
        .says("syntax: \"<length>\";")
        .lacks("--unused")
        .says("/* registered by CSS.registerProperty(): a custom property it uses */")
        .says("@property --zoom {");
    let kinds = |kind: &str| -> Vec<Value> {
        (styles.json["cssStyles"]["rules"].as_array().into_iter())
            .flatten()
            .filter(|r| r["kind"] == kind)
            .cloned()
            .collect()
    };
    let faces = kinds("fontFace");
    assert_eq!(faces.len(), 1, "{}", styles.text);
    assert!(
        faces[0]["source"]["url"] == inner.as_str(),
        "located in the frame's document: {}",
        faces[0]
    );
    let properties = kinds("property");
    assert_eq!(properties.len(), 1, "{}", styles.text);
    assert_eq!(properties[0]["selector"], "@property --gap");
    assert_eq!(properties[0]["source"]["line"], 11);
    let registered = kinds("registeredProperty");
    assert_eq!(registered.len(), 1, "{}", styles.text);
    assert_eq!(
        registered[0]["declarations"],
        json!([
            {"name": "syntax", "value": "\"<number>\"", "status": "active"},
            {"name": "inherits", "value": "false", "status": "active"},
            {"name": "initial-value", "value": "1", "status": "active"}
        ])
    );
    let parent = rule(&styles, ".box", "", "color");
    let box_uid = parent["inheritedFrom"]["uid"]
        .as_str()
        .unwrap_or_else(|| panic!("the frame's ancestor has a uid: {parent}"))
        .to_owned();
    // That uid is the frame's: it takes tools as any of its elements does.
    agent
        .ok("get_css_styles", json!({"uid": box_uid}))
        .await
        .says("Styles of div.box")
        .says("color: teal;");
    assert_eq!(
        agent.evaluate("() => document.visibilityState").await,
        "hidden",
        "reading a frame's styles leaves the tab behind the user's"
    );
    agent.quit().await;
}
