//! CS2 specifics: world positions from cells, and the friendly prop names
//! analysts use (demoparser2's names).

/// Bits of a cell coordinate: cells are 512 units wide.
pub const CELL_BITS: u32 = 9;
/// Half the world size: `cell * 512 - 16384 + offset`.
pub const MAX_COORD: f64 = 16384.0;

/// A world coordinate from a cell index and the offset inside the cell
/// (LaihoE/demoparser `coord_from_cell`, demoinfocs `coordFromCell`).
pub fn coord_from_cell(cell: u64, offset: f32) -> f32 {
    (cell as f64 * f64::from(1u32 << CELL_BITS) - MAX_COORD + f64::from(offset)) as f32
}
