//! The push API on the real corpus demos: bytes fed in pieces of every
//! size give the frames, the state, the callbacks and the cut errors of
//! the in-memory parser.

use gamewire_source2::container::FrameReader;
use gamewire_source2::stream::{FrameDecoder, StreamParser};
use gamewire_source2::{DemoError, DemoParser, DemoState, Interests, Visitor};

type Result<T = ()> = std::result::Result<T, Box<dyn std::error::Error>>;

fn demos() -> Result<Vec<Vec<u8>>> {
    let mut out = Vec::new();
    for path in gamewire_corpus::source2_demos()? {
        out.push(std::fs::read(path)?);
    }
    if out.len() < 7 {
        return Err(format!("expected the 7 corpus demos, found {}", out.len()).into());
    }
    Ok(out)
}

/// Piece sizes that vary (a small generator, the same every run).
fn pieces(data: &[u8], seed: u32) -> Vec<&[u8]> {
    let mut x = seed | 1;
    let mut out = Vec::new();
    let mut rest = data;
    while !rest.is_empty() {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        // Mostly small pieces (cut inside frame heads), some large.
        let n = if x & 7 == 0 {
            (x >> 8) as usize % 200_000
        } else {
            (x >> 8) as usize % 40
        }
        .clamp(1, rest.len());
        let (a, b) = rest.split_at(n);
        out.push(a);
        rest = b;
    }
    out
}

/// Every callback, summed up: what a visitor sees.
#[derive(Default, PartialEq, Debug)]
struct Seen {
    ticks: Vec<(char, i32)>,
    entities: u64,
    fields: u64,
    events: Vec<String>,
    messages: u64,
    strings: u64,
}

impl Visitor for Seen {
    fn interests(&self) -> Interests {
        Interests::ALL
    }
    fn on_tick_start(&mut self, _state: &DemoState, tick: i32) {
        self.ticks.push(('s', tick));
    }
    fn on_tick_end(&mut self, _state: &DemoState, tick: i32) {
        self.ticks.push(('e', tick));
    }
    fn on_entity(
        &mut self,
        _state: &DemoState,
        _change: gamewire_source2::EntityChange,
        _entity: &gamewire_source2::Entity,
        paths: &[gamewire_source2::FieldPath],
    ) {
        self.entities += 1;
        self.fields += paths.len() as u64;
    }
    fn on_game_event(&mut self, _state: &DemoState, event: &gamewire_source2::GameEvent) {
        self.events.push(format!("{}@{}", event.name, event.tick));
    }
    fn on_user_message(&mut self, _state: &DemoState, _m: &gamewire_source2::UserMessage<'_>) {
        self.messages += 1;
    }
    fn on_string_table(
        &mut self,
        _state: &DemoState,
        _table: &gamewire_source2::stringtable::StringTable,
        changed: &[usize],
    ) {
        self.strings += changed.len() as u64;
    }
}

/// What a state holds that a run sets: compared between the two parsers.
fn summary(state: &DemoState) -> String {
    format!(
        "tick {} frames {} stop {} commands {:?} messages {:?} unknown {:?} warnings {:?} entities {} classes {} tables {}",
        state.tick,
        state.frames,
        state.reached_stop,
        state.command_counts,
        state.message_counts,
        state.unknown_messages,
        state.warnings,
        state.entities.len(),
        state.classes.len(),
        state.string_tables.len(),
    )
}

fn in_memory(data: &[u8]) -> (Seen, String, Option<DemoError>) {
    let mut seen = Seen::default();
    match DemoParser::new(data) {
        Ok(parser) => {
            let mut parser = parser.with_helper_thread(false);
            let end = parser.run(&mut seen).err();
            (seen, summary(&parser.state), end)
        }
        Err(e) => (seen, String::new(), Some(e)),
    }
}

