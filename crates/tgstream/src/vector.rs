//! CompressedVector3 and CompressedVector4: a direction in three signed bytes,
//! with or without a separate magnitude.
//!
//! # Wire sizes (decision and evidence)
//!
//! | type | wire | bytes |
//! |---|---|---|
//! | [`CompressedVector3`] | `[dirX:i8][dirY:i8][dirZ:i8]` | **3** |
//! | [`CompressedVector4`], CF16 magnitude (`param4 != 0`) | `[dirX][dirY][dirZ][magnitude:u16 LE, CF16]` | **5** |
//! | [`CompressedVector4`], float magnitude (`param4 == 0`) | `[dirX][dirY][dirZ][magnitude:f32 LE]` | **7** |
//!
//! SandboxServers/STBC-Dedicated-Server `docs/protocol/stream-primitives.md`
//! gives CompressedVector3 a 5-byte wire format, 3 direction bytes plus a
//! CF16 magnitude. This crate uses **3 bytes**, because every piece of
//! evidence about what the game reads and sends says so
//! (`docs/formats/tgbufferstream.md` sums it up):
//!
//! - The read path for CompressedVector3 that the same document lists
//!   (`FUN_006d2eb0`) calls ReadByte three times and then a decompressor that
//!   takes the three bytes and three output floats, with no magnitude
//!   argument and no fourth read. A reader that takes 3 bytes must be fed
//!   3 bytes.
//! - The read path of CompressedVector4 (`FUN_006d2fd0`) reads the three bytes
//!   and then a `u16` (param4 != 0) or an `f32` (param4 == 0): 5 or 7 bytes.
//!   The magnitude is exactly what distinguishes vector4 from vector3.
//! - The StateUpdate documentation of STBC-Dedicated-Server
//!   (`docs/protocol/stateupdate.md`) lists the forward and up orientation
//!   (flags 0x04, 0x08) as 3-byte CompressedVector3 written by `FUN_006d2e50`,
//!   and the position delta (flag 0x02) as a 5-byte CompressedVector4 with
//!   param4 = 1. SandboxServers/OpenBC
//!   `docs/wire-formats/stateupdate-wire-format/12-compressed-data-types.md`
//!   and `tests/test_protocol.c` agree: a cv3 write advances the position by
//!   3, a cv4 write by 5 (`3 dir bytes + 2 CF16 bytes`). Its BeamFire layout
//!   (`docs/wire-formats/beam-fire-wire-format.md`) puts the flags byte right
//!   after a 3-byte cv3, which a 5-byte cv3 would misalign.
//! - A client StateUpdate from an unmodified game (OpenBC
//!   `docs/wire-formats/stateupdate-wire-format/14-decoded-packet-examples.md`,
//!   example 1, 39 bytes) parses to its last byte with 3-byte vectors:
//!   forward `0B 68 46` and up `30 BB 5E` decode to unit vectors at right
//!   angles (dot product -0.004), then a CF16 speed and six weapon bytes.
//!   Read with 5-byte vectors, the same fields run out of data: 2 bytes are
//!   left for the six weapon bytes. The test `tests/traces.rs` checks the
//!   3-byte parse.
//! - The "5 bytes" write function that `stream-primitives.md` names,
//!   `FUN_006d2ad0`, is the direction-plus-magnitude *encoder* that the CF16
//!   variant of CompressedVector4 uses; the CompressedVector3 writer is
//!   `FUN_006d2e50`, as the StateUpdate document above names it. The 5-byte
//!   body is a vector4 body under the vector3 name.
//!
//! # Direction bytes
//!
//! Encoding (the `0xA0`/`0xA4` encoders): `m = sqrt(x² + y² + z²)` in `f32`;
//! if `m > 1e-6` (`DAT_00888b58`) each component is divided by `m`; each is
//! then multiplied by `127.0` (`DAT_00895e50`) and truncated toward zero
//! (`__ftol`) to a signed byte. A vector of length at most `1e-6` has its
//! components multiplied unnormalised, which truncates to `(0, 0, 0)`, and
//! magnitude 0. Decoding: each byte as `i8`, divided by `127.0`; a vector4
//! multiplies that by its magnitude. The encoder never produces `0x80`
//! (-128); read from the wire it decodes to -128/127, about -1.0079.
//!
//! Like the game, the encoders use truncation, so `1.0` becomes 127 but a
//! diagonal `(1, 1, 1) / sqrt(3)` becomes `(73, 73, 73)` (73.32… truncated).
//! Non-finite input cannot panic or wrap: Rust's `as` turns NaN into 0 and
//! saturates at ±127. What the game does with such input is not documented.

