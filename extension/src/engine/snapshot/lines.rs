//! The walker's answer (`page/snapshot.js`) read into snapshot nodes.
//!
//! The walker answers one string: `=<gen>` when the page has not changed since the
//! generation it was asked about, else a first line `<gen>\t<url>` (with, when there
//! are some, the fields `ask=<uid> <uid>…` and `closed=<uid> <uid>…`: the hosts to ask
//! Chrome about and the closed-root hosts to look up) and one line per node,
//! `uid\tdepth\trole\tname\tvalue\tstate…`, in document order. In every field a
//! backslash is written `\\`, a tab `\t`, a newline `\n` and a carriage return `\r`,
//! so a field never holds a tab or a line break. The text comes from a page (a
//! hostile one, maybe, if the walker were ever fooled), so anything else is refused
//! with the line it was found on.

use std::borrow::Cow;

use tabwire_shared::{is_uid, NodeState, SnapshotNode};

/// What one walk answered.
#[derive(Debug, PartialEq)]
pub enum WalkText {
    /// Nothing changed since generation `gen`.
    Unchanged(u64),
    /// The page, walked.
    Walked(Walk),
}

pub use crate::engine::state::walk::Walk;

/// The fields a node line has before its states.
const FIXED_FIELDS: usize = 5;

/// Reads the walker's answer.
pub fn read(text: &str) -> Result<WalkText, String> {
    if let Some(gen) = text.strip_prefix('=') {
        return generation(gen.trim_end()).map(WalkText::Unchanged);
    }
    let mut lines = text.split('\n');
    let head = lines.next().unwrap_or_default();
    let mut fields = head.split('\t');
    let (Some(gen), Some(url)) = (fields.next(), fields.next()) else {
        return Err(format!(
            "its first line is not a generation and a URL: {head:?}"
        ));
    };
    let gen = generation(gen)?;
    let url = unescape(url)
        .map_err(|e| format!("line 1: {e}"))?
        .into_owned();
    let (mut ask, mut closed) = (Vec::new(), Vec::new());
    for field in fields {
        let (list, uids) = match field.split_once('=') {
            Some(("ask", uids)) => (&mut ask, uids),
            Some(("closed", uids)) => (&mut closed, uids),
            _ => return Err(format!("line 1: an unknown field {field:?}")),
        };
        for uid in uids.split(' ') {
            if !is_uid(uid) {
                return Err(format!("line 1: {uid:?} is not a uid"));
            }
            list.push(uid.to_owned());
        }
    }
    let mut nodes: Vec<SnapshotNode> = Vec::new();
    for (index, line) in lines.enumerate() {
        let number = index + 2;
        if line.is_empty() {
            continue;
        }
        let node = node(line).map_err(|e| format!("line {number}: {e}"))?;
        match nodes.last() {
            None if node.depth != 0 => {
                return Err(format!("line {number}: the root has depth {}", node.depth))
            }
            Some(last) if node.depth > last.depth + 1 => {
                return Err(format!(
                    "line {number}: depth {} under a node of depth {}",
                    node.depth, last.depth
                ))
            }
            _ => {}
        }
        nodes.push(node);
    }
    Ok(WalkText::Walked(Walk {
        gen,
        url,
        nodes,
        ask,
        closed,
    }))
}

fn generation(text: &str) -> Result<u64, String> {
    text.parse()
        .map_err(|_| format!("{text:?} is not a generation number"))
}

/// One node line.
fn node(line: &str) -> Result<SnapshotNode, String> {
    let mut fields = line.split('\t');
    let mut fixed = [""; FIXED_FIELDS];
    for (i, slot) in fixed.iter_mut().enumerate() {
        *slot = fields.next().ok_or_else(|| {
            format!(
                "{i} fields, not the {FIXED_FIELDS} every node has (uid, depth, role, name, value)"
            )
        })?;
    }
    let [uid, depth, role, name, value] = fixed;
    if uid.is_empty() || uid.contains('\\') {
        return Err(format!("{uid:?} is not a uid"));
    }
    let depth = depth
        .parse()
        .map_err(|_| format!("{depth:?} is not a depth"))?;
    let role = unescape(role)?;
    if role.is_empty() {
        return Err("a node without a role".to_owned());
    }
    let value = unescape(value)?;
    let mut states = Vec::new();
    for state in fields.filter(|s| !s.is_empty()) {
        let state = unescape(state)?;
        states.push(match state.split_once('=') {
            Some((name, value)) => NodeState::with_value(name, value),
            None => NodeState::flag(state),
        });
    }
    Ok(SnapshotNode {
        uid: uid.to_owned(),
        depth,
        role: role.into_owned(),
        name: unescape(name)?.into_owned(),
        value: (!value.is_empty()).then(|| value.into_owned()),
        states,
    })
}

