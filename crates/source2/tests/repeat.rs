//! `edit::repeat::repeat` (the `loop` edit) on every corpus demo (CS2,
//! Deadlock, Dota 2) and the corpus's broadcasts: ten repeats, and every
//! repeat decodes, tick by tick, to the input (every entity with every
//! field value, every string table, the game events and user messages of
//! the tick), its ticks moved by the repeat's shift; the output reaches its
//! last tick, and its file info counts the whole output.

mod edit_common;

use std::collections::{BTreeMap, BTreeSet};
use std::error::Error;
use std::io::Cursor;

use edit_common::{Digest, TickDigest};
use gamewire_source2::container::{DemoCommand, FrameReader};
use gamewire_source2::edit::repeat::{repeat, Length, RepeatReport};
use gamewire_source2::stringtable::StringTable;
use gamewire_source2::{
    DemoError, DemoParser, DemoState, Entity, EntityChange, FieldPath, Game, GameEvent,
    UserMessage, Visitor,
};
use prost::Message;

type Result<T> = std::result::Result<T, Box<dyn Error>>;

/// The per-tick digest, and each tick's user messages as they are (the
/// digest hashes them; the ones that carry a tick are compared with the
/// tick moved back).
#[derive(Default)]
struct Watch {
    digest: Digest,
    messages: Vec<Vec<(u32, Game, Vec<u8>)>>,
    open: Vec<(u32, Game, Vec<u8>)>,
    /// Entries of each string table at the last tick end.
    sizes: Vec<usize>,
}

impl Visitor for Watch {
    fn on_entity(&mut self, s: &DemoState, c: EntityChange, e: &Entity, p: &[FieldPath]) {
        self.digest.on_entity(s, c, e, p);
    }
    fn on_string_table(&mut self, s: &DemoState, t: &StringTable, changed: &[usize]) {
        self.digest.on_string_table(s, t, changed);
    }
    fn on_game_event(&mut self, s: &DemoState, e: &GameEvent) {
        self.digest.on_game_event(s, e);
    }
    fn on_user_message(&mut self, s: &DemoState, m: &UserMessage<'_>) {
        self.digest.on_user_message(s, m);
        self.open.push((m.id, m.game, m.payload.to_vec()));
    }
    fn on_tick_start(&mut self, s: &DemoState, tick: i32) {
        if self.digest.ticks.is_empty() {
            self.messages.push(std::mem::take(&mut self.open));
        }
        self.digest.on_tick_start(s, tick);
    }
    fn on_tick_end(&mut self, s: &DemoState, tick: i32) {
        // A snapshot that only drops entries (a repeat's full packet, after
        // the input's end added some) reports no changed entry: the table
        // hash is taken again when a table's size changed.
        let sizes: Vec<usize> = s.string_tables.iter().map(|t| t.entries.len()).collect();
        if sizes != self.sizes {
            if let Some(t) = s.string_tables.first() {
                self.digest.on_string_table(s, t, &[]);
            }
            self.sizes = sizes;
        }
        self.digest.on_tick_end(s, tick);
        self.messages.push(std::mem::take(&mut self.open));
    }
}

/// A tick's digest and user messages.
struct Tick {
    digest: TickDigest,
    messages: Vec<(u32, Game, Vec<u8>)>,
}

/// A demo read with [`Watch`]: each tick, the final state, the error that
/// ended the read.
fn watch(data: &[u8]) -> Result<(BTreeMap<i32, Tick>, DemoState, Option<DemoError>)> {
    let mut parser = DemoParser::new(data)?;
    let mut w = Watch::default();
    let end = parser.run(&mut w).err();
    if w.digest.ticks.len() != w.messages.len() {
        return Err("digests and user messages out of step".into());
    }
    let ticks = w
        .digest
        .ticks
        .into_iter()
        .zip(w.messages)
        .map(|(digest, messages)| (digest.tick, Tick { digest, messages }))
        .collect();
    Ok((ticks, parser.state, end))
}

