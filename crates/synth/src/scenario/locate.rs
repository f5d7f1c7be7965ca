//! Where each value of a scenario's text lies: its dotted key path
//! (`rounds[1].events[3].victim`) and its byte span. A check that finds a
//! problem names the key path; this map turns it into the line; a parse
//! error that gives a position turns into the key path of the innermost
//! value around it.
//!
//! TOML: toml's own parser keeps the span of every key and value
//! (`toml::de::DeTable`). JSON: serde_json keeps none, so a small scanner
//! walks the text (strings with their escapes, numbers, literals, arrays,
//! objects) and records the span of each value; it stops quietly at the
//! first thing that is not JSON, keeping what it found so far.

use std::ops::Range;

use toml::de::{DeTable, DeValue};
use toml::Spanned;

use super::{line_of_offset, ScenarioFormat};

/// The span of every value in a scenario's text, by key path.
#[derive(Debug)]
pub(crate) struct Locations<'t> {
    text: &'t str,
    entries: Vec<(String, Range<usize>)>,
}

impl<'t> Locations<'t> {
    /// Scans `text`; `None` when nothing could be read.
    pub(crate) fn new(text: &'t str, format: ScenarioFormat) -> Option<Self> {
        let mut entries = Vec::new();
        match format {
            ScenarioFormat::Toml => {
                let root = DeTable::parse(text).ok()?;
                let span = root.span();
                entries.push((String::new(), span));
                toml_table(root.get_ref(), "", &mut entries);
            }
            ScenarioFormat::Json => {
                let mut s = JsonScan {
                    bytes: text.as_bytes(),
                    pos: 0,
                    entries: &mut entries,
                    depth: 0,
                };
                s.value(String::new(), None);
            }
        }
        (!entries.is_empty()).then_some(Locations { text, entries })
    }

    /// The 1-based line of a key path, or of its nearest enclosing value
    /// that the text holds (a key left out takes its table's line).
    pub(crate) fn line_of(&self, key: &str) -> Option<usize> {
        let mut key = key;
        loop {
            if let Some((_, span)) = self.entries.iter().find(|(k, _)| k == key) {
                return Some(line_of_offset(self.text, span.start));
            }
            if key.is_empty() {
                return None;
            }
            key = parent(key);
        }
    }

    /// The key path of the innermost value whose span holds `offset`.
    pub(crate) fn path_at(&self, offset: usize) -> Option<String> {
        self.entries
            .iter()
            .filter(|(_, s)| s.start <= offset && offset <= s.end)
            .min_by_key(|(_, s)| s.end - s.start)
            .map(|(k, _)| k.clone())
    }
}

/// `a.b[2].c` → `a.b[2]` → `a.b` → `a` → ``.
fn parent(key: &str) -> &str {
    match key.rfind(['.', '[']) {
        Some(i) => &key[..i],
        None => "",
    }
}

fn join_key(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_string()
    } else {
        format!("{prefix}.{key}")
    }
}

fn toml_table(table: &DeTable<'_>, prefix: &str, out: &mut Vec<(String, Range<usize>)>) {
    for (k, v) in table.iter() {
        let path = join_key(prefix, k.get_ref());
        let span = k.span().start..v.span().end.max(k.span().end);
        toml_value(v, path, span, out);
    }
}

fn toml_value(
    v: &Spanned<DeValue<'_>>,
    path: String,
    span: Range<usize>,
    out: &mut Vec<(String, Range<usize>)>,
) {
    out.push((path.clone(), span));
    match v.get_ref() {
        DeValue::Table(t) => toml_table(t, &path, out),
        DeValue::Array(a) => {
            for (i, item) in a.iter().enumerate() {
                toml_value(item, format!("{path}[{i}]"), item.span(), out);
            }
        }
        _ => {}
    }
}

/// Nesting deeper than this stops the scan (the parse has already read
/// the text; this only bounds the recursion on text it rejected).
const MAX_DEPTH: usize = 128;

struct JsonScan<'a, 'e> {
    bytes: &'a [u8],
    pos: usize,
    entries: &'e mut Vec<(String, Range<usize>)>,
    depth: usize,
}

