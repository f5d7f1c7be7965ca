//! `stats` (a full parse's counts) on every corpus demo, checked against
//! what other parts of gamewire count: game events by name against the
//! `events` table, frames, ticks and packet messages against the parser's
//! own state ( `gamewire info`'s summary), and a cut demo against its
//! whole.

use std::collections::BTreeMap;
use std::error::Error;
use std::time::Duration;

use gamewire_query::stats::{Stats, StatsCollector};
use gamewire_query::{Cell, NoVisitor, Query, RunOptions, TableKind};

type TestResult = Result<(), Box<dyn Error>>;

fn options() -> RunOptions {
    RunOptions {
        keep_cut: true,
        helper_thread: false,
        ..RunOptions::default()
    }
}

/// The stats of a demo in memory (and whether it was cut).
fn stats_of(data: &[u8]) -> Result<(Stats, bool), Box<dyn Error>> {
    let mut c = StatsCollector::new();
    let (state, cut) = options().parse_keeping_cut(data, &mut c)?;
    let cut_text = cut.as_ref().map(ToString::to_string);
    let is_cut = cut.is_some();
    Ok((
        c.finish(
            &state,
            data.len() as u64,
            Duration::from_millis(1),
            cut_text,
        ),
        is_cut,
    ))
}

/// Rows of the `events` table by `event_name`.
fn events_by_name(data: &[u8]) -> Result<BTreeMap<String, u64>, Box<dyn Error>> {
    let query = Query {
        tables: vec![TableKind::Events],
        ..Query::default()
    };
    let table = query
        .run(data)?
        .tables
        .into_iter()
        .next()
        .ok_or("no events table")?;
    let names = table.column("event_name").ok_or("no event_name column")?;
    let mut out = BTreeMap::new();
    for i in 0..table.rows() {
        if let Cell::Str(name) = names.cell(i) {
            *out.entry(name).or_insert(0) += 1;
        }
    }
    Ok(out)
}

#[test]
fn stats_agree_with_the_events_table_and_the_parsers_counts_on_every_corpus_demo() -> TestResult {
    let demos = gamewire_corpus::source2_demos()?;
    assert!(demos.len() >= 7, "{demos:?}");
    for path in demos {
        let data = std::fs::read(&path)?;
        let name = path.display().to_string();
        let (stats, cut) = stats_of(&data)?;
        assert!(!cut, "{name}: cut");
        // Game events by name: the rows of the events table.
        assert_eq!(stats.game_events, events_by_name(&data)?, "{name}");
        // Frames, the last tick and the parser's message and command
        // counts: those of a plain parse (`gamewire info`'s summary).
        let (state, _) = options().parse_keeping_cut(&data, &mut NoVisitor)?;
        assert_eq!(stats.frames, state.frames, "{name}");
        assert_eq!(stats.ticks.last, Some(state.tick), "{name}");
        assert_eq!(stats.net_messages, state.message_counts, "{name}");
        assert_eq!(stats.commands, state.command_counts, "{name}");
        assert_eq!(stats.reached_stop, state.reached_stop, "{name}");
        assert_eq!(stats.bytes, data.len() as u64);
        // Ticks rise through the demo; there is one per tick started.
        let (first, last) = (
            stats.ticks.first.ok_or("no first tick")?,
            stats.ticks.last.ok_or("no last tick")?,
        );
        assert!(first <= last, "{name}: {first} > {last}");
        assert!(stats.ticks.count > 1 && stats.ticks.count <= stats.frames);
        // Every class counted is a class of the demo, and the totals are
        // their sum; every update carried fields.
        assert!(!stats.classes.is_empty(), "{name}");
        let sum: u64 = stats.classes.values().map(|c| c.updated).sum();
        assert_eq!(sum, stats.entities.updated);
        assert!(stats.entities.fields >= stats.entities.updated, "{name}");
        assert!(stats.entities.created > 0, "{name}");
        for class in stats.classes.keys() {
            assert!(
                state.classes.iter().any(|c| &c.name == class),
                "{name}: {class}"
            );
        }
        // String tables: every table of the demo, with its entries.
        assert_eq!(stats.string_tables.len(), state.string_tables.len());
        for t in &state.string_tables {
            let counts = stats.string_tables.get(&t.name).ok_or("table missing")?;
            assert_eq!(counts.entries, t.entries.len() as u64, "{name}: {}", t.name);
        }
        assert!(stats.user_message_total() > 0, "{name}");
        // The JSON object has the documented keys.
        let json = serde_json::to_value(&stats)?;
        for key in [
            "game",
            "map",
            "bytes",
            "seconds",
            "mb_per_s",
            "frames",
            "ticks",
            "reached_stop",
            "commands",
            "net_messages",
            "entities",
            "classes",
            "game_events",
            "user_messages",
            "user_commands",
            "string_tables",
            "cut",
        ] {
            assert!(json.get(key).is_some(), "{name}: {key}");
        }
    }
    Ok(())
}

#[test]
fn a_cut_demo_counts_what_came_before_the_cut() -> TestResult {
    let data = std::fs::read(gamewire_corpus::path("cs2/14065.dem"))?;
    let (whole, _) = stats_of(&data)?;
    let head = data.get(..data.len() * 9 / 10).ok_or("short demo")?;
    let (part, cut) = stats_of(head)?;
    assert!(cut && part.cut.is_some(), "{:?}", part.cut);
    assert!(!part.reached_stop);
    assert_eq!(part.ticks.first, whole.ticks.first);
    assert!(part.ticks.last < whole.ticks.last);
    assert!(part.frames < whole.frames);
    assert!(part.entities.updated <= whole.entities.updated);
    assert!(part.entities.created > 0);
    // No event is counted that the whole demo does not have as often.
    for (event, n) in &part.game_events {
        assert!(
            whole.game_events.get(event).is_some_and(|w| w >= n),
            "{event}"
        );
    }
    Ok(())
}
