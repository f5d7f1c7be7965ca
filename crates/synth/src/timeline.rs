//! A match as the state of its world at every written tick.
//!
//! A scenario is sparse: keyframes, and events at chosen ticks. The timeline
//! is dense: for each tick the demo writes, the full state of every player,
//! item, projectile, fire and the bomb, plus the game events and chat lines
//! fired at that tick. The demo emitter diffs consecutive frames into entity
//! updates, so a frame always holds the whole state, never a change.
//!
//! Everything a frame refers to is referred to by a stable identity:
//! players by their index in [`MatchInfo::players`], items, projectiles and
//! fires by an `id` that stays the same for as long as the object exists.
//! An object whose id is missing from a frame has been removed.

/// What stays fixed for the whole match.
#[derive(Debug, Clone, PartialEq)]
pub struct MatchInfo {
    /// Map name as the server reports it (`de_mirage`).
    pub map: String,
    /// Server ticks per second (CS2: 64).
    pub tick_rate: u32,
    /// Ticks between two written frames (1 writes every tick).
    pub frame_interval: u32,
    /// The server's name in the header.
    pub server_name: String,
    /// Every player who is ever in the match, in slot order.
    pub players: Vec<PlayerInfo>,
    /// Team names, terrorists then counter-terrorists (`m_szTeamname` is
    /// always `TERRORIST` / `CT`; these are the clan names).
    pub team_names: [String; 2],
    /// The first and last written tick.
    pub first_tick: i32,
    /// The last written tick.
    pub last_tick: i32,
}

/// A player's identity.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayerInfo {
    /// The player slot: the controller's entity index minus one, and the
    /// `userid` of game events.
    pub slot: u16,
    /// The name at connection.
    pub name: String,
    /// The 64-bit steam id (0 for bots).
    pub steamid: u64,
    /// True for bots.
    pub bot: bool,
}

/// The whole state at one written tick.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    /// The server tick.
    pub tick: i32,
    /// The game rules (`CCSGameRulesProxy.m_pGameRules.*`).
    pub rules: Rules,
    /// The two playing teams, terrorists (team 2) then counter-terrorists (team 3).
    pub teams: [TeamState; 2],
    /// One entry per [`MatchInfo::players`], same order.
    pub players: Vec<PlayerState>,
    /// Every weapon and item entity: carried or lying in the world.
    pub items: Vec<Item>,
    /// Grenade projectiles in flight or resting (smokes while they smoke).
    pub projectiles: Vec<Projectile>,
    /// Burning molotov and incendiary fires.
    pub infernos: Vec<Inferno>,
    /// The planted bomb, from plant until the round ends.
    pub planted_bomb: Option<PlantedBomb>,
    /// Game events fired at this tick, in order.
    pub events: Vec<GameEvent>,
    /// Chat lines sent at this tick, in order.
    pub chat: Vec<ChatLine>,
}

/// `CCSGameRules` fields the analyst tables read.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Rules {
    /// `m_bWarmupPeriod`.
    pub warmup: bool,
    /// `m_bFreezePeriod`.
    pub freeze_period: bool,
    /// `m_bHasMatchStarted`.
    pub match_started: bool,
    /// `m_totalRoundsPlayed`.
    pub total_rounds_played: i32,
    /// `m_gamePhase`: 0 init, 1 pregame, 2 first half, 3 second half, 4 half time, 5 match ended.
    pub game_phase: i32,
    /// `m_fRoundStartTime`, seconds of game time.
    pub round_start_time: f32,
    /// `m_iRoundTime`, seconds.
    pub round_time: i32,
    /// `m_bBombPlanted`.
    pub bomb_planted: bool,
    /// `m_bBombDropped`.
    pub bomb_dropped: bool,
    /// `m_iRoundWinStatus`: 0 none, 2 terrorists, 3 counter-terrorists, 1 draw.
    pub round_win_status: i32,
    /// `m_eRoundWinReason`, CS2's round-end reason number.
    pub round_win_reason: i32,
    /// `m_nRoundStartCount`, `m_nRoundEndCount` and `m_nMatchEndCount`.
    pub round_start_count: i32,
    /// See `round_start_count`.
    pub round_end_count: i32,
    /// See `round_start_count`.
    pub match_end_count: i32,
}

