//! Errors.

use gamewire_source2::DemoError;

use crate::input::InputError;

/// What can go wrong in a query or while writing its output.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum QueryError {
    /// The demo could not be read: a missing file, a damaged compressed
    /// stream, a broadcast directory without its fragments
    /// ([`crate::input`]).
    #[error("{0}")]
    Input(#[from] InputError),
    /// The demo is not a demo, or its parse stopped on an error.
    #[error("{0}")]
    Demo(#[from] DemoError),
    /// An unknown table name.
    #[error("unknown table {name:?}; valid tables: {valid}; closest: {closest}")]
    UnknownTable {
        /// The name asked for.
        name: String,
        /// Every valid name, comma-separated.
        valid: String,
        /// The closest valid names.
        closest: String,
    },
    /// An unknown prop name.
    #[error("unknown {what} prop {name:?}; closest: {closest} (friendly names: {valid}; raw names such as CCSPlayerPawn.m_iHealth or CCSGameRulesProxy.m_pGameRules.m_bBombPlanted are accepted when the demo has them)")]
    UnknownProp {
        /// `player` or `game-wide`.
        what: &'static str,
        /// The name asked for.
        name: String,
        /// Every friendly name, comma-separated.
        valid: String,
        /// The closest valid names.
        closest: String,
    },
    /// A `grenades` prop that no projectile class of the demo has.
    #[error("unknown grenade prop {name:?}; closest: {closest} (raw props of the grenade projectile classes: m_nBounces, CBodyComponent.m_vecZ, ...)")]
    UnknownGrenadeProp {
        /// The name asked for.
        name: String,
        /// The closest fields of the projectile classes.
        closest: String,
    },
    /// An event name the demo does not declare.
    #[error("the demo declares no event {name:?}; closest: {closest}")]
    UnknownEvent {
        /// The name asked for.
        name: String,
        /// The closest declared names.
        closest: String,
    },
    /// An output format name that is not csv, jsonl or parquet.
    #[error("unknown format {0:?}; valid formats: csv, jsonl, parquet")]
    UnknownFormat(String),
    /// Writing an output failed.
    #[error("cannot write {what}: {source}")]
    Write {
        /// What was being written.
        what: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Building an Arrow batch or a Parquet file failed.
    #[error("parquet output {what}: {message}")]
    Parquet {
        /// What was being written.
        what: String,
        /// The writer's message.
        message: String,
    },
}
