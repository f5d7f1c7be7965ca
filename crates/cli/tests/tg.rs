//! `gamewire tg` end to end, through the built binary.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::{Command, Output};

fn gamewire(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gamewire"))
        .args(args)
        .output()
        .expect("run gamewire")
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).unwrap()
}

#[test]
fn cf16_encode_prints_code_parts_and_decode() {
    let out = gamewire(&["tg", "cf16", "encode", "7.5"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out).trim(),
        "0x4b8d  sign 0  scale 4  mantissa 2957  decodes to 7.498902  wire bytes 8d 4b"
    );
}

#[test]
fn cf16_encode_accepts_negative_and_clamps() {
    let out = gamewire(&["tg", "cf16", "encode", "-12345"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("0xffff  sign 1  scale 7  mantissa 4095"));
}

#[test]
fn cf16_encode_notes_the_f32_boundary_case() {
    let out = gamewire(&["tg", "cf16", "encode", "0.001"]);
    assert!(out.status.success());
    let text = stdout(&out);
    assert!(text.starts_with("0x0fff"), "{text}");
    assert!(text.contains("encodes as 0x1000"), "{text}");
}

#[test]
fn cf16_decode_and_json() {
    let out = gamewire(&["tg", "cf16", "decode", "0x7FFF", "--format", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["code"], "0x7fff");
    assert_eq!(json["scale"], 7);
    assert_eq!(json["mantissa"], 4095);
    assert_eq!(json["value"].as_f64().unwrap(), 10000.001953125);

    let out = gamewire(&["tg", "cf16", "decode", "4B8D"]);
    assert!(stdout(&out).contains("decodes to 7.498902"));
}

#[test]
fn cf16_bad_input_fails_with_a_message() {
    let out = gamewire(&["tg", "cf16", "decode", "0x12345"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("not a 16-bit hex code"));
    let out = gamewire(&["tg", "cf16", "encode", "fast"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("`fast` is not a number"));
}

/// The stock server's Settings message (OpenBC trace, packet #25), shortened map name.
#[test]
fn read_decodes_a_settings_message_with_offsets() {
    let out = gamewire(&[
        "tg",
        "read",
        "00 00000542 61 00 0200 4d31",
        "--as",
        "byte,float,bit,bit,byte,str16,bit",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 9, "{text}");
    let cols = |i: usize| lines[i].split_whitespace().take(3).collect::<Vec<_>>();
    assert_eq!(cols(1), ["0", "0", "byte"]);
    assert_eq!(cols(2), ["1", "1", "float"]);
    assert!(lines[2].contains("33.25"));
    assert_eq!(cols(3), ["5", "2", "bit"]);
    assert!(lines[3].contains("true (bit 0)"));
    assert_eq!(cols(6), ["7", "5", "str16"]);
    assert!(lines[6].contains("\"M1\""));
    // The last bit comes from the group byte at offset 5.
    assert_eq!(cols(7), ["5", "6", "bit"]);
    assert!(lines[7].contains("false (bit 2)"));
    assert_eq!(lines[8], "7 fields, 11 of 11 bytes read");
}

#[test]
fn read_failure_names_field_and_offset() {
    let out = gamewire(&["tg", "read", "1c 0102", "--as", "byte,short,cvec3"]);
    assert!(!out.status.success());
    assert_eq!(
        stderr(&out).trim(),
        "error: field 2 (cvec3) failed: the data ends at byte 3 while reading a CompressedVector3: 3 bytes needed, 0 available"
    );
    // The fields before the failure are still shown.
    assert!(stdout(&out).contains("513 (0x0201)"));
}

#[test]
fn read_json_with_vectors() {
    let out = gamewire(&[
        "tg",
        "read",
        "df8711 4c6500 1c57 ff",
        "--as",
        "cvec3,cvec4",
        "--format",
        "json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["length"], 9);
    assert_eq!(json["read"], 8);
    assert_eq!(json["left"], "ff");
    assert!(json["error"].is_null());
    let fields = json["fields"].as_array().unwrap();
    assert_eq!(fields[0]["field"], "cvec3");
    assert_eq!(
        fields[0]["value"]["dir"],
        serde_json::json!([-33, -121, 17])
    );
    assert_eq!(fields[1]["offset"], 3);
    assert_eq!(fields[1]["value"]["dir"], serde_json::json!([76, 101, 0]));
    assert_eq!(fields[1]["value"]["magnitude"]["code"], "0x571c");
}

#[test]
fn read_rejects_unknown_fields_and_bad_hex() {
    let out = gamewire(&["tg", "read", "00", "--as", "byte,word"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("unknown field `word`"));
    let out = gamewire(&["tg", "read", "0", "--as", "byte"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("odd number of digits"));
}
