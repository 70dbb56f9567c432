//! The user's sharing settings, and which pages may be shared at all.
//!
//! Settings live in `chrome.storage.local` under [`KEY`]; the popup edits them. What
//! storage holds is untrusted (another version, a hand edit): a field that does not
//! read as expected falls back to its default. A page may be shared when it is a web
//! page (`http`, `https`) or a local file, and its origin is not on the blocklist
//! (patterns as [`OriginPolicy`] reads them, except that `*.bank.com` also blocks
//! `bank.com`). Patterns are checked when the popup saves them.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tabwire_shared::origin::{scheme_of, split_host_port, OriginPolicy};

/// The storage key of the settings.
pub const KEY: &str = "settings";

/// How long an unused tab stays attached in the user's own browser, by default.
pub const DEFAULT_IDLE_DETACH_SECONDS: u64 = 120;

/// The longest idle-detach delay, in seconds (a day): longer ones are cut to it.
pub const MAX_IDLE_DETACH_SECONDS: u64 = 86_400;

/// What the user chose in the popup.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    /// Share the active tab with an agent as soon as it connects.
    #[serde(default)]
    pub auto_share: bool,
    /// Detach from a tab unused for this long (0: never); `None`: the default.
    #[serde(default)]
    pub idle_detach_seconds: Option<u64>,
    /// Origin patterns never to attach to.
    #[serde(default)]
    pub blocklist: Vec<String>,
}

impl Settings {
    /// Reads stored settings field by field: garbage in one field does not lose the
    /// others. Returns the settings and what was ignored, if anything.
    pub fn read(stored: &Value) -> (Settings, Option<String>) {
        let mut ignored = Vec::new();
        let field = |name: &str| -> Option<Value> {
            let value = stored.get(name).filter(|v| !v.is_null())?.clone();
            Some(value)
        };
        let mut settings = Settings::default();
        if let Some(value) = field("autoShare") {
            match value.as_bool() {
                Some(on) => settings.auto_share = on,
                None => ignored.push("autoShare"),
            }
        }
        if let Some(value) = field("idleDetachSeconds") {
            match value.as_u64() {
                Some(seconds) => {
                    settings.idle_detach_seconds = Some(seconds.min(MAX_IDLE_DETACH_SECONDS))
                }
                None => ignored.push("idleDetachSeconds"),
            }
        }
        if let Some(value) = field("blocklist") {
            match serde_json::from_value::<Vec<String>>(value) {
                Ok(patterns) => settings.blocklist = clean_patterns(patterns),
                Err(_) => ignored.push("blocklist"),
            }
        }
        if !stored.is_object() && !stored.is_null() {
            ignored.push("everything");
        }
        let note = (!ignored.is_empty()).then(|| {
            format!(
                "tabwire: ignored unreadable settings: {}",
                ignored.join(", ")
            )
        });
        (settings, note)
    }

    /// The idle-detach delay in force, in seconds (0: never).
    pub fn idle_detach_seconds(&self, agent_profile: bool) -> u64 {
        let default = if agent_profile {
            0
        } else {
            DEFAULT_IDLE_DETACH_SECONDS
        };
        self.idle_detach_seconds
            .unwrap_or(default)
            .min(MAX_IDLE_DETACH_SECONDS)
    }

    /// The blocklist pattern `url` matches, if any.
    pub fn blocked_by(&self, url: &str) -> Option<&str> {
        self.blocklist
            .iter()
            .find(|p| OriginPolicy::from_patterns(with_bare_domain(p)).allows(url))
            .map(String::as_str)
    }

    /// Why `url` cannot be shared, in words for the user; `None` if it can.
    pub fn refusal(&self, url: &str) -> Option<String> {
        if !matches!(scheme_of(url).as_deref(), Some("http" | "https" | "file")) {
            return Some(
                "Only web pages and local files can be shared; this is a browser page.".into(),
            );
        }
        self.blocked_by(url).map(|pattern| {
            format!("This site is on your blocklist ({pattern}), so it cannot be shared.")
        })
    }
}