use crate::cf16::Cf16;

/// The direction scale, `127.0` (`.rdata` `DAT_00895e50`).
pub const DIRECTION_SCALE: f32 = 127.0;
/// Vectors no longer than this are not normalised (`DAT_00888b58`).
pub const EPSILON: f32 = 1e-6;

/// Quantises a vector to three direction bytes and returns its length too.
fn direction(v: [f32; 3]) -> ([i8; 3], f32) {
    let length = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    let (length, unit) = if length > EPSILON {
        (length, v.map(|c| c / length))
    } else {
        (0.0, v)
    };
    // `as` truncates toward zero like `__ftol` and saturates, so a rounding
    // excess above 127 cannot wrap.
    #[allow(clippy::cast_possible_truncation)]
    let bytes = unit.map(|c| (c * DIRECTION_SCALE) as i8);
    (bytes, length)
}

/// Three direction bytes back to a unit-ish vector.
fn unit(dir: [i8; 3]) -> [f32; 3] {
    dir.map(|b| f32::from(b) / DIRECTION_SCALE)
}

/// A direction in three signed bytes (3 bytes on the wire).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct CompressedVector3 {
    /// The direction components, each `component * 127` truncated.
    pub dir: [i8; 3],
}

impl CompressedVector3 {
    /// Size on the wire in bytes.
    pub const WIRE_SIZE: usize = 3;

    /// Quantises the direction of `v` (its length is dropped).
    #[must_use]
    pub fn encode(v: [f32; 3]) -> Self {
        CompressedVector3 {
            dir: direction(v).0,
        }
    }

    /// The direction, each component `byte / 127`.
    #[must_use]
    pub fn decode(self) -> [f32; 3] {
        unit(self.dir)
    }

    /// The three wire bytes.
    #[must_use]
    pub fn to_bytes(self) -> [u8; 3] {
        self.dir.map(|b| b.to_le_bytes()[0])
    }

    /// From the three wire bytes.
    #[must_use]
    pub fn from_bytes(bytes: [u8; 3]) -> Self {
        CompressedVector3 {
            dir: bytes.map(|b| i8::from_le_bytes([b])),
        }
    }
}

/// The magnitude of a [`CompressedVector4`], in one of its two wire forms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Magnitude {
    /// CompressedFloat16, 2 bytes (the game's param4 != 0; StateUpdate uses it).
    Cf16(Cf16),
    /// Plain `f32`, 4 bytes (param4 == 0).
    F32(f32),
}

impl Magnitude {
    /// The magnitude as `f32` (a CF16 is decoded).
    #[must_use]
    pub fn value(self) -> f32 {
        match self {
            Magnitude::Cf16(code) => code.decode(),
            Magnitude::F32(value) => value,
        }
    }

    /// Size of this magnitude on the wire in bytes.
    #[must_use]
    pub fn wire_size(self) -> usize {
        match self {
            Magnitude::Cf16(_) => 2,
            Magnitude::F32(_) => 4,
        }
    }
}

/// A direction in three signed bytes plus a separate magnitude (5 or 7 bytes).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CompressedVector4 {
    /// The direction components, each `component / length * 127` truncated.
    pub dir: [i8; 3],
    /// The length.
    pub magnitude: Magnitude,
}