/// A field with its escapes undone.
fn unescape(field: &str) -> Result<Cow<'_, str>, String> {
    if !field.contains('\\') {
        return Ok(Cow::Borrowed(field));
    }
    let mut out = String::with_capacity(field.len());
    let mut chars = field.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next() {
            Some('\\') => '\\',
            Some('t') => '\t',
            Some('n') => '\n',
            Some('r') => '\r',
            Some(other) => return Err(format!("an unknown escape \\{other} in {field:?}")),
            None => return Err(format!("a field ending in a lone backslash: {field:?}")),
        });
    }
    Ok(Cow::Owned(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walked(text: &str) -> Walk {
        match read(text) {
            Ok(WalkText::Walked(walk)) => walk,
            other => panic!("not a walk: {other:?}"),
        }
    }

    #[test]
    fn lines_become_nodes_with_values_and_states() {
        let walk = walked(
            "7\thttps://a.test/\n\
             3_1\t0\tRootWebArea\tApp\t\tfocused\n\
             3_2\t1\ttextbox\tName\tAda\trequired\tdescription=a=b\n\
             3_3\t1\tbutton\tSave\t\n",
        );
        assert_eq!((walk.gen, walk.url.as_str()), (7, "https://a.test/"));
        let shape: Vec<_> = walk
            .nodes
            .iter()
            .map(|n| (n.uid.as_str(), n.depth, n.role.as_str(), n.name.as_str()))
            .collect();
        assert_eq!(
            shape,
            [
                ("3_1", 0, "RootWebArea", "App"),
                ("3_2", 1, "textbox", "Name"),
                ("3_3", 1, "button", "Save")
            ]
        );
        assert_eq!(walk.nodes[0].states, ["focused"]);
        assert_eq!(walk.nodes[1].value.as_deref(), Some("Ada"));
        assert_eq!(
            walk.nodes[1].states,
            [
                NodeState::flag("required"),
                NodeState::with_value("description", "a=b")
            ]
        );
        assert_eq!(walk.nodes[2].value, None, "an empty value is none");
        assert!(walk.nodes[2].states.is_empty());
    }

    #[test]
    fn hostile_names_come_back_as_they_were() {
        let walk = walked(
            "1\thttps://a.test/?q=\\t\n\
             1_1\t0\tRootWebArea\ta\\tb\\nc\\rd\\\\e\\\\t\t\\\\\tdescription=x\\ty",
        );
        let root = &walk.nodes[0];
        assert_eq!(walk.url, "https://a.test/?q=\t");
        assert_eq!(root.name, "a\tb\nc\rd\\e\\t");
        assert_eq!(root.value.as_deref(), Some("\\"));
        assert_eq!(root.states, [NodeState::with_value("description", "x\ty")]);
    }

    #[test]
    fn the_first_line_lists_hosts_to_ask_and_closed_roots_to_find() {
        let walk = walked("4\thttps://a.test/\task=4_2 4_3\tclosed=1_9\n4_1\t0\tRootWebArea\t\t");
        assert_eq!(walk.url, "https://a.test/");
        assert_eq!(walk.ask, ["4_2", "4_3"]);
        assert_eq!(walk.closed, ["1_9"]);
        assert!(walked("4\tu\n4_1\t0\tr\t\t").ask.is_empty());
        for (text, words) in [
            ("4\tu\task=4_x", "\"4_x\" is not a uid"),
            ("4\tu\task=", "\"\" is not a uid"),
            ("4\tu\tmore=1_1", "an unknown field"),
        ] {
            let error = read(text).unwrap_err();
            assert!(error.contains(words), "{text:?}: {error}");
        }
    }

    #[test]
    fn an_unchanged_page_answers_its_generation() {
        assert_eq!(read("=42"), Ok(WalkText::Unchanged(42)));
        assert!(read("=x").is_err());
    }

    #[test]
    fn broken_lines_are_refused_saying_where() {
        let cases = [
            ("no head", "its first line"),
            ("x\thttps://a.test/", "not a generation"),
            (
                "1\tu\n1_1\t0\tRootWebArea\tApp",
                "line 2: 4 fields, not the 5",
            ),
            ("1\tu\n\t0\tRootWebArea\t\t", "line 2: \"\" is not a uid"),
            (
                "1\tu\n1_1\tzero\tRootWebArea\t\t",
                "\"zero\" is not a depth",
            ),
            ("1\tu\n1_1\t0\t\t\t", "without a role"),
            ("1\tu\n1_1\t0\tr\tbad\\x\t", "unknown escape \\x"),
            ("1\tu\n1_1\t0\tr\tbad\\\t", "lone backslash"),
            (
                "1\tu\n1_1\t0\tr\t\t\n1_2\t2\tr\t\t",
                "line 3: depth 2 under",
            ),
            ("1\tu\n1_1\t1\tr\t\t", "line 2: the root has depth 1"),
        ];
        for (text, words) in cases {
            let error = read(text).unwrap_err();
            assert!(error.contains(words), "{text:?}: {error}");
        }
    }
}
