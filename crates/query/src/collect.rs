//! The collectors of the tables read from players, user messages and user
//! commands: `players`, `chat`, `item_drops` and `skins`, `combat_log`,
//! `user_commands`. The `events`, `ticks` and `grenades` tables have
//! modules of their own.

use std::collections::BTreeMap;

use gamewire_source2::dota::CombatLogEntry;
use gamewire_source2::econ::EconItem;
use gamewire_source2::{DemoState, UserCommand, UserMessage, Value};

use crate::event_players::{identity, player_by_slot};
use crate::friendly_props::UserCommandField;
use crate::item_names::item_name;
use crate::prop_paths::PropCache;
use crate::reference;
use crate::table::{Cell, Table};

const PLAYER_CONTROLLER_PROPS: &[&str] = &[
    "m_iTeamNum",
    "m_iScore",
    "m_pActionTrackingServices.m_iKills",
    "m_pActionTrackingServices.m_iDeaths",
    "m_pActionTrackingServices.m_iAssists",
    "m_pActionTrackingServices.m_iDamage",
    "m_iMVPs",
    "m_iPing",
    "m_iCompetitiveRanking",
];

#[derive(Debug, Clone)]
struct SeenPlayer {
    info: gamewire_source2::UserInfo,
    first_tick: i32,
    controller: Vec<Cell>,
}

/// `players`: every `userinfo` entry seen (one row per slot and steam id),
/// with the controller's team, score and match stats as last seen.
#[derive(Debug, Default)]
pub struct PlayersCollector {
    seen: BTreeMap<(usize, u64, String), SeenPlayer>,
    paths: PropCache,
}

impl PlayersCollector {
    /// Records the current `userinfo` entries.
    pub fn on_userinfo(&mut self, state: &DemoState) {
        for (slot, info) in &state.players {
            self.seen
                .entry((*slot, info.steamid, info.name.clone()))
                .or_insert_with(|| SeenPlayer {
                    info: info.clone(),
                    first_tick: state.tick,
                    controller: Vec::new(),
                });
        }
    }

    /// Refreshes controller values of the players currently connected
    /// (called once per tick).
    pub fn on_tick(&mut self, state: &DemoState) {
        for (slot, info) in &state.players {
            let Some(controller) = state
                .entities
                .get(*slot as i32 + 1)
                .filter(|e| state.class_name(e).ends_with("PlayerController"))
            else {
                continue;
            };
            let values: Vec<Cell> = PLAYER_CONTROLLER_PROPS
                .iter()
                .map(|p| {
                    self.paths
                        .value(state, controller, p)
                        .and_then(Value::as_i64)
                        .map(Cell::Int)
                        .unwrap_or(Cell::Null)
                })
                .collect();
            if let Some(s) = self.seen.get_mut(&(*slot, info.steamid, info.name.clone())) {
                s.controller = values;
            }
        }
    }

    /// The table.
    pub fn finish(mut self, state: &DemoState) -> Table {
        self.on_userinfo(state);
        self.on_tick(state);
        let mut t = reference::PLAYERS.empty_table();
        for s in self.seen.values() {
            let mut row = vec![
                Cell::Int(s.info.slot as i64),
                Cell::Int(i64::from(s.info.userid)),
                Cell::Str(s.info.name.clone()),
                Cell::UInt(s.info.steamid),
                Cell::Bool(s.info.fake_player),
                Cell::Bool(s.info.is_hltv),
                Cell::Int(i64::from(s.first_tick)),
            ];
            row.extend(s.controller.iter().cloned());
            t.push_row(&row);
        }
        t
    }
}

/// `chat`: `SayText2`/`SayText` user messages.
#[derive(Debug)]
pub struct ChatCollector {
    /// The rows so far.
    pub table: Table,
    paths: PropCache,
}

impl Default for ChatCollector {
    fn default() -> Self {
        ChatCollector {
            table: reference::CHAT.empty_table(),
            paths: PropCache::default(),
        }
    }
}

impl ChatCollector {
    /// Takes one user message.
    pub fn on_message(&mut self, state: &DemoState, msg: &UserMessage<'_>) {
        let Some(chat) = msg.chat() else { return };
        // The sender's controller entity; 0 is the server.
        let slot = (chat.entity_index > 0).then(|| i64::from(chat.entity_index) - 1);
        let steamid = slot.and_then(|slot| {
            let p = player_by_slot(state, &mut self.paths, slot);
            identity(state, &mut self.paths, &p).1
        });
        self.table.push_row(&[
            Cell::Int(i64::from(state.tick)),
            slot.map(Cell::Int).unwrap_or(Cell::Null),
            Cell::Str(chat.name),
            steamid.map(Cell::UInt).unwrap_or(Cell::Null),
            Cell::Str(chat.text),
            Cell::Bool(chat.all_chat),
            Cell::Str(chat.kind),
        ]);
    }
}

/// An optional integer as a cell (null for `None`).
fn num<T: Into<i64>>(v: Option<T>) -> Cell {
    v.map(|x| Cell::Int(x.into())).unwrap_or(Cell::Null)
}

