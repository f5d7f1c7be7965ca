//! Teeworlds demos from strangers: arbitrary chunk bytes after a valid
//! header (version 4 or 5, picked by the first byte), or arbitrary bytes
//! as the whole file, go through the demo reader and the slicer. Neither
//! panics; the reader moves forward at every event; a slice of what was
//! read reads back to the same events.
#![no_main]

use gamewire_teeworlds::demo::{slice, DemoReader, DemoWriter};
use libfuzzer_sys::fuzz_target;

fn events(data: &[u8]) -> Option<Vec<gamewire_teeworlds::demo::DemoEvent>> {
    let mut r = DemoReader::new(data).ok()?;
    let mut out = Vec::new();
    let mut last = r.position();
    while let Some(e) = r.next() {
        let Ok(e) = e else { break };
        assert!(r.position() > last);
        last = r.position();
        out.push(e);
    }
    Some(out)
}

fuzz_target!(|input: &[u8]| {
    let Some((&pick, rest)) = input.split_first() else {
        return;
    };
    let data = if pick & 0x80 != 0 {
        rest.to_vec()
    } else {
        let mut w = DemoWriter::new("dm1", 0, b"", "server");
        if pick & 1 != 0 {
            w = w.version_5();
        }
        let mut f = w.finish();
        f.extend_from_slice(rest);
        f
    };
    let _ = events(&data);
    if let Ok((part, _)) = slice(&data, None, None) {
        // What the slice wrote reads back whole.
        let mut r = DemoReader::new(&part).expect("a slice has a valid header");
        while let Some(e) = r.next() {
            e.expect("a slice reads back without errors");
        }
    }
});
