//! `gamewire tw decode` and `gamewire tw pcap` on the shared corpus.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;

/// `rel` in the Teeworlds part of the corpus.
fn corpus(rel: &str) -> String {
    gamewire_corpus::path("teeworlds")
        .join(rel)
        .display()
        .to_string()
}

fn gamewire(args: &[&str]) -> (bool, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_gamewire"))
        .args(args)
        .output()
        .unwrap();
    (
        o.status.success(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn decode_prints_the_map_change_fields() {
    // The captured map_change of the 0.7.5 handshake.
    let line = std::fs::read_to_string(corpus("captures/handshake_capture_0.7.5.jsonl")).unwrap();
    let v: serde_json::Value = serde_json::from_str(line.lines().nth(5).unwrap()).unwrap();
    let hex = v["hex"].as_str().unwrap();
    let (ok, out, err) = gamewire(&["tw", "decode", hex, "--format", "jsonl"]);
    assert!(ok, "{err}");
    let r: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let m = &r["events"][0]["message"];
    assert_eq!(m["name"], "map_change");
    assert_eq!(m["fields"]["name"], "dm1");
    assert_eq!(m["fields"]["size"], 6793);
    assert_eq!(m["fields"]["chunk_size"], 1384);
    let (ok, text, _) = gamewire(&["tw", "decode", hex]);
    assert!(ok);
    assert!(
        text.contains("vital seq 1") && text.contains("map_change"),
        "{text}"
    );
}

#[test]
fn decode_rejects_garbage_with_a_sentence() {
    let (ok, _, err) = gamewire(&["tw", "decode", "10000000"]);
    assert!(!ok);
    assert!(err.contains("error:"), "{err}");
}

#[test]
fn pcap_decodes_every_datagram() {
    let f = corpus(
        "pcap/075_tw_dm1_join_chat_walk_disconnect/075_tw_dm1_join_chat_walk_disconnect.pcap",
    );
    let (ok, out, err) = gamewire(&["tw", "pcap", &f, "--format", "jsonl"]);
    assert!(ok, "{err}");
    let last: serde_json::Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    let s = &last["summary"];
    assert_eq!(s["datagrams_with_errors"], 0);
    assert!(s["datagrams"].as_u64().unwrap() > 300);
    assert_eq!(s["snapshots"], s["snapshot_crc_ok"]);
    // The walk-and-chat capture has a chat line from the player.
    assert!(out.contains("\"sv_chat\""));
}
