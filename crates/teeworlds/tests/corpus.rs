//! The shared corpus: huffman reference cases, int-packer vectors, captured
//! datagrams and pcaps. Read at test time from `../shared/corpus/teeworlds`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use gamewire_teeworlds::decoder::{Decoder, Direction, Event};
use gamewire_teeworlds::huffman::{Huffman, FREQUENCIES};
use gamewire_teeworlds::int::{pack_int, unpack_int, UnpackWarning};
use gamewire_teeworlds::msg::{GameMessage, Message, SystemMessage};
use gamewire_teeworlds::packet::Packet;

fn path(rel: &str) -> std::path::PathBuf {
    gamewire_corpus::path("teeworlds").join(rel)
}

fn hex(s: &str) -> Vec<u8> {
    let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

#[test]
fn frequency_table_matches_corpus_file() {
    let text = std::fs::read_to_string(path("huffman/huffman_data_frequencies")).unwrap();
    let values: Vec<u32> = text
        .split_whitespace()
        .map(|v| v.parse().unwrap())
        .collect();
    assert_eq!(values.len(), 256);
    assert_eq!(values.as_slice(), FREQUENCIES.as_slice());
}

#[test]
fn huffman_reference_cases_are_byte_exact() {
    let text = std::fs::read_to_string(path("huffman/huffman_data_test_cases")).unwrap();
    let h = Huffman::teeworlds();
    let mut n = 0;
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let (plain, compressed) = line.split_once('#').unwrap();
        let (plain, compressed) = (hex(plain), hex(compressed));
        assert_eq!(h.compress(&plain), compressed, "case {i}: compress");
        assert_eq!(
            h.decompress(&compressed, 1 << 16).unwrap(),
            plain,
            "case {i}: decompress"
        );
        n += 1;
    }
    assert_eq!(n, 202);
}

#[test]
fn int_vectors_match() {
    let text = std::fs::read_to_string(path("int_vectors.txt")).unwrap();
    let mut n = 0;
    for line in text.lines() {
        if line.trim_start().starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let (value, rest) = line.split_once("->").unwrap();
        let value: i32 = value.trim().parse().unwrap();
        let bytes_text = rest.split("twnet_parser").next().unwrap();
        let bytes = hex(bytes_text);
        let unpack: i32 = rest
            .split("unpack=")
            .nth(1)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        let mut out = Vec::new();
        pack_int(value, &mut out);
        assert_eq!(out, bytes, "pack {value}");
        let (v, len, overlong) = unpack_int(&bytes, 0).unwrap();
        assert_eq!(
            (v, len, overlong),
            (unpack, bytes.len(), false),
            "unpack {value}"
        );
        n += 1;
    }
    assert_eq!(n, 18);
    // The message id line: NETMSG_INFO (system 1) -> 03, CL_STARTINFO (game 27) -> 36.
    let info = Message::System(SystemMessage::Info(Default::default())).encode();
    assert_eq!(info[0], 0x03);
    let start = Message::Game(GameMessage::ClStartInfo(Default::default())).encode();
    assert_eq!(start[0], 0x36);
}

struct Totals {
    datagrams: usize,
    errors: Vec<String>,
    snapshots: u64,
    crc_ok: u64,
    reencode_mismatch: usize,
}

fn decode_all(flows: Vec<Vec<(Direction, Vec<u8>)>>) -> Totals {
    let mut t = Totals {
        datagrams: 0,
        errors: Vec::new(),
        snapshots: 0,
        crc_ok: 0,
        reencode_mismatch: 0,
    };
    for flow in flows {
        let mut dec = Decoder::new();
        for (i, (dir, d)) in flow.iter().enumerate() {
            t.datagrams += 1;
            let r = dec.decode(*dir, d);
            for e in &r.errors {
                t.errors
                    .push(format!("datagram {i} ({dir:?}, {} bytes): {e}", d.len()));
            }
            // Every decoded packet re-encodes to a packet that decodes the same.
            // Every decoded packet re-encodes byte for byte (compressed when
            // the original was, which is when compression made it smaller).
            if let Ok(p) = Packet::decode(d) {
                let compressed = match &p.packet {
                    Packet::Chunks { header, .. } => header.flags.compression,
                    _ => false,
                };
                let again = p.packet.encode(compressed).unwrap();
                // Control padding content is not kept (the captured clients
                // fill it with marker bytes), so compare chunk packets only.
                if matches!(p.packet, Packet::Chunks { .. }) && again != *d {
                    t.reencode_mismatch += 1;
                }
                assert_eq!(
                    Packet::decode(&again).unwrap().packet,
                    p.packet,
                    "re-encode datagram {i}"
                );
            }
        }
        t.snapshots += dec.snapshots_completed;
        t.crc_ok += dec.snapshots_crc_ok;
    }
    t
}

