//! Typed columnar tables.

use gamewire_source2::cs2::Cell;

/// The type of a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Booleans.
    Bool,
    /// Signed 64-bit integers.
    I64,
    /// Unsigned 64-bit integers (steam ids).
    U64,
    /// 32-bit floats.
    F32,
    /// UTF-8 text.
    Str,
}

/// A column: a typed vector, `None` for null.
#[derive(Debug, Clone, PartialEq)]
pub enum Column {
    /// Booleans.
    Bool(Vec<Option<bool>>),
    /// Signed integers.
    I64(Vec<Option<i64>>),
    /// Unsigned integers.
    U64(Vec<Option<u64>>),
    /// Floats.
    F32(Vec<Option<f32>>),
    /// Text.
    Str(Vec<Option<String>>),
}

impl Column {
    /// An empty column of a kind.
    pub fn new(kind: Kind) -> Column {
        match kind {
            Kind::Bool => Column::Bool(Vec::new()),
            Kind::I64 => Column::I64(Vec::new()),
            Kind::U64 => Column::U64(Vec::new()),
            Kind::F32 => Column::F32(Vec::new()),
            Kind::Str => Column::Str(Vec::new()),
        }
    }

    /// The kind.
    pub fn kind(&self) -> Kind {
        match self {
            Column::Bool(_) => Kind::Bool,
            Column::I64(_) => Kind::I64,
            Column::U64(_) => Kind::U64,
            Column::F32(_) => Kind::F32,
            Column::Str(_) => Kind::Str,
        }
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        match self {
            Column::Bool(v) => v.len(),
            Column::I64(v) => v.len(),
            Column::U64(v) => v.len(),
            Column::F32(v) => v.len(),
            Column::Str(v) => v.len(),
        }
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends a cell, converted to the column's kind (null when it does
    /// not convert).
    pub fn push(&mut self, cell: &Cell) {
        match self {
            Column::Bool(v) => v.push(match cell {
                Cell::Bool(b) => Some(*b),
                Cell::Int(i) => Some(*i != 0),
                Cell::UInt(u) => Some(*u != 0),
                _ => None,
            }),
            Column::I64(v) => v.push(match cell {
                Cell::Bool(b) => Some(i64::from(*b)),
                Cell::Int(i) => Some(*i),
                Cell::UInt(u) => i64::try_from(*u).ok(),
                _ => None,
            }),
            Column::U64(v) => v.push(match cell {
                Cell::Bool(b) => Some(u64::from(*b)),
                Cell::Int(i) => u64::try_from(*i).ok(),
                Cell::UInt(u) => Some(*u),
                Cell::Str(s) => s.parse().ok(),
                _ => None,
            }),
            Column::F32(v) => v.push(match cell {
                Cell::Float(x) => Some(*x),
                Cell::Int(i) => Some(*i as f32),
                Cell::UInt(u) => Some(*u as f32),
                _ => None,
            }),
            Column::Str(v) => v.push(match cell {
                Cell::Null => None,
                other => Some(other.to_string()),
            }),
        }
    }

    /// The value at a row as a cell.
    pub fn cell(&self, row: usize) -> Cell {
        let c = match self {
            Column::Bool(v) => v.get(row).copied().flatten().map(Cell::Bool),
            Column::I64(v) => v.get(row).copied().flatten().map(Cell::Int),
            Column::U64(v) => v.get(row).copied().flatten().map(Cell::UInt),
            Column::F32(v) => v.get(row).copied().flatten().map(Cell::Float),
            Column::Str(v) => v.get(row).cloned().flatten().map(Cell::Str),
        };
        c.unwrap_or(Cell::Null)
    }
}

/// The kind that holds every non-null cell of a column without loss where
/// possible: one type → that type; integers of both signs → `I64` (or
/// `U64` when all are non-negative and some exceed `i64`); integers and
/// floats → `F32`; anything else (vectors, mixed text) → `Str`. An all-null
/// column is `Str`.
pub fn infer_kind<'a>(cells: impl Iterator<Item = &'a Cell>) -> Kind {
    let (mut b, mut i, mut neg, mut u, mut big, mut f, mut other) =
        (false, false, false, false, false, false, false);
    for c in cells {
        match c {
            Cell::Null => {}
            Cell::Bool(_) => b = true,
            Cell::Int(x) => {
                i = true;
                neg |= *x < 0;
            }
            Cell::UInt(x) => {
                u = true;
                big |= i64::try_from(*x).is_err();
            }
            Cell::Float(_) => f = true,
            Cell::Str(_) | Cell::Floats(_) => other = true,
        }
    }
    match (b, i || u, f, other) {
        (true, false, false, false) => Kind::Bool,
        (false, true, false, false) => {
            if big && !neg {
                Kind::U64
            } else if big {
                Kind::Str
            } else if u && !i {
                Kind::U64
            } else {
                Kind::I64
            }
        }
        (false, _, true, false) => Kind::F32,
        _ => Kind::Str,
    }
}

