//! Whether the extension and the tabwire program are the same version, and what to do
//! when they are not, worded once for the popup and for the agent.
//!
//! The two are updated apart: `tabwire install` (or a new npm package behind `npx
//! tabwire mcp`) brings a new program, and Chrome keeps running the extension it loaded
//! until the user reloads it. The sides exchange versions when they connect (the
//! extension's in `BrowserConnected`, the program's in `HostReady` and each agent's
//! hello); each side compares with [`Mismatch::between`] and shows [`Mismatch::line`].

use std::cmp::Ordering;

/// The extension and a tabwire program differ in version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    extension: String,
    program: String,
    /// How the extension's version compares with the program's (`Equal`: they differ
    /// but cannot be ordered).
    extension_is: Ordering,
}

impl Mismatch {
    /// The mismatch between the extension's version and a program's, or `None` when
    /// they are equal or either is unknown (empty: an older side that did not say).
    pub fn between(extension: &str, program: &str) -> Option<Self> {
        let (extension, program) = (extension.trim(), program.trim());
        if extension.is_empty() || program.is_empty() || extension == program {
            return None;
        }
        let extension_is = match (parse(extension), parse(program)) {
            (Some(e), Some(p)) => e.cmp(&p),
            _ => Ordering::Equal,
        };
        Some(Self {
            extension: extension.to_owned(),
            program: program.to_owned(),
            extension_is,
        })
    }

    /// Whether the extension is the older side (false: the program is, or it cannot
    /// be told).
    pub fn extension_is_older(&self) -> bool {
        self.extension_is == Ordering::Less
    }

    /// One line: which side is older and the step that makes them agree (commands
    /// between backquotes).
    pub fn line(&self) -> String {
        let (extension, program) = (&self.extension, &self.program);
        let reload = RELOAD;
        match self.extension_is {
            Ordering::Less => format!(
                "Version mismatch: the tabwire extension ({extension}) is older than tabwire \
                 {program}. Run `tabwire install`, {reload}."
            ),
            Ordering::Greater => format!(
                "Version mismatch: tabwire {program} is older than the tabwire extension \
                 ({extension}). Update tabwire (`npx tabwire@latest install`, or build it \
                 again) and run `tabwire install`, {reload}."
            ),
            Ordering::Equal => format!(
                "Version mismatch: the tabwire extension is {extension}, tabwire is \
                 {program}. Run `tabwire install` with the tabwire you want, {reload}."
            ),
        }
    }
}

/// What to say when a reply from the extension does not read as the reply type of its
/// request (`request` names the request, `error` says what did not read). Host and
/// extension change their replies together, so this is what a version mismatch looks
/// like from inside one call, even when neither side said its version.
pub fn unreadable_reply(request: &str, error: &impl std::fmt::Display) -> String {
    format!(
        "The tabwire extension's reply to {request} could not be read ({error}). The \
         extension and tabwire are probably of different versions: run `tabwire install` \
         with the tabwire you want, {RELOAD}, then retry. If both are the same version, \
         this is a tabwire bug: please report it."
    )
}

/// The step that makes Chrome run the extension `tabwire install` wrote.
const RELOAD: &str = "then reload the extension at chrome://extensions";

fn parse(version: &str) -> Option<semver::Version> {
    semver::Version::parse(version).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_or_unknown_versions_agree() {
        assert_eq!(Mismatch::between("0.1.0", "0.1.0"), None);
        assert_eq!(Mismatch::between("", "0.1.0"), None);
        assert_eq!(Mismatch::between("0.1.0", " "), None);
    }

    #[test]
    fn an_older_extension_is_told_to_install_and_reload() {
        let m = Mismatch::between("0.0.9", "0.1.0").unwrap();
        assert!(m.extension_is_older());
        let line = m.line();
        assert!(
            line.contains("the tabwire extension (0.0.9) is older than tabwire 0.1.0"),
            "{line}"
        );
        assert!(line.contains("`tabwire install`"), "{line}");
        assert!(line.contains("reload the extension at chrome://extensions"));
        assert!(!line.contains('\n'));
    }

    #[test]
    fn an_older_program_is_told_to_update() {
        let m = Mismatch::between("0.10.0", "0.9.3").unwrap();
        assert!(!m.extension_is_older());
        let line = m.line();
        assert!(
            line.contains("tabwire 0.9.3 is older than the tabwire extension (0.10.0)"),
            "{line}"
        );
        assert!(line.contains("`npx tabwire@latest install`"), "{line}");
    }

    #[test]
    fn an_unreadable_reply_names_the_versions_and_the_step() {
        let line = unreadable_reply("Navigate", &"invalid type: null");
        assert!(line.contains("reply to Navigate"), "{line}");
        assert!(line.contains("(invalid type: null)"), "{line}");
        assert!(line.contains("different versions"), "{line}");
        assert!(line.contains("`tabwire install`"), "{line}");
        assert!(line.contains("reload the extension at chrome://extensions"));
    }

    #[test]
    fn versions_order_as_releases_do() {
        let older = |a: &str, b: &str| Mismatch::between(a, b).unwrap().extension_is_older();
        assert!(older("1.2.3-beta.1", "1.2.3"));
        assert!(older("1.2.0", "1.2.1"));
        assert!(!older("1.10.0", "1.9.0"));
        let odd = Mismatch::between("dev", "0.1.0").unwrap();
        assert!(!odd.extension_is_older());
        assert!(odd
            .line()
            .contains("the tabwire extension is dev, tabwire is 0.1.0"));
    }
}
