//! The JSON of every command and reply, pinned: each golden line must read into its
//! type (a reply: its request's reply type) and write back byte for byte, so a change
//! to how the protocol is typed in Rust cannot change what travels between the host
//! and the extension.

use tabwire_shared::requests::*;
use tabwire_shared::{Command, Envelope, FromExtension, Request, ToExtension};

/// Every command, with each optional field both present and absent somewhere.
const COMMANDS: &[&str] = &[
    r#"{"command":"listTabs"}"#,
    r#"{"command":"activateTab","tabId":3}"#,
    r#"{"command":"newTab","url":"https://a.test/","background":true,"timeoutMs":1000}"#,
    r#"{"command":"newTab","url":"about:blank","timeoutMs":5}"#,
    r#"{"command":"requestTab","reason":"check the total","timeoutMs":50000}"#,
    r#"{"command":"navigate","tabId":3,"to":{"type":"url","url":"https://a.test/"},"timeoutMs":1000}"#,
    r#"{"command":"navigate","tabId":3,"to":{"type":"back"},"timeoutMs":1}"#,
    r#"{"command":"navigate","tabId":3,"to":{"type":"forward"},"timeoutMs":1}"#,
    r#"{"command":"navigate","tabId":3,"to":{"type":"reload","ignoreCache":true},"timeoutMs":1}"#,
    r#"{"command":"closeTab","tabId":3}"#,
    r#"{"command":"evaluate","tabId":3,"function":"(a) => a","args":[1,"x",{"k":null}],"timeoutMs":500}"#,
    r#"{"command":"snapshot","tabId":3,"verbose":false}"#,
    r#"{"command":"snapshot","tabId":3,"verbose":true,"viewport":true}"#,
    r#"{"command":"discoverTools","tabId":3,"allowedOrigins":["http://localhost:*"],"timeoutMs":5000,"automatic":true}"#,
    r#"{"command":"executeTool","tabId":3,"document":"d1","tool":"t","group":"g","args":{"uid":"1_2"},"timeoutMs":9}"#,
    r#"{"command":"executeTool","tabId":3,"document":"d1","tool":"t","args":null,"timeoutMs":9}"#,
    r#"{"command":"input","tabId":3,"action":{"type":"click","uid":"1_1","double":true},"timeoutMs":2}"#,
    r#"{"command":"input","tabId":3,"action":{"type":"clickAt","x":1.5,"y":2.0,"double":false},"timeoutMs":2}"#,
    r#"{"command":"input","tabId":3,"action":{"type":"hover","uid":"1_1"},"timeoutMs":2}"#,
    r#"{"command":"input","tabId":3,"action":{"type":"fill","uid":"1_1","value":"v"},"timeoutMs":2}"#,
    r#"{"command":"input","tabId":3,"action":{"type":"typeText","text":"hi","submitKey":"Enter"},"timeoutMs":2}"#,
    r#"{"command":"input","tabId":3,"action":{"type":"typeText","text":"hi"},"timeoutMs":2}"#,
    r#"{"command":"input","tabId":3,"action":{"type":"pressKey","key":"Control+A"},"timeoutMs":2}"#,
    r#"{"command":"input","tabId":3,"action":{"type":"drag","fromUid":"1_1","toUid":"1_2"},"timeoutMs":2}"#,
    r#"{"command":"input","tabId":3,"action":{"type":"uploadFile","uid":"1_1","paths":["/tmp/a"]},"timeoutMs":2}"#,
    r#"{"command":"waitForText","tabId":3,"texts":["a","b"],"timeoutMs":100}"#,
    r#"{"command":"handleDialog","tabId":3,"accept":true,"promptText":"yes"}"#,
    r#"{"command":"handleDialog","tabId":3,"accept":false}"#,
    r#"{"command":"screenshot","tabId":3,"format":"jpeg","quality":50,"fullPage":true,"uid":"1_4"}"#,
    r#"{"command":"screenshot","tabId":3,"format":"png","fullPage":false}"#,
    r#"{"command":"listConsole","tabId":3,"includePreserved":true,"types":["error","startGroupCollapsed"],"pageSize":10,"pageIdx":2}"#,
    r#"{"command":"listConsole","tabId":3,"includePreserved":false,"types":[],"pageSize":10}"#,
    r#"{"command":"consoleMessage","tabId":3,"id":4}"#,
    r#"{"command":"networkRequests","tabId":3,"includePreserved":false}"#,
    r#"{"command":"networkRequest","tabId":3,"id":4}"#,
    r#"{"command":"emulate","tabId":3,"changes":{"network":{"op":"set","value":{"name":"Slow 3G","offline":false,"latencyMs":2000.0,"downloadBytesPerSec":50000.0,"uploadBytesPerSec":50000.0}},"cpuThrottlingRate":{"op":"clear"},"viewport":{"op":"set","value":{"width":10,"height":20,"deviceScaleFactor":2.0,"mobile":true,"touch":false,"landscape":false}},"userAgent":{"op":"set","value":"UA"},"colorScheme":{"op":"set","value":"dark"},"geolocation":{"op":"set","value":{"latitude":1.0,"longitude":2.0,"accuracy":3.0}},"extraHttpHeaders":{"op":"set","value":{"x-a":"b"}}}}"#,
    r#"{"command":"emulate","tabId":3,"changes":{}}"#,
    r#"{"command":"resizePage","tabId":3,"width":800,"height":600}"#,
    r#"{"command":"cssStyles","tabId":3,"uid":"1_4"}"#,
    r#"{"command":"nodeUids","tabId":3,"backendNodeIds":[7,9]}"#,
    r#"{"command":"startTrace","tabId":3}"#,
    r#"{"command":"stopTrace","tabId":3}"#,
    r#"{"command":"readTrace","tabId":3,"stream":"7","discard":true}"#,
    r#"{"command":"readTrace","tabId":3,"stream":"7","discard":false}"#,
    r#"{"command":"memoryUsage","tabId":3}"#,
    r#"{"command":"listWebMcpTools","tabId":3}"#,
    r#"{"command":"invokeWebMcpTool","tabId":3,"document":"d1","tool":"t","input":{"a":1},"timeoutMs":9}"#,
];