/// A named flow: (file name, datagrams with their direction).
type NamedFlow = (String, Vec<(Direction, Vec<u8>)>);

fn capture_flows() -> Vec<NamedFlow> {
    let mut files: Vec<_> = std::fs::read_dir(path("captures"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|f| {
            let text = std::fs::read_to_string(&f).unwrap();
            let flow = text
                .lines()
                .map(|l| {
                    let v: serde_json::Value = serde_json::from_str(l).unwrap();
                    let dir = if v["dir"] == "c2s" {
                        Direction::ClientToServer
                    } else {
                        Direction::ServerToClient
                    };
                    let d = hex(v["hex"].as_str().unwrap());
                    assert_eq!(d.len() as u64, v["len"].as_u64().unwrap());
                    (dir, d)
                })
                .collect();
            (f.file_name().unwrap().to_string_lossy().into_owned(), flow)
        })
        .collect()
}

#[test]
fn every_captured_datagram_decodes_and_every_crc_matches() {
    let flows = capture_flows();
    assert_eq!(flows.len(), 4);
    let t = decode_all(flows.into_iter().map(|(_, f)| f).collect());
    assert!(
        t.errors.is_empty(),
        "{} errors:\n{}",
        t.errors.len(),
        t.errors.join("\n")
    );
    assert_eq!(t.datagrams, 108);
    assert!(t.snapshots >= 50, "only {} snapshots", t.snapshots);
    assert_eq!(t.crc_ok, t.snapshots);
    assert_eq!(
        t.reencode_mismatch, 0,
        "datagrams that did not re-encode byte for byte"
    );
    println!(
        "captures: {} datagrams, 0 errors, {} snapshots, {} CRCs ok",
        t.datagrams, t.snapshots, t.crc_ok
    );
}

#[test]
fn captured_handshake_has_the_expected_messages() {
    let (_, flow) = capture_flows()
        .into_iter()
        .find(|(n, _)| n.starts_with("handshake"))
        .unwrap();
    let mut dec = Decoder::new();
    let mut names = Vec::new();
    for (dir, d) in &flow {
        for e in dec.decode(*dir, d).events {
            match e {
                Event::Message { message, .. } => names.push(message.name().to_string()),
                Event::Control { message } => names.push(format!("ctrl:{}", message.id())),
                _ => {}
            }
        }
    }
    let expected_prefix = [
        "ctrl:5",
        "ctrl:5",
        "ctrl:1",
        "ctrl:2",
        "info",
        "map_change",
        "ready",
        "sv_motd",
        "sv_server_settings",
        "con_ready",
        "cl_start_info",
        "enter_game",
    ];
    assert_eq!(&names[..expected_prefix.len()], expected_prefix);
    assert_eq!(names.last().map(String::as_str), Some("ctrl:4"));
}

fn pcap_flows() -> Vec<NamedFlow> {
    let mut out = Vec::new();
    let mut dirs: Vec<_> = std::fs::read_dir(path("pcap"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    dirs.sort();
    for d in dirs {
        for f in std::fs::read_dir(&d).unwrap() {
            let f = f.unwrap().path();
            if f.extension().is_some_and(|e| e == "pcap") {
                let bytes = std::fs::read(&f).unwrap();
                let dgrams = gamewire_teeworlds::pcap::udp_datagrams(&bytes)
                    .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
                for flow in gamewire_teeworlds::pcap::flows(dgrams) {
                    out.push((
                        f.file_name().unwrap().to_string_lossy().into_owned(),
                        flow.datagrams
                            .into_iter()
                            .map(|(_, dir, p)| (dir, p))
                            .collect(),
                    ));
                }
            }
        }
    }
    out
}

#[test]
fn every_pcap_datagram_decodes_and_every_crc_matches() {
    let flows = pcap_flows();
    assert!(flows.len() >= 5);
    let t = decode_all(flows.into_iter().map(|(_, f)| f).collect());
    assert!(
        t.errors.is_empty(),
        "{} errors:\n{}",
        t.errors.len(),
        t.errors.join("\n")
    );
    assert!(t.snapshots > 100, "only {} snapshots", t.snapshots);
    assert_eq!(t.crc_ok, t.snapshots);
    assert_eq!(
        t.reencode_mismatch, 0,
        "datagrams that did not re-encode byte for byte"
    );
    println!(
        "pcaps: {} datagrams, 0 errors, {} snapshots, {} CRCs ok",
        t.datagrams, t.snapshots, t.crc_ok
    );
}

/// Hostile input: every corpus datagram with random bit flips, truncations
/// and extensions, fed through the stateful decoder (snapshot store
/// included). Errors are fine; panics are not.
#[test]
fn mutated_corpus_datagrams_never_panic() {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut rnd = move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    let mut flows: Vec<NamedFlow> = capture_flows();
    flows.extend(pcap_flows());
    let (mut decoded, mut errors) = (0usize, 0usize);
    for round in 0..3 {
        for (_, flow) in &flows {
            let mut dec = Decoder::new();
            for (dir, d) in flow {
                let mut m = d.clone();
                match rnd() % 4 {
                    0 => m.truncate((rnd() as usize) % (m.len() + 1)),
                    1 => m.extend((0..rnd() % 64).map(|_| rnd() as u8)),
                    _ => {
                        for _ in 0..=(rnd() % (3 + round)) {
                            if !m.is_empty() {
                                let k = (rnd() as usize) % m.len();
                                m[k] ^= 1 << (rnd() % 8);
                            }
                        }
                    }
                }
                let r = dec.decode(*dir, &m);
                decoded += 1;
                errors += usize::from(!r.errors.is_empty());
            }
        }
    }
    println!("mutated: {decoded} datagrams, {errors} rejected with an error");
    assert!(errors > 0);
}

/// Every message in the corpus re-encodes to exactly the bytes it came from
/// (unless decoding reported a warning: sanitized strings, trailing bytes).
#[test]
fn every_corpus_message_reencodes_byte_for_byte() {
    let mut flows: Vec<NamedFlow> = capture_flows();
    flows.extend(pcap_flows());
    let (mut same, mut warned, mut names) = (0usize, 0usize, std::collections::BTreeSet::new());
    for (name, flow) in &flows {
        for (i, (_, d)) in flow.iter().enumerate() {
            let Ok(p) = Packet::decode(d) else {
                panic!("{name} datagram {i}")
            };
            let Packet::Chunks { chunks, .. } = p.packet else {
                continue;
            };
            for c in chunks {
                let (m, warnings) = Message::decode(&c.data).unwrap();
                // Trailing bytes (DDNet sends extra tuning parameters and pads
                // vote option lists to 15 strings) re-encode as the prefix.
                let trailing: Option<usize> = warnings
                    .iter()
                    .map(|w| match w {
                        UnpackWarning::TrailingBytes { len } => Some(*len),
                        _ => None,
                    })
                    .sum();
                let Some(trailing) = trailing else {
                    warned += 1;
                    continue;
                };
                assert_eq!(
                    m.encode(),
                    c.data[..c.data.len() - trailing],
                    "{name} datagram {i}: {}",
                    m.name()
                );
                names.insert(m.name());
                same += 1;
            }
        }
    }
    println!(
        "{same} messages re-encoded byte for byte ({} kinds), {warned} with other warnings skipped",
        names.len()
    );
    assert!(
        same > 2000 && names.len() >= 25,
        "{same} messages, {} kinds",
        names.len()
    );
}

/// Every known system and game message id unpacks from a body of zeros
/// (ints 0, empty strings, zero bytes) and packs back to the same bytes.
#[test]
fn every_message_type_roundtrips() {
    use gamewire_teeworlds::int::Unpacker;
    let zeros = [0u8; 64];
    let mut kinds = 0;
    for system in [true, false] {
        for id in 1..=40 {
            let mut u = Unpacker::new(&zeros);
            let m = if system {
                SystemMessage::unpack(id, &mut u)
                    .unwrap()
                    .map(Message::System)
            } else {
                GameMessage::unpack(id, &mut u).unwrap().map(Message::Game)
            };
            let Some(m) = m else { continue };
            let used = u.pos();
            let mut expected = Vec::new();
            pack_int((id << 1) | i32::from(system), &mut expected);
            expected.extend_from_slice(&zeros[..used]);
            assert_eq!(m.encode(), expected, "{} (id {id})", m.name());
            assert_eq!(Message::decode(&expected).unwrap().0, m);
            kinds += 1;
        }
    }
    // 24 system messages (23 generated, `input` hand-written), 39 game messages.
    assert_eq!(kinds, 24 + 39);
}