/// The cells of an item that `item_drops` and `skins` share, from
/// `item_id` to `custom_name`.
fn item_cells(item: &EconItem) -> [Cell; 10] {
    let int = num::<u32>;
    [
        item.item_id.map(Cell::UInt).unwrap_or(Cell::Null),
        int(item.def_index),
        item.def_index
            .and_then(|d| item_name(u64::from(d)))
            .map(|n| Cell::Str(n.to_string()))
            .unwrap_or(Cell::Null),
        int(item.paint_index),
        int(item.paint_seed),
        int(item.paint_wear),
        item.wear().map(Cell::Float).unwrap_or(Cell::Null),
        int(item.rarity),
        int(item.quality),
        item.custom_name
            .clone()
            .map(Cell::Str)
            .unwrap_or(Cell::Null),
    ]
}

/// `item_drops` and `skins`: the economy items of CS2's end-of-match user
/// messages ([`gamewire_source2::econ`]).
#[derive(Debug)]
pub struct EconCollector {
    /// `item_drops`, when asked for.
    pub drops: Option<Table>,
    /// `skins`, when asked for.
    pub skins: Option<Table>,
}

impl EconCollector {
    /// Collects the tables asked for.
    pub fn new(drops: bool, skins: bool) -> Self {
        EconCollector {
            drops: drops.then(|| reference::ITEM_DROPS.empty_table()),
            skins: skins.then(|| reference::SKINS.empty_table()),
        }
    }

    /// Takes one user message.
    pub fn on_message(&mut self, state: &DemoState, msg: &UserMessage<'_>) {
        let tick = Cell::Int(i64::from(state.tick));
        let int = num::<u32>;
        // Each message is decoded only for a table that was asked for.
        if let Some((t, items)) = self
            .drops
            .as_mut()
            .and_then(|t| Some((t, msg.item_drops()?)))
        {
            for item in &items {
                let mut row = vec![
                    tick.clone(),
                    item.steamid().map(Cell::UInt).unwrap_or(Cell::Null),
                    int(item.account_id),
                    int(item.dropreason),
                    int(item.inventory),
                ];
                row.extend(item_cells(item));
                t.push_row(&row);
            }
        }
        if let Some((t, players)) = self
            .skins
            .as_mut()
            .and_then(|t| Some((t, msg.end_of_match_players()?)))
        {
            for p in &players {
                for item in &p.items {
                    let mut row = vec![
                        tick.clone(),
                        p.steamid.map(Cell::UInt).unwrap_or(Cell::Null),
                        p.name.clone().map(Cell::Str).unwrap_or(Cell::Null),
                        num(p.team),
                    ];
                    row.extend(item_cells(item));
                    t.push_row(&row);
                }
            }
        }
    }

    /// The tables asked for, `item_drops` first.
    pub fn finish(self) -> Vec<Table> {
        [self.drops, self.skins].into_iter().flatten().collect()
    }
}

/// `combat_log`: Dota 2's combat log, names resolved through the
/// `CombatLogNames` string table ([`gamewire_source2::dota`]).
#[derive(Debug)]
pub struct CombatLogCollector {
    /// The rows so far.
    pub table: Table,
}

impl Default for CombatLogCollector {
    fn default() -> Self {
        CombatLogCollector {
            table: reference::COMBAT_LOG.empty_table(),
        }
    }
}

impl CombatLogCollector {
    /// Takes one user message.
    pub fn on_message(&mut self, state: &DemoState, msg: &UserMessage<'_>) {
        let Some(e) = msg.combat_log() else { return };
        let name = |i: Option<u32>| {
            CombatLogEntry::name(state, i)
                .map(|n| Cell::Str(n.to_string()))
                .unwrap_or(Cell::Null)
        };
        let int = num::<u32>;
        let float = |v: Option<f32>| v.map(Cell::Float).unwrap_or(Cell::Null);
        let flag = |v: Option<bool>| v.map(Cell::Bool).unwrap_or(Cell::Null);
        self.table.push_row(&[
            Cell::Int(i64::from(state.tick)),
            float(e.timestamp),
            Cell::Str(e.kind.clone()),
            name(e.attacker_name),
            name(e.target_name),
            name(e.target_source_name),
            name(e.damage_source_name),
            name(e.inflictor_name),
            flag(e.is_attacker_hero),
            flag(e.is_attacker_illusion),
            flag(e.is_target_hero),
            flag(e.is_target_illusion),
            int(e.attacker_team),
            int(e.target_team),
            int(e.value),
            num(e.health),
            float(e.stun_duration),
            float(e.slow_duration),
            float(e.modifier_duration),
            int(e.ability_level),
            int(e.gold_reason),
            int(e.xp_reason),
            float(e.location_x),
            float(e.location_y),
        ]);
    }
}

