//! tabwire as a user gets it: one binary, copied alone into an empty folder, with a
//! scratch HOME and no source tree anywhere near it. `tabwire install` puts the program,
//! the extension it carries and the native-host registration in the user's folders;
//! the browser loads that extension folder as the user would ("Load unpacked"), and an
//! agent's `tabwire mcp` works through it. `--launch` loads the same carried extension.
//! An extension older than the program is named, with the step that fixes it, in the
//! popup and in every agent reply.

use std::path::{Path, PathBuf};

use base64::Engine as _;
use serde_json::{json, Value};
use sha2::Digest;

use crate::doctor::{Browser, Home};
use crate::harness::{tabwire_exe, Agent, AGENT_NAME, BROWSER_FLAGS};
use crate::popup::Popup;

/// The extension id Chrome gives an unpacked extension with this manifest `key`: the
/// first 32 hex digits of SHA-256 of the key's bytes, 0-9a-f written as a-p.
fn id_from_key(key: &str) -> String {
    let der = base64::engine::general_purpose::STANDARD
        .decode(key)
        .expect("the manifest key is base64");
    sha2::Sha256::digest(der)[..16]
        .iter()
        .flat_map(|byte| [byte >> 4, byte & 0xf])
        .map(|nibble| char::from(b'a' + nibble))
        .collect()
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// Copies the folder `from` into `to`, subfolders included.
fn copy_folder(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("make the copy's folder");
    for entry in std::fs::read_dir(from).expect("the folder to copy") {
        let entry = entry.expect("an entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("its type").is_dir() {
            copy_folder(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// A copy of the binary under test, alone in an empty folder of `home`.
fn lone_binary(home: &Home) -> PathBuf {
    let folder = home.path().join("downloads");
    std::fs::create_dir_all(&folder).expect("an empty folder");
    let exe = folder.join("tabwire");
    std::fs::copy(tabwire_exe(), &exe).expect("copy the binary");
    exe
}

#[tokio::test]
async fn a_lone_binary_installs_itself_and_its_extension_and_serves_agents() {
    let home = Home::new();
    let exe = lone_binary(&home);
    let profile = home.path().join("profile");
    let folder = profile.to_str().expect("UTF-8 folder");

    let (said, ok) = home
        .run(&exe, &["install", "--user-data-dir", folder])
        .await;
    assert!(ok, "install failed:\n{said}");
    let tabwire_dir = home.path().join(".local/share/tabwire");
    let extension = tabwire_dir.join("extension");
    let program = tabwire_dir.join("bin/tabwire");
    for shown in [&extension, &program] {
        assert!(
            said.contains(&shown.display().to_string()),
            "install names {}:\n{said}",
            shown.display()
        );
    }
    assert!(said.contains("Load unpacked"), "{said}");

    // The extension folder is whole, and its key gives the id the host allows.
    let manifest = read_json(&extension.join("manifest.json"));
    assert_eq!(manifest["version"], env!("CARGO_PKG_VERSION"));
    let id = id_from_key(manifest["key"].as_str().expect("a key"));
    assert!(said.contains(&id), "install names the id {id}:\n{said}");
    for file in ["background.js", "popup.html", "tabwire_extension_bg.wasm"] {
        assert!(extension.join(file).is_file(), "{file} written");
    }
    let host = read_json(&profile.join("NativeMessagingHosts/dev.tabwire.json"));
    assert_eq!(
        host["allowed_origins"],
        json!([format!("chrome-extension://{id}/")])
    );
    let wrapper = host["path"].as_str().expect("the manifest names a program");
    let script = std::fs::read_to_string(wrapper).expect("the wrapper");
    assert!(
        script.contains(&program.display().to_string()),
        "the wrapper runs the installed program:\n{script}"
    );
    assert_eq!(
        std::fs::read(&program).expect("the installed program"),
        std::fs::read(&exe).expect("the binary"),
    );

    // The user loads that folder; the agent's plain `tabwire mcp` reaches the browser.
    let mut browser = Browser::start_loading(&home, &profile, Some(&extension));
    browser.wait_extension(&profile).await;
    let env: Vec<(&str, String)> = home
        .env()
        .into_iter()
        .map(|(k, v)| (k, v.display().to_string()))
        .collect();
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let agent = Agent::start_program(&exe, &["mcp"], &env, None, AGENT_NAME).await;
    agent
        .ok("list_pages", json!({}))
        .await
        .says("## Pages")
        .lacks("Version mismatch");
    agent.quit().await;

    // `--launch` loads the same carried extension, with nothing beside the binary.
    let mut args = vec!["mcp", "--launch", "--headless"];
    args.extend_from_slice(BROWSER_FLAGS);
    let launched = Agent::start_program(&exe, &args, &env, None, AGENT_NAME).await;
    launched
        .ok("list_pages", json!({}))
        .await
        .says("about:blank")
        .lacks("Version mismatch");
    launched.quit().await;
}

#[tokio::test]
async fn an_older_extension_is_named_in_the_popup_and_in_every_reply() {
    // The extension folder of an earlier install: the user updated the program only.
    let stale = tempfile::tempdir().expect("a folder");
    let home = Home::new();
    let (said, ok) = home
        .run(&tabwire_exe(), &["install", "--browser", "chromium"])
        .await;
    assert!(ok, "install failed:\n{said}");
    let installed = home.path().join(".local/share/tabwire/extension");
    copy_folder(&installed, stale.path());
    let mut manifest = read_json(&stale.path().join("manifest.json"));
    manifest["version"] = json!("0.0.1");
    std::fs::write(stale.path().join("manifest.json"), manifest.to_string()).expect("write");

    let flag = format!("--extensionDir={}", stale.path().display());
    let (agent, cdp) = Agent::launch_with_cdp(&[&flag]).await;
    let line = format!(
        "Version mismatch: the tabwire extension (0.0.1) is older than tabwire {}. Run \
         `tabwire install`, then reload the extension at chrome://extensions.",
        env!("CARGO_PKG_VERSION")
    );
    let pages = agent.ok("list_pages", json!({})).await;
    assert!(
        pages.text.starts_with(&line),
        "the reply starts with the mismatch:\n{}",
        pages.text
    );
    assert_eq!(pages.json["versionMismatch"], json!(line));
    agent
        .err("select_page", json!({"pageId": 999_999}))
        .await
        .says(&line);

    let extension = cdp
        .wait_extension_id(std::time::Duration::from_secs(30))
        .await;
    let tab = pages.json["pages"][0]["id"].as_i64().expect("a page");
    let popup = Popup::open(&cdp, &extension, tab).await;
    popup
        .wait("document.getElementById('version-mismatch').innerText.includes('0.0.1')")
        .await;
    let shown = popup
        .eval("document.getElementById('version-mismatch').innerText")
        .await;
    assert_eq!(
        shown,
        json!(line.replace('`', "")),
        "the popup says the same, commands as code"
    );
    popup.assert_fits().await;
    popup.shoot("version-mismatch").await;
    agent.quit().await;
}