/// A user message with the tick it carries moved back by `shift` (CS2's
/// `CMsgTEFireBullets`, Deadlock's `CCitadelUserMessage_Damage`), so that
/// it compares with the input's; the others as they are.
fn moved_back(id: u32, game: Game, payload: &[u8], shift: i32) -> Result<Vec<u8>> {
    Ok(match (game, id) {
        (Game::Cs2, 452) => {
            let mut m = source2_demo_protobufs::CMsgTeFireBullets::decode(payload)?;
            m.tick = m.tick.map(|t| t - shift);
            m.encode_to_vec()
        }
        (Game::Deadlock, 300) => {
            let mut m = source2_demo_protobufs::CCitadelUserMessageDamage::decode(payload)?;
            m.server_tick = m.server_tick.map(|t| t - shift);
            m.encode_to_vec()
        }
        _ => payload.to_vec(),
    })
}

/// Whether tick `a` of the output, `shift` ticks after tick `b` of the
/// input, decodes to the same: the digests but their ticks and user
/// messages, then the user messages with their ticks moved back.
fn same(a: &Tick, b: &Tick, shift: i32) -> Result<bool> {
    if content(&a.digest) != content(&b.digest) || a.messages.len() != b.messages.len() {
        return Ok(false);
    }
    for ((id, game, x), (_, _, y)) in a.messages.iter().zip(&b.messages) {
        if moved_back(*id, *game, x, shift)? != moved_back(*id, *game, y, 0)? {
            return Ok(false);
        }
    }
    Ok(true)
}

const TIMES: u32 = 10;

fn looped(data: &[u8], length: Length) -> Result<(Vec<u8>, RepeatReport)> {
    let mut out = Cursor::new(Vec::new());
    let report = repeat(Cursor::new(data), &mut out, length)?;
    Ok((out.into_inner(), report))
}

/// `DEM_Packet` frames of a demo.
fn packet_frames(data: &[u8]) -> Result<usize> {
    let mut r = FrameReader::new(data)?;
    let mut n = 0;
    while let Some(f) = r.next_frame()? {
        n += usize::from(f.command == DemoCommand::Packet);
    }
    Ok(n)
}

/// The digest without its tick and user messages (compared apart).
fn content(t: &TickDigest) -> TickDigest {
    TickDigest {
        tick: 0,
        user_messages: Vec::new(),
        ..t.clone()
    }
}

#[test]
fn every_repeat_decodes_to_the_input_ticks_moved() -> Result<()> {
    for (name, data) in edit_common::inputs() {
        let (input, in_state, end) = watch(&data)?;
        if let Some(e) = end {
            return Err(format!("{name}: {e}").into());
        }
        let (out, report) = looped(&data, Length::Times(TIMES))?;
        assert!(report.edit.cut.is_none(), "{name}: {:?}", report.edit.cut);
        assert_eq!(report.repeats, TIMES, "{name}");
        let (output, out_state, end) = watch(&out)?;
        if let Some(e) = end {
            return Err(format!("{name}: the loop: {e}").into());
        }
        assert!(out_state.reached_stop, "{name}");
        let (t0, _) = report.ticks;
        let span = report.ticks_per_repeat;
        let in_game: Vec<i32> = input.keys().copied().filter(|&t| t >= t0).collect();
        let last = in_game.iter().copied().max().ok_or("no tick")?;
        assert_eq!(span, last - t0 + 1, "{name}: ticks per repeat");
        // Every tick of every repeat, and no other tick.
        let want: BTreeSet<i32> = (0..TIMES as i32)
            .flat_map(|k| in_game.iter().map(move |t| t + k * span))
            .collect();
        let got: BTreeSet<i32> = output.keys().copied().filter(|&t| t >= t0).collect();
        assert_eq!(got, want, "{name}: ticks");
        let mut differ: BTreeMap<u32, Vec<i32>> = BTreeMap::new();
        for k in 0..TIMES {
            for &t in &in_game {
                let moved = t + k as i32 * span;
                let (Some(a), Some(b)) = (output.get(&moved), input.get(&t)) else {
                    return Err(format!("{name}: tick {t} of repeat {k} missing").into());
                };
                if !same(a, b, k as i32 * span)? {
                    differ.entry(k).or_default().push(t);
                }
            }
        }
        assert!(
            differ.is_empty(),
            "{name}: repeats whose ticks decode otherwise: {differ:?}"
        );
        // The last tick reached, and the file info of the whole output.
        let last_out = last + (TIMES as i32 - 1) * span;
        assert_eq!(report.ticks, (t0, last_out), "{name}");
        assert_eq!(out_state.tick, last_out, "{name}: last tick reached");
        let info = out_state.file_info.as_ref().ok_or("no file info")?;
        assert_eq!(info.playback_ticks, Some(TIMES as i32 * span), "{name}");
        let time = (TIMES as i32 * span) as f32 * out_state.tick_interval;
        assert_eq!(info.playback_time, Some(time), "{name}");
        assert_eq!(
            info.playback_frames,
            Some(packet_frames(&out)? as i32),
            "{name}"
        );
        assert_eq!(out_state.tick_interval, in_state.tick_interval, "{name}");
        println!(
            "{name}: {} bytes -> {} bytes, {TIMES} repeats of {span} ticks, ticks {}..={}, {} frames written",
            data.len(),
            out.len(),
            report.ticks.0,
            report.ticks.1,
            report.edit.frames_written
        );
    }
    Ok(())
}

