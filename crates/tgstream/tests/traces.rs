//! Message bodies from published traces of the stock game, decoded and
//! re-encoded byte for byte.
//!
//! Sources (hex dumps, after the transport's decryption):
//! SandboxServers/OpenBC
//! `docs/wire-formats/checksum-handshake-protocol/05-observed-packet-trace-stock-dedicated-server.md`
//! (ChecksumReq, Settings) and
//! `docs/wire-formats/stateupdate-wire-format/14-decoded-packet-examples.md`
//! (a client StateUpdate).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use gamewire_tgstream::fields::{decode_fields, parse_field_list, FieldValue};
use gamewire_tgstream::{Cf16, CompressedVector3, Reader, Writer};

fn hex(s: &str) -> Vec<u8> {
    s.split_whitespace()
        .map(|b| u8::from_str_radix(b, 16).unwrap())
        .collect()
}

/// Client StateUpdate, flags 0x9D: absolute position, subsystem hash bit and
/// hash, forward and up vectors, speed, weapon bytes.
const STATE_UPDATE: &str = "1C FF FF FF 3F 00 80 E1 41 9D 00 00 B0 42 00 00 \
                            84 C2 00 00 92 C2 21 37 FB 0B 68 46 30 BB 5E 00 \
                            00 01 CC 02 CC 04 CC";

#[test]
fn state_update_with_three_byte_vectors() {
    let data = hex(STATE_UPDATE);
    let mut r = Reader::new(&data);
    assert_eq!(r.read_u8().unwrap(), 0x1C);
    assert_eq!(r.read_i32().unwrap(), 0x3FFF_FFFF);
    assert_eq!(r.read_f32().unwrap(), 28.1875);
    let flags = r.read_u8().unwrap();
    assert_eq!(flags, 0x9D);
    let position = [
        r.read_f32().unwrap(),
        r.read_f32().unwrap(),
        r.read_f32().unwrap(),
    ];
    assert_eq!(position, [88.0, -66.0, -73.0]);
    assert!(r.read_bit().unwrap());
    assert_eq!(r.read_u16().unwrap(), 0xFB37);
    let forward = r.read_cvec3().unwrap();
    let up = r.read_cvec3().unwrap();
    assert_eq!(forward.dir, [11, 104, 70]);
    assert_eq!(up.dir, [48, -69, 94]);
    let speed = r.read_cf16().unwrap();
    assert_eq!(speed, Cf16::from_bits(0));
    assert_eq!(speed.decode(), 0.0);
    assert_eq!(
        r.read_bytes(6).unwrap(),
        &[0x01, 0xCC, 0x02, 0xCC, 0x04, 0xCC]
    );
    assert_eq!(r.remaining(), 0);

    // Read as 3 bytes each, forward and up are unit vectors at right angles,
    // as a ship's orientation must be: evidence that a CompressedVector3 is
    // 3 bytes on the wire.
    let (f, u) = (forward.decode(), up.decode());
    let dot = f[0] * u[0] + f[1] * u[1] + f[2] * u[2];
    let norm = |v: [f32; 3]| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    assert!(dot.abs() < 0.02, "dot {dot}");
    assert!((norm(f) - 1.0).abs() < 0.02, "|forward| {}", norm(f));
    assert!((norm(u) - 1.0).abs() < 0.02, "|up| {}", norm(u));

    // Writing the same fields gives the same bytes.
    let mut w = Writer::new();
    w.write_u8(0x1C);
    w.write_i32(0x3FFF_FFFF);
    w.write_f32(28.1875);
    w.write_u8(0x9D);
    for p in position {
        w.write_f32(p);
    }
    w.write_bit(true);
    w.write_u16(0xFB37);
    w.write_cvec3(CompressedVector3 { dir: [11, 104, 70] });
    w.write_cvec3(CompressedVector3::from_bytes([0x30, 0xBB, 0x5E]));
    w.write_cf16_value(0.0);
    w.write_bytes(&[0x01, 0xCC, 0x02, 0xCC, 0x04, 0xCC]);
    assert_eq!(w.as_bytes(), data.as_slice());
}

