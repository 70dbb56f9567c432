//! The server's life: no browser, leaving nothing behind however it ends, and its
//! native host dying under it.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::harness::{descendants, processes, Agent, Process};

/// How long a signalled server may take to stop its browser, clean up and exit.
const EXITS: Duration = Duration::from_secs(15);

/// The temporary profile of the browser the agent's server launched, from its
/// command line.
fn launched_profile(family: &[Process]) -> PathBuf {
    family
        .iter()
        .find_map(|p| {
            p.cmdline
                .split(' ')
                .find_map(|a| a.strip_prefix("--user-data-dir="))
                .map(PathBuf::from)
        })
        .expect("a browser started by the server")
}

/// Waits, bounded, until none of `family` and nothing using `profile` is running:
/// processes killed a moment ago may still be finishing their exit.
fn assert_gone(family: &[Process], profile: &Path) {
    let profile = profile.to_string_lossy();
    let deadline = Instant::now() + Duration::from_secs(10);
    let left = loop {
        let left: Vec<_> = processes()
            .into_iter()
            .filter(|p| !p.zombie)
            .filter(|p| family.iter().any(|f| f.pid == p.pid) || p.cmdline.contains(&*profile))
            .collect();
        if left.is_empty() || Instant::now() > deadline {
            break left;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(left.is_empty(), "processes left behind: {left:?}");
}

/// Evaluates a script whose result is too large to show inline; returns the file it
/// was saved to.
async fn spill(agent: &Agent) -> PathBuf {
    let reply = agent
        .ok(
            "evaluate_script",
            json!({"function": "() => 'x'.repeat(100000)"}),
        )
        .await;
    let path = reply.json["resultFile"]["filePath"]
        .as_str()
        .unwrap_or_else(|| panic!("the result was not saved to a file:\n{}", reply.text));
    PathBuf::from(path)
}

/// What a launched agent made: the processes under it (its browser among them), its
/// browser's profile, and its private folders (that profile, the session's, the saved
/// results').
struct Made {
    family: Vec<Process>,
    profile: PathBuf,
    folders: [PathBuf; 3],
}

/// Launches an agent and has it save a result to a file, so that it has made every
/// folder it makes.
async fn launch_and_spill() -> (Agent, Made) {
    let agent = Agent::launch(&[]).await;
    agent.ok("list_pages", json!({})).await;
    let spilled = spill(&agent).await;
    let family = descendants(agent.pid());
    let profile = launched_profile(&family);
    let session = agent.session_folder();
    let results = spilled.parent().expect("a folder").to_path_buf();
    let made = Made {
        folders: [profile.clone(), session, results],
        family,
        profile,
    };
    (agent, made)
}

/// Mode bits of a folder.
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .mode()
        & 0o777
}

#[tokio::test]
async fn without_a_browser_the_error_says_what_to_do() {
    let dir = tempfile::tempdir().expect("temp dir");
    let socket = dir.path().join("nobody.sock");
    let agent = Agent::start(&["mcp"], &[("TABWIRE_SOCKET", socket.to_str().unwrap())]).await;
    let reply = agent.err("list_pages", json!({})).await;
    reply
        .says("tabwire install")
        .says("tabwire doctor")
        .says("extension");
    agent.quit().await;
}

#[tokio::test]
async fn quitting_closes_the_browser_and_removes_the_profile() {
    let agent = Agent::launch(&[]).await;
    agent.ok("list_pages", json!({})).await;
    let family = descendants(agent.pid());
    let profile = launched_profile(&family);
    assert!(profile.is_dir());
    let status = agent.quit().await;
    assert!(status.success(), "tabwire mcp exited with {status}");
    assert!(
        !profile.exists(),
        "profile {} was left behind",
        profile.display()
    );
    assert_gone(&family, &profile);
}

#[tokio::test]
async fn a_signal_with_stdin_open_stops_the_server_and_leaves_nothing() {
    for signal in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
        let (agent, made) = launch_and_spill().await;
        for folder in &made.folders {
            assert_eq!(mode(folder), 0o700, "{} is not private", folder.display());
        }
        let started = Instant::now();
        let status = agent.signal(signal, EXITS).await;
        eprintln!(
            "signal {signal}: exited in {:?} with {status}",
            started.elapsed()
        );
        for folder in &made.folders {
            assert!(!folder.exists(), "{} was left behind", folder.display());
        }
        assert_gone(&made.family, &made.profile);
    }
}

#[tokio::test]
async fn what_a_killed_server_left_behind_goes_when_the_next_starts() {
    let (agent, made) = launch_and_spill().await;
    agent.signal(libc::SIGKILL, EXITS).await;
    // The browser dies with it; the folders stay.
    assert_gone(&made.family, &made.profile);
    for folder in &made.folders {
        assert!(folder.is_dir(), "{} is already gone", folder.display());
    }
    // A live session's folders are kept meanwhile.
    let live = Agent::launch(&[]).await;
    live.ok("list_pages", json!({})).await;
    let live_spilled = spill(&live).await;

    // Any next start cleans up: one without a browser, that goes no further.
    let dir = tempfile::tempdir().expect("temp dir");
    let socket = dir.path().join("nobody.sock");
    let next = Agent::start(&["mcp"], &[("TABWIRE_SOCKET", socket.to_str().unwrap())]).await;
    for folder in &made.folders {
        assert!(!folder.exists(), "{} was left behind", folder.display());
    }
    assert!(
        live_spilled.is_file(),
        "a live session's result was removed"
    );
    assert!(
        live.session_folder().is_dir(),
        "a live session's folder was removed"
    );
    next.quit().await;
    live.quit().await;
}