/// One team's scores.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TeamState {
    /// 2 terrorists, 3 counter-terrorists.
    pub number: u8,
    /// `m_iScore`.
    pub score: i32,
    /// `m_scoreFirstHalf`.
    pub score_first_half: i32,
    /// `m_scoreSecondHalf`.
    pub score_second_half: i32,
    /// `m_scoreOvertime`.
    pub score_overtime: i32,
    /// Clan name (`m_szClanTeamname`).
    pub clan_name: String,
}

/// One player's state.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PlayerState {
    /// False before the player joins and after a disconnect (the controller
    /// stays, `m_iConnected` says so; the pawn is removed).
    pub connected: bool,
    /// Current display name (`m_iszPlayerName`).
    pub name: String,
    /// 0 unassigned, 1 spectator, 2 terrorist, 3 counter-terrorist.
    pub team: u8,
    /// `m_lifeState == 0`.
    pub alive: bool,
    /// `m_iHealth`.
    pub health: i32,
    /// `m_ArmorValue`.
    pub armor: i32,
    /// `m_pItemServices.m_bHasHelmet`.
    pub helmet: bool,
    /// `m_pItemServices.m_bHasDefuser`.
    pub defuser: bool,
    /// `m_pInGameMoneyServices.m_iAccount`.
    pub money: i32,
    /// World position of the pawn's origin (feet), units.
    pub position: [f32; 3],
    /// View pitch, degrees.
    pub pitch: f32,
    /// View yaw, degrees.
    pub yaw: f32,
    /// Item ids of the carried weapons (`m_pWeaponServices.m_hMyWeapons`).
    pub weapons: Vec<u32>,
    /// Item id of the active weapon.
    pub active_weapon: Option<u32>,
    /// `m_flFlashDuration`, seconds (0 when not blind).
    pub flash_duration: f32,
    /// Cumulative `m_pActionTrackingServices.m_matchStats` style counters.
    pub kills: i32,
    /// See `kills`.
    pub deaths: i32,
    /// See `kills`.
    pub assists: i32,
    /// Total damage dealt.
    pub damage: i32,
    /// When a human has taken over a bot: the index (in
    /// [`MatchInfo::players`]) of the bot whose pawn this player drives.
    pub controlling_bot: Option<usize>,
    /// The pawn's sellback list (`m_pBuyServices.m_vecSellbackPurchaseEntries`):
    /// this round's purchases, in order, when purchases are written as state;
    /// `None` when they are not (the list is then not written).
    pub purchases: Option<Vec<Purchase>>,
}

/// One purchase as the buyer's sellback list holds it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Purchase {
    /// The item's definition index (`m_unDefIdx`).
    pub def_index: u16,
    /// What it cost (`m_nCost`).
    pub cost: i32,
    /// The item bought (`m_hItem`); `None` for armor and the defuse kit,
    /// which are no entity.
    pub item: Option<u32>,
}

/// A weapon or item entity.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// Stable identity for as long as the item exists.
    pub id: u32,
    /// The weapon's short name as CS2's item schema spells it (`ak47`,
    /// `knife_t`, `c4`, `hegrenade`).
    pub weapon: String,
    /// `m_iItemDefinitionIndex`.
    pub def_index: u16,
    /// The carrier, an index into [`MatchInfo::players`], or `None` when it
    /// lies in the world.
    pub owner: Option<usize>,
    /// Where it lies when not carried.
    pub position: [f32; 3],
    /// `m_iClip1`, when the weapon has a clip.
    pub clip: Option<i32>,
}

