//! World coordinates from position cells: an entity's position is a cell
//! index (`CBodyComponent.m_cellX/Y/Z`) and an offset inside the cell
//! (`CBodyComponent.m_vecX/Y/Z`), as LaihoE/demoparser (`coord_from_cell`)
//! and demoinfocs-golang (`coordFromCell`) read them.

use gamewire_source2::Game;

/// Bits of a cell coordinate: cells are 512 units wide.
pub const CELL_BITS: u32 = 9;
/// Half the world size: `cell * 512 - 16384 + offset`.
pub const MAX_COORD: f64 = 16384.0;

/// The body-component props of an entity's cell, per axis (X, Y, Z).
pub const CELL_PROPS: [&str; 3] = [
    "CBodyComponent.m_cellX",
    "CBodyComponent.m_cellY",
    "CBodyComponent.m_cellZ",
];
/// The body-component props of the offset inside the cell, per axis.
pub const OFFSET_PROPS: [&str; 3] = [
    "CBodyComponent.m_vecX",
    "CBodyComponent.m_vecY",
    "CBodyComponent.m_vecZ",
];

/// A world coordinate from a cell index and the offset inside the cell
/// (LaihoE/demoparser `coord_from_cell`, demoinfocs `coordFromCell`).
pub fn coord_from_cell(cell: u64, offset: f32) -> f32 {
    (cell as f64 * f64::from(1u32 << CELL_BITS) - MAX_COORD + f64::from(offset)) as f32
}

/// The width of a position cell in a game: 512 units in CS2 and Deadlock,
/// 128 in Dota 2 (`CELL_BASEENTITY_ORIGIN_CELL_BITS` 9 and 7; the offset
/// inside a cell spans two cells in each).
pub fn cell_width(game: Game) -> f64 {
    match game {
        Game::Dota2 => 128.0,
        Game::Cs2 | Game::Deadlock | Game::Any => f64::from(1u32 << CELL_BITS),
    }
}

/// [`coord_from_cell`] in a game: `cell × cell_width(game) − 16384 +
/// offset`. On the corpus: Deadlock heroes inside the game rules' minimap
/// bounds (±10752), Dota 2 towers at the map's (±7000).
pub fn coord_from_cell_in(game: Game, cell: u64, offset: f32) -> f32 {
    (cell as f64 * cell_width(game) - MAX_COORD + f64::from(offset)) as f32
}
