//! Send tables: serializers, fields, their models and decoders.
//!
//! `DEM_SendTables` holds a varint-prefixed `CSVCMsg_FlattenedSerializer`:
//! a symbol table, a list of fields, and a list of serializers (name,
//! version, field indices; fields are shared by index). Each field names its
//! type (`var_type`, e.g. `CNetworkUtlVectorBase< CHandle< CBaseEntity > >`),
//! an optional encoder, bit count, range and flags, and optionally a nested
//! serializer or a list of polymorphic serializers.
//!
//! From these we build, once per demo, a tree of [`Field`]s with a *model*:
//!
//! | model | when | what a path ending here carries |
//! |---|---|---|
//! | value | otherwise | the value |
//! | fixed array | `T[N]` with `N > 0`, `T` not `char` | element `i`: the value (no length) |
//! | variable array | `CUtlVector<T>`, `CNetworkUtlVectorBase<T>`, `CUtlVectorEmbeddedNetworkVar<T>` without serializer | the new length (varuint32); element `i`: the value |
//! | fixed table | a nested serializer behind a pointer (`T*` or a component type) | a "present" bit, and for polymorphic pointers a UBitVar type index (1-based) |
//! | variable table | a nested serializer, not a pointer | the new length; element `i`, then a field of the element |
//!
//! and a [`FieldDecoder`] (factories by base type, name overrides, a type
//! map, a default, as demoinfocs-golang `field_decoder.go` and demofile-net
//! `FieldDecode.cs` choose them, completed by the types that real demos
//! contain). A type we do not know is read as a 64-bit varint (all integer
//! encodings are varints, so the stream stays in step) and reported as a
//! fallback.
//!
//! The parts: `decoder` (reading one value), `types` (choosing a field's
//! decoder), `build` (reading the message into fields), `shared` (a build
//! two threads share); `tables` (the built tables, their lookups and the field-path walk).

mod build;
mod decoder;
mod encoder;
mod shared;
mod tables;
mod types;

pub use crate::flattened::CoordSizeParams;
pub use build::demo_payload_message;
pub(crate) use decoder::{read_array_length, read_poly_pointer};
pub use decoder::{FieldDecoder, FloatDecoder, MAX_ARRAY_LEN};
pub(crate) use shared::{HelperPart, SharedBuild};
pub use tables::{Field, FieldModel, SendTables, Serializer, SerializerId, Symbol, MAX_NESTING};
pub(crate) use tables::{Last, LastParent, PathStore};
pub use types::VarType;
