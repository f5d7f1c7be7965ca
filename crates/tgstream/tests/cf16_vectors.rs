//! Every vector of `shared/corpus/bc/cf16_vectors.json`, matched exactly.
//!
//! The corpus is read at test time from beside the repository (never copied
//! into it). Its `enc_f32` / `dec_f32` columns are the float32 results to
//! match; `enc_x87` / `dec_x87` are the same computation with 80-bit
//! intermediates and are not what this crate computes.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use gamewire_tgstream::{Cf16, Reader, Writer};
use serde_json::Value;

fn vectors() -> std::path::PathBuf {
    gamewire_corpus::path("bc/cf16_vectors.json")
}

struct Vector {
    value: f64,
    enc: u16,
    dec: f64,
    scale: u8,
    mantissa: u16,
    sign: bool,
    le_bytes: Vec<u8>,
}

fn load() -> Vec<Vector> {
    let path = vectors();
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let json: Value = serde_json::from_str(&text).unwrap();
    let entries = json.as_array().expect("a JSON array");
    entries
        .iter()
        .map(|e| {
            let hex = e["enc_f32"].as_str().unwrap();
            Vector {
                value: e["value"].as_f64().unwrap(),
                enc: u16::from_str_radix(hex.trim_start_matches("0x"), 16).unwrap(),
                dec: e["dec_f32"].as_f64().unwrap(),
                scale: u8::try_from(e["scale"].as_u64().unwrap()).unwrap(),
                mantissa: u16::try_from(e["mantissa"].as_u64().unwrap()).unwrap(),
                sign: e["sign"].as_u64().unwrap() == 1,
                le_bytes: e["le_bytes"]
                    .as_str()
                    .unwrap()
                    .split_whitespace()
                    .map(|b| u8::from_str_radix(b, 16).unwrap())
                    .collect(),
            }
        })
        .collect()
}

#[test]
fn corpus_is_present_and_nonempty() {
    let vectors = load();
    assert!(vectors.len() >= 20, "only {} vectors", vectors.len());
}

#[test]
fn encode_matches_every_vector() {
    let vectors = load();
    for v in &vectors {
        let code = Cf16::encode_exact(v.value);
        assert_eq!(
            code.to_bits(),
            v.enc,
            "encode_exact({}) = {:#06x}, corpus {:#06x}",
            v.value,
            code.to_bits(),
            v.enc
        );
        assert_eq!(code.scale(), v.scale, "scale of {}", v.value);
        assert_eq!(code.mantissa(), v.mantissa, "mantissa of {}", v.value);
        assert_eq!(code.is_negative(), v.sign, "sign of {}", v.value);
    }
}

#[test]
fn f32_encode_matches_every_vector_off_a_boundary() {
    // `Cf16::encode` takes the value already rounded to f32. That changes the
    // scale only when the rounding lands on a decade top, which in this corpus
    // happens once: 0.001 rounds to BASE, the first value of scale 1.
    let mut checked = 0;
    for v in load() {
        #[allow(clippy::cast_possible_truncation)]
        let rounded = v.value as f32;
        let code = Cf16::encode(rounded);
        let on_boundary = (0..8).any(|s| gamewire_tgstream::cf16::decade(s).1 == rounded.abs())
            && f64::from(rounded) != v.value;
        if on_boundary {
            assert_eq!(v.value, 0.001);
            assert_eq!(code.to_bits(), 0x1000);
        } else {
            assert_eq!(code.to_bits(), v.enc, "encode({rounded})");
            checked += 1;
        }
    }
    assert!(checked >= 20);
}

#[test]
fn decode_matches_every_vector_bit_for_bit() {
    for v in load() {
        let decoded = Cf16::from_bits(v.enc).decode();
        assert_eq!(
            f64::from(decoded),
            v.dec,
            "decode({:#06x}) = {decoded}, corpus {}",
            v.enc,
            v.dec
        );
    }
}

#[test]
fn wire_bytes_match_every_vector() {
    for v in load() {
        let mut w = Writer::new();
        w.write_cf16(Cf16::encode_exact(v.value));
        assert_eq!(w.as_bytes(), v.le_bytes.as_slice(), "bytes of {}", v.value);
        let mut r = Reader::new(&v.le_bytes);
        assert_eq!(r.read_cf16().unwrap().to_bits(), v.enc);
        assert_eq!(r.remaining(), 0);
    }
}
