//! String tables as the parser keeps them: the snapshots of
//! `CDemoStringTables` frames and the tables that `CSVCMsg_CreateStringTable`
//! and `CSVCMsg_UpdateStringTable` create and change, and what the parser
//! builds from them (the players of `userinfo`, the class baselines of
//! `instancebaseline`). The entry encoding itself is read by
//! [`crate::stringtable`]; the messages are defined in Valve's
//! `netmessages.proto` and `demo.proto`.
//!
//! ## Snapshots that repeat
//!
//! A demo carries a snapshot of every string table in each
//! `CDemoFullPacket`, and most of its tables are the same, byte for byte,
//! as in the snapshot before: comparing them entry by entry (thousands of
//! keys in Dota 2, each in its own allocation) took a seventh of a Dota 2
//! parse. So the parser keeps, per table, the
//! table's message as the last snapshot applied it ([`LastSnapshot`]), for
//! as long as nothing else writes the table (a `CSVCMsg_UpdateStringTable`,
//! a new table at its index, `CSVCMsg_ClearAllStringTables`). A table whose
//! message in the next snapshot is the same bytes holds exactly the entries
//! that message would write: its items are not read and nothing in it
//! counts as changed, as when they were compared one by one.

use prost::Message;
use source2_demo_protobufs as pb;

use crate::state::UserInfo;
use crate::stringtable::{StringTable, StringTableEntry};
use crate::visitor::{Interests, Visitor};

use super::{DemoParser, MAX_STRING_TABLES};

/// A string table's message in the last snapshot applied to it (see the
/// [module docs](self)).
#[derive(Debug, Default)]
pub(super) struct LastSnapshot {
    /// The message's bytes; empty for none.
    raw: Vec<u8>,
    /// The entries it left in the table.
    entries: usize,
}

/// The table indices a snapshot being read has named so far, one bit per
/// index below [`MAX_STRING_TABLES`]: a table named twice in one snapshot
/// is read in full the second time (the first may have changed it).
#[derive(Debug, Default)]
pub(super) struct TablesSeen([u64; MAX_STRING_TABLES / 64]);

impl TablesSeen {
    /// Marks `idx`; whether it was not marked before (an index out of range
    /// counts as marked).
    fn first(&mut self, idx: usize) -> bool {
        let Some(word) = self.0.get_mut(idx / 64) else {
            return false;
        };
        let bit = 1u64 << (idx % 64);
        let first = *word & bit == 0;
        *word |= bit;
        first
    }
}