impl JsonScan<'_, '_> {
    fn ws(&mut self) {
        while let Some(c) = self.bytes.get(self.pos) {
            if c.is_ascii_whitespace() {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// One value at `pos`; `key_start` is where its key began (the span
    /// then starts there). False when the text stops being JSON.
    fn value(&mut self, path: String, key_start: Option<usize>) -> bool {
        self.ws();
        let start = key_start.unwrap_or(self.pos);
        if self.depth > MAX_DEPTH {
            return false;
        }
        let ok = match self.peek() {
            Some(b'{') => {
                self.depth += 1;
                let ok = self.object(&path);
                self.depth -= 1;
                ok
            }
            Some(b'[') => {
                self.depth += 1;
                let ok = self.array(&path);
                self.depth -= 1;
                ok
            }
            Some(b'"') => self.string().is_some(),
            Some(_) => self.scalar(),
            None => false,
        };
        self.entries.push((path, start..self.pos));
        ok
    }

    fn object(&mut self, path: &str) -> bool {
        self.pos += 1;
        self.ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return true;
        }
        loop {
            self.ws();
            let key_start = self.pos;
            let Some(key) = self.string() else {
                return false;
            };
            self.ws();
            if self.peek() != Some(b':') {
                return false;
            }
            self.pos += 1;
            if !self.value(join_key(path, &key), Some(key_start)) {
                return false;
            }
            self.ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return true;
                }
                _ => return false,
            }
        }
    }

    fn array(&mut self, path: &str) -> bool {
        self.pos += 1;
        self.ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return true;
        }
        let mut i = 0usize;
        loop {
            if !self.value(format!("{path}[{i}]"), None) {
                return false;
            }
            i += 1;
            self.ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return true;
                }
                _ => return false,
            }
        }
    }

    /// A string at `pos` (its opening quote); its text with the simple
    /// escapes undone (a key's `\u` escapes are kept as written).
    fn string(&mut self) -> Option<String> {
        if self.peek() != Some(b'"') {
            return None;
        }
        self.pos += 1;
        let mut out = Vec::new();
        loop {
            let c = self.peek()?;
            self.pos += 1;
            match c {
                b'"' => return Some(String::from_utf8_lossy(&out).into_owned()),
                b'\\' => {
                    let e = self.peek()?;
                    self.pos += 1;
                    out.push(match e {
                        b'n' => b'\n',
                        b't' => b'\t',
                        b'r' => b'\r',
                        b'b' => 8,
                        b'f' => 12,
                        b'u' => {
                            out.extend_from_slice(b"\\u");
                            continue;
                        }
                        other => other,
                    });
                }
                other => out.push(other),
            }
        }
    }

    fn scalar(&mut self) -> bool {
        let start = self.pos;
        while let Some(c) = self.peek() {
            if c.is_ascii_alphanumeric() || matches!(c, b'-' | b'+' | b'.') {
                self.pos += 1;
            } else {
                break;
            }
        }
        self.pos > start
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_paths_and_lines() -> Result<(), String> {
        let text = "{\n  \"map\": \"de_nuke\",\n  \"rounds\": [\n    {\"end\": 1},\n    {\"events\": [\n      {\"victim\": \"b\\\"x\"}\n    ]}\n  ]\n}\n";
        let l = Locations::new(text, ScenarioFormat::Json).ok_or("no locations")?;
        assert_eq!(l.line_of("map"), Some(2));
        assert_eq!(l.line_of("rounds[0].end"), Some(4));
        assert_eq!(l.line_of("rounds[1].events[0].victim"), Some(6));
        assert_eq!(l.line_of("rounds[1].events[0].weapon"), Some(6));
        assert_eq!(l.line_of("rounds[1].events"), Some(5));
        let at = text.find("b\\\"x").ok_or("no victim")?;
        assert_eq!(l.path_at(at).as_deref(), Some("rounds[1].events[0].victim"));
        Ok(())
    }

    #[test]
    fn toml_paths_and_lines() -> Result<(), String> {
        let text = "map = \"de_nuke\"\n\n[[rounds]]\nend = 1\n\n[[rounds]]\nend = 2\n\n[[rounds.events]]\ntype = \"kill\"\nvictim = \"bob\"\n\n[rounds.players.alice]\nmoney = 3\n";
        let l = Locations::new(text, ScenarioFormat::Toml).ok_or("no locations")?;
        assert_eq!(l.line_of("map"), Some(1));
        assert_eq!(l.line_of("rounds[1].end"), Some(7));
        assert_eq!(l.line_of("rounds[1].events[0].victim"), Some(11));
        assert_eq!(l.line_of("rounds[1].players.alice.money"), Some(14));
        assert_eq!(parent("a.b[2].c"), "a.b[2]");
        assert_eq!(parent("a.b[2]"), "a.b");
        Ok(())
    }
}
