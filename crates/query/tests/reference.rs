//! The reference of the tables (`gamewire_query::reference`) against the
//! tables themselves on the corpus, and `docs/tables.md` against the
//! reference.
//!
//! `docs/tables.md` is generated: with `GAMEWIRE_WRITE_TABLES_DOC` set
//! (`cargo xtask tables-doc`), [`tables_doc_is_current`] writes it instead
//! of comparing.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};

use common::demos::*;
use gamewire_query::reference::{self, TABLES};
use gamewire_query::{Query, TableKind};

fn tables_doc() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/tables.md")
}

#[test]
fn tables_doc_is_current() {
    let want = reference::markdown();
    let path = tables_doc();
    if std::env::var_os("GAMEWIRE_WRITE_TABLES_DOC").is_some() {
        std::fs::write(&path, &want).unwrap();
        println!("wrote {}", path.display());
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    if have != want {
        let line = have
            .lines()
            .zip(want.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| have.lines().count().min(want.lines().count()));
        panic!(
            "{} is out of date with crates/query/src/reference.rs (first difference at line {}): \
             run `cargo xtask tables-doc`",
            path.display(),
            line + 1
        );
    }
}

#[test]
fn every_table_kind_has_its_reference() {
    let kinds: Vec<&str> = TableKind::ALL.iter().map(|k| k.name()).collect();
    let specs: Vec<&str> = TABLES.iter().map(|t| t.name).collect();
    assert_eq!(kinds, specs);
    for k in TableKind::ALL {
        assert_eq!(k.spec().name, k.name());
    }
}

/// Every fixed-schema table, on every corpus demo, has exactly the columns
/// and types of its reference, in order (`ticks` and `events` start with
/// theirs and add columns by rule).
#[test]
fn tables_have_the_columns_of_their_reference() {
    for demo in demos() {
        let tables = run_file(&all_tables(), &demo).unwrap();
        for t in &tables {
            let spec = reference::spec(&t.name).unwrap();
            let have: Vec<(&str, gamewire_query::Kind)> = t
                .columns
                .iter()
                .map(|(n, c)| (n.as_str(), c.kind()))
                .collect();
            let want = spec.schema();
            if spec.dynamic.is_empty() {
                assert_eq!(have, want, "{} {}", demo.display(), t.name);
            } else if t.name == "events" {
                assert_eq!(&have[..2], &want[..], "{} {}", demo.display(), t.name);
            } else if t.name != "ticks" {
                // grenades with no prop asked for: the fixed columns only.
                assert_eq!(have, want, "{} {}", demo.display(), t.name);
            }
        }
    }
}

/// A table asked for alone has the same columns as in a pass with every
/// table (the reference does not depend on the company a table keeps).
#[test]
fn header_alone_equals_header_among_all() {
    let data = std::fs::read(corpus().join("cs2/14011.dem")).unwrap();
    let all = run(&all_tables(), &data).unwrap();
    let alone = run(
        &Query {
            tables: vec![TableKind::Header],
            ..Query::default()
        },
        &data,
    )
    .unwrap();
    let header = all.iter().find(|t| t.name == "header").unwrap();
    assert_eq!(&alone[0], header);
}