#[test]
fn state_update_through_a_field_list() {
    let data = hex(STATE_UPDATE);
    let kinds =
        parse_field_list("byte,int,float,byte,float*3,bit,short,cvec3*2,cf16,bytes:6").unwrap();
    let (fields, error, end) = decode_fields(&data, &kinds);
    assert_eq!(error, None);
    assert_eq!(end, data.len());
    let offsets: Vec<usize> = fields.iter().map(|f| f.offset).collect();
    assert_eq!(offsets, [0, 1, 5, 9, 10, 14, 18, 22, 23, 25, 28, 31, 33]);
    assert_eq!(
        fields[7].value,
        FieldValue::Bit {
            value: true,
            index: 0
        }
    );
}

/// A ChecksumReq body as hex, with its round, directory, filter and recursive bit.
type ChecksumRequest = (&'static str, u8, &'static [u8], &'static [u8], bool);

/// ChecksumReq bodies: round, directory, filter, recursive bit.
#[test]
fn checksum_requests_end_with_a_bit_group() {
    let cases: [ChecksumRequest; 5] = [
        (
            "20 00 08 00 73 63 72 69 70 74 73 2F 07 00 41 70 70 2E 70 79 63 20",
            0,
            b"scripts/",
            b"App.pyc",
            false,
        ),
        (
            "20 01 08 00 73 63 72 69 70 74 73 2F 0C 00 41 75 74 6F 65 78 65 63 2E 70 79 63 20",
            1,
            b"scripts/",
            b"Autoexec.pyc",
            false,
        ),
        (
            "20 02 0D 00 73 63 72 69 70 74 73 2F 73 68 69 70 73 05 00 2A 2E 70 79 63 21",
            2,
            b"scripts/ships",
            b"*.pyc",
            true,
        ),
        (
            "20 03 10 00 73 63 72 69 70 74 73 2F 6D 61 69 6E 6D 65 6E 75 05 00 2A 2E 70 79 63 20",
            3,
            b"scripts/mainmenu",
            b"*.pyc",
            false,
        ),
        (
            "20 FF 13 00 53 63 72 69 70 74 73 2F 4D 75 6C 74 69 70 6C 61 79 65 72 05 00 2A 2E 70 79 63 21",
            0xFF,
            b"Scripts/Multiplayer",
            b"*.pyc",
            true,
        ),
    ];
    for (text, round, dir, filter, recursive) in cases {
        let data = hex(text);
        let mut r = Reader::new(&data);
        assert_eq!(r.read_u8().unwrap(), 0x20);
        assert_eq!(r.read_u8().unwrap(), round);
        assert_eq!(r.read_string16().unwrap(), dir);
        assert_eq!(r.read_string16().unwrap(), filter);
        assert_eq!(r.read_bit().unwrap(), recursive);
        assert_eq!(r.remaining(), 0);

        let mut w = Writer::new();
        w.write_u8(0x20);
        w.write_u8(round);
        w.write_string16(dir);
        w.write_string16(filter);
        w.write_bit(recursive);
        assert_eq!(w.as_bytes(), data.as_slice(), "round {round}");
    }
}

/// Settings: the third bit, written after the map name, lives in the group
/// byte before it (0x61), and no byte follows the name.
#[test]
fn settings_third_bit_lands_before_the_map_name() {
    let mut data = hex("00 00 00 05 42 61 00 25 00");
    data.extend_from_slice(b"Multiplayer.Episode.Mission1.Mission1");
    let mut r = Reader::new(&data);
    assert_eq!(r.read_u8().unwrap(), 0x00);
    assert_eq!(r.read_f32().unwrap(), 33.25);
    assert!(r.read_bit().unwrap());
    assert!(!r.read_bit().unwrap());
    assert_eq!(r.read_u8().unwrap(), 0);
    assert_eq!(
        r.read_string16().unwrap(),
        b"Multiplayer.Episode.Mission1.Mission1"
    );
    assert_eq!(r.remaining(), 0);
    assert_eq!(r.open_bit_group(), Some((5, 1)));
    assert!(!r.read_bit().unwrap());
    assert_eq!(r.position(), data.len());
}
