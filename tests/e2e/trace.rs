//! Performance traces: what the extension's debugger may reach for them, and the
//! trace tools end to end.

use std::time::Duration;

use serde_json::{json, Value};

use crate::harness::{page, Agent};

/// Longest the browser may take to show a change the test caused.
const SEEN: Duration = Duration::from_secs(20);

/// Runs, in the extension's own service worker, each domain's first command through
/// `chrome.debugger` on a tab of its own, and returns what Chrome said per domain
/// (`{"ok": true}` or `{"ok": false, "error": …}`). Tracing is run through: started
/// with stream transfer, ended, its stream read with `IO.read` and closed.
const PROBE: &str = r#"(async (url) => {
  const [tab] = await chrome.tabs.query({url});
  const target = {tabId: tab.id};
  await chrome.debugger.attach(target, '1.3');
  const send = (method, params) => chrome.debugger.sendCommand(target, method, params || {})
    .then(result => ({ok: true, result}), e => ({ok: false, error: String(e && e.message || e)}));
  const out = {};
  const complete = new Promise(resolve => {
    const listener = (source, method, params) => {
      if (source.tabId === tab.id && method === 'Tracing.tracingComplete') {
        chrome.debugger.onEvent.removeListener(listener);
        resolve(params);
      }
    };
    chrome.debugger.onEvent.addListener(listener);
    setTimeout(() => resolve(null), 10000);
  });
  out.Tracing = await send('Tracing.start', {transferMode: 'ReturnAsStream', categories: 'devtools.timeline'});
  if (out.Tracing.ok) {
    out.Tracing = await send('Tracing.end');
    const done = await complete;
    if (!done) {
      out.Tracing = {ok: false, error: 'no Tracing.tracingComplete within 10 s'};
    } else {
      const read = await send('IO.read', {handle: done.stream, size: 65536});
      out.IO = read.ok && typeof read.result.data === 'string' ? {ok: true} : read;
      await send('IO.close', {handle: done.stream});
    }
  }
  const dom = await send('DOM.enable');
  out.CSS = dom.ok ? await send('CSS.enable') : dom;
  out.Performance = await send('Performance.enable');
  if (out.Performance.ok) out.Performance = await send('Performance.getMetrics');
  out.Runtime = await send('Runtime.evaluate', {expression: '1'});
  out.Profiler = await send('Profiler.enable');
  if (out.Profiler.ok) out.Profiler = await send('Profiler.start');
  if (out.Profiler.ok) out.Profiler = await send('Profiler.stop');
  out.HeapProfiler = await send('HeapProfiler.enable');
  if (out.HeapProfiler.ok) out.HeapProfiler = await send('HeapProfiler.collectGarbage');
  out.WebMCP = await send('WebMCP.enable');
  await chrome.debugger.detach(target);
  for (const key of Object.keys(out)) if (out[key].ok) out[key] = {ok: true};
  return out;
})"#;

#[tokio::test]
async fn the_extension_debugger_may_trace_and_read_the_trace_stream() {
    let (agent, cdp) = Agent::launch_with_cdp(&[]).await;
    agent.ok("list_pages", json!({})).await;
    let extension = cdp.wait_extension_id(SEEN).await;
    // A tab of the test's own, which the extension has not attached to.
    let url = page("index.html") + "?probe";
    cdp.open_tab(&url).await;
    cdp.wait_target("the probe tab", SEEN, |t| t.kind == "page" && t.url == url)
        .await;
    let worker = cdp.wait_service_worker(&extension, SEEN).await;
    let session = cdp.attach(&worker.target_id).await;
    let found: Value = cdp
        .evaluate(&session, &format!("{PROBE}({})", json!(url)))
        .await;
    eprintln!("chrome.debugger per domain: {found}");
    for domain in ["Tracing", "IO"] {
        assert_eq!(
            found[domain]["ok"], true,
            "the extension's debugger should reach {domain}: {found}"
        );
    }
    agent.quit().await;
}

