//! The players of a demo: a controller with a pawn (CS2), hero pawn
//! (Deadlock) or hero (Dota 2) and a team other than spectator, bots
//! included. A player is keyed by its slot (the controller's entity index
//! minus 1), not by its steam id: every bot has steam id 0. The `ticks`
//! table has one row per player of every tick; `humans_only` keeps the
//! players whose steam id is not 0 and whose `userinfo` entry is not a
//! fake player.
//!
//! demoparser2 (LaihoE/demoparser) keeps only players with a steam id,
//! which leaves out every bot.

use crate::prop_paths::{PropCache, PropId};
use gamewire_source2::{DemoState, Game, Value};

/// Entity handle index mask demoparser2 applies to `m_hPlayerPawn`.
pub const PAWN_HANDLE_MASK: u32 = 0x7FF;

/// A player: a controller with a pawn and a team other than spectator.
#[derive(Debug, Clone)]
pub struct PlayerRef {
    /// The player slot: the controller's entity index minus 1 (the
    /// `userinfo` entry of the player).
    pub slot: i32,
    /// Controller entity index.
    pub controller: i32,
    /// Pawn entity index.
    pub pawn: i32,
    /// Name from the controller.
    pub name: String,
    /// Steam id from the controller (0 for bots).
    pub steamid: u64,
    /// Whether the player is a bot: steam id 0, or a fake player in
    /// `userinfo`.
    pub is_bot: bool,
}

/// The players of the current state, in slot order: a controller whose pawn
/// handle is valid and whose team is not spectator, bots included. For a
/// call per tick, a
/// [`PlayerFinder`] does the same without searching the classes and every
/// entity each time.
pub fn players(state: &DemoState, cache: &mut PropCache) -> Vec<PlayerRef> {
    let mut ids = PlayerIds::new(cache);
    let mut out = Vec::new();
    players_into(state, cache, &mut ids, &mut out);
    out
}

/// [`players`] for repeated calls: remembers the controller class and the
/// controller entities (until the entity list's
/// [`generation`](gamewire_source2::entity::EntityList::generation) changes), so a call
/// per tick reads only the controllers' props. Use it with the
/// [`PropCache`] it was made with.
#[derive(Debug, Clone)]
pub struct PlayerFinder {
    ids: PlayerIds,
    found: Vec<PlayerRef>,
}

impl PlayerFinder {
    /// A finder whose prop names are interned in `cache`.
    pub fn new(cache: &mut PropCache) -> Self {
        PlayerFinder {
            ids: PlayerIds::new(cache),
            found: Vec::new(),
        }
    }

    /// The players of the current state, as [`players`] selects them.
    pub fn find(&mut self, state: &DemoState, cache: &mut PropCache) -> &[PlayerRef] {
        players_into(state, cache, &mut self.ids, &mut self.found);
        &self.found
    }
}

/// How a game holds its players: the controller class, the controller's
/// handle of the entity that plays (the pawn, Deadlock's hero pawn, Dota 2's
/// hero) and the index bits of that handle (demoparser2 masks CS2's pawn
/// handle with `0x7FF`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct PlayerClasses {
    pub(crate) controller: &'static str,
    pub(crate) pawn_handle: &'static str,
    pub(crate) handle_mask: u32,
}

/// The [`PlayerClasses`] of a game (CS2's for an unknown game).
pub(crate) fn player_classes(game: Game) -> PlayerClasses {
    match game {
        Game::Deadlock => PlayerClasses {
            controller: "CCitadelPlayerController",
            pawn_handle: "m_hHeroPawn",
            handle_mask: 0x3FFF,
        },
        Game::Dota2 => PlayerClasses {
            controller: "CDOTAPlayerController",
            pawn_handle: "m_hAssignedHero",
            handle_mask: 0x3FFF,
        },
        Game::Cs2 | Game::Any => PlayerClasses {
            controller: "CCSPlayerController",
            pawn_handle: "m_hPlayerPawn",
            handle_mask: PAWN_HANDLE_MASK,
        },
    }
}

