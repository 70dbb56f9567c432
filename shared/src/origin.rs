//! Which origins may put third-party tool descriptions in front of the agent.
//!
//! A page's tool descriptions go straight into the agent's context, so by default only
//! pages the developer runs locally may present tools: loopback hosts and `file:`.
//! `--thirdPartyOrigins` adds patterns. A pattern is an origin (`https://app.example.com`),
//! optionally with a port wildcard (`http://localhost:*`), a subdomain wildcard
//! (`https://*.example.com`, which does not match `example.com` itself), or a scheme-less
//! host (`staging.example.com`, any scheme and port).
//!
//! URLs are read into an [`Origin`] the one way every check here shares: the
//! third-party tool policy, the extension's blocklist and the origin a discovery
//! reports.

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
        let origin = Origin::of(url);
        self.patterns.iter().any(|p| origin.matches(p))
    }
}

/// A URL's origin, as tabwire's security checks compare it: the third-party tool
/// policy above, the blocklist, and the origin a discovery reports. The URL is parsed
/// as browsers parse it (the `url` crate follows the WHATWG URL standard), so what is
/// checked is the site the browser goes to: `\\` counts as `/`, credentials are not
/// the host, hosts are lowercased and punycoded, IP addresses are canonical and a
/// scheme's default port is no port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A scheme, a host (IPv6 in brackets) and the port when it is not the scheme's
    /// default. Any URL with a host has one, `chrome://settings` too.
    Site {
        /// Lowercase, without the `:`.
        scheme: String,
        /// Lowercase; a trailing dot is kept (`example.com.`).
        host: String,
        /// `None` for the scheme's default port.
        port: Option<u16>,
    },
    /// A local file: every `file:` URL counts as one origin, `file://`.
    File,
    /// No origin to compare: `about:`, `data:`, `javascript:`, a `blob:` of such a
    /// page, text that is no URL.
    Opaque,
}

impl Origin {
    /// The origin of `url`. A `blob:` or `filesystem:` URL has the origin of the
    /// `http`, `https` or `file` URL inside it, as in the browser.
    pub fn of(url: &str) -> Origin {
        match url::Url::parse(url) {
            Ok(url) => match url.scheme() {
                "blob" | "filesystem" => match url::Url::parse(url.path()) {
                    Ok(inner) if matches!(inner.scheme(), "http" | "https" | "file") => {
                        Self::of_parsed(&inner)
                    }
                    _ => Origin::Opaque,
                },
                _ => Self::of_parsed(&url),
            },
            Err(_) => Origin::Opaque,
        }
    }

    fn of_parsed(url: &url::Url) -> Origin {
        if url.scheme() == "file" {
            return Origin::File;
        }
        match url.host_str() {
            Some(host) if !host.is_empty() => Origin::Site {
                scheme: url.scheme().to_owned(),
                host: host.to_ascii_lowercase(),
                port: url.port(),
            },
            _ => Origin::Opaque,
        }
    }

    fn matches(&self, pattern: &str) -> bool {
        let pattern = pattern.trim().to_ascii_lowercase();
        let (pattern_scheme, rest) = match pattern.split_once("://") {
            Some((s, r)) => (Some(s), r),
            None => (None, pattern.as_str()),
        };
        let (scheme, host, port) = match self {
            Origin::Opaque => return false,
            Origin::File => return pattern_scheme == Some("file"),
            Origin::Site { scheme, host, port } => (scheme, host, port),
        };
        if pattern_scheme.is_some_and(|s| s != scheme) {
            return false;
        }
        // `example.com.` is `example.com` (the same name in DNS).
        let host = host.strip_suffix('.').unwrap_or(host);
        let (pattern_host, pattern_port) = split_host_port(rest.trim_end_matches('/'));
        let host_ok = match pattern_host.strip_prefix("*.") {
            Some(suffix) => host
                .strip_suffix(suffix)
                .is_some_and(|head| head.ends_with('.') && head.len() > 1),
            None => pattern_host == host,
        };
        let port_ok = match pattern_port {
            None => pattern_scheme.is_none() || port.is_none(),
            Some("*") => true,
            Some(p) => port.is_some_and(|port| p.parse::<u16>() == Ok(port)),
        };
        host_ok && port_ok
    }
}

/// The origin as a page's `location.origin` reads: `http://localhost:8080`,
/// `file://` for a local file, `null` for an opaque origin.
impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::Site {
                scheme,
                host,
                port: Some(port),
            } => write!(f, "{scheme}://{host}:{port}"),
            Origin::Site { scheme, host, .. } => write!(f, "{scheme}://{host}"),
            Origin::File => f.write_str("file://"),
            Origin::Opaque => f.write_str("null"),
        }
    }
}

/// The scheme of `url`, lowercase (`https`, `file`, `blob`, `about`); `None` if it is
/// not a URL.
pub fn scheme_of(url: &str) -> Option<String> {
    url::Url::parse(url).ok().map(|url| url.scheme().to_owned())
}