/// `user_commands`: every user command, with the player of its slot
/// (name and steam id from the controller, else `userinfo`). View angles
/// and buttons a command does not send are the previous command's
/// ([`gamewire_source2::UserCommand::over`]); `input_history` is JSON
/// ([`gamewire_source2::UserCommand::input_history_json`]).
#[derive(Debug)]
pub struct UserCommandsCollector {
    /// The rows so far.
    pub table: Table,
    paths: PropCache,
}

impl Default for UserCommandsCollector {
    fn default() -> Self {
        UserCommandsCollector {
            table: reference::USER_COMMANDS.empty_table(),
            paths: PropCache::default(),
        }
    }
}

impl UserCommandsCollector {
    /// Takes one user command.
    pub fn on_command(&mut self, state: &DemoState, cmd: &UserCommand) {
        use UserCommandField::*;
        let slot = cmd.player_slot.filter(|&s| s >= 0);
        let (name, steamid) = match slot {
            Some(s) => {
                let p = player_by_slot(state, &mut self.paths, i64::from(s));
                identity(state, &mut self.paths, &p)
            }
            None => (None, None),
        };
        let mut row = vec![
            Cell::Int(i64::from(cmd.tick)),
            name.map(Cell::Str).unwrap_or(Cell::Null),
            steamid.map(Cell::UInt).unwrap_or(Cell::Null),
            num(slot),
            num(cmd.pawn.map(|h| h.index)),
            num(cmd.cmd_number),
            num(cmd.server_tick_executed),
            num(cmd.client_tick),
        ];
        // The rest are the command's fields as the `usercmd_*` props read
        // them.
        row.extend(
            [
                ViewAngle(0),
                ViewAngle(1),
                ViewAngle(2),
                ForwardMove,
                LeftMove,
            ]
            .map(|f| f.cell(cmd)),
        );
        row.push(Cell::Float(cmd.up_move));
        row.extend(
            [
                ButtonState(1),
                ButtonState(2),
                ButtonState(3),
                Impulse,
                WeaponSelect,
                MouseDx,
                MouseDy,
                ConsumedServerAngleChanges,
                LeftHandDesired,
                InputHistory,
            ]
            .map(|f| f.cell(cmd)),
        );
        self.table.push_row(&row);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::table::Kind;
    use gamewire_source2::Game;
    use prost::Message;
    use source2_demo_protobufs as pb;

    fn item(id: u64, def: u32) -> pb::CEconItemPreviewDataBlock {
        pb::CEconItemPreviewDataBlock {
            accountid: Some(7),
            itemid: Some(id),
            defindex: Some(def),
            paintindex: Some(282),
            paintseed: Some(5),
            paintwear: Some(0.5f32.to_bits()),
            ..Default::default()
        }
    }

    #[test]
    fn item_drops_and_skins_from_end_of_match_messages() {
        use pb::ccs_usr_msg_end_of_match_all_players_data::PlayerData;
        let mut state = DemoState::default();
        state.tick = 9000;
        let drops = pb::CCsUsrMsgSendPlayerItemDrops {
            entity_updates: vec![item(11, 7), item(12, 4000)],
        }
        .encode_to_vec();
        let summary = pb::CCsUsrMsgEndOfMatchAllPlayersData {
            allplayerdata: vec![PlayerData {
                xuid: Some(76_561_198_000_000_001),
                name: Some("alice".into()),
                teamnumber: Some(2),
                items: vec![item(0, 1), item(13, 9)],
                ..Default::default()
            }],
            scene: None,
        }
        .encode_to_vec();
        let mut c = EconCollector::new(true, true);
        for (id, payload) in [(361, &drops), (375, &summary), (306, &drops)] {
            c.on_message(
                &state,
                &UserMessage {
                    id,
                    game: Game::Cs2,
                    payload,
                },
            );
        }
        let tables = c.finish();
        assert_eq!(tables[0].name, "item_drops");
        assert_eq!(tables[0].rows(), 2);
        let first = tables[0].row(0);
        assert_eq!(first[0], Cell::Int(9000));
        assert_eq!(first[1], Cell::UInt(76_561_197_960_265_735));
        assert_eq!(first[5], Cell::UInt(11));
        assert_eq!(first[7], Cell::Str("AK-47".into()));
        assert_eq!(first[11], Cell::Float(0.5));
        // An index without a known name: null name.
        assert_eq!(tables[0].row(1)[7], Cell::Null);
        assert_eq!(tables[1].name, "skins");
        // The default item (item id 0) is left out.
        assert_eq!(tables[1].rows(), 1);
        let skin = tables[1].row(0);
        assert_eq!(skin[1], Cell::UInt(76_561_198_000_000_001));
        assert_eq!(skin[2], Cell::Str("alice".into()));
        assert_eq!(skin[3], Cell::Int(2));
        assert_eq!(skin[6], Cell::Str("AWP".into()));
        let kinds: Vec<Kind> = tables[1].columns.iter().map(|(_, c)| c.kind()).collect();
        let want: Vec<Kind> = reference::SKINS.columns.iter().map(|c| c.kind).collect();
        assert_eq!(kinds, want);
    }
}
