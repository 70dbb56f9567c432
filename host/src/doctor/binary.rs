//! The first link: this `tabwire` binary, still where it runs from.

use std::path::Path;

use super::Check;

/// The running binary.
pub fn check_binary(exe: Option<&Path>) -> Check {
    match exe {
        Some(exe) if exe.is_file() => Check::ok(format!(
            "tabwire {} at {}",
            env!("CARGO_PKG_VERSION"),
            exe.display()
        )),
        Some(exe) => Check::fail(
            format!(
                "the running tabwire binary {} no longer exists",
                exe.display()
            ),
            "reinstall or rebuild tabwire, then run `tabwire install`",
        ),
        None => Check::fail(
            "cannot find the running tabwire binary's path",
            "run tabwire by its full path",
        ),
    }
}