#[tokio::test]
async fn the_server_reconnects_when_the_browser_side_comes_back() {
    let agent = Agent::launch(&[]).await;
    agent.ok("list_pages", json!({})).await;
    let host = descendants(agent.pid())
        .into_iter()
        .find(|p| p.cmdline.contains("native-host chrome-extension://"))
        .expect("the native host Chrome started");
    // The relay dies; the extension reconnects with back-off, Chrome starts a new
    // native host, and the server's link finds it. The next call waits for that.
    // SAFETY: kill(2) on a pid we just read; at worst it names a process that is gone.
    unsafe { libc::kill(host.pid as i32, libc::SIGKILL) };
    let listed = agent.ok("list_pages", json!({})).await;
    assert_eq!(listed.json["pages"].as_array().map(Vec::len), Some(1));
    let again = descendants(agent.pid())
        .into_iter()
        .find(|p| p.cmdline.contains("native-host chrome-extension://"))
        .expect("a new native host");
    assert_ne!(again.pid, host.pid);
    agent.quit().await;
}

/// The native host Chrome started for this agent's launched browser.
pub fn native_host(agent: &Agent) -> Process {
    descendants(agent.pid())
        .into_iter()
        .find(|p| !p.zombie && p.cmdline.contains("native-host chrome-extension://"))
        .unwrap_or_else(|| panic!("no native host under {}\n{}", agent.pid(), agent.log()))
}

#[tokio::test]
async fn a_native_host_killed_mid_call_is_named_and_the_next_call_works() {
    let (agent, cdp) = Agent::launch_with_cdp(&[]).await;
    let url = crate::harness::page("index.html");
    agent.ok("new_page", json!({"url": url})).await;
    let host = native_host(&agent);

    // A script that marks the page, then waits for ever (until its 60 s timeout).
    let waiting = agent.call(
        "evaluate_script",
        json!({
            "function": "() => { history.replaceState(null, '', '#waiting'); \
                return new Promise(() => {}); }",
            "timeout": 60_000,
        }),
    );
    let kill = async {
        let marked = format!("{url}#waiting");
        cdp.wait_target(
            "the page marked by the script",
            Duration::from_secs(30),
            |t| t.url == marked,
        )
        .await;
        // SAFETY: kill(2) on a pid just read; at worst it names a process that is gone.
        unsafe { libc::kill(host.pid as i32, libc::SIGKILL) };
    };
    let (reply, ()) = tokio::join!(waiting, kill);
    assert!(reply.is_error, "it should have failed:\n{}", reply.text);
    eprintln!("the call in flight was told:\n{}", reply.text);
    reply
        .says("tabwire's native host stopped before the browser answered")
        .says("retry")
        .lacks("--load-extension")
        .lacks("has not connected");
    // The page may still be running the script (its tab is busy until the script's
    // timeout): the next call goes to another.
    let started = Instant::now();
    agent.ok("list_pages", json!({})).await;
    let took = started.elapsed();
    eprintln!("the next call succeeded in {took:?}");
    // It waits for the new native host, which comes within the extension's first
    // reconnect delay (0.5 s): far under the launched browser's 30 s connect wait.
    assert!(
        took < Duration::from_secs(15),
        "the next call took {took:?}\n{}",
        agent.log()
    );
    agent
        .ok(
            "new_page",
            json!({"url": crate::harness::page("index.html")}),
        )
        .await;
    agent
        .ok("evaluate_script", json!({"function": "() => 1 + 1"}))
        .await
        .says("2");
    assert_ne!(native_host(&agent).pid, host.pid, "a new native host");
    agent.quit().await;
}

#[tokio::test]
async fn two_launches_at_once_on_one_profile_refuse_the_second_at_once() {
    let profile = tempfile::Builder::new()
        .prefix("tabwire-e2e-profile-")
        .tempdir()
        .expect("temp profile");
    let user_data_dir = format!("--userDataDir={}", profile.path().display());
    let start = || {
        let mut command = tokio::process::Command::new(crate::harness::tabwire_exe());
        command
            .args(["mcp", "--launch", "--headless", &user_data_dir])
            .args(crate::harness::BROWSER_FLAGS)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true);
        command.spawn().expect("spawn tabwire")
    };
    // Started together: neither browser has locked the profile yet.
    let (mut first, mut second) = (start(), start());
    let started = Instant::now();
    // Held open: waiting on a child closes its stdin, which ends a server.
    let stdins = (first.stdin.take(), second.stdin.take());
    let refused = tokio::time::timeout(EXITS, async {
        tokio::select! {
            status = first.wait() => (status, first.stderr.take(), second),
            status = second.wait() => (status, second.stderr.take(), first),
        }
    })
    .await;
    let Ok((status, stderr, mut winner)) = refused else {
        panic!("neither launch on one profile was refused within {EXITS:?}");
    };
    let mut said = String::new();
    if let Some(mut stderr) = stderr {
        tokio::io::AsyncReadExt::read_to_string(&mut stderr, &mut said)
            .await
            .expect("read the refused server's stderr");
    }
    assert!(
        !status.expect("wait").success(),
        "the refused launch failed"
    );
    assert!(
        said.contains("in use by another tabwire session") && !said.contains("--load-extension"),
        "the refusal names the real reason:\n{said}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "refused at once, not after {:?}",
        started.elapsed()
    );
    assert!(
        winner.try_wait().expect("try_wait").is_none(),
        "the first launch keeps running"
    );
    // Its stdin closed, the winner stops its browser and exits.
    drop(stdins);
    let exited = tokio::time::timeout(EXITS, winner.wait()).await;
    assert!(
        exited.is_ok(),
        "the running launch exits within {EXITS:?} once its stdin closes"
    );
}