/// The kind of a grenade projectile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrenadeKind {
    /// `CHEGrenadeProjectile`.
    HighExplosive,
    /// `CFlashbangProjectile`.
    Flashbang,
    /// `CSmokeGrenadeProjectile`.
    Smoke,
    /// `CMolotovProjectile` (molotov and incendiary).
    Molotov,
    /// `CMolotovProjectile` thrown as an incendiary grenade.
    Incendiary,
    /// `CDecoyProjectile`.
    Decoy,
}

/// A grenade projectile entity.
#[derive(Debug, Clone, PartialEq)]
pub struct Projectile {
    /// Stable identity for as long as the projectile exists.
    pub id: u32,
    /// What was thrown.
    pub kind: GrenadeKind,
    /// Index into [`MatchInfo::players`] (`m_hThrower`).
    pub thrower: usize,
    /// Current position.
    pub position: [f32; 3],
    /// For smokes: the smoke has started (`m_bDidSmokeEffect`).
    pub smoking: bool,
}

/// A burning fire (`CInferno`).
#[derive(Debug, Clone, PartialEq)]
pub struct Inferno {
    /// Stable identity for as long as the fire burns.
    pub id: u32,
    /// Index into [`MatchInfo::players`] of the thrower (owner).
    pub thrower: usize,
    /// The fire's origin.
    pub position: [f32; 3],
}

/// The planted bomb (`CPlantedC4`).
#[derive(Debug, Clone, PartialEq)]
pub struct PlantedBomb {
    /// Where it lies.
    pub position: [f32; 3],
    /// 0 site A, 1 site B.
    pub site: i32,
    /// Game time (seconds) at which it explodes.
    pub blow_time: f32,
    /// Being defused by this player (index into [`MatchInfo::players`]).
    pub defuser: Option<usize>,
    /// `m_bBombDefused`.
    pub defused: bool,
    /// `m_bHasExploded`.
    pub exploded: bool,
}

/// One game event as CS2 names it and its keys, with values that the
/// emitter resolves and encodes in the key's declared type.
#[derive(Debug, Clone, PartialEq)]
pub struct GameEvent {
    /// The event's name (`player_death`, `round_end`, `bomb_planted`).
    pub name: String,
    /// Its keys in any order; keys the descriptor declares but that are
    /// missing here are written as the type's zero value.
    pub keys: Vec<(String, EventValue)>,
}

/// A game-event key's value before encoding.
#[derive(Debug, Clone, PartialEq)]
pub enum EventValue {
    /// A string.
    Str(String),
    /// A float.
    Float(f32),
    /// Any integer; the emitter narrows it to the declared type.
    Int(i64),
    /// A bool.
    Bool(bool),
    /// A player, index into [`MatchInfo::players`]: written as the slot
    /// (`userid`-style keys). A missing player (world, no assister) is
    /// `Int(-1)` or `Int(65535)`, as the game writes it.
    Player(usize),
    /// A player's pawn, index into [`MatchInfo::players`]: written as the
    /// pawn's entity handle (`userid_pawn`-style keys).
    Pawn(usize),
    /// An entity made by the timeline (projectile, fire), by its `id`:
    /// written as its entity index (`entityid` keys).
    Entity(u32),
}

/// A chat line (`CUserMessageSayText2`).
#[derive(Debug, Clone, PartialEq)]
pub struct ChatLine {
    /// Index into [`MatchInfo::players`].
    pub player: usize,
    /// The text.
    pub text: String,
    /// True for all chat, false for team chat.
    pub all_chat: bool,
}

/// A match ready to be written: what is fixed, and a way to walk its frames.
pub trait Timeline {
    /// What is fixed for the whole match.
    fn info(&self) -> &MatchInfo;
    /// Every written frame in tick order, from `first_tick` to `last_tick`
    /// every `frame_interval` ticks (events between two written ticks are
    /// moved to the next written tick).
    fn frames(&self) -> Box<dyn Iterator<Item = Frame> + '_>;
}
