//! Cross-check against twnet-parser (a Python implementation of the same
//! protocol): every corpus datagram is decoded by both; message names must
//! agree, and every field both sides report must have the same value.
//!
//! The Python side is `scripts/tw_crosscheck.py`, run with the interpreter
//! from `GAMEWIRE_TWNET_PYTHON` or `target/tw-venv/bin/python` (created by
//! `.ci/setup-teeworlds.sh start`). Under `CI=true` a missing interpreter is a
//! failure; locally the test is skipped with a message.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use gamewire_teeworlds::decoder::{Decoder, Direction, Event};
use gamewire_teeworlds::packet::ControlMessage;
use serde_json::Value;

fn corpus(rel: &str) -> PathBuf {
    gamewire_corpus::path("teeworlds").join(rel)
}
const REPO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

fn python() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("GAMEWIRE_TWNET_PYTHON") {
        return Some(PathBuf::from(p));
    }
    let p = PathBuf::from(format!("{REPO}/target/tw-venv/bin/python"));
    p.exists().then_some(p)
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

fn to_hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Flows of (direction, datagram) from the captures and the pcaps.
fn flows() -> Vec<Vec<(Direction, Vec<u8>)>> {
    let mut out = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(corpus("captures"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for f in files {
        let flow = std::fs::read_to_string(f)
            .unwrap()
            .lines()
            .map(|l| {
                let v: Value = serde_json::from_str(l).unwrap();
                let dir = if v["dir"] == "c2s" {
                    Direction::ClientToServer
                } else {
                    Direction::ServerToClient
                };
                (dir, hex(v["hex"].as_str().unwrap()))
            })
            .collect();
        out.push(flow);
    }
    let mut dirs: Vec<_> = std::fs::read_dir(corpus("pcap"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    dirs.sort();
    for d in dirs {
        for f in std::fs::read_dir(d).unwrap() {
            let bytes = std::fs::read(f.unwrap().path()).unwrap();
            for flow in gamewire_teeworlds::pcap::flows(
                gamewire_teeworlds::pcap::udp_datagrams(&bytes).unwrap(),
            ) {
                out.push(
                    flow.datagrams
                        .into_iter()
                        .map(|(_, dir, p)| (dir, p))
                        .collect(),
                );
            }
        }
    }
    out
}

/// Our messages of one datagram as (name, fields) in twnet-parser's naming.
fn ours(events: &[Event]) -> Vec<(String, Value)> {
    let mut v = Vec::new();
    for e in events {
        match e {
            Event::Control { message } => {
                let name = match message {
                    ControlMessage::KeepAlive => "keep_alive",
                    ControlMessage::Connect { .. } => "connect",
                    ControlMessage::Accept { .. } => "accept",
                    ControlMessage::Close { .. } => "close",
                    ControlMessage::Token { .. } => "token",
                    _ => "unknown",
                };
                let mut fields = serde_json::Map::new();
                match message {
                    ControlMessage::Connect { token, .. } | ControlMessage::Token { token, .. } => {
                        fields.insert(
                            "response_token".into(),
                            Value::String(format!("{token:08x}")),
                        );
                    }
                    ControlMessage::Close { reason } => {
                        fields.insert(
                            "reason".into(),
                            reason.clone().map(Value::String).unwrap_or(Value::Null),
                        );
                    }
                    _ => {}
                }
                v.push((name.to_owned(), Value::Object(fields)));
            }
            Event::Connless { message } => {
                let j = serde_json::to_value(message).unwrap();
                let name = format!("connless.{}", j["type"].as_str().unwrap());
                let fields = if j.get("fields").is_some() {
                    j["fields"].clone()
                } else {
                    j.clone()
                };
                v.push((name, fields));
            }
            Event::Message { message, .. } => {
                let j = serde_json::to_value(message).unwrap();
                match j["kind"].as_str().unwrap() {
                    "ex" => v.push(("ddnet_uuid".into(), Value::Object(Default::default()))),
                    "unknown" => v.push(("unknown".into(), Value::Object(Default::default()))),
                    _ => v.push((j["name"].as_str().unwrap().to_owned(), j["fields"].clone())),
                }
            }
            Event::Snapshot { .. } => {}
        }
    }
    v
}

/// Compares one field; twnet-parser reports tuning parameters as floats
/// (the wire value / 100).
fn same(ours: &Value, theirs: &Value) -> bool {
    match (ours, theirs) {
        (Value::Number(a), Value::Number(b)) if b.is_f64() => {
            (a.as_f64().unwrap() / 100.0 - b.as_f64().unwrap()).abs() < 1e-6
                || a.as_f64() == b.as_f64()
        }
        _ => ours == theirs,
    }
}

#[test]
fn twnet_parser_agrees_on_every_corpus_datagram() {
    let Some(py) = python() else {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("twnet-parser is not installed: run `.ci/setup-teeworlds.sh start` (it creates target/tw-venv)");
        }
        println!(
            "skipped: no twnet-parser venv at target/tw-venv (run .ci/setup-teeworlds.sh start)"
        );
        return;
    };
    let flows = flows();
    let mut input = String::new();
    for flow in &flows {
        for (dir, d) in flow {
            let dir = if *dir == Direction::ClientToServer {
                "c2s"
            } else {
                "s2c"
            };
            input.push_str(&format!(
                "{{\"dir\":\"{dir}\",\"hex\":\"{}\"}}\n",
                to_hex(d)
            ));
        }
    }
    let mut child = Command::new(&py)
        .arg(format!("{REPO}/scripts/tw_crosscheck.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("running {}: {e}", py.display()));
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()).unwrap());
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(output.status.success(), "the cross-check script failed");
    let theirs: Vec<Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();

    let (mut datagrams, mut they_failed, mut messages, mut fields) = (0, 0, 0, 0);
    let mut mismatches = Vec::new();
    let mut k = 0;
    for flow in &flows {
        let mut dec = Decoder::new();
        for (dir, d) in flow {
            let report = dec.decode(*dir, d);
            assert!(
                report.errors.is_empty(),
                "our decoder failed on datagram {k}"
            );
            let t = &theirs[k];
            k += 1;
            datagrams += 1;
            if t["ok"] != Value::Bool(true) {
                they_failed += 1;
                println!(
                    "twnet-parser could not parse datagram {} ({} bytes): {}",
                    k - 1,
                    d.len(),
                    t["error"]
                );
                continue;
            }
            let ours = ours(&report.events);
            let their_msgs = t["messages"].as_array().unwrap();
            let our_names: Vec<&str> = ours.iter().map(|(n, _)| n.as_str()).collect();
            let their_names: Vec<&str> = their_msgs
                .iter()
                .map(|m| m["name"].as_str().unwrap())
                .collect();
            if our_names != their_names {
                mismatches.push(format!(
                    "datagram {}: names {our_names:?} vs {their_names:?}",
                    k - 1
                ));
                continue;
            }
            for ((name, of), tm) in ours.iter().zip(their_msgs) {
                messages += 1;
                let Some(tf) = tm["fields"].as_object() else {
                    continue;
                };
                for (key, tv) in tf {
                    let Some(ov) = of.get(key) else { continue };
                    fields += 1;
                    if !same(ov, tv) {
                        mismatches.push(format!(
                            "datagram {}: {name}.{key}: ours {ov} vs twnet-parser {tv}",
                            k - 1
                        ));
                    }
                }
            }
        }
    }
    println!(
        "twnet-parser cross-check: {datagrams} datagrams, {they_failed} not parsed by twnet-parser, \
         {messages} messages and {fields} field values compared, {} mismatches",
        mismatches.len()
    );
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    assert_eq!(datagrams, 108 + 1391);
    assert!(fields > 5000, "only {fields} field values compared");
}