/// The prop ids [`players`] reads.
#[derive(Debug, Clone)]
pub(crate) struct PlayerIds {
    /// The controller's handle of its pawn or hero, for the game the ids
    /// were last used with.
    pawn: PropId,
    pawn_game: Game,
    steamid: PropId,
    team: PropId,
    name: PropId,
    /// The controller class id last found.
    controller: Option<u32>,
    /// Indices of the controller entities, valid while the entity list's
    /// generation is `controllers_generation` (entities are created and
    /// deleted rarely; players are read every tick).
    controllers: Vec<i32>,
    controllers_generation: Option<(u64, u32)>,
}

impl PlayerIds {
    pub(crate) fn new(cache: &mut PropCache) -> PlayerIds {
        PlayerIds {
            pawn: cache.id(player_classes(Game::Cs2).pawn_handle),
            pawn_game: Game::Cs2,
            steamid: cache.id("m_steamID"),
            team: cache.id("m_iTeamNum"),
            name: cache.id("m_iszPlayerName"),
            controller: None,
            controllers: Vec::new(),
            controllers_generation: None,
        }
    }
}

/// The class id of the game's player controller class, if the demo has
/// one; `cached` is the id found last time, checked before the classes are
/// searched again.
fn controller_class(state: &DemoState, name: &str, cached: &mut Option<u32>) -> Option<u32> {
    if let Some(id) = *cached {
        if state
            .classes
            .get(id as usize)
            .is_some_and(|c| c.name == name)
        {
            return Some(id);
        }
    }
    *cached = state.classes.iter().find(|c| c.name == name).map(|c| c.id);
    *cached
}

pub(crate) fn players_into(
    state: &DemoState,
    cache: &mut PropCache,
    ids: &mut PlayerIds,
    out: &mut Vec<PlayerRef>,
) {
    let classes = player_classes(state.game);
    if ids.pawn_game != state.game {
        ids.pawn = cache.id(classes.pawn_handle);
        ids.pawn_game = state.game;
    }
    let Some(class) = controller_class(state, classes.controller, &mut ids.controller) else {
        out.clear();
        return;
    };
    let key = (state.entities.generation(), class);
    if ids.controllers_generation != Some(key) {
        ids.controllers.clear();
        ids.controllers.extend(
            state
                .entities
                .iter()
                .filter(|e| e.class_id == class)
                .map(|e| e.index),
        );
        ids.controllers.sort_unstable();
        ids.controllers_generation = Some(key);
    }
    let mut found = 0;
    for e in ids
        .controllers
        .iter()
        .filter_map(|&i| state.entities.get(i))
    {
        let mask = classes.handle_mask;
        let pawn_handle = cache
            .get(state, e, ids.pawn)
            .and_then(Value::as_u64)
            .unwrap_or(u64::from(mask));
        let pawn = (pawn_handle as u32) & mask;
        if pawn == mask {
            continue;
        }
        let team = cache
            .get(state, e, ids.team)
            .and_then(Value::as_i64)
            .unwrap_or(0);
        if team == 1 {
            continue;
        }
        let slot = e.index - 1;
        let info = usize::try_from(slot)
            .ok()
            .and_then(|s| state.players.get(&s));
        let steamid = cache
            .get(state, e, ids.steamid)
            .and_then(Value::as_u64)
            .or(info.map(|i| i.steamid))
            .unwrap_or(0);
        let is_bot = steamid == 0 || info.is_some_and(|i| i.fake_player);
        let name = cache
            .get(state, e, ids.name)
            .and_then(Value::as_str)
            .or(info.map(|i| i.name.as_str()))
            .unwrap_or("");
        // Entries of the previous call are overwritten in place (their
        // name buffers reused), then the rest is cut.
        match out.get_mut(found) {
            Some(p) => {
                p.slot = slot;
                p.controller = e.index;
                p.pawn = pawn as i32;
                p.steamid = steamid;
                p.is_bot = is_bot;
                p.name.clear();
                p.name.push_str(name);
            }
            None => out.push(PlayerRef {
                slot,
                controller: e.index,
                pawn: pawn as i32,
                name: name.to_string(),
                steamid,
                is_bot,
            }),
        }
        found += 1;
    }
    out.truncate(found);
}