/// Splits a pattern's `host:port`, keeping IPv6 brackets (`[::1]:8080` → `[::1]`,
/// `8080`); an unclosed `[` is all host.
pub fn split_host_port(authority: &str) -> (&str, Option<&str>) {
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

    fn site(scheme: &str, host: &str, port: Option<u16>) -> Origin {
        Origin::Site {
            scheme: scheme.into(),
            host: host.into(),
            port,
        }
    }

    #[test]
    fn origins_are_read_as_the_browser_reads_urls() {
        for (url, origin) in [
            // Credentials are not the host, whichever side names a trusted one.
            ("https://user:pw@evil.com/", site("https", "evil.com", None)),
            ("http://localhost@evil.com/", site("http", "evil.com", None)),
            (
                "http://evil.com@localhost:8080/",
                site("http", "localhost", Some(8080)),
            ),
            // A backslash ends the host in special schemes.
            (
                "http://evil.com\\@localhost/",
                site("http", "evil.com", None),
            ),
            // Uppercase, IDN (punycode), default ports, canonical IP addresses.
            (
                "HTTPS://APP.Example.COM/",
                site("https", "app.example.com", None),
            ),
            (
                "https://bücher.example/",
                site("https", "xn--bcher-kva.example", None),
            ),
            ("http://localhost:80/", site("http", "localhost", None)),
            ("https://localhost:443/", site("https", "localhost", None)),
            (
                "http://localhost:443/",
                site("http", "localhost", Some(443)),
            ),
            (
                "http://[0:0:0:0:0:0:0:1]:3000/",
                site("http", "[::1]", Some(3000)),
            ),
            ("http://127.1/", site("http", "127.0.0.1", None)),
            ("http://0x7f.0.0.1/", site("http", "127.0.0.1", None)),
            // A trailing dot stays in the origin (the policy sees through it).
            ("https://bank.com./", site("https", "bank.com.", None)),
            // Inner origins.
            (
                "blob:http://localhost:5173/9f1c",
                site("http", "localhost", Some(5173)),
            ),
            (
                "filesystem:https://app.example.com/temporary/x",
                site("https", "app.example.com", None),
            ),
            ("blob:file:///tmp/x", Origin::File),
            // Hosts of other schemes, as Chrome has them.
            ("chrome://settings/", site("chrome", "settings", None)),
            // Opaque.
            ("blob:null/9f1c", Origin::Opaque),
            ("blob:data:text/html,x", Origin::Opaque),
            ("about:blank", Origin::Opaque),
            ("about:srcdoc", Origin::Opaque),
            ("data:text/html,<b>hi</b>", Origin::Opaque),
            ("javascript:alert(1)", Origin::Opaque),
            ("not a url", Origin::Opaque),
            ("", Origin::Opaque),
            // Files.
            ("file:///home/me/page.html", Origin::File),
            ("FILE://host/share/x", Origin::File),
        ] {
            assert_eq!(Origin::of(url), origin, "{url}");
        }
    }

    #[test]
    fn origins_print_as_location_origin_does() {
        assert_eq!(
            Origin::of("http://u:p@LOCALHOST:8080/x?y#z").to_string(),
            "http://localhost:8080"
        );
        assert_eq!(
            Origin::of("https://a.test:443/").to_string(),
            "https://a.test"
        );
        assert_eq!(
            Origin::of("http://[::1]:3000/").to_string(),
            "http://[::1]:3000"
        );
        assert_eq!(Origin::of("file:///x").to_string(), "file://");
        assert_eq!(Origin::of("about:blank").to_string(), "null");
        assert_eq!(
            Origin::of("chrome://settings").to_string(),
            "chrome://settings"
        );
    }

    #[test]
    fn the_default_policy_on_hostile_urls() {
        let policy = OriginPolicy::default();
        for (url, allowed) in [
            ("http://localhost@evil.com/", false),
            ("http://evil.com\\@localhost/", false),
            ("http://evil.com@localhost/", true),
            ("http://LOCALHOST:3000/", true),
            ("HTTP://127.0.0.1/", true),
            ("http://127.1:8080/", true),
            ("http://[0::1]/", true),
            ("http://[::1].evil.com/", false),
            ("http://localhost./", true),
            ("http://localhost.evil.com./", false),
            ("http://app.localhost./", true),
            ("http://xn--localhost-.com/", false),
            ("blob:http://localhost:5173/9f1c", true),
            ("blob:https://evil.com/9f1c", false),
            ("filesystem:http://127.0.0.1/temporary/x", true),
            ("blob:file:///tmp/x", true),
            ("blob:null/9f1c", false),
            ("about:blank", false),
            ("about:srcdoc", false),
            ("data:text/html,localhost", false),
            ("javascript:localhost", false),
            ("chrome://settings", false),
            ("ws://localhost/", true),
        ] {
            assert_eq!(policy.allows(url), allowed, "{url}");
        }
    }

    #[test]
    fn patterns_on_hostile_urls() {
        let policy = OriginPolicy::new(vec![
            "https://*.example.com".into(),
            "https://app.test:8443".into(),
            "https://bücher.example".into(),
        ]);
        for (url, allowed) in [
            ("https://A.EXAMPLE.COM/", true),
            ("https://a.example.com.:443/", true),
            ("https://.example.com/", false),
            ("https://example.com/", false),
            ("https://a.example.com.evil.test/", false),
            ("https://user@a.example.com/", true),
            ("https://app.test:8443/", true),
            ("https://app.test/", false),
            ("https://app.test:08443/", true),
            // A pattern is ASCII: a Unicode one matches nothing.
            ("https://bücher.example/", false),
        ] {
            assert_eq!(policy.allows(url), allowed, "{url}");
        }
    }
}
