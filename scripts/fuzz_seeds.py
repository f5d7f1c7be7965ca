#!/usr/bin/env python3
"""Writes seed inputs for the `teeworlds` fuzz target (fuzz/fuzz_targets/teeworlds.rs)
from the Teeworlds captures (JSON Lines) and pcaps (IPv4/UDP over Ethernet, Linux
cooked or loopback; the first datagram's sender is the client) of the shared corpus, in the target's input layout:
a token-seed byte, then per datagram a header byte (bit 0: 1 = client to server,
bits 1..: time step in 50 ms units), a little-endian u16 length and the bytes.

Usage: python3 scripts/fuzz_seeds.py [TEEWORLDS_CORPUS_DIR] [OUT_DIR]
Defaults: teeworlds/ in the corpus (GAMEWIRE_CORPUS, default ../shared/corpus),
fuzz/corpus/teeworlds (ignored by git;
the seeds are derived from corpus files and are not committed).
"""

import json
import os
import struct
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def corpus_root() -> Path:
    """The corpus: GAMEWIRE_CORPUS (a relative value is taken from the repository root), else
    ../shared/corpus beside the repository, as for the tests (crates/corpus)."""
    return Path(os.path.normpath(REPO / (os.environ.get("GAMEWIRE_CORPUS") or "../shared/corpus")))


def encode(records: list[tuple[float, bool, bytes]]) -> bytes:
    """(time in seconds, client to server, datagram) records in the target's layout."""
    seed = bytearray([0])
    last_t = records[0][0] if records else 0.0
    for t, c2s, data in records:
        data = data[:1400]
        step = min(127, max(0, int((t - last_t) / 0.05)))
        last_t = t
        seed += bytes([(step << 1) | int(c2s), len(data) & 0xFF, len(data) >> 8]) + data
    return bytes(seed)


def pcap_records(path: Path) -> list[tuple[float, bool, bytes]]:
    raw = path.read_bytes()
    if len(raw) < 24:
        return []
    endian = "<" if raw[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    nano = raw[:4] in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d")
    link = struct.unpack(endian + "I", raw[20:24])[0]
    skip = {1: 14, 113: 16, 0: 4, 101: 0, 228: 0}.get(link)
    if skip is None:
        return []
    out, pos, client = [], 24, None
    while pos + 16 <= len(raw):
        sec, frac, incl, _ = struct.unpack(endian + "IIII", raw[pos:pos + 16])
        frame = raw[pos + 16:pos + 16 + incl]
        pos += 16 + incl
        ip = frame[skip:]
        if len(ip) < 28 or ip[0] >> 4 != 4 or ip[9] != 17:
            continue
        ihl = (ip[0] & 15) * 4
        src = (ip[12:16], struct.unpack(">H", ip[ihl:ihl + 2])[0])
        payload = ip[ihl + 8:]
        client = client or src
        out.append((sec + frac / (1e9 if nano else 1e6), src == client, payload))
    return out


def main() -> int:
    src = Path(sys.argv[1]) if len(sys.argv) > 1 else corpus_root() / "teeworlds"
    out = Path(sys.argv[2]) if len(sys.argv) > 2 else REPO / "fuzz/corpus/teeworlds"
    out.mkdir(parents=True, exist_ok=True)
    n = 0
    for capture in sorted(src.glob("captures/*.jsonl")):
        records = []
        for line in capture.read_text().splitlines():
            rec = json.loads(line) if line.strip() else {}
            if "hex" in rec:
                records.append((rec.get("t", 0.0), rec.get("dir") == "c2s", bytes.fromhex(rec["hex"])))
        (out / f"{capture.stem}.bin").write_bytes(encode(records))
        n += 1
    for pcap in sorted(src.glob("pcap/**/*.pcap")):
        records = pcap_records(pcap)
        if records:
            (out / f"{pcap.stem}.bin").write_bytes(encode(records))
            n += 1
    print(f"{n} seeds in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