/// A named table of typed columns, all of the same length.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// Table name (`kills`, `ticks`, ...).
    pub name: String,
    /// Columns in order.
    pub columns: Vec<(String, Column)>,
}

impl Table {
    /// An empty table with declared columns.
    pub fn with_schema(name: &str, schema: &[(&str, Kind)]) -> Table {
        Table {
            name: name.to_string(),
            columns: schema
                .iter()
                .map(|(n, k)| (n.to_string(), Column::new(*k)))
                .collect(),
        }
    }

    /// A table from rows of cells, each column's kind inferred from its
    /// values ([`infer_kind`]).
    pub fn from_cells(name: &str, columns: &[String], rows: &[Vec<Cell>]) -> Table {
        let cols = columns
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let kind = infer_kind(rows.iter().filter_map(|r| r.get(i)));
                let mut col = Column::new(kind);
                for r in rows {
                    col.push(r.get(i).unwrap_or(&Cell::Null));
                }
                (c.clone(), col)
            })
            .collect();
        Table {
            name: name.to_string(),
            columns: cols,
        }
    }

    /// A table from rows of cells with declared column kinds; a column
    /// without one gets the kind its values need ([`infer_kind`]).
    pub fn from_cells_typed(
        name: &str,
        columns: &[(String, Option<Kind>)],
        rows: &[Vec<Cell>],
    ) -> Table {
        let cols = columns
            .iter()
            .enumerate()
            .map(|(i, (c, kind))| {
                let kind = kind.unwrap_or_else(|| infer_kind(rows.iter().filter_map(|r| r.get(i))));
                let mut col = Column::new(kind);
                for r in rows {
                    col.push(r.get(i).unwrap_or(&Cell::Null));
                }
                (c.clone(), col)
            })
            .collect();
        Table {
            name: name.to_string(),
            columns: cols,
        }
    }

    /// Appends a row (one cell per column; missing cells are null).
    pub fn push_row(&mut self, row: &[Cell]) {
        for (i, (_, col)) in self.columns.iter_mut().enumerate() {
            col.push(row.get(i).unwrap_or(&Cell::Null));
        }
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.columns.first().map(|(_, c)| c.len()).unwrap_or(0)
    }

    /// A column by name.
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c)
    }

    /// Column names.
    pub fn column_names(&self) -> Vec<&str> {
        self.columns.iter().map(|(n, _)| n.as_str()).collect()
    }

    /// One row as cells.
    pub fn row(&self, i: usize) -> Vec<Cell> {
        self.columns.iter().map(|(_, c)| c.cell(i)).collect()
    }

    /// Prepends a text column with the same value in every row (`demo`).
    pub fn prepend_constant(&mut self, name: &str, value: &str) {
        let n = self.rows();
        self.columns.insert(
            0,
            (
                name.to_string(),
                Column::Str(vec![Some(value.to_string()); n]),
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn inference() {
        assert_eq!(infer_kind([Cell::Int(1), Cell::Null].iter()), Kind::I64);
        assert_eq!(infer_kind([Cell::UInt(u64::MAX)].iter()), Kind::U64);
        assert_eq!(
            infer_kind([Cell::Int(-1), Cell::Float(0.5)].iter()),
            Kind::F32
        );
        assert_eq!(infer_kind([Cell::Bool(true)].iter()), Kind::Bool);
        assert_eq!(infer_kind([Cell::Floats(vec![1.0])].iter()), Kind::Str);
        assert_eq!(infer_kind([Cell::Null].iter()), Kind::Str);
        let t = Table::from_cells(
            "t",
            &["a".into(), "b".into()],
            &[
                vec![Cell::Int(3), Cell::Str("x".into())],
                vec![Cell::Null, Cell::Null],
            ],
        );
        assert_eq!(t.rows(), 2);
        assert_eq!(t.column("a"), Some(&Column::I64(vec![Some(3), None])));
        assert_eq!(t.row(0), vec![Cell::Int(3), Cell::Str("x".into())]);
    }
}
