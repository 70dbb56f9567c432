//! One line of doctor's report: what was checked, its outcome, and the fix.

/// The outcome of one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The link works.
    Ok,
    /// The link is broken; the chain cannot work until it is fixed.
    Fail,
    /// Worth knowing, not an error (e.g. a browser tabwire is not used with).
    Note,
}

/// One line of the report: what was checked, and how to fix it if it failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    /// The outcome.
    pub status: Status,
    /// What was found.
    pub what: String,
    /// What to do about it (for failures, and notes that suggest something).
    pub fix: Option<String>,
}

impl Check {
    /// A link that works.
    pub fn ok(what: impl Into<String>) -> Self {
        Self {
            status: Status::Ok,
            what: what.into(),
            fix: None,
        }
    }

    /// A broken link, and how to mend it.
    pub fn fail(what: impl Into<String>, fix: impl Into<String>) -> Self {
        Self {
            status: Status::Fail,
            what: what.into(),
            fix: Some(fix.into()),
        }
    }

    /// Something worth knowing, maybe with a suggestion.
    pub fn note(what: impl Into<String>, fix: Option<String>) -> Self {
        Self {
            status: Status::Note,
            what: what.into(),
            fix,
        }
    }

    /// The same finding as a note: for a browser that is not the one tabwire works in.
    pub fn demoted(self) -> Self {
        match self.status {
            Status::Fail => Self {
                status: Status::Note,
                ..self
            },
            _ => self,
        }
    }

    /// The check as printed: a mark, what was found, and an indented fix line.
    pub fn render(&self) -> String {
        let mark = match self.status {
            Status::Ok => "✓",
            Status::Fail => "✗",
            Status::Note => "·",
        };
        match &self.fix {
            Some(fix) => format!("{mark} {}\n    fix: {fix}\n", self.what),
            None => format!("{mark} {}\n", self.what),
        }
    }
}

/// Whether none of `checks` failed.
pub fn all_pass(checks: &[Check]) -> bool {
    checks.iter().all(|c| c.status != Status::Fail)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_prints_its_fix_and_demotes_to_a_note() {
        let check = Check::fail("the link is broken", "mend it");
        assert_eq!(check.render(), "✗ the link is broken\n    fix: mend it\n");
        assert!(!all_pass(std::slice::from_ref(&check)));
        let note = check.demoted();
        assert_eq!(note.status, Status::Note);
        assert!(all_pass(&[note, Check::ok("fine")]));
        assert_eq!(Check::ok("fine").render(), "✓ fine\n");
    }
}
