//! Which origins may put third-party tool descriptions in front of the agent.
//!
//! A page's tool descriptions go straight into the agent's context, so by default only
//! pages the developer runs locally may present tools: loopback hosts and `file:`.
//! `--thirdPartyOrigins` adds patterns. A pattern is an origin (`https://app.example.com`),
//! optionally with a port wildcard (`http://localhost:*`), a subdomain wildcard
//! (`https://*.example.com`, which does not match `example.com` itself), or a scheme-less
//! host (`staging.example.com`, any scheme and port).

/// The patterns that are always allowed.
pub const DEFAULT_PATTERNS: &[&str] =
    &["localhost", "*.localhost", "127.0.0.1", "[::1]", "file://"];

/// A set of allowed origin patterns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OriginPolicy {
    patterns: Vec<String>,
}

impl Default for OriginPolicy {
    fn default() -> Self {
        Self::new(Vec::new())
    }
}

impl OriginPolicy {
    /// The defaults plus `extra` patterns.
    pub fn new(extra: Vec<String>) -> Self {
        let mut patterns: Vec<String> = DEFAULT_PATTERNS.iter().map(|p| p.to_string()).collect();
        patterns.extend(extra.into_iter().map(|p| p.trim().to_ascii_lowercase()));
        Self { patterns }
    }

    /// Exactly these patterns (as carried over the wire).
    pub fn from_patterns(patterns: Vec<String>) -> Self {
        Self { patterns }
    }

    /// The patterns, defaults first.
    pub fn patterns(&self) -> &[String] {
        &self.patterns
    }

    /// Whether a page at `url` may present tools.
    pub fn allows(&self, url: &str) -> bool {
        let Some(origin) = Origin::parse(url) else {
            return false;
        };
        self.patterns.iter().any(|p| origin.matches(p))
    }
}

/// The parts of a URL's origin that patterns look at.
#[derive(Debug, PartialEq, Eq)]
struct Origin {
    scheme: String,
    host: String,
    port: Option<String>,
}

impl Origin {
    fn parse(url: &str) -> Option<Origin> {
        let (scheme, rest) = url.split_once("://")?;
        let scheme = scheme.to_ascii_lowercase();
        if scheme == "file" {
            return Some(Origin {
                scheme,
                host: String::new(),
                port: None,
            });
        }
        let authority = rest.split(['/', '?', '#']).next()?;
        // Drop credentials.
        let authority = authority.rsplit('@').next()?;
        let (host, port) = split_host_port(authority);
        if host.is_empty() {
            return None;
        }
        Some(Origin {
            scheme,
            host: host.to_ascii_lowercase(),
            port: port.map(str::to_string),
        })
    }

    fn matches(&self, pattern: &str) -> bool {
        let pattern = pattern.trim().to_ascii_lowercase();
        let (scheme, rest) = match pattern.split_once("://") {
            Some((s, r)) => (Some(s), r),
            None => (None, pattern.as_str()),
        };
        if let Some(scheme) = scheme {
            if scheme != self.scheme {
                return false;
            }
            if scheme == "file" {
                return true;
            }
        }
        if self.scheme == "file" {
            return false;
        }
        let rest = rest.trim_end_matches('/');
        let (host, port) = split_host_port(rest);
        let host_ok = match host.strip_prefix("*.") {
            Some(suffix) => self
                .host
                .strip_suffix(suffix)
                .is_some_and(|head| head.ends_with('.') && head.len() > 1),
            None => host == self.host,
        };
        let port_ok = match port {
            None => scheme.is_none() || self.port.is_none(),
            Some("*") => true,
            Some(p) => self.port.as_deref() == Some(p),
        };
        host_ok && port_ok
    }
}

/// Splits `host:port`, keeping IPv6 brackets (`[::1]:8080` → `[::1]`, `8080`).
fn split_host_port(authority: &str) -> (&str, Option<&str>) {
    if authority.starts_with('[') {
        return match authority.find(']') {
            Some(end) => {
                let port = authority[end + 1..].strip_prefix(':');
                (&authority[..=end], port)
            }
            None => (authority, None),
        };
    }
    match authority.rsplit_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (authority, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_and_file_are_allowed_by_default() {
        let policy = OriginPolicy::default();
        for url in [
            "http://localhost:5173/app",
            "https://localhost/",
            "http://127.0.0.1:8080/x?y#z",
            "http://[::1]:3000/",
            "http://app.localhost:8080/",
            "file:///home/me/page.html",
        ] {
            assert!(policy.allows(url), "{url}");
        }
    }

    #[test]
    fn the_web_is_refused_by_default() {
        let policy = OriginPolicy::default();
        for url in [
            "https://example.com/",
            "http://localhost.evil.com/",
            "http://127.0.0.1.nip.io/",
            "https://user:pw@evil.com/",
            "about:blank",
            "chrome://settings",
            "not a url",
        ] {
            assert!(!policy.allows(url), "{url}");
        }
    }

    #[test]
    fn extra_patterns_extend_the_policy() {
        let policy = OriginPolicy::new(vec![
            "https://app.example.com".into(),
            "https://*.staging.example.com".into(),
            "http://devbox:*".into(),
            "intranet".into(),
        ]);
        assert!(policy.allows("https://app.example.com/dashboard"));
        assert!(!policy.allows("http://app.example.com/"));
        assert!(!policy.allows("https://app.example.com:8443/"));
        assert!(policy.allows("https://a.staging.example.com/"));
        assert!(!policy.allows("https://staging.example.com/"));
        assert!(policy.allows("http://devbox:9000/"));
        assert!(policy.allows("http://intranet:8080/"));
        assert!(policy.allows("https://intranet/"));
        assert!(!policy.allows("https://example.com/"));
    }
}
