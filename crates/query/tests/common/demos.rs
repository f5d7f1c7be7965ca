//! Running queries on the real corpus demos, and finding them.

use gamewire_query::{Kind, Query, QueryError, Table, TableKind};
use std::path::PathBuf;

/// The tables of a query on a demo in memory.
pub fn run(q: &Query, data: &[u8]) -> Result<Vec<Table>, QueryError> {
    q.run(data).map(|p| p.tables)
}

/// The tables of a query on a demo file.
pub fn run_file(q: &Query, path: &std::path::Path) -> Result<Vec<Table>, QueryError> {
    q.run_path(path).map(|p| p.tables)
}

/// The tables of a query and the parser's final state.
pub fn run_with_state(
    q: &Query,
    data: &[u8],
) -> Result<(Vec<Table>, gamewire_query::DemoState), QueryError> {
    q.run(data).map(|p| (p.tables, p.state))
}

pub fn corpus() -> PathBuf {
    gamewire_corpus::root()
}

pub fn demos() -> Vec<PathBuf> {
    let out = gamewire_corpus::source2_demos().unwrap_or_else(|e| panic!("{e}"));
    assert!(out.len() >= 7, "expected the 7 corpus demos, found {out:?}");
    out
}

pub fn all_tables() -> Query {
    Query {
        tables: TableKind::ALL.to_vec(),
        ..Query::default()
    }
}

pub fn cs2_demos() -> Vec<PathBuf> {
    demos()
        .into_iter()
        .filter(|d| d.to_string_lossy().contains("cs2"))
        .collect()
}

pub fn kinds(t: &gamewire_query::Table) -> Vec<(String, Kind)> {
    t.columns
        .iter()
        .map(|(n, c)| (n.clone(), c.kind()))
        .collect()
}