#[test]
fn a_length_in_minutes_takes_the_fewest_repeats_that_reach_it() -> Result<()> {
    let data = std::fs::read(gamewire_corpus::path("cs2/14155.dem"))?;
    let (out, report) = looped(&data, Length::Minutes(0.5))?;
    let seconds = |k: u32| k as f32 * report.ticks_per_repeat as f32 / 64.0;
    assert!(seconds(report.repeats) >= 30.0, "{report:?}");
    assert!(seconds(report.repeats - 1) < 30.0, "{report:?}");
    let (_, state, end) = watch(&out)?;
    assert!(end.is_none() && state.reached_stop);
    assert_eq!(state.tick, report.ticks.1);
    // Not a length.
    for bad in [
        Length::Times(0),
        Length::Minutes(0.0),
        Length::Minutes(-2.0),
    ] {
        let e = repeat(Cursor::new(&data), Cursor::new(Vec::new()), bad);
        assert!(e.is_err(), "{bad:?}");
    }
    Ok(())
}

#[test]
fn a_demo_that_ends_early_is_looped_up_to_its_end() -> Result<()> {
    // One demo of each game.
    let names = ["14155", "hltv_10423", "auto-"];
    for (name, data) in edit_common::inputs()
        .into_iter()
        .filter(|(n, _)| names.iter().any(|x| n.contains(x)))
    {
        // In the middle of the frame two thirds of the way through.
        let mut reader = FrameReader::new(&data)?;
        let mut bounds = Vec::new();
        while let Some(f) = reader.next_frame()? {
            bounds.push((f.offset as usize, reader.offset() as usize));
        }
        let (start, end) = bounds[bounds.len() * 2 / 3];
        let short = &data[..(start + end) / 2];
        let (input, _, end) = watch(short)?;
        assert!(end.is_some_and(|e| e.is_truncation()), "{name}");
        let (out, report) = looped(short, Length::Times(3))?;
        assert!(
            report.edit.cut.as_ref().is_some_and(|e| e.is_truncation()),
            "{name}"
        );
        assert!(report
            .edit
            .warnings
            .iter()
            .any(|w| w.message.contains("ends early")));
        let (output, out_state, end) = watch(&out)?;
        assert!(end.is_none() && out_state.reached_stop, "{name}: {end:?}");
        let (t0, _) = report.ticks;
        // The last tick of a cut input may be partly read: compare the
        // complete ones.
        let complete: Vec<i32> = input.keys().copied().filter(|&t| t >= t0).collect();
        let complete = &complete[..complete.len().saturating_sub(1)];
        for k in 0..3 {
            for &t in complete {
                let moved = t + k * report.ticks_per_repeat;
                let a = output.get(&moved).ok_or("tick missing")?;
                let b = input.get(&t).ok_or("tick missing")?;
                let shift = k * report.ticks_per_repeat;
                assert!(same(a, b, shift)?, "{name}: repeat {k} tick {t}");
            }
        }
    }
    Ok(())
}
