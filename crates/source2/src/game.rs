//! The Source 2 games gamewire knows ([`Game`]: CS2, Dota 2, Deadlock, named
//! by the `game_directory` of a demo's `CDemoFileHeader` in Valve's
//! `demo.proto`) and the families of their message ids ([`MessageKind`]:
//! the user messages, protobuf game events and temp entities of each
//! game's `*_usermessages.proto`, `gameevents.proto` and `te.proto`).

/// The Source 2 game a demo was recorded by.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Game {
    /// Counter-Strike 2 (`csgo` game directory).
    Cs2,
    /// Dota 2 (`dota`).
    Dota2,
    /// Deadlock (`citadel`).
    Deadlock,
    /// Anything else: only the engine's base messages are known.
    #[default]
    Any,
}

impl Game {
    /// The game of a `CDemoFileHeader.game_directory` path.
    pub fn from_game_directory(dir: &str) -> Game {
        let last = dir
            .rsplit(['/', '\\'])
            .find(|s| !s.is_empty())
            .unwrap_or("")
            .to_ascii_lowercase();
        match last.as_str() {
            "csgo" | "cs2" => Game::Cs2,
            "dota" => Game::Dota2,
            "citadel" => Game::Deadlock,
            _ => Game::Any,
        }
    }

    /// The game whose player pawn class is among `names` (for streams
    /// without a file header, such as broadcasts).
    pub fn from_class_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Game {
        for name in names {
            match name {
                "CCSPlayerPawn" => return Game::Cs2,
                "CCitadelPlayerPawn" => return Game::Deadlock,
                "CDOTA_PlayerResource" => return Game::Dota2,
                _ => {}
            }
        }
        Game::Any
    }
}

/// What family a message id belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageKind {
    /// A user message (`UM_*`, `CS_UM_*`, `DOTA_UM_*`, `k_EUserMsg_*`).
    UserMessage,
    /// A protobuf game event (`GE_*`).
    GameEvent,
    /// A temp entity (`TE_*`: effects, decals, impacts, explosions).
    TempEntity,
}
