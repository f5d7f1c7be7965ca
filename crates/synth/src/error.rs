//! The crate's one error type.

use gamewire_source2::DemoError;

/// Why a demo could not be synthesized.
#[derive(Debug, thiserror::Error)]
#[error("{kind}")]
pub struct SynthError {
    /// What went wrong, with its context as values.
    pub kind: SynthErrorKind,
}

/// What went wrong.
#[derive(Debug, thiserror::Error)]
pub enum SynthErrorKind {
    /// The scenario is malformed or contradicts itself. `line` is 1-based
    /// where the text gives one; `key` is the dotted path of the value
    /// (`players[3].name`, `events[12].victim`).
    #[error("scenario{}: {key}: {message}", line.map(|l| format!(" line {l}")).unwrap_or_default())]
    Scenario {
        /// The 1-based line of the offending value, when known.
        line: Option<usize>,
        /// The dotted key path of the offending value.
        key: String,
        /// What is wrong.
        message: String,
    },
    /// The schema (built in, or read from a demo) lacks what the demo needs.
    #[error("schema: {what}: {reason}")]
    Schema {
        /// The class, field or event concerned.
        what: String,
        /// What is missing or unusable.
        reason: String,
    },
    /// Reading the schema demo or writing the output failed in the format layer.
    #[error(transparent)]
    Demo(#[from] DemoError),
}

impl From<SynthErrorKind> for SynthError {
    fn from(kind: SynthErrorKind) -> Self {
        SynthError { kind }
    }
}

impl From<DemoError> for SynthError {
    fn from(e: DemoError) -> Self {
        SynthError {
            kind: SynthErrorKind::Demo(e),
        }
    }
}