/// Every request's reply, with each optional field both present and absent somewhere:
/// the request, then the JSON of its reply type as it travels (`null` for `()`).
const REPLIES: &[(&str, &str)] = &[
    ("ActivateTab", r#"null"#),
    ("CloseTab", r#"null"#),
    ("HandleDialog", r#"null"#),
    ("ResizePage", r#"null"#),
    ("StartTrace", r#"null"#),
    (
        "RequestTab",
        r#"{"shared":{"tab":{"id":1,"windowId":2,"url":"https://a.test/","title":"A","userActive":true}}}"#,
    ),
    ("RequestTab", r#""declined""#),
    ("RequestTab", r#""unanswered""#),
    (
        "ListTabs",
        r#"[{"id":1,"windowId":2,"url":"https://a.test/","title":"A","userActive":true,"dialog":{"kind":"prompt","message":"name?","defaultPrompt":"bob"},"crashed":true},{"id":5,"windowId":2,"url":"about:blank","title":"","userActive":false}]"#,
    ),
    (
        "Navigate",
        r#"{"id":1,"windowId":2,"url":"u","title":"t","userActive":false,"dialog":{"kind":"alert","message":"hi"}}"#,
    ),
    (
        "NewTab",
        r#"{"id":1,"windowId":2,"url":"u","title":"t","userActive":false,"dialog":{"kind":"confirm","message":"sure?"}}"#,
    ),
    (
        "Navigate",
        r#"{"id":1,"windowId":2,"url":"u","title":"t","userActive":false,"dialog":{"kind":"beforeunload","message":""}}"#,
    ),
    ("Evaluate", r#"{"a":[1,2,null]}"#),
    (
        "TakeSnapshot",
        r#"{"url":"u","title":"t","nodes":[{"uid":"1_0","depth":0,"role":"RootWebArea","name":"t","value":"v","states":["focused","checked=mixed","level=2"]},{"uid":"1_1","depth":1,"role":"generic"}]}"#,
    ),
    (
        "TakeSnapshot",
        r#"{"url":"u","title":"t","nodes":[{"uid":"1_0","depth":0,"role":"link","states":["url=/a?b=c","description=\"Opens the \\\"menu\\\"\"","valuetext=\"\"","not-in-accessibility-tree"]}]}"#,
    ),
    (
        "DiscoverThirdPartyTools",
        r#"{"document":"d1","url":"u","origin":"http://localhost:8080","refused":false,"groups":[{"name":"g","description":"G","tools":[{"name":"t","description":"T","inputSchema":{"type":"object"}}]},{"name":"h","tools":[]}],"problems":["p"]}"#,
    ),
    (
        "DiscoverThirdPartyTools",
        r#"{"document":"d1","url":"u","origin":"file://","refused":true,"groups":[]}"#,
    ),
    (
        "DiscoverThirdPartyTools",
        r#"{"document":"d1","url":"u","origin":"file://","refused":false,"groups":[{"name":"WebMCP Tools","description":"Tools exposed via WebMCP","tools":[{"name":"t","description":"T","inputSchema":{},"annotations":{"debugging":true}}],"webmcp":true}]}"#,
    ),
    (
        "ListWebMcpTools",
        r#"{"document":"d1","tools":[{"name":"t","description":"T","inputSchema":{"type":"object"},"annotations":{"readOnly":true},"frameId":"F"},{"name":"u","description":"","annotations":{},"frameId":"F"}],"problems":["p"]}"#,
    ),
    ("ListWebMcpTools", r#"{"document":"d1","tools":[]}"#),
    (
        "InvokeWebMcpTool",
        r#"{"status":"Completed","output":{"sum":3}}"#,
    ),
    (
        "InvokeWebMcpTool",
        r#"{"status":"Error","error":"Error: boom"}"#,
    ),
    (
        "RunThirdPartyTool",
        r#"{"result":{"uid":"1_3"},"elements":["1_3"]}"#,
    ),
    ("Input", r#"{"navigatedTo":"https://b.test/"}"#),
    ("Input", r#"{}"#),
    ("WaitForText", r#""a""#),
    ("Screenshot", r#"{"data":"AAAA","mimeType":"image/png"}"#),
    (
        "ListConsole",
        r#"{"entries":[{"id":7,"kind":"log","text":"hi"},{"id":8,"kind":"error","text":"x","navigation":1,"repeated":{"count":3,"lastId":9}}],"position":{"index":0,"pages":2,"start":0,"end":2,"total":3,"missing":1},"totals":{"messages":3,"errors":1,"exceptions":0}}"#,
    ),
    (
        "GetConsoleMessage",
        r#"{"id":7,"kind":"log","text":"hi","args":[1],"url":"u","stack":[{"functionName":"f","url":"u","line":1,"column":2}],"timestamp":1.5,"navigation":0}"#,
    ),
    (
        "GetConsoleMessage",
        r#"{"id":7,"kind":"log","text":"hi","timestamp":1.5,"navigation":0}"#,
    ),
    (
        "NetworkRequests",
        r#"{"requests":[{"id":1,"method":"GET","url":"u","resourceType":"Document","started":1.0,"navigation":0}]}"#,
    ),
    (
        "NetworkRequests",
        r#"{"requests":[],"dropped":{"forCount":2,"forSpace":0}}"#,
    ),
    (
        "GetNetworkRequest",
        r#"{"id":1,"method":"POST","url":"u","resourceType":"XHR","status":200,"statusText":"OK","failure":"f","mimeType":"text/plain","started":1.0,"durationMs":2.5,"navigation":1,"requestHeaders":{"a":"b"},"responseHeaders":{"c":"d"},"requestBody":{"data":"x","base64":false,"truncated":true},"responseBody":{"data":"eA==","base64":true,"truncated":false}}"#,
    ),
    (
        "Emulate",
        r#"{"network":{"name":"Offline","offline":true,"latencyMs":0.0,"downloadBytesPerSec":0.0,"uploadBytesPerSec":0.0},"cpuThrottlingRate":4.0,"viewport":{"width":10,"height":20,"deviceScaleFactor":1.0,"mobile":false,"touch":false,"landscape":true},"userAgent":"UA","colorScheme":"light","geolocation":{"latitude":1.0,"longitude":2.0,"accuracy":3.0},"extraHttpHeaders":{"x":"y"}}"#,
    ),
    ("Emulate", r#"{}"#),
    (
        "GetCssStyles",
        r#"{"element":"p#t","rules":[{"kind":"matched","selector":"a, p","matchingSelectors":["p"],"origin":"author","source":{"url":"https://a.test/","line":3,"column":1,"inline":true,"constructed":true},"wrappers":[{"kind":"layer","text":"base"},{"kind":"startingStyle","text":""}],"inheritedFrom":{"selector":"div","depth":1},"pseudo":"::before","declarations":[{"name":"color","value":"red","important":true,"status":"overridden"}]},{"kind":"inline","selector":"element.style","origin":"userAgent","declarations":[{"name":"x","value":"","status":"invalid"}]}]}"#,
    ),
    ("NodeUids", r#"["1_4",null]"#),
    (
        "StopTrace",
        r#"{"stream":"7","data":"{\"traceEvents\":[","eof":false,"dataLoss":true}"#,
    ),
    (
        "ReadTrace",
        r#"{"stream":"7","data":"]}","eof":true,"dataLoss":false}"#,
    ),
    (
        "GetMemoryUsage",
        r#"{"jsHeapUsed":471000.0,"jsHeapTotal":1048576.0,"embedderHeapUsed":1385496.0,"backingStorage":114.0,"documents":2.0,"frames":1.0,"nodes":24.0,"layoutObjects":10.0,"jsEventListeners":0.0,"detachedScriptStates":0.0}"#,
    ),
];

fn round_trip<T: serde::Serialize + serde::de::DeserializeOwned>(golden: &str) {
    let typed: T = serde_json::from_str(golden).unwrap_or_else(|e| panic!("{golden}: {e}"));
    let again = serde_json::to_string(&typed).unwrap();
    assert_eq!(again, golden);
}

#[test]
fn every_command_keeps_its_json() {
    for golden in COMMANDS {
        round_trip::<Command>(golden);
        // And inside the envelope the relay forwards.
        round_trip::<Envelope<ToExtension>>(&format!(r#"{{"id":9,"body":{{"call":{golden}}}}}"#));
    }
}

/// Declares [`read_back`]: the JSON of a request's reply read as that request's reply
/// type and written again, for every request of the list.
macro_rules! declare_read_back {
    ($($module:ident { $($request:ident $(= $wire:literal)?)+ })*) => {
        /// Reads `golden` as the reply type of the request named `request` and writes it
        /// back; `false` for a name that is no request.
        fn read_back(request: &str, golden: &str) -> bool {
            match request {
                $($(stringify!($request) => round_trip::<<$request as Request>::Reply>(golden),)+)*
                _ => return false,
            }
            true
        }

        /// The names of every request.
        const REQUESTS: &[&str] = &[$($(stringify!($request)),+),*];
    };
}

tabwire_shared::with_commands!(declare_read_back);

#[test]
fn every_reply_keeps_its_json() {
    for (request, golden) in REPLIES {
        assert!(read_back(request, golden), "{request} is no request");
        // And inside the envelope the relay forwards, as the text it is.
        round_trip::<Envelope<FromExtension>>(&format!(
            r#"{{"id":9,"client":2,"body":{{"reply":{{"Ok":{golden}}}}}}}"#
        ));
    }
    round_trip::<Envelope<FromExtension>>(
        r#"{"id":9,"body":{"reply":{"Err":{"code":"staleTools","message":"m"}}}}"#,
    );
}

#[test]
fn every_command_and_reply_kind_is_pinned() {
    let commands: std::collections::BTreeSet<String> = COMMANDS
        .iter()
        .map(|c| serde_json::from_str::<serde_json::Value>(c).unwrap()["command"].to_string())
        .collect();
    assert_eq!(commands.len(), Command::COUNT, "{commands:?}");
    assert_eq!(REQUESTS.len(), Command::COUNT);
    let replied: std::collections::BTreeSet<&str> = REPLIES.iter().map(|(r, _)| *r).collect();
    let missing: Vec<&&str> = REQUESTS.iter().filter(|r| !replied.contains(*r)).collect();
    assert!(missing.is_empty(), "replies not pinned: {missing:?}");
}

#[test]
fn the_piece_envelope_keeps_its_json() {
    // A piece of a request cut for the native link: the request's id and client
    // around a slice of its JSON text.
    round_trip::<Envelope<ToExtension>>(
        r#"{"id":12,"client":3,"body":{"piece":{"v":1,"message":7,"index":0,"count":6,"data":"{\"id\":12,\"client\":3,\"body\":{\"call\":{\"comm"}}}"#,
    );
    let piece: Envelope<ToExtension> = serde_json::from_str(
        r#"{"id":12,"client":3,"body":{"piece":{"v":1,"message":7,"index":5,"count":6,"data":"é\""}}}"#,
    )
    .unwrap();
    let ToExtension::Piece(piece) = piece.body else {
        panic!("not a piece");
    };
    assert_eq!(
        (piece.index, piece.count, piece.data.as_str()),
        (5, 6, "é\"")
    );
}

#[test]
fn the_extension_says_which_pieces_it_joins_when_it_connects() {
    use tabwire_shared::Event;
    round_trip::<Envelope<FromExtension>>(
        r#"{"body":{"event":{"event":"browserConnected","version":"0.4.0","instance":"i","pieces":1}}}"#,
    );
    // An extension older than pieces says nothing: it joins none.
    let older: Event =
        serde_json::from_str(r#"{"event":"browserConnected","version":"0.3.0"}"#).unwrap();
    assert!(matches!(older, Event::BrowserConnected { pieces: 0, .. }));
    round_trip::<Event>(r#"{"event":"browserConnected","version":"0.3.0","instance":""}"#);
}

#[test]
fn heartbeats_keep_their_json_both_ways() {
    use tabwire_shared::{ExtensionHeard, FromExtension};
    // The extension's heartbeat to its host, and the host's answer (as before).
    round_trip::<Envelope<FromExtension>>(r#"{"body":{"ping":{"seq":3}}}"#);
    round_trip::<Envelope<ToExtension>>(r#"{"body":{"pong":{"seq":3}}}"#);
    // An agent's server pings its host, and the host pings its extension.
    round_trip::<Envelope<ToExtension>>(r#"{"body":{"ping":{"seq":4}}}"#);
    // The extension's answer, then the host's, which says what it knows of the extension.
    round_trip::<Envelope<FromExtension>>(r#"{"body":{"pong":{"seq":4}}}"#);
    for said in ["answered", "waiting", "absent", "unknown"] {
        round_trip::<Envelope<FromExtension>>(&format!(
            r#"{{"body":{{"pong":{{"seq":4,"extension":"{said}"}}}}}}"#
        ));
    }
    // A state added later reads as not known.
    let later: Envelope<FromExtension> =
        serde_json::from_str(r#"{"body":{"pong":{"seq":4,"extension":"someday"}}}"#).unwrap();
    assert!(matches!(
        later.body,
        FromExtension::Pong {
            extension: Some(ExtensionHeard::Unknown),
            ..
        }
    ));
}

#[test]
fn a_commands_name_is_its_wire_name() {
    for golden in COMMANDS {
        let command: Command = serde_json::from_str(golden).unwrap();
        let wire: serde_json::Value = serde_json::from_str(golden).unwrap();
        assert_eq!(
            command.name(),
            wire["command"].as_str().unwrap(),
            "{golden}"
        );
    }
}