fn pushed(data: &[u8], seed: u32) -> (Seen, String, Option<DemoError>) {
    let mut seen = Seen::default();
    let mut parser = StreamParser::new();
    let mut end = None;
    for piece in pieces(data, seed) {
        if let Err(e) = parser.push(piece, &mut seen) {
            end = Some(e);
            break;
        }
    }
    if end.is_none() {
        end = parser.finish(&mut seen).err();
    }
    if !parser.header_read() {
        return (seen, String::new(), end);
    }
    (seen, summary(parser.state()), end)
}

#[test]
fn pushed_pieces_parse_as_the_demo_in_memory() -> Result {
    for (i, data) in demos()?.iter().enumerate() {
        let expected = in_memory(data);
        if let Some(e) = &expected.2 {
            return Err(format!("corpus demo {i} does not parse: {e}").into());
        }
        for seed in [1, 2] {
            let got = pushed(data, seed + i as u32);
            assert_eq!(got.0, expected.0, "demo {i} seed {seed}");
            assert_eq!(got.1, expected.1, "demo {i} seed {seed}");
            assert!(got.2.is_none(), "demo {i}: {:?}", got.2);
        }
        // Read from a reader, too.
        let mut seen = Seen::default();
        let mut parser = StreamParser::new();
        parser.run(&mut &data[..], &mut seen)?;
        assert_eq!(seen, expected.0, "demo {i} read");
        assert_eq!(summary(parser.state()), expected.1, "demo {i} read");
    }
    Ok(())
}

#[test]
fn a_demo_cut_anywhere_ends_with_the_in_memory_error_and_state() -> Result {
    for (i, data) in demos()?.iter().enumerate() {
        let len = data.len();
        let mut cuts = vec![0, 5, 8, 12, 16, 17, 18, 19, 20, 40, len - 1, len - 3];
        cuts.extend((1..12).map(|k| len * k / 12 + k));
        for cut in cuts {
            let part = &data[..cut.min(len)];
            let expected = in_memory(part);
            let got = pushed(part, cut as u32);
            assert_eq!(got.0, expected.0, "demo {i} cut at {cut}");
            assert_eq!(got.1, expected.1, "demo {i} cut at {cut}");
            assert_eq!(got.2, expected.2, "demo {i} cut at {cut}");
            let message = |e: &Option<DemoError>| e.as_ref().map(ToString::to_string);
            assert_eq!(
                message(&got.2),
                message(&expected.2),
                "demo {i} cut at {cut}"
            );
        }
    }
    Ok(())
}

#[test]
fn the_decoder_gives_the_frames_of_the_in_memory_reader() -> Result {
    for (i, data) in demos()?.iter().enumerate() {
        let mut reader = FrameReader::new(data)?;
        let mut decoder = FrameDecoder::new();
        let mut largest = 0;
        let mut pieces = pieces(data, 7 + i as u32).into_iter();
        while let Some(expected) = reader.next_frame()? {
            largest = largest.max(expected.payload.len());
            let got = loop {
                if decoder.has_frame()? {
                    break decoder.next_frame()?;
                }
                let Some(piece) = pieces.next() else {
                    break None;
                };
                decoder.push(piece);
            };
            let got = got.ok_or("the decoder ended early")?;
            assert_eq!(
                (got.command, got.tick, got.compressed, got.offset, got.index),
                (
                    expected.command,
                    expected.tick,
                    expected.compressed,
                    expected.offset,
                    expected.index
                ),
                "demo {i}"
            );
            assert_eq!(got.payload, expected.payload, "demo {i}");
        }
        for piece in pieces {
            decoder.push(piece);
        }
        assert!(!decoder.has_frame()?);
        decoder.finish()?;
        // Bounded: the largest frame and the largest piece, not the demo.
        assert!(
            decoder.buffered_bytes() < 2 * largest + 2 * 200_000 + (1 << 16),
            "demo {i}: {} bytes buffered for a largest frame of {largest}",
            decoder.buffered_bytes()
        );
    }
    Ok(())
}
