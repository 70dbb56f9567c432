//! Whether a browser finds tabwire's native host: a valid host manifest in the
//! `NativeMessagingHosts` folder it reads, naming a wrapper that runs an existing,
//! executable `tabwire`.
//!
//! A browser reads user-level manifests from `<user data dir>/NativeMessagingHosts`, so
//! one started with `--user-data-dir` looks in that folder, not in its default one. On
//! Windows it reads the manifest its registry key names instead, for every profile
//! folder alike ([`check_registry`]).

use std::fs;
use std::path::{Path, PathBuf};

use tabwire_shared::{EXTENSION_ORIGIN, NATIVE_HOST_NAME};

use super::check::Check;
use crate::paths::{self, HostManifest, MANIFEST_FILE};
use crate::platform;

/// The registration in `manifest_dir`; `label` starts each line ("Chromium: "), and
/// `install` is the command that writes it.
pub fn check_registration(
    label: &str,
    manifest_dir: &Path,
    install: &str,
    running_exe: Option<&Path>,
) -> Vec<Check> {
    check_manifest_at(
        label,
        &manifest_dir.join(MANIFEST_FILE),
        install,
        running_exe,
    )
}

/// The manifest file `path` and the wrapper it names, as [`check_registration`] reports.
fn check_manifest_at(
    label: &str,
    path: &Path,
    install: &str,
    running_exe: Option<&Path>,
) -> Vec<Check> {
    if !path.exists() {
        return vec![Check::fail(
            format!(
                "{label}tabwire's native host is not registered ({} is missing)",
                path.display()
            ),
            format!("run `{install}`"),
        )];
    }
    match check_manifest_file(path, running_exe) {
        Ok(lines) => {
            let mut checks = vec![Check::ok(format!(
                "{label}host manifest {}",
                path.display()
            ))];
            checks.extend(lines);
            checks
        }
        Err(problems) => vec![Check::fail(
            format!(
                "{label}host manifest {} is broken: {}",
                path.display(),
                problems.join("; ")
            ),
            format!(
                "run `{install}` with the tabwire binary you use now: it rewrites the \
                 manifest and its wrapper"
            ),
        )],
    }
}

/// The registration a Windows browser reads: its registry key `key` (whose lookup gave
/// `found`: the manifest it names, if any), then that manifest as
/// [`check_registration`] checks one.
pub fn check_registry(
    label: &str,
    key: &str,
    found: std::io::Result<Option<PathBuf>>,
    install: &str,
    running_exe: Option<&Path>,
) -> Vec<Check> {
    match found {
        Ok(Some(manifest)) => {
            let mut checks = vec![Check::ok(format!("{label}registry key {key}"))];
            checks.extend(check_manifest_at(label, &manifest, install, running_exe));
            checks
        }
        Ok(None) => vec![Check::fail(
            format!("{label}tabwire's native host is not registered ({key} is missing)"),
            format!("run `{install}`"),
        )],
        Err(e) => vec![Check::fail(
            format!("{label}cannot read {key}: {e}"),
            format!("run `{install}`, which writes the key again"),
        )],
    }
}

/// Checks one manifest file and the program it names. `Ok` carries extra lines about
/// the wrapper; `Err` lists every problem found.
pub fn check_manifest_file(
    path: &Path,
    running_exe: Option<&Path>,
) -> Result<Vec<Check>, Vec<String>> {
    let text = fs::read_to_string(path).map_err(|e| vec![format!("cannot read it: {e}")])?;
    let manifest = validate_manifest(&text)?;
    if let Some(problem) = not_runnable(&manifest.path) {
        return Err(vec![format!(
            "its program {} {problem}",
            manifest.path.display()
        )]);
    }
    let Some(target) = fs::read_to_string(&manifest.path)
        .ok()
        .and_then(|script| paths::wrapper_target(&script))
    else {
        return Ok(Vec::new());
    };
    if let Some(problem) = not_runnable(&target) {
        return Err(vec![format!(
            "its wrapper {} runs {}, which {problem}",
            manifest.path.display(),
            target.display()
        )]);
    }
    let same = running_exe.is_some_and(|exe| same_program(exe, &target));
    Ok(vec![if same || running_exe.is_none() {
        Check::ok(format!("  wrapper runs {}", target.display()))
    } else {
        Check::note(
            format!("  wrapper runs {}, not this binary", target.display()),
            Some("run `tabwire install` with the tabwire you want the browser to use".into()),
        )
    }])
}

