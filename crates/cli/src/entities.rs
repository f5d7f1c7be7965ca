//! `gamewire entities`: the full state of the entities at a tick.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use gamewire_source2::{DemoState, Entity, EntityChange, FieldPath, Interests, Visitor};

use crate::error::CliError;
use crate::info::unknown_class;
use crate::output::stdout;
use crate::read::{parse_keeping_cut, read_demo};

/// `gamewire entities`.
#[derive(Debug, Args)]
pub struct EntitiesArgs {
    /// The demo: a `.dem` file (also gzip, bzip2 or zstd compressed: `.dem.gz`,
    /// `.dem.bz2`, `.dem.zst`), a broadcast directory, or `-` for standard input.
    pub demo: PathBuf,
    /// The tick at which to print the state (the end of that tick).
    #[arg(long)]
    pub tick: i32,
    /// Only entities of this class.
    #[arg(long)]
    pub class: Option<String>,
}

/// Captures the entity state at the end of a tick.
struct Snapshot {
    tick: i32,
    class: Option<String>,
    lines: Vec<String>,
    done: bool,
    /// The tick whose end the snapshot was taken at.
    taken_at: i32,
}

impl Visitor for Snapshot {
    fn interests(&self) -> Interests {
        Interests {
            entities: true,
            ..Interests::NONE
        }
    }
    /// With `--class`, the other classes are read past, not decoded.
    fn wants_class(&self, class_name: &str) -> bool {
        self.class.as_deref().is_none_or(|want| want == class_name)
    }
    fn on_tick_end(&mut self, state: &DemoState, tick: i32) {
        if self.done || tick < self.tick {
            return;
        }
        self.done = true;
        self.taken_at = tick;
        let Some(tables) = state.send_tables.as_ref() else {
            return;
        };
        for e in state.entities.iter() {
            let class = state.class_name(e);
            if let Some(want) = &self.class {
                if want != class {
                    continue;
                }
            }
            let mut obj = serde_json::Map::new();
            obj.insert("index".into(), e.index.into());
            obj.insert("class".into(), class.into());
            obj.insert("serial".into(), e.serial.into());
            obj.insert("active".into(), e.active.into());
            let mut props: Vec<(String, serde_json::Value)> = e
                .values()
                .into_iter()
                .filter_map(|(k, v)| {
                    let fp: FieldPath = gamewire_source2::entity::key_to_path(k);
                    let name = tables.path_name(e.serializer, &fp, |len| {
                        fp.prefix_key(len)
                            .and_then(|k| e.get_key(k))
                            .and_then(|v| v.as_u64())
                            .map(|v| v as u32)
                    })?;
                    Some((
                        name,
                        serde_json::to_value(v).unwrap_or(serde_json::Value::Null),
                    ))
                })
                .collect();
            props.sort_by(|a, b| a.0.cmp(&b.0));
            obj.insert(
                "props".into(),
                serde_json::Value::Object(props.into_iter().collect()),
            );
            self.lines.push(serde_json::Value::Object(obj).to_string());
        }
    }
    fn on_entity(&mut self, _s: &DemoState, _c: EntityChange, _e: &Entity, _p: &[FieldPath]) {}
}

/// `gamewire entities`.
pub fn entities(args: EntitiesArgs) -> Result<(), CliError> {
    let data = read_demo(&args.demo)?;
    let mut snap = Snapshot {
        tick: args.tick,
        class: args.class.clone(),
        lines: Vec::new(),
        done: false,
        taken_at: 0,
    };
    let parsed = parse_keeping_cut(&args.demo, &data, &mut snap, None)?;
    let state = parsed.state;
    if let Some(cut) = &parsed.cut {
        // The tick being read at the cut is incomplete: no snapshot of it.
        if !snap.done || snap.taken_at >= parsed.cut_tick {
            return Err(CliError::TickCut {
                tick: args.tick,
                cut: cut.clone(),
            });
        }
    }
    if !snap.done {
        return Err(CliError::TickAfterEnd {
            tick: args.tick,
            last: state.tick,
        });
    }
    if let Some(want) = &args.class {
        if !state.classes.iter().any(|c| c.name == *want) {
            return Err(unknown_class(&state, want));
        }
    }
    let mut out = stdout();
    for l in &snap.lines {
        writeln!(out, "{l}").map_err(CliError::Output)?;
    }
    out.flush().map_err(CliError::Output)?;
    if let Some(cut) = parsed.cut {
        eprintln!("warning: {cut}");
    }
    Ok(())
}
