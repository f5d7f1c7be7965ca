//! String tables as the parser keeps them: the snapshots of
//! `CDemoStringTables` frames and the tables that `CSVCMsg_CreateStringTable`
//! and `CSVCMsg_UpdateStringTable` create and change, and what the parser
//! builds from them (the players of `userinfo`, the class baselines of
//! `instancebaseline`). The entry encoding itself is read by
//! [`crate::stringtable`]; the messages are defined in Valve's
//! `netmessages.proto` and `demo.proto`.

use prost::Message;
use source2_demo_protobufs as pb;

use crate::state::UserInfo;
use crate::stringtable::{StringTable, StringTableEntry};
use crate::visitor::{Interests, Visitor};

use super::{DemoParser, MAX_STRING_TABLES};

impl DemoParser<'_> {
    /// Whether a snapshot's items for table `name` are read: not for a
    /// table that exists without its entries. (A table the snapshot creates
    /// is decided once, when it is created, and its items dropped then if
    /// it is not wanted.)
    pub(super) fn snapshot_items_wanted(&self, name: &str) -> bool {
        self.state
            .string_tables
            .iter()
            .find(|t| t.name == name)
            .is_none_or(|t| !t.skipped)
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
            if table.skipped {
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
