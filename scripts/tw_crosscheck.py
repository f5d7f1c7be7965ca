#!/usr/bin/env python3
"""Decodes Teeworlds 0.7 datagrams with twnet-parser (pip install twnet-parser)
for the cross-check test `crates/teeworlds/tests/twnet_crosscheck.rs`.

Input (stdin): JSON lines {"dir": "c2s"|"s2c", "hex": "..."}.
Output (stdout): one JSON line per input line:
  {"ok": true, "messages": [{"name": ..., "fields": {...}}]}  or
  {"ok": false, "error": "..."} when twnet-parser cannot parse the datagram.
Field values are reduced to JSON scalars and lists of scalars (bytes become
hex strings); nested objects (snapshots, player input) are left out.
"""
import json
import sys

from twnet_parser.packet import parse7

SKIP = {"header", "message_type", "message_name", "system_message", "message_id"}


def plain(v):
    if isinstance(v, bool) or v is None or isinstance(v, (int, float, str)):
        return v, True
    if isinstance(v, (bytes, bytearray)):
        return bytes(v).hex(), True
    if isinstance(v, (list, tuple)):
        out = []
        for x in v:
            p, ok = plain(x)
            if not ok:
                return None, False
            out.append(p)
        return out, True
    return None, False


def main():
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        d = json.loads(line)
        data = bytes.fromhex(d["hex"])
        try:
            packet = parse7(data, we_are_a_client=(d["dir"] == "s2c"))
            messages = []
            for m in packet.messages:
                fields = {}
                for k, v in vars(m).items():
                    if k in SKIP or k.startswith("_"):
                        continue
                    p, ok = plain(v)
                    if ok:
                        fields[k] = p
                messages.append({"name": m.message_name, "type": m.message_type, "fields": fields})
            print(json.dumps({"ok": True, "messages": messages}))
        except Exception as e:  # noqa: BLE001 - any parser failure is reported, not fatal
            print(json.dumps({"ok": False, "error": "%s: %s" % (type(e).__name__, e)}))


if __name__ == "__main__":
    main()
