//! `gamewire tw decode`, `tw pcap` and `tw demo` on the shared corpus's
//! captures and on demos written here with the crate's demo writer.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use gamewire_teeworlds::demo::DemoWriter;
use gamewire_teeworlds::msg::{
    Character, DeClientInfo, GameMessage, Message, PlayerInfo, SvChat, SvKillMsg,
};
use gamewire_teeworlds::snapshot::Snapshot;

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
    let (ok, out, err) = gamewire(&["tw", "pcap", &f, "--dump", "jsonl"]);
    assert!(ok, "{err}");
    let last: serde_json::Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    let s = &last["summary"];
    assert_eq!(s["datagrams_with_errors"], 0);
    assert!(s["datagrams"].as_u64().unwrap() > 300);
    assert_eq!(s["snapshots"], s["snapshot_crc_ok"]);
    // The walk-and-chat capture has a chat line from the player.
    assert!(out.contains("\"sv_chat\""));
}

const WALK: &str =
    "pcap/075_tw_dm1_join_chat_walk_disconnect/075_tw_dm1_join_chat_walk_disconnect.pcap";

fn csv_rows(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

#[test]
fn pcap_tables_are_flat_csv_by_default() {
    let f = corpus(WALK);
    // The default table: messages, as CSV.
    let (ok, out, err) = gamewire(&["tw", "pcap", &f]);
    assert!(ok, "{err}");
    let rows = csv_rows(&out);
    assert_eq!(
        rows[0],
        [
            "flow",
            "time",
            "direction",
            "tick",
            "kind",
            "message",
            "fields",
            "error"
        ]
    );
    assert!(rows.iter().any(|r| r[5] == "sv_chat"), "no sv_chat row");
    // No snapshot messages: the snapshot tables hold them.
    assert!(!rows.iter().any(|r| r[5].starts_with("snap")));

    // One chat line from the player, with the sender's name from its
    // client info.
    let (ok, out, err) = gamewire(&["tw", "pcap", &f, "--table", "chat", "--format", "jsonl"]);
    assert!(ok, "{err}");
    let chat: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(!chat.is_empty());
    // Keys in column order.
    let first = out.lines().next().unwrap();
    let at: Vec<usize> = [
        "flow",
        "time",
        "tick",
        "client_id",
        "name",
        "mode",
        "target_id",
        "message",
    ]
    .iter()
    .map(|k| first.find(&format!("\"{k}\":")).unwrap())
    .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{first}");
    assert!(
        chat.iter()
            .any(|c| c["client_id"].as_i64() >= Some(0) && c["name"].is_string()),
        "{chat:?}"
    );

    // The players: ids and names.
    let (ok, out, err) = gamewire(&["tw", "pcap", &f, "--table", "players"]);
    assert!(ok, "{err}");
    let rows = csv_rows(&out);
    assert_eq!(rows[0][..3], ["flow", "client_id", "name"]);
    assert!(rows.len() >= 2, "{out}");

    // Snapshots: every CRC matched; the characters join them on tick.
    let (ok, out, _) = gamewire(&["tw", "pcap", &f, "--table", "snapshots"]);
    assert!(ok);
    let snaps = csv_rows(&out);
    assert_eq!(
        snaps[0],
        [
            "flow",
            "time",
            "tick",
            "items",
            "crc",
            "delta_tick",
            "crc_ok"
        ]
    );
    assert!(snaps.len() > 10);
    assert!(snaps[1..].iter().all(|r| r[6] == "true"));
    let (ok, out, _) = gamewire(&["tw", "pcap", &f, "--table", "character"]);
    assert!(ok);
    let chars = csv_rows(&out);
    assert_eq!(
        chars[0][..7],
        ["flow", "time", "tick", "id", "object_tick", "x", "y"]
    );
    assert!(chars.len() > 10);

    // The summary: the counts `--dump` ends with.
    let (ok, out, _) = gamewire(&["tw", "pcap", &f, "--table", "summary"]);
    assert!(ok);
    let s = csv_rows(&out);
    assert_eq!(
        s[0],
        [
            "flows",
            "datagrams",
            "datagrams_with_errors",
            "snapshots",
            "snapshot_crc_ok"
        ]
    );
    assert_eq!(s[1][2], "0");
    assert_eq!(s[1][3], s[1][4]);
}

#[test]
fn pcap_tables_follow_the_extension_and_refuse_unknown_names() {
    let f = corpus(WALK);
    let dir = std::env::temp_dir().join(format!("gamewire-tw-tables-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let parquet = dir.join("character.parquet");
    let (ok, _, err) = gamewire(&[
        "tw",
        "pcap",
        &f,
        "--table",
        "character",
        "-o",
        parquet.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let bytes = std::fs::read(&parquet).unwrap();
    assert!(bytes.starts_with(b"PAR1") && bytes.ends_with(b"PAR1"));
    let jsonl = dir.join("chat.jsonl");
    let (ok, _, err) = gamewire(&[
        "tw",
        "pcap",
        &f,
        "--table",
        "chat",
        "-o",
        jsonl.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let first = std::fs::read_to_string(&jsonl).unwrap();
    let v: serde_json::Value = serde_json::from_str(first.lines().next().unwrap()).unwrap();
    assert!(v["message"].is_string());
    let _ = std::fs::remove_dir_all(&dir);

    let (ok, _, err) = gamewire(&["tw", "pcap", &f, "--table", "charactr"]);
    assert!(!ok);
    assert!(
        err.contains("unknown table \"charactr\"") && err.contains("character"),
        "{err}"
    );
    // --dump is the nested output; it takes no table options.
    let (ok, _, err) = gamewire(&["tw", "pcap", &f, "--dump", "text", "--table", "chat"]);
    assert!(!ok, "{err}");
}

#[test]
fn warnings_print_as_sentences() {
    // A datagram whose last chunk is followed by bytes it does not announce.
    let (ok, text, err) = gamewire(&["tw", "decode", "00000012345678aa"]);
    assert!(ok, "{err}");
    assert!(
        text.contains("warning: 1 bytes follow the last announced chunk"),
        "{text}"
    );
}

/// Runs `gamewire args`, reads one line of its output through a real pipe,
/// closes the pipe and returns the exit status and standard error.
fn closed_pipe(args: &[&str]) -> (std::process::ExitStatus, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gamewire"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).unwrap();
    assert!(!line.is_empty());
    // The reader is dropped here: the pipe is closed.
    let out = child.wait_with_output().unwrap();
    (
        out.status,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let f = corpus(WALK);
    // More output than a pipe holds, so the writes after the close fail.
    for args in [
        vec!["tw", "pcap", f.as_str(), "--dump", "jsonl"],
        vec!["tw", "pcap", f.as_str(), "--dump", "text"],
    ] {
        let (status, err) = closed_pipe(&args);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_eq!(status.code(), Some(0), "{args:?}: {err}");
        assert!(err.is_empty(), "{args:?}: {err}");
    }
}

/// A server demo written with the crate's writer: two players, their
/// characters moving for 2000 ticks, a chat line and a kill.
fn written_demo() -> Vec<u8> {
    let mut w = DemoWriter::new("dm1", 0x1234_5678, b"map bytes", "server");
    let info = |id: u16, name: &str, snap: &mut Snapshot| {
        let mut o = DeClientInfo {
            team: 0,
            ..DeClientInfo::default()
        };
        gamewire_teeworlds::msg::str_to_ints(name, &mut o.name);
        gamewire_teeworlds::msg::str_to_ints("clan", &mut o.clan);
        let mut ints = Vec::new();
        o.to_ints(&mut ints);
        snap.insert(DeClientInfo::TYPE_ID, id, ints).unwrap();
    };
    for tick in (100..2100).step_by(2) {
        let mut snap = Snapshot::new();
        info(0, "alice", &mut snap);
        info(1, "bob", &mut snap);
        for id in 0..2u16 {
            let c = Character {
                tick,
                x: 100 + tick + i32::from(id) * 1000,
                y: 200,
                health: 10,
                armor: 0,
                weapon: 1,
                ..Character::default()
            };
            let mut ints = Vec::new();
            c.to_ints(&mut ints);
            snap.insert(Character::TYPE_ID, id, ints).unwrap();
            let p = PlayerInfo {
                player_flags: 0,
                score: i32::from(id),
                latency: 20,
            };
            let mut ints = Vec::new();
            p.to_ints(&mut ints);
            snap.insert(PlayerInfo::TYPE_ID, id, ints).unwrap();
        }
        w.snapshot(tick, &snap);
        if tick == 200 {
            let chat = Message::Game(GameMessage::SvChat(SvChat {
                mode: 1,
                client_id: 0,
                target_id: -1,
                message: "gg".into(),
            }));
            w.message(&chat.encode());
            let kill = Message::Game(GameMessage::SvKillMsg(SvKillMsg {
                killer: 0,
                victim: 1,
                weapon: 3,
                mode_special: 0,
            }));
            w.message(&kill.encode());
        }
    }
    w.finish()
}

#[test]
fn demo_tables_from_a_written_demo() {
    let dir = std::env::temp_dir().join(format!("gamewire-tw-demo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("written.demo");
    let data = written_demo();
    std::fs::write(&path, &data).unwrap();
    let p = path.to_str().unwrap();

    let (ok, out, err) = gamewire(&["tw", "demo", p, "--table", "character"]);
    assert!(ok, "{err}");
    let rows = csv_rows(&out);
    assert_eq!(rows[0][..5], ["tick", "id", "object_tick", "x", "y"]);
    // Two characters per snapshot, 1000 snapshots.
    assert_eq!(rows.len() - 1, 2000);
    assert_eq!(rows[1][..4], ["100", "0", "100", "200"]);

    let (ok, out, err) = gamewire(&["tw", "demo", p, "--table", "players"]);
    assert!(ok, "{err}");
    let rows = csv_rows(&out);
    assert_eq!(
        rows[0],
        [
            "client_id",
            "name",
            "clan",
            "country",
            "team",
            "local",
            "first_tick",
            "left_tick"
        ]
    );
    assert_eq!(rows[1][..3], ["0", "alice", "clan"]);
    assert_eq!(rows[2][..3], ["1", "bob", "clan"]);

    let (ok, out, err) = gamewire(&["tw", "demo", p, "--table", "chat"]);
    assert!(ok, "{err}");
    assert_eq!(csv_rows(&out)[1], ["200", "0", "alice", "all", "-1", "gg"]);
    let (ok, out, _) = gamewire(&["tw", "demo", p, "--table", "kills"]);
    assert!(ok);
    assert_eq!(
        csv_rows(&out)[1],
        ["200", "0", "alice", "1", "bob", "grenade", "0"]
    );
    let (ok, out, _) = gamewire(&["tw", "demo", p, "--table", "summary", "--format", "jsonl"]);
    assert!(ok);
    let s: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(s["map_name"], "dm1");
    assert_eq!(s["snapshots"], 1000);
    assert_eq!(s["last_tick"], 2098);
    assert_eq!(s["messages"], 2);

    // Cut short: the rows before the cut, a warning, exit status 0; an
    // error with --strict.
    let cut = dir.join("cut.demo");
    std::fs::write(&cut, &data[..data.len() - 3]).unwrap();
    let c = cut.to_str().unwrap();
    let (ok, out, err) = gamewire(&["tw", "demo", c, "--table", "snapshots"]);
    assert!(ok, "{err}");
    assert!(
        err.contains("warning:") && err.contains("truncated"),
        "{err}"
    );
    assert_eq!(csv_rows(&out).len() - 1, 999);
    let (ok, _, err) = gamewire(&["tw", "demo", c, "--table", "snapshots", "--strict"]);
    assert!(!ok && err.contains("truncated"), "{err}");
    // The nested output is still there with --dump.
    let (ok, out, err) = gamewire(&["tw", "demo", p, "--dump", "jsonl", "--objects"]);
    assert!(ok, "{err}");
    let last: serde_json::Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    assert_eq!(last["summary"]["snapshots"], 1000);
    // A table larger than a pipe holds, into a pipe closed early.
    let (status, err) = closed_pipe(&["tw", "demo", p, "--table", "character"]);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(status.code(), Some(0), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