/// Whether `a` and `b` are the same program: one file, or a copy of it (`tabwire
/// install` registers its copy in tabwire's folder, whatever file ran it).
fn same_program(a: &Path, b: &Path) -> bool {
    let (Ok(a), Ok(b)) = (a.canonicalize(), b.canonicalize()) else {
        return false;
    };
    let size = |p: &Path| fs::metadata(p).map(|m| m.len()).ok();
    a == b || (size(&a) == size(&b) && fs::read(&a).ok() == fs::read(&b).ok())
}

/// Why `path` cannot be run, or `None` if it can.
fn not_runnable(path: &Path) -> Option<&'static str> {
    match fs::metadata(path) {
        Err(_) => Some("no longer exists (moved or deleted)"),
        Ok(meta) if !meta.is_file() => Some("is not a file"),
        Ok(meta) if !platform::is_executable(&meta) => Some("is not executable"),
        Ok(_) => None,
    }
}

/// Parses a manifest and checks its fields; every problem found is listed.
pub fn validate_manifest(text: &str) -> Result<HostManifest, Vec<String>> {
    let manifest: HostManifest =
        serde_json::from_str(text).map_err(|e| vec![format!("not a valid host manifest: {e}")])?;
    let mut problems = Vec::new();
    if manifest.name != NATIVE_HOST_NAME {
        problems.push(format!(
            "its name is {:?}, not {NATIVE_HOST_NAME:?}",
            manifest.name
        ));
    }
    if manifest.kind != "stdio" {
        problems.push(format!("its type is {:?}, not \"stdio\"", manifest.kind));
    }
    if !manifest.path.is_absolute() {
        problems.push(format!(
            "its path {} is not absolute",
            manifest.path.display()
        ));
    }
    if !manifest
        .allowed_origins
        .iter()
        .any(|o| o == EXTENSION_ORIGIN)
    {
        problems.push(format!(
            "allowed_origins does not contain {EXTENSION_ORIGIN}"
        ));
    }
    if problems.is_empty() {
        Ok(manifest)
    } else {
        Err(problems)
    }
}

#[cfg(test)]
mod tests {
    use super::super::check::Status;
    use super::*;
    use std::path::PathBuf;

    fn executable(path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
        platform::set_mode(path, 0o755).unwrap();
    }

    fn register(tmp: &Path, exe: &Path) -> PathBuf {
        paths::write_native_host_registration(
            &tmp.join("hosts"),
            &tmp.join("wrap"),
            exe,
            paths::HostEnv::default(),
        )
        .unwrap()
    }

    #[test]
    fn a_good_manifest_validates() {
        let text = paths::render_host_manifest(&std::env::temp_dir().join("native-host"));
        assert!(validate_manifest(&text).is_ok());
    }

    #[test]
    fn every_manifest_problem_is_listed() {
        let text = r#"{"name": "other", "path": "rel/host", "type": "pipe",
                       "allowed_origins": ["chrome-extension://zzz/"]}"#;
        let problems = validate_manifest(text).unwrap_err();
        assert_eq!(problems.len(), 4, "{problems:?}");
        assert!(validate_manifest("{").unwrap_err()[0].contains("not a valid"));
        assert!(validate_manifest(r#"{"name": "dev.tabwire"}"#).is_err());
    }

    #[test]
    fn registration_written_by_install_checks_out() {
        let tmp = tempfile::tempdir().unwrap();
        let exe = tmp.path().join("bin/tabwire");
        executable(&exe, "#!/bin/sh\n");
        let manifest = register(tmp.path(), &exe);
        let lines = check_manifest_file(&manifest, Some(&exe)).unwrap();
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].status, Status::Ok);

        let other = tmp.path().join("bin/other-tabwire");
        executable(&other, "#!/bin/sh\n# another version\n");
        let lines = check_manifest_file(&manifest, Some(&other)).unwrap();
        assert_eq!(lines[0].status, Status::Note, "wrapper runs another binary");

