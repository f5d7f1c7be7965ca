//! CS2 demos written from scenario files.
//!
//! A scenario (JSON or TOML, see `docs/scenarios.md`) names the map, the tick
//! rate, the players, their keyframed movement and state, and the events of a
//! match. `scenario` reads and checks it, [`timeline`] expands it into the
//! state of the match at every written tick, [`schema`] holds the send tables,
//! class info and game-event descriptors the demo declares (built in, or taken
//! from a real demo), and `emit` writes the demo through `gamewire-source2`'s
//! writer.

pub mod emit;
pub mod error;
pub mod items;
pub mod scenario;
pub mod schema;
pub mod simulate;
pub mod timeline;
pub mod validate;

pub use error::{SynthError, SynthErrorKind};
pub use scenario::{load, Scenario, ScenarioFormat};