/// A pattern and, for a subdomain wildcard, its bare domain too: whoever blocks
/// `https://*.bank.com` means `https://bank.com` as well. ([`OriginPolicy`] itself
/// keeps `*.` to subdomains, as third-party tool origins expect.)
fn with_bare_domain(pattern: &str) -> Vec<String> {
    let pattern = pattern.trim();
    let bare = match pattern.split_once("://") {
        Some((scheme, rest)) => rest
            .strip_prefix("*.")
            .map(|domain| format!("{scheme}://{domain}")),
        None => pattern.strip_prefix("*.").map(str::to_owned),
    };
    std::iter::once(pattern.to_owned()).chain(bare).collect()
}

/// Checks that a blocklist pattern reads as an origin pattern (see [`OriginPolicy`]):
/// `[scheme://][*.]host[:port|:*]`, or `file://`. The error is for the user.
pub fn check_pattern(pattern: &str) -> Result<(), String> {
    let refuse = |why: &str| {
        Err(format!(
            "\"{pattern}\" is not a site pattern: {why}. Write one origin a line, such as \
             https://*.bank.com or bank.com."
        ))
    };
    let lower = pattern.trim().to_ascii_lowercase();
    let (scheme, rest) = match lower.split_once("://") {
        Some((scheme, rest)) => (Some(scheme), rest),
        None => (None, lower.as_str()),
    };
    if let Some(scheme) = scheme {
        let scheme_ok = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
        if !scheme_ok {
            return refuse("its scheme is not valid");
        }
    }
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    if rest.contains(['/', '?', '#']) {
        return refuse("it has a path, and the blocklist works by site, not by page");
    }
    if scheme == Some("file") {
        return if rest.is_empty() {
            Ok(())
        } else {
            refuse("file:// stands for every local file, alone")
        };
    }
    if rest.contains('@') || rest.chars().any(char::is_whitespace) {
        return refuse("it is not a host name");
    }
    if rest.starts_with('[') && !rest.contains(']') {
        return refuse("its IPv6 address is not closed with ]");
    }
    let (host, port) = split_host_port(rest);
    let port_ok = port.is_none_or(|p| p == "*" || p.parse::<u16>().is_ok_and(|p| p > 0));
    if !port_ok {
        return refuse("its port is not a number or *");
    }
    if host.starts_with('[') {
        let inner = &host[1..host.len() - 1];
        let v6_ok = !inner.is_empty() && inner.chars().all(|c| c.is_ascii_hexdigit() || c == ':');
        return if v6_ok {
            Ok(())
        } else {
            refuse("its IPv6 address is not valid")
        };
    }
    let domain = host.strip_prefix("*.").unwrap_or(host);
    let label_ok = |l: &str| {
        !l.is_empty()
            && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
            && !l.starts_with('-')
            && !l.ends_with('-')
    };
    if domain.split('.').all(label_ok) {
        Ok(())
    } else {
        refuse("its host is not a domain name (only a leading *. may be a wildcard)")
    }
}