        // The copy install made of the program doctor runs as is that program.
        let download = tmp.path().join("downloads/tabwire");
        executable(&download, "#!/bin/sh\n");
        let lines = check_manifest_file(&manifest, Some(&download)).unwrap();
        assert_eq!(lines[0].status, Status::Ok, "{lines:?}");

        let checks = check_registration("Chromium: ", &tmp.path().join("hosts"), "x", Some(&exe));
        assert!(checks.iter().all(|c| c.status == Status::Ok), "{checks:?}");
    }

    #[test]
    fn a_missing_manifest_says_to_register() {
        let tmp = tempfile::tempdir().unwrap();
        let checks = check_registration(
            "Chromium",
            tmp.path(),
            "tabwire install --user-data-dir '/p'",
            None,
        );
        assert_eq!(checks.len(), 1);
        assert_eq!(checks[0].status, Status::Fail);
        assert!(checks[0].what.contains("not registered"), "{checks:?}");
        assert_eq!(
            checks[0].fix.as_deref(),
            Some("run `tabwire install --user-data-dir '/p'`")
        );
    }

    #[test]
    fn a_wrapper_whose_binary_moved_is_broken() {
        let tmp = tempfile::tempdir().unwrap();
        let exe = tmp.path().join("bin/tabwire");
        executable(&exe, "#!/bin/sh\n");
        let manifest = register(tmp.path(), &exe);
        fs::remove_file(&exe).unwrap();
        let problems = check_manifest_file(&manifest, None).unwrap_err();
        assert!(
            problems[0].contains("bin/tabwire, which no longer exists"),
            "{problems:?}"
        );

        executable(&exe, "#!/bin/sh\n");
        if cfg!(unix) {
            platform::set_mode(&exe, 0o644).unwrap();
            let problems = check_manifest_file(&manifest, None).unwrap_err();
            assert!(problems[0].contains("is not executable"), "{problems:?}");
            platform::set_mode(&exe, 0o755).unwrap();
        }
        fs::remove_file(&exe).unwrap();

        let checks = check_registration(
            "Chromium",
            &tmp.path().join("hosts"),
            "tabwire install",
            None,
        );
        assert!(checks[0].what.contains("is broken"), "{checks:?}");
        assert!(checks[0]
            .fix
            .as_deref()
            .unwrap()
            .contains("tabwire install"));
    }

    #[test]
    fn manifest_naming_a_missing_program_is_broken() {
        let tmp = tempfile::tempdir().unwrap();
        let manifest = paths::write_host_manifest(tmp.path(), &tmp.path().join("nope")).unwrap();
        assert!(check_manifest_file(&manifest, None).unwrap_err()[0].contains("no longer exists"));
    }

    #[test]
    fn a_registry_key_is_checked_then_the_manifest_it_names() {
        let tmp = tempfile::tempdir().unwrap();
        let exe = tmp.path().join("bin/tabwire");
        executable(&exe, "#!/bin/sh\n");
        let manifest = register(tmp.path(), &exe);
        let key = r"HKCU\Software\Google\Chrome\NativeMessagingHosts\dev.tabwire";
        let install = "tabwire install --browser chrome";
        let checks = check_registry("Chrome: ", key, Ok(Some(manifest)), install, Some(&exe));
        assert!(checks.iter().all(|c| c.status == Status::Ok), "{checks:?}");
        assert!(checks[0].what.contains(key), "{checks:?}");
        assert!(checks[1].what.contains("host manifest"), "{checks:?}");

        let missing = check_registry("Chrome: ", key, Ok(None), install, None);
        assert_eq!(missing.len(), 1);
        assert!(missing[0].what.contains("is missing"), "{missing:?}");
        assert_eq!(
            missing[0].fix.as_deref(),
            Some("run `tabwire install --browser chrome`")
        );

        let gone = tmp.path().join("moved.json");
        let dangling = check_registry("Chrome: ", key, Ok(Some(gone)), install, None);
        assert_eq!(dangling[0].status, Status::Ok, "the key is there");
        assert_eq!(dangling[1].status, Status::Fail, "{dangling:?}");
        assert!(dangling[1].what.contains("not registered"), "{dangling:?}");

        let denied = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "denied");
        let unreadable = check_registry("Chrome: ", key, Err(denied), install, None);
        assert!(unreadable[0].what.contains("cannot read"), "{unreadable:?}");
    }
}