/// The insight set the summary lists first, as structured content gives it.
fn first_set(reply: &crate::harness::Reply) -> Value {
    reply.json["performanceTrace"]["insightSets"][0].clone()
}

/// Opens `name` in a background tab (not in front: the agent's tab usually is not)
/// and records a trace of its load (not from the cache), saved to a file.
async fn traced(agent: &Agent, name: &str, file: &std::path::Path) -> crate::harness::Reply {
    agent
        .ok("new_page", json!({"url": page(name), "background": true}))
        .await;
    agent
        .ok(
            "performance_start_trace",
            json!({"reload": true, "autoStop": true, "ignoreCache": true, "filePath": file}),
        )
        .await
}

/// `performance_analyze_insight` for `name` of the first insight set of `reply`.
async fn insight(
    agent: &Agent,
    reply: &crate::harness::Reply,
    name: &str,
) -> crate::harness::Reply {
    let id = first_set(reply)["id"]
        .as_str()
        .expect("an insight set id")
        .to_owned();
    agent
        .ok(
            "performance_analyze_insight",
            json!({"insightSetId": id, "insightName": name}),
        )
        .await
}

/// A number of `value` at `key`, or a failure naming what was missing.
fn number(value: &Value, key: &str) -> f64 {
    value[key]
        .as_f64()
        .unwrap_or_else(|| panic!("no number {key} in {value}"))
}