/// Trimmed, non-empty patterns (the popup's textarea, one a line).
pub fn clean_patterns(patterns: impl IntoIterator<Item = String>) -> Vec<String> {
    patterns
        .into_iter()
        .map(|p| p.trim().to_owned())
        .filter(|p| !p.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn garbage_fields_fall_back_to_defaults_and_are_reported() {
        let (settings, note) = Settings::read(
            &json!({"autoShare": "yes", "idleDetachSeconds": 30, "blocklist": [" https://*.bank.com ", ""]}),
        );
        assert!(!settings.auto_share);
        assert_eq!(settings.idle_detach_seconds, Some(30));
        assert_eq!(settings.blocklist, vec!["https://*.bank.com".to_owned()]);
        assert!(note.unwrap().contains("autoShare"));
        let (settings, note) = Settings::read(&json!(42));
        assert_eq!(settings, Settings::default());
        assert!(note.is_some());
        assert_eq!(Settings::read(&Value::Null), (Settings::default(), None));
    }

    #[test]
    fn idle_detach_is_at_most_a_day() {
        let (settings, _) = Settings::read(&json!({"idleDetachSeconds": u64::MAX}));
        assert_eq!(settings.idle_detach_seconds, Some(MAX_IDLE_DETACH_SECONDS));
        let settings = Settings {
            idle_detach_seconds: Some(u64::MAX),
            ..Settings::default()
        };
        assert_eq!(settings.idle_detach_seconds(false), MAX_IDLE_DETACH_SECONDS);
    }

    #[test]
    fn idle_detach_defaults_depend_on_whose_browser_it_is() {
        let settings = Settings::default();
        assert_eq!(settings.idle_detach_seconds(false), 120);
        assert_eq!(settings.idle_detach_seconds(true), 0);
    }

    #[test]
    fn only_web_pages_and_files_off_the_blocklist_can_be_shared() {
        let settings = Settings {
            blocklist: vec!["https://*.bank.com".into()],
            ..Settings::default()
        };
        assert!(settings.refusal("https://a.test/").is_none());
        assert!(settings.refusal("file:///tmp/x.html").is_none());
        assert!(settings.refusal("chrome://settings/").is_some());
        assert!(settings.refusal("about:blank").is_some());
        let refusal = settings.refusal("https://www.bank.com/login").unwrap();
        assert!(refusal.contains("https://*.bank.com"));
        assert!(
            settings.refusal("https://bank.com/").is_some(),
            "the bare domain too"
        );
        assert!(settings.refusal("https://notbank.com/").is_none());
        assert!(
            settings.refusal("http://www.bank.com/").is_none(),
            "another scheme"
        );
    }

    #[test]
    fn a_scheme_less_wildcard_blocks_the_domain_on_any_scheme() {
        let settings = Settings {
            blocklist: vec!["*.bank.com".into()],
            ..Settings::default()
        };
        for url in ["https://bank.com/", "http://a.bank.com:8080/x"] {
            assert_eq!(settings.blocked_by(url), Some("*.bank.com"), "{url}");
        }
        assert_eq!(settings.blocked_by("https://bank.com.evil.test/"), None);
    }

    #[test]
    fn the_blocklist_on_hostile_urls() {
        let settings = Settings {
            blocklist: vec![
                "https://*.bank.com".into(),
                "bank.org".into(),
                "xn--bcher-kva.example".into(),
                "http://[::1]:3000".into(),
            ],
            ..Settings::default()
        };
        for (url, blocked) in [
            ("HTTPS://WWW.BANK.COM/", true),
            ("https://user:pw@www.bank.com/", true),
            ("https://bank.com@evil.test/", false),
            ("https://bank.org\\@evil.test/", true),
            ("https://evil.test\\@bank.org/", false),
            ("https://www.bank.com./", true),
            ("https://bank.com.:443/", true),
            ("https://bank.com:443/", true),
            ("https://bank.com:8443/", false),
            ("http://bank.org:8080/x", true),
            ("https://bücher.example/", true),
            ("http://[0:0::1]:3000/", true),
            ("http://[::1]:3001/", false),
            ("blob:https://www.bank.com/9f1c", true),
            ("filesystem:http://bank.org/temporary/x", true),
            ("about:blank", false),
            ("data:text/html,bank.org", false),
        ] {
            assert_eq!(settings.blocked_by(url).is_some(), blocked, "{url}");
        }
        // Pages that are not web pages are refused whatever the blocklist says.
        for url in [
            "blob:https://a.test/9f1c",
            "about:blank",
            "data:,x",
            "Chrome://settings",
        ] {
            let refusal = settings.refusal(url).unwrap();
            assert!(refusal.contains("browser page"), "{url}: {refusal}");
        }
        assert!(settings.refusal("HTTPS://a.test/").is_none());
        assert!(settings.refusal("FILE:///tmp/x.html").is_none());
    }

    #[test]
    fn patterns_must_be_origins() {
        for good in [
            "https://*.bank.com",
            "https://bank.com/",
            "bank.com",
            "*.bank.com",
            "http://localhost:*",
            "http://127.0.0.1:8080",
            "http://[::1]:3000",
            "file://",
        ] {
            assert_eq!(check_pattern(good), Ok(()), "{good}");
        }
        for bad in [
            "https://bank.com/login",
            "bank.com/accounts",
            "https://*bank.com",
            "https://bank..com",
            "ht tp://bank.com",
            "https://bank.com:port",
            "https://user@bank.com",
            "file:///home/me/secret.html",
            "*",
        ] {
            assert!(check_pattern(bad).is_err(), "{bad}");
        }
        let why = check_pattern("https://bank.com/login").unwrap_err();
        assert!(why.contains("path"), "{why}");
    }
}