impl DemoParser<'_> {
    /// Whether a snapshot's items for table `name` (whose whole message is
    /// `raw`) are read: not for a table that exists without its entries,
    /// nor for one whose message is the same as in the last snapshot
    /// applied to it, with nothing written to it since (see the
    /// [module docs](self)). (A table the snapshot creates is decided once,
    /// when it is created, and its items dropped then if it is not wanted.)
    pub(super) fn snapshot_items_wanted(
        &self,
        name: &str,
        raw: &[u8],
        seen: &mut TablesSeen,
    ) -> bool {
        let Some((idx, table)) = self
            .state
            .string_tables
            .iter()
            .enumerate()
            .find(|(_, t)| t.name == name)
        else {
            return true;
        };
        if table.skipped {
            return false;
        }
        let unchanged = seen.first(idx)
            && self.last_snapshots.get(idx).is_some_and(|last| {
                !last.raw.is_empty() && last.entries == table.entries.len() && last.raw == raw
            });
        !unchanged
    }

    /// Keeps `raw` as the message of the snapshot last applied to table
    /// `idx`, which left `entries` entries in it.
    fn remember_snapshot(&mut self, idx: usize, raw: &[u8], entries: usize) {
        if self.last_snapshots.len() <= idx {
            self.last_snapshots
                .resize_with(idx + 1, LastSnapshot::default);
        }
        if let Some(last) = self.last_snapshots.get_mut(idx) {
            last.raw.clear();
            last.raw.extend_from_slice(raw);
            last.entries = entries;
        }
    }

    /// Table `idx` is written other than by a snapshot: no snapshot stands
    /// for its entries any more.
    pub(super) fn forget_snapshot(&mut self, idx: usize) {
        if let Some(last) = self.last_snapshots.get_mut(idx) {
            last.raw = Vec::new();
            last.entries = 0;
        }
    }

    /// Whether the entries of a new string table `name` are decoded:
    /// always for the tables the parser's own state is built from, else as
    /// the visitor says ([`Visitor::wants_string_table`]).
    pub(super) fn decodes_string_table<V: Visitor>(
        name: &str,
        interests: Interests,
        visitor: &V,
    ) -> bool {
        match name {
            "userinfo" => true,
            "instancebaseline" if interests.entities => true,
            "CombatLogNames" if interests.user_messages => true,
            _ => visitor.wants_string_table(name),
        }
    }

    /// Replaces string tables with a snapshot (`CDemoStringTables`, alone or
    /// in a full packet). Only entries that differ from what the table held
    /// count as changed: a full packet repeats tables the delta stream has
    /// already built, and an unchanged `instancebaseline` entry keeps its
    /// decoded baseline.
    pub(super) fn apply_string_table_snapshot<V: Visitor>(
        &mut self,
        tables: Vec<crate::wire::SnapshotTable<'_>>,
        visitor: &mut V,
        interests: Interests,
    ) {
        for t in tables {
            let idx = match self
                .state
                .string_tables
                .iter()
                .position(|s| s.name == t.name)
            {
                Some(i) => i,
                None => {
                    if self.state.string_tables.len() >= MAX_STRING_TABLES {
                        continue;
                    }
                    let skipped = !Self::decodes_string_table(t.name, interests, visitor);
                    self.state.string_tables.push(StringTable {
                        name: t.name.to_string(),
                        flags: t.flags.unwrap_or(0),
                        skipped,
                        ..Default::default()
                    });
                    self.state.string_tables.len() - 1
                }
            };
            let Some(table) = self.state.string_tables.get_mut(idx) else {
                continue;
            };
            // Items not read: a table without its entries, or one whose
            // message is the one it was last set from.
            if table.skipped || !t.items_read {
                continue;
            }
            // The snapshot replaces the entries; only those that differ are
            // written (and reported), the others keep their memory.
            let mut changed = Vec::new();
            for (i, &(key, value)) in t.items.iter().enumerate() {
                match table.entries.get_mut(i) {
                    Some(e) if e.key == key && e.value == value => {}
                    Some(e) => {
                        e.key.clear();
                        e.key.push_str(key);
                        e.value.clear();
                        e.value.extend_from_slice(value);
                        changed.push(i);
                    }
                    None => {
                        table.entries.push(StringTableEntry {
                            key: key.to_string(),
                            value: value.to_vec(),
                        });
                        changed.push(i);
                    }
                }
            }
            table.entries.truncate(t.items.len());
            self.remember_snapshot(idx, t.raw, t.items.len());
            if !changed.is_empty() {
                self.after_string_table_change(idx, &changed, visitor);
            }
        }
    }

    pub(super) fn after_string_table_change<V: Visitor>(
        &mut self,
        idx: usize,
        changed: &[usize],
        visitor: &mut V,
    ) {
        let Some(table) = self.state.string_tables.get(idx) else {
            return;
        };
        match table.name.as_str() {
            "instancebaseline" => {
                // Baselines are decoded lazily; drop stale cached ones.
                for &i in changed {
                    if let Some(e) = table.entries.get(i) {
                        if let Ok(class_id) = e.key.parse::<u32>() {
                            self.state.entities.baseline_cache.remove(&class_id);
                        }
                    }
                }
            }
            "userinfo" => {
                let mut players = Vec::new();
                let mut warnings = Vec::new();
                for &i in changed {
                    let Some(e) = table.entries.get(i) else {
                        continue;
                    };
                    if e.value.is_empty() {
                        players.push((i, None));
                        continue;
                    }
                    match pb::CMsgPlayerInfo::decode(e.value.as_slice()) {
                        Ok(p) => players.push((
                            i,
                            Some(UserInfo {
                                slot: i,
                                name: p.name.unwrap_or_default(),
                                steamid: p.xuid.unwrap_or(0),
                                userid: p.userid.unwrap_or(-1),
                                fake_player: p.fakeplayer.unwrap_or(false),
                                is_hltv: p.ishltv.unwrap_or(false),
                            }),
                        )),
                        Err(err) => {
                            players.push((i, None));
                            warnings.push(format!("userinfo entry {i}: {err}"));
                        }
                    }
                }
                for w in warnings {
                    self.state.warn(w);
                }
                for (slot, p) in players {
                    match p {
                        Some(p) => {
                            self.state.players.insert(slot, p);
                        }
                        None => {
                            self.state.players.remove(&slot);
                        }
                    }
                }
            }
            _ => {}
        }
        if let Some(table) = self.state.string_tables.get(idx) {
            visitor.on_string_table(&self.state, table, changed);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use super::*;
    use crate::container::{DemoCommand, FrameReader};
    use crate::edit::repeat::{repeat, Length};

    type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

    /// The tables of a snapshot (`DEM_StringTables` or a full packet's),
    /// decoded by the generated types; none for other frames.
    fn snapshot_tables(
        command: DemoCommand,
        payload: &[u8],
    ) -> Result<Vec<pb::c_demo_string_tables::TableT>> {
        Ok(match command {
            DemoCommand::FullPacket => pb::CDemoFullPacket::decode(payload)?
                .string_table
                .map(|t| t.tables)
                .unwrap_or_default(),
            DemoCommand::StringTables => pb::CDemoStringTables::decode(payload)?.tables,
            _ => Vec::new(),
        })
    }

    /// After every snapshot each table it names holds exactly its items,
    /// whether they were read or the table's message was recognised as the
    /// one it was last set from: the Dota 2 clip looped four times (a full
    /// packet in every repeat, most of its tables the same bytes as in the
    /// one before, `ActiveModifiers` changed by the packets between).
    #[test]
    fn tables_after_a_snapshot_hold_its_items() -> Result<()> {
        let input = std::fs::read(gamewire_corpus::path("dota2/auto-20240102-2233-start.dem"))?;
        let mut looped = Cursor::new(Vec::new());
        repeat(Cursor::new(&input), &mut looped, Length::Times(4))?;
        let demo = looped.into_inner();
        let mut frames = FrameReader::new(&demo)?;
        let mut parser = DemoParser::detached()?;
        let mut visitor = crate::visitor::NoVisitor;
        let (mut snapshots, mut read, mut recognised) = (0, 0, 0);
        while let Some(frame) = frames.next_frame()? {
            let tables = snapshot_tables(frame.command, &frame.payload)?;
            // Which tables the parser should recognise: those whose message
            // is the one it keeps for them.
            let kept: Vec<bool> = tables
                .iter()
                .map(|t| {
                    let name = t.table_name.as_deref().unwrap_or("");
                    let idx = parser
                        .state
                        .string_tables
                        .iter()
                        .position(|s| s.name == name);
                    idx.and_then(|i| parser.last_snapshots.get(i))
                        .is_some_and(|last| !last.raw.is_empty() && last.raw == t.encode_to_vec())
                })
                .collect();
            parser.apply_frame(&frame, &mut visitor)?;
            if tables.is_empty() {
                continue;
            }
            snapshots += 1;
            for (t, kept) in tables.iter().zip(kept) {
                let name = t.table_name.as_deref().unwrap_or("");
                let table = parser.state.string_table(name).ok_or(name.to_string())?;
                if table.skipped {
                    continue;
                }
                let items: Vec<(&str, &[u8])> = t
                    .items
                    .iter()
                    .map(|i| {
                        (
                            i.str.as_deref().unwrap_or(""),
                            i.data.as_deref().unwrap_or(&[]),
                        )
                    })
                    .collect();
                let entries: Vec<(&str, &[u8])> = table
                    .entries
                    .iter()
                    .map(|e| (e.key.as_str(), e.value.as_slice()))
                    .collect();
                assert_eq!(entries, items, "table {name}, snapshot {snapshots}");
                if kept {
                    recognised += 1;
                } else {
                    read += 1;
                }
            }
        }
        parser.finish_frames(&mut visitor);
        // One snapshot at the start and a full packet per repeat; both ways taken.
        assert!(snapshots >= 5, "{snapshots} snapshots");
        assert!(
            recognised > 0 && read > 0,
            "{recognised} recognised, {read} read"
        );
        Ok(())
    }
}
