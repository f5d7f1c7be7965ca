//! gamewire's Source 2 demo parser: CS2, Deadlock and Dota 2 `.dem` files.
//!
//! The layers, bottom up:
//!
//! - [`container`]: the `PBDEMS2` file, frames, snappy;
//! - [`broadcast`]: HTTP broadcast fragments, rewritten as a demo stream;
//! - [`parser`]: packets of protobuf messages, dispatched into [`DemoState`]
//!   ([`state`]) and reported to a [`Visitor`] ([`visitor`]) (the large,
//!   frequent ones read in place by a borrowing wire reader, the rest with
//!   the generated `source2-demo-protobufs` types);
//! - [`stringtable`]: string tables (players, baselines);
//! - [`serializer`]: send tables → fields with models and decoders;
//! - [`cache`]: send tables shared between the demos of a batch;
//! - [`fieldpath`] and [`entity`]: entity updates;
//! - [`gameevent`]: game events;
//! - [`messages`]: user messages and protobuf game events, decoded by id;
//! - [`usercmd`]: CS2's user commands (the players' input);
//! - [`econ`]: CS2's economy items (end-of-match drops and equipped skins);
//! - [`dota`]: Dota 2's combat log.
//!
//! ```no_run
//! use gamewire_source2::{parse_with, NoVisitor};
//! let data = std::fs::read("demo.dem").unwrap();
//! let (state, error) = parse_with(&data, &mut NoVisitor).unwrap();
//! println!("last tick {}, {} entities, error {:?}", state.tick, state.entities.len(), error);
//! ```
#![forbid(unsafe_code)]

pub mod broadcast;
pub mod cache;
pub mod container;
pub mod container_writer;
pub mod dota;
pub mod econ;
pub mod edit;
pub mod entity;
pub mod entity_writer;
pub mod error;
pub mod fieldpath;
pub mod fieldpath_writer;
mod flattened;
mod game;
pub mod gameevent;
mod helper;
pub mod message_writer;
pub mod messages;
mod messages_generated;
pub mod packet_writer;
pub mod parser;
pub mod serializer;
pub mod state;
pub mod stream;
pub mod stringtable;
pub mod stringtable_writer;
pub mod usercmd;
pub mod value;
pub mod visitor;
mod wire;

pub use cache::SendTableCache;
pub use entity::{Entity, EntityChange, Handle};
pub use error::{
    DemoError, EntityError, EntityProblem, ErrorKind, FieldError, GameEventError, Location,
    MessageJsonError, ProtobufProblem, SendTablesError, StringTableError, TableRef,
    UserCommandsError, Warning, WireProblem,
};
pub use fieldpath::FieldPath;
pub use gameevent::{EventValue, GameEvent};
pub use messages::{Game, MessageKind};
pub use parser::{parse_with, DemoParser};
pub use state::{DemoState, ServerClass, UserInfo};
pub use usercmd::{InputHistoryEntry, UserCommand};
pub use value::Value;
pub use visitor::{ChatMessage, Interests, NoVisitor, UserMessage, Visitor};

/// The Rust example of this crate's README, compiled as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