impl CompressedVector4 {
    /// Wire size with a CF16 magnitude.
    pub const WIRE_SIZE_CF16: usize = 5;
    /// Wire size with an `f32` magnitude.
    pub const WIRE_SIZE_F32: usize = 7;

    /// Quantises `v` with its length as a CompressedFloat16 (5 bytes).
    #[must_use]
    pub fn encode_cf16(v: [f32; 3]) -> Self {
        let (dir, length) = direction(v);
        CompressedVector4 {
            dir,
            magnitude: Magnitude::Cf16(Cf16::encode(length)),
        }
    }

    /// Quantises `v` with its length as an `f32` (7 bytes).
    #[must_use]
    pub fn encode_f32(v: [f32; 3]) -> Self {
        let (dir, length) = direction(v);
        CompressedVector4 {
            dir,
            magnitude: Magnitude::F32(length),
        }
    }

    /// The vector: each `byte / 127` times the magnitude.
    #[must_use]
    pub fn decode(self) -> [f32; 3] {
        let length = self.magnitude.value();
        unit(self.dir).map(|c| c * length)
    }

    /// Size on the wire in bytes (5 or 7).
    #[must_use]
    pub fn wire_size(self) -> usize {
        3 + self.magnitude.wire_size()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn unit_axes_and_diagonal() {
        assert_eq!(CompressedVector3::encode([1.0, 0.0, 0.0]).dir, [127, 0, 0]);
        assert_eq!(
            CompressedVector3::encode([0.0, -5.0, 0.0]).dir,
            [0, -127, 0]
        );
        assert_eq!(CompressedVector3::encode([5.0, 5.0, 5.0]).dir, [73, 73, 73]);
        assert_eq!(CompressedVector3::encode([0.0, 0.0, 0.0]).dir, [0, 0, 0]);
        assert_eq!(CompressedVector3::encode([1e-7, 0.0, 0.0]).dir, [0, 0, 0]);
    }

    #[test]
    fn torpedo_direction_from_the_trace_docs() {
        // OpenBC docs: TorpedoFire bytes DF 87 11 = direction (-0.26, -0.95, 0.13).
        let v = CompressedVector3::from_bytes([0xDF, 0x87, 0x11]).decode();
        assert!((v[0] + 0.26).abs() < 0.005);
        assert!((v[1] + 0.95).abs() < 0.005);
        assert!((v[2] - 0.13).abs() < 0.005);
        assert_eq!(
            CompressedVector3::from_bytes([0xDF, 0x87, 0x11]).to_bytes(),
            [0xDF, 0x87, 0x11]
        );
    }

    #[test]
    fn vector4_lengths() {
        let v = CompressedVector4::encode_cf16([30.0, 40.0, 0.0]);
        assert_eq!(v.dir, [76, 101, 0]);
        assert_eq!(v.magnitude, Magnitude::Cf16(Cf16::encode(50.0)));
        assert_eq!(v.wire_size(), 5);
        let w = CompressedVector4::encode_f32([30.0, 40.0, 0.0]);
        assert_eq!(w.magnitude, Magnitude::F32(50.0));
        assert_eq!(w.wire_size(), 7);
        let d = w.decode();
        assert!((d[0] - 30.0).abs() < 0.5 && (d[1] - 40.0).abs() < 0.5);
        let zero = CompressedVector4::encode_cf16([0.0; 3]);
        assert_eq!(zero.dir, [0, 0, 0]);
        assert_eq!(zero.magnitude, Magnitude::Cf16(Cf16::from_bits(0)));
    }

    #[test]
    fn non_finite_components_do_not_panic() {
        let v = CompressedVector4::encode_cf16([f32::NAN, f32::INFINITY, 1.0]);
        assert_eq!(v.magnitude.wire_size(), 2);
        let _ = CompressedVector3::encode([f32::INFINITY, 0.0, 0.0]);
    }
}