#[tokio::test]
async fn a_traced_load_is_saved_and_its_requests_and_tasks_are_named() {
    let agent = Agent::launch(&[]).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("lcp.json");
    let reply = traced(&agent, "perf/lcp.html", &file).await;
    reply
        .says("The performance trace has been stopped.")
        .says("DocumentLatency: first byte after")
        .says("style.css");
    let set = first_set(&reply);
    assert!(
        set["url"]
            .as_str()
            .is_some_and(|u| u.ends_with("perf/lcp.html")),
        "the set is the reload of the page: {set}"
    );
    let blocking = set["renderBlocking"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let css = blocking
        .iter()
        .find(|r| r["url"].as_str().unwrap_or("").contains("style.css"))
        .unwrap_or_else(|| panic!("the stylesheet blocks the first render: {set}"));
    assert!(
        css["durationMs"].as_f64().unwrap_or(0.0) >= 140.0,
        "the stylesheet comes 150 ms late: {css}"
    );
    assert!(set["document"]["ttfbMs"].as_f64().is_some(), "{set}");
    // The tab in the background drew its frames: the LCP is the hero image, 800 ms late.
    assert_eq!(set["drewFrames"], true, "{set}");
    let lcp = &set["lcp"];
    assert_eq!(lcp["kind"], "image", "the LCP element is the image: {set}");
    assert!(
        lcp["imageUrl"]
            .as_str()
            .is_some_and(|u| u.contains("hero.png")),
        "{lcp}"
    );
    assert!(
        lcp["backendNodeId"].as_i64().is_some(),
        "the element: {lcp}"
    );
    assert!(
        number(lcp, "ms") >= 800.0,
        "hero.png comes 800 ms late: {lcp}"
    );
    let parts = &lcp["breakdown"];
    assert!(number(parts, "loadDurationMs") >= 750.0, "{parts}");
    let sum = ["ttfbMs", "loadDelayMs", "loadDurationMs", "renderDelayMs"]
        .iter()
        .map(|k| number(parts, k))
        .sum::<f64>();
    assert!(
        (sum - number(lcp, "ms")).abs() < 1.0,
        "the parts add up: {lcp}"
    );
    reply.says("LCP").says("resource load duration");
    // The raw trace is what the Performance panel opens: with the browser's start
    // event, which names the tab's main frame, added.
    let saved: Value = serde_json::from_slice(&std::fs::read(&file).expect("trace saved"))
        .expect("the saved trace is JSON");
    let events = saved["traceEvents"].as_array().cloned().unwrap_or_default();
    let started = events
        .iter()
        .find(|e| e["name"] == "TracingStartedInBrowser")
        .unwrap_or_else(|| panic!("the saved trace names its main frame"));
    let frame = &started["args"]["data"]["frames"][0];
    assert!(
        frame["url"]
            .as_str()
            .is_some_and(|u| u.ends_with("perf/lcp.html")),
        "{started}"
    );
    assert!(
        events
            .iter()
            .any(|e| e["name"] == "navigationStart" && e["args"]["frame"] == frame["frame"]),
        "the frame named is the one that loaded: {started}"
    );

    let id = set["id"].as_str().expect("an insight set id").to_owned();
    agent
        .ok(
            "performance_analyze_insight",
            json!({"insightSetId": id, "insightName": "RenderBlocking"}),
        )
        .await
        .says("style.css");
    // The hero is in the HTML and eager, but not asked for at high priority.
    let discovery = &lcp["discovery"];
    assert_eq!(
        (
            &discovery["discoverable"],
            &discovery["eagerlyLoaded"],
            &discovery["fetchPriorityHigh"]
        ),
        (&json!(true), &json!(true), &json!(false)),
        "{lcp}"
    );
    reply.says("LCPDiscovery: fetchpriority=high should be applied to the image");
    // The test server names the charset in its Content-Type (then Chrome does not
    // look for a <meta charset>).
    assert_eq!(set["characterSet"]["httpCharset"], true, "{set}");
    reply.says("CharacterSet: declared");
    agent
        .ok(
            "performance_analyze_insight",
            json!({"insightSetId": id, "insightName": "CharacterSet"}),
        )
        .await
        .says("pass: charset in the HTTP Content-Type header");
    let details = agent
        .ok(
            "performance_analyze_insight",
            json!({"insightSetId": id, "insightName": "LCPDiscovery"}),
        )
        .await;
    details
        .says("FAIL: fetchpriority=high applied")
        .says("pass: discoverable in the first HTML");
    let data = &details.json["performanceInsight"]["details"];
    assert_eq!(data["passes"], false, "{data}");
    assert!(
        data["discovery"]["requestUrl"]
            .as_str()
            .is_some_and(|u| u.contains("hero.png")),
        "{data}"
    );
    // Cache: the fixture server gives no cache lifetime, so the image and the style
    // sheet would be fetched again on a return visit.
    reply.says("- Cache: ").says("no or a short cache lifetime");
    let cache = &set["cache"];
    let short: Vec<&str> = cache["requests"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| r["ttlS"].is_null())
        .filter_map(|r| r["url"].as_str())
        .collect();
    assert!(
        short.iter().any(|u| u.contains("hero.png"))
            && short.iter().any(|u| u.contains("style.css")),
        "{cache}"
    );
    assert!(number(cache, "wastedBytes") > 0.0, "{cache}");
    let details = agent
        .ok(
            "performance_analyze_insight",
            json!({"insightSetId": id, "insightName": "Cache"}),
        )
        .await;
    details
        .says("hero.png?delay=800 (Image): no cache lifetime")
        .says("style.css?delay=150 (Stylesheet): no cache lifetime");
    let data = &details.json["performanceInsight"]["details"];
    assert!(number(data, "checked") >= 2.0, "{data}");
    assert_eq!(
        data["withoutHeaders"], 0,
        "the trace has the headers: {data}"
    );
    // ModernHTTP: the fixture server's HTTP/1.1 is a local server's, left out.
    reply.says("- ModernHTTP: no request over HTTP/1.x to an origin of 6 or more static resources (requests to local servers are left out).");
    assert!(number(&set["modernHttp"], "localHttp1") >= 2.0, "{set}");
    // Viewport: Chrome on a desktop reports the page optimized; it has no viewport tag.
    assert_eq!(
        (
            &set["viewport"]["mobileOptimized"],
            &set["viewport"]["metaViewport"]
        ),
        (&json!(true), &json!(false)),
        "{set}"
    );
    reply.says(
        "- Viewport: optimized for mobile, as Chrome reported (it has no viewport meta tag; \
         desktop Chrome reports every page so",
    );
    agent
        .ok(
            "performance_analyze_insight",
            json!({"insightSetId": id, "insightName": "Viewport"}),
        )
        .await
        .says("The page has no viewport meta tag.")
        .says("committed frame(s) was mobile-optimized");
    agent
        .err(
            "performance_analyze_insight",
            json!({"insightSetId": id, "insightName": "Nonsense"}),
        )
        .await
        .says("LCPBreakdown");
    // DevTools' insights tabwire leaves out say why.
    agent
        .err(
            "performance_analyze_insight",
            json!({"insightSetId": id, "insightName": "LegacyJavaScript"}),
        )
        .await
        .says("tabwire does not compute LegacyJavaScript: ")
        .says("DevTools' Performance panel");

    // FontDisplay: the heading's font (font-display: auto) comes 300 ms late and hides
    // its text meanwhile; the paragraph's swaps.
    let reply = traced(&agent, "perf/font.html", &dir.path().join("font.json")).await;
    let set = first_set(&reply);
    let fonts = set["fontDisplay"]["fonts"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(fonts.len(), 1, "{set}");
    assert!(
        fonts[0]["url"]
            .as_str()
            .is_some_and(|u| u.contains("font=block")),
        "{fonts:?}"
    );
    assert_eq!(fonts[0]["display"], "auto", "{fonts:?}");
    assert!(
        number(&fonts[0], "wastedMs") >= 250.0,
        "served 300 ms late: {fonts:?}"
    );
    reply.says("- FontDisplay: 1 web font(s) hid their text while loading");
    let id = set["id"].as_str().expect("an insight set id").to_owned();
    agent
        .ok(
            "performance_analyze_insight",
            json!({"insightSetId": id, "insightName": "FontDisplay"}),
        )
        .await
        .says("2 web font(s) began to load within the load.")
        .says("font=block&delay=300: font-display: auto; its text may have been invisible for");

    // NetworkDependencyTree: a style sheet imports another that loads the heading's
    // font, a chain of three after the document.
    let reply = traced(&agent, "perf/chain.html", &dir.path().join("chain.json")).await;
    reply.says(
        "/perf/chain.html → /perf/chain-a.css?delay=100 → /perf/chain-b.css?delay=100 → \
         /perf/chain.woff2?delay=100",
    );
    let set = first_set(&reply);
    let tree = &set["networkDependencyTree"];
    assert!(
        number(tree, "maxTimeMs") >= 300.0,
        "three requests held back 100 ms: {tree}"
    );
    let id = set["id"].as_str().expect("an insight set id").to_owned();
    agent
        .ok(
            "performance_analyze_insight",
            json!({"insightSetId": id, "insightName": "NetworkDependencyTree"}),
        )
        .await
        .says("Critical request chains")
        .says("      - /perf/chain.woff2?delay=100 (")
        .says("longest chain)");

    let reply = traced(&agent, "perf/shift.html", &dir.path().join("shift.json")).await;
    let set = first_set(&reply);
    let cls = &set["cls"];
    assert!(
        number(cls, "score") > 0.1,
        "the late banner moves the page: {set}"
    );
    let shifts = cls["shifts"].as_array().cloned().unwrap_or_default();
    assert!(
        shifts.iter().any(|s| s["backendNodeIds"]
            .as_array()
            .is_some_and(|n| !n.is_empty())),
        "the shift names what moved: {cls}"
    );
    reply.says("CLSCulprits: CLS 0.");

    let reply = traced(&agent, "perf/long-task.html", &dir.path().join("busy.json")).await;
    let set = first_set(&reply);
    let tasks = set["longTasks"].as_array().cloned().unwrap_or_default();
    assert!(
        tasks
            .iter()
            .any(|t| t["durationMs"].as_f64().unwrap_or(0.0) >= 240.0),
        "busy.js spins 250 ms: {set}"
    );
    let own = tasks
        .iter()
        .flat_map(|t| t["scripts"].as_array().cloned().unwrap_or_default())
        .find(|s| {
            s["url"]
                .as_str()
                .is_some_and(|u| u.ends_with("/perf/busy.js"))
        })
        .unwrap_or_else(|| panic!("busy.js ran in a long task: {set}"));
    assert_eq!(own["thirdParty"], false, "the page's own script: {own}");
    // The CPU profile: busy.js's spin is the hottest script function, where it starts
    // (performance.now, which it calls, may take more self time than its loop).
    reply.says("CPUProfile: hottest functions (self time): ");
    let cpu = &set["cpuProfile"];
    let spin = cpu["functions"]
        .as_array()
        .and_then(|f| f.iter().find(|f| f["kind"] == "javaScript"))
        .cloned()
        .unwrap_or_else(|| panic!("a script function in the CPU profile: {cpu}"));
    assert_eq!(spin["functionName"], "spin", "{cpu}");
    assert!(
        spin["url"]
            .as_str()
            .is_some_and(|u| u.ends_with("/perf/busy.js")),
        "{spin}"
    );
    assert_eq!(
        (spin["line"].as_i64(), spin["column"].as_i64()),
        (Some(3), Some(27))
    );
    // It spins 250 ms, part of it in performance.now (its own callee).
    let (self_ms, total_ms) = (number(&spin, "selfMs"), number(&spin, "totalMs"));
    // (Under load, more of it may fall to performance.now.)
    assert!(self_ms >= 10.0 && self_ms <= total_ms, "{spin}");
    assert!((200.0..=400.0).contains(&total_ms), "{spin}");
    assert!(number(cpu, "busyMs") >= total_ms, "{cpu}");
    let label = spin["label"].as_str().unwrap_or_default().to_owned();
    assert!(label.ends_with("/perf/busy.js:3:27)"), "{spin}");
    reply.says(&label);
    let id = set["id"].as_str().expect("an insight set id").to_owned();
    let table = agent
        .ok(
            "performance_analyze_insight",
            json!({"insightSetId": id, "insightName": "CPUProfile"}),
        )
        .await;
    table
        .says("Bottom-up, by self time")
        .says(&format!("- {label}: self "));
    // The table is the summary's, whole: its first script function is spin too
    // (natives and "(program)" may come before it).
    let details = &table.json["performanceInsight"]["details"];
    let first_script = details["functions"]
        .as_array()
        .and_then(|f| f.iter().find(|f| f["kind"] == "javaScript"));
    assert_eq!(
        first_script.map(|f| &f["label"]),
        Some(&spin["label"]),
        "{details}"
    );

    // The same script from another site is a third party's.
    let reply = traced(
        &agent,
        "perf/third-party-task.html",
        &dir.path().join("third.json"),
    )
    .await;
    reply.says("(third party)").says("third-party scripts ran");
    let set = first_set(&reply);
    let longest = set["longTasks"][0].clone();
    assert!(
        longest["thirdPartyMs"].as_f64().unwrap_or(0.0) >= 200.0,
        "most of the task is the third party's: {longest}"
    );
    assert!(
        longest["scripts"][0]["url"]
            .as_str()
            .is_some_and(|u| u.starts_with("http://localhost:")),
        "{longest}"
    );
    assert_eq!(longest["scripts"][0]["thirdParty"], true, "{longest}");
    // ThirdParties: localhost's bytes and main-thread time, apart from the page's site.
    reply.says(
        "- ThirdParties: 1 third-party site(s) (the page's own site is 127.0.0.1): localhost: ",
    );
    let sites = &set["thirdParties"];
    assert_eq!(sites["firstParty"], "127.0.0.1", "{sites}");
    let localhost = sites["entities"]
        .as_array()
        .and_then(|e| e.iter().find(|e| e["name"] == "localhost"))
        .cloned()
        .unwrap_or_else(|| panic!("localhost among the sites: {sites}"));
    assert_eq!(localhost["firstParty"], false, "{localhost}");
    assert!(
        number(&localhost, "transferBytes") > 0.0,
        "busy.js's bytes: {localhost}"
    );
    assert!(
        number(&localhost, "mainThreadMs") >= 20.0,
        "busy.js spins 250 ms (most of it in performance.now, a built-in): {localhost}"
    );
    let id = set["id"].as_str().expect("an insight set id").to_owned();
    let details = agent
        .ok(
            "performance_analyze_insight",
            json!({"insightSetId": id, "insightName": "ThirdParties"}),
        )
        .await;
    details
        .says("The page's own site: 127.0.0.1.")
        .says("- localhost: ")
        .says("/perf/busy.js");
    let data = &details.json["performanceInsight"]["details"];
    assert!(number(data, "thirdPartyMainThreadMs") >= 20.0, "{data}");
    agent.quit().await;
}

#[tokio::test]
async fn tracing_faults_are_clear_and_leave_nothing_recording() {
    let agent = Agent::launch(&[]).await;
    agent
        .ok(
            "new_page",
            json!({"url": page("index.html"), "background": true}),
        )
        .await;
    agent
        .err("performance_stop_trace", json!({}))
        .await
        .says("No performance trace is being recorded");
    agent
        .ok(
            "performance_start_trace",
            json!({"reload": false, "autoStop": false}),
        )
        .await
        .says("performance_stop_trace");
    agent
        .err(
            "performance_start_trace",
            json!({"reload": false, "autoStop": false}),
        )
        .await
        .says("already being recorded");
    agent
        .ok("performance_stop_trace", json!({}))
        .await
        .says("NO_NAVIGATION");
    // Stopped means stopped: a new trace starts, and the page closing mid-trace ends it.
    agent
        .ok(
            "performance_start_trace",
            json!({"reload": false, "autoStop": false}),
        )
        .await;
    let page_id = agent.ok("list_pages", json!({})).await.selected_page();
    agent
        .ok(
            "new_page",
            json!({"url": page("second.html"), "background": true}),
        )
        .await;
    agent.ok("close_page", json!({"pageId": page_id})).await;
    agent
        .err("performance_stop_trace", json!({"pageId": page_id}))
        .await
        .says(&format!("{page_id}"));
    // Another page traces at once: nothing was left recording in the browser.
    agent
        .ok(
            "performance_start_trace",
            json!({"reload": true, "autoStop": true}),
        )
        .await
        .says("The performance trace has been stopped.");
    // Saved compressed when asked, as the Performance panel opens it.
    let dir = tempfile::tempdir().expect("temp dir");
    let packed = dir.path().join("trace.json.gz");
    agent
        .ok(
            "performance_start_trace",
            json!({"reload": true, "autoStop": true, "filePath": packed}),
        )
        .await
        .says("saved to");
    let mut text = String::new();
    std::io::Read::read_to_string(
        &mut flate2::read::GzDecoder::new(std::fs::File::open(&packed).expect("trace saved")),
        &mut text,
    )
    .expect("the saved trace is gzip");
    let saved: Value = serde_json::from_str(&text).expect("the saved trace is JSON");
    assert!(saved["traceEvents"]
        .as_array()
        .is_some_and(|e| !e.is_empty()));
    agent.quit().await;
}

#[tokio::test]
async fn forced_reflows_are_put_down_to_the_line_that_read_the_layout() {
    let agent = Agent::launch(&[]).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let reply = traced(&agent, "perf/reflow.html", &dir.path().join("reflow.json")).await;
    reply.says("ForcedReflow: ").says("reflow.js:13:20");
    let set = first_set(&reply);
    let reflows = &set["forcedReflows"];
    assert!(
        reflows["totalMs"].as_f64().unwrap_or(0.0) >= 30.0,
        "thrash forces 30 layouts of 300 boxes: {reflows}"
    );
    let top = &reflows["callSites"][0];
    assert_eq!(top["functionName"], "thrash", "{reflows}");
    assert_eq!(
        (top["line"].as_i64(), top["column"].as_i64()),
        (Some(13), Some(20))
    );
    assert!(top["url"]
        .as_str()
        .is_some_and(|u| u.ends_with("perf/reflow.js")));
    let id = set["id"].as_str().expect("an insight set id").to_owned();
    agent
        .ok(
            "performance_analyze_insight",
            json!({"insightSetId": id, "insightName": "ForcedReflow"}),
        )
        .await
        .says("Total reflow time")
        .says("Top function call: thrash");
    // A large DOM: its size is counted.
    let reply = traced(&agent, "perf/dom-size.html", &dir.path().join("dom.json")).await;
    reply.says("DOMSize: ");
    let dom = first_set(&reply)["domSize"].clone();
    match dom["totalElements"].as_i64() {
        // Chrome records DOMStats when the tab paints a frame.
        Some(total) => {
            assert!(total >= 2000, "{dom}");
            assert!(dom["deepest"]["value"].as_i64().unwrap_or(0) >= 60, "{dom}");
            assert!(
                dom["widest"]["value"].as_i64().unwrap_or(0) >= 2000,
                "{dom}"
            );
            assert_eq!(dom["widest"]["nodeName"], "UL id='wide'", "{dom}");
            assert_eq!(dom["deepest"]["nodeName"], "DIV class='level'", "{dom}");
            // Named by uid too, and the uids are those elements.
            for (figure, expected) in [("widest", "UL wide 2000"), ("deepest", "DIV  0")] {
                let uid = dom[figure]["uid"]
                    .as_str()
                    .unwrap_or_else(|| panic!("the {figure} element should have a uid: {dom}"));
                agent
                    .ok(
                        "evaluate_script",
                        json!({
                            "function": "(el) => `${el.tagName} ${el.id} ${el.childElementCount}`",
                            "args": [{"uid": uid}],
                        }),
                    )
                    .await
                    .says(expected);
            }
        }
        None => assert!(dom["nodes"].as_i64().unwrap_or(0) >= 2000, "{dom}"),
    }
    agent.quit().await;
}

#[tokio::test]
async fn images_that_could_take_fewer_bytes_are_named_with_what_to_do_and_their_elements() {
    let agent = Agent::launch(&[]).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let reply = traced(&agent, "perf/images.html", &dir.path().join("images.json")).await;
    let found = first_set(&reply)["imageDelivery"].clone();
    let images = found["images"].as_array().cloned().unwrap_or_default();
    let ways = |name: &str| -> Vec<String> {
        let image = images
            .iter()
            .find(|i| i["url"].as_str().is_some_and(|u| u.ends_with(name)))
            .unwrap_or_else(|| panic!("{name} should be an image to deliver better: {found}"));
        let mut ways: Vec<String> = image["optimizations"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|o| o["type"].as_str().map(str::to_owned))
            .collect();
        ways.sort();
        ways
    };
    assert_eq!(
        ways("photo.png?thumb"),
        ["MODERN_FORMAT_OR_COMPRESSION", "RESPONSIVE_SIZE"]
    );
    assert_eq!(ways("photo.webp"), ["ADJUST_COMPRESSION"]);
    assert_eq!(ways("loop.gif"), ["VIDEO_FORMAT"]);
    // A CSS background and an image with breakpoints keep their sizes.
    assert_eq!(ways("photo.png?css"), ["MODERN_FORMAT_OR_COMPRESSION"]);
    assert_eq!(ways("photo.png?srcset"), ["MODERN_FORMAT_OR_COMPRESSION"]);
    // The compact PNG, the SVG and the preload never shown are not named.
    assert_eq!(images.len(), 5, "{found}");
    reply
        .says("- ImageDelivery: 5 image(s) could take ")
        .says("the most, ");
    // The thumbnail is named by a uid that is that element.
    let thumb = images
        .iter()
        .find(|i| i["url"].as_str().is_some_and(|u| u.ends_with("?thumb")))
        .cloned()
        .unwrap_or_default();
    let uid = thumb["uid"]
        .as_str()
        .unwrap_or_else(|| panic!("the thumbnail should have a uid: {thumb}"));
    agent
        .ok(
            "evaluate_script",
            json!({"function": "(el) => `${el.id} ${el.naturalWidth}`", "args": [{"uid": uid}]}),
        )
        .await
        .says("thumb 160");
    insight(&agent, &reply, "ImageDelivery")
        .await
        .says("could take fewer bytes")
        .says(&format!("(element uid \"{uid}\")"))
        .says("160x120 file shown at 40x30")
        .says("use a video instead of an animated GIF")
        .says("(a CSS background)");
    agent.quit().await;
}

#[tokio::test]
async fn css_selector_costs_are_recorded_when_asked_for_and_the_slowest_named() {
    let agent = Agent::launch(&[]).await;
    let page_url = page("perf/selectors.html");
    agent
        .ok("new_page", json!({"url": page_url, "background": true}))
        .await;
    // Not asked for: the summary is silent and the details say how to record them.
    let reply = agent
        .ok(
            "performance_start_trace",
            json!({"reload": true, "autoStop": true}),
        )
        .await;
    assert!(
        !reply.text.contains("SlowCSSSelector:"),
        "no statistics were asked for: {}",
        reply.text
    );
    insight(&agent, &reply, "SlowCSSSelector")
        .await
        .says("cssSelectorStats: true");
    // Asked for: the costly descendant selector is the slowest.
    let reply = agent
        .ok(
            "performance_start_trace",
            json!({"reload": true, "autoStop": true, "cssSelectorStats": true}),
        )
        .await;
    reply
        .says("- SlowCSSSelector: selector matching took ")
        .says("the slowest selector: `div div div :is(span, em)[data-kind*=\"x\"] ~ span`");
    let found = first_set(&reply)["slowCssSelector"].clone();
    assert!(
        found["totalMatchAttempts"].as_u64().unwrap_or(0) >= 15_000,
        "3,000 spans restyled six times: {found}"
    );
    insight(&agent, &reply, "SlowCSSSelector")
        .await
        .says("Slowest selectors")
        .says("rejected on the fast path");
    agent.quit().await;
}

#[tokio::test]
async fn a_slow_click_is_the_inp_with_its_processing_and_target_named_by_uid() {
    let agent = Agent::launch(&[]).await;
    agent
        .ok(
            "new_page",
            json!({"url": page("perf/slow-click.html"), "background": true}),
        )
        .await;
    let button = agent
        .ok("take_snapshot", json!({}))
        .await
        .uid_of("Slow button");
    agent
        .ok(
            "performance_start_trace",
            json!({"reload": false, "autoStop": false}),
        )
        .await;
    agent.ok("click", json!({"uid": button})).await;
    agent
        .ok("wait_for", json!({"text": "clicked", "timeout": 20000}))
        .await;
    let reply = agent.ok("performance_stop_trace", json!({})).await;
    reply
        .says("INPBreakdown: INP ")
        .says(&format!("uid {button}"));
    let inp = first_set(&reply)["inp"].clone();
    let i = &inp["interaction"];
    assert!(inp["ms"].as_f64().unwrap_or(0.0) >= 200.0, "{inp}");
    let processing = i["processingMs"].as_f64().unwrap_or(0.0);
    assert!(processing >= 190.0, "the handler spins 200 ms: {inp}");
    for phase in ["inputDelayMs", "presentationDelayMs"] {
        assert!(i[phase].as_f64().unwrap_or(f64::MAX) < processing, "{inp}");
    }
    assert_eq!(i["uid"], json!(button), "the target is the button: {inp}");
    agent
        .ok(
            "performance_analyze_insight",
            json!({"insightSetId": "NO_NAVIGATION", "insightName": "INPBreakdown"}),
        )
        .await
        .says("Processing duration");
    agent.quit().await;
}
