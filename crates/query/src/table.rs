//! The table model: a [`Table`] of typed columns ([`Column`], [`Kind`]),
//! gathered from rows of [`Cell`]s ([`Rows`]). Every table gamewire
//! writes is one of these (the `write` module).

use gamewire_source2::{EventValue, Value};

/// A cell of an output table.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(untagged)]
pub enum Cell {
    /// Missing.
    Null,
    /// Boolean.
    Bool(bool),
    /// Signed integer.
    Int(i64),
    /// Unsigned integer (steam ids).
    UInt(u64),
    /// Float.
    Float(f32),
    /// Text.
    Str(String),
    /// Vector.
    Floats(Vec<f32>),
    /// A list of text (an inventory).
    Strs(Vec<String>),
    /// A list of unsigned integers (item indices, steam ids).
    UInts(Vec<u64>),
}

impl Cell {
    /// The cell for an entity value (vectors as float lists).
    pub fn from_value(v: &Value) -> Cell {
        match v {
            Value::Bool(b) => Cell::Bool(*b),
            Value::I32(x) => Cell::Int(i64::from(*x)),
            Value::I64(x) => Cell::Int(*x),
            Value::U32(x) => Cell::Int(i64::from(*x)),
            Value::U64(x) => Cell::UInt(*x),
            Value::F32(x) => Cell::Float(*x),
            Value::String(s) => Cell::Str(s.to_string()),
            other => match other.as_floats() {
                Some(f) => Cell::Floats(f.to_vec()),
                None => Cell::Str(other.to_string()),
            },
        }
    }

    /// The cell as a [`Kind::Bool`] value.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Cell::Bool(b) => Some(*b),
            Cell::Int(i) => Some(*i != 0),
            Cell::UInt(u) => Some(*u != 0),
            _ => None,
        }
    }

    /// The cell as a [`Kind::I64`] value.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Cell::Bool(b) => Some(i64::from(*b)),
            Cell::Int(i) => Some(*i),
            Cell::UInt(u) => i64::try_from(*u).ok(),
            _ => None,
        }
    }

    /// The cell as a [`Kind::U64`] value.
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Cell::Bool(b) => Some(u64::from(*b)),
            Cell::Int(i) => u64::try_from(*i).ok(),
            Cell::UInt(u) => Some(*u),
            Cell::Str(s) => s.parse().ok(),
            _ => None,
        }
    }

    /// The cell as a [`Kind::F32`] value.
    pub fn as_f32(&self) -> Option<f32> {
        match self {
            Cell::Float(x) => Some(*x),
            Cell::Int(i) => Some(*i as f32),
            Cell::UInt(u) => Some(*u as f32),
            _ => None,
        }
    }

    /// The cell as a [`Kind::Str`] value: its `Display`.
    pub fn as_text(&self) -> Option<String> {
        match self {
            Cell::Null => None,
            other => Some(other.to_string()),
        }
    }

    /// The cell as a [`Kind::F32List`] value.
    pub fn as_floats(&self) -> Option<Vec<f32>> {
        match self {
            Cell::Floats(x) => Some(x.clone()),
            Cell::Float(x) => Some(vec![*x]),
            _ => None,
        }
    }

    /// The cell as a [`Kind::StrList`] value.
    pub fn as_texts(&self) -> Option<Vec<String>> {
        match self {
            Cell::Strs(x) => Some(x.clone()),
            Cell::Str(x) => Some(vec![x.clone()]),
            _ => None,
        }
    }

    /// The cell as a [`Kind::U64List`] value.
    pub fn as_uints(&self) -> Option<Vec<u64>> {
        match self {
            Cell::UInts(x) => Some(x.clone()),
            Cell::UInt(x) => Some(vec![*x]),
            _ => None,
        }
    }

    /// The cell for a game-event value.
    pub fn from_event(v: &EventValue) -> Cell {
        match v {
            EventValue::String(s) => Cell::Str(s.clone()),
            EventValue::Float(f) => Cell::Float(*f),
            EventValue::Int(i) => Cell::Int(i64::from(*i)),
            EventValue::Bool(b) => Cell::Bool(*b),
            EventValue::U64(u) => Cell::UInt(*u),
        }
    }
}

impl std::fmt::Display for Cell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Cell::Null => Ok(()),
            Cell::Bool(b) => write!(f, "{b}"),
            Cell::Int(i) => write!(f, "{i}"),
            Cell::UInt(u) => write!(f, "{u}"),
            Cell::Float(x) => write!(f, "{x}"),
            Cell::Str(s) => f.write_str(s),
            Cell::Floats(v) => {
                let parts: Vec<String> = v.iter().map(|x| x.to_string()).collect();
                write!(f, "[{}]", parts.join(" "))
            }
            // A JSON array: names may hold spaces (`C4 Explosive`).
            Cell::Strs(v) => f.write_str(&serde_json::to_string(v).map_err(|_| std::fmt::Error)?),
            Cell::UInts(v) => f.write_str(&serde_json::to_string(v).map_err(|_| std::fmt::Error)?),
        }
    }
}

/// A table as it is gathered, row by row, before its columns are typed:
/// column names and rows of cells. [`Table::from_cells_typed`] types it;
/// the row writers of the `write` module write it as it is (`gamewire ticks`
/// and `gamewire events` stream their rows this way).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Rows {
    /// Column names.
    pub columns: Vec<String>,
    /// Rows, one cell per column.
    pub rows: Vec<Vec<Cell>>,
}

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
    /// Lists of 32-bit floats (vectors and angles: `[x, y, z]`).
    F32List,
    /// Lists of text (an inventory).
    StrList,
    /// Lists of unsigned 64-bit integers (item indices, steam ids).
    U64List,
}

impl Kind {
    /// Whether a cell converted to this kind is a value, and its length:
    /// `None` when it converts to null, the number of items for a list
    /// kind, 1 for any other value (what [`Column::push`] stores, without
    /// storing it).
    pub fn convert_len(self, cell: &Cell) -> Option<usize> {
        match (self, cell) {
            (_, Cell::Null) => None,
            (Kind::Bool, c) => c.as_bool().map(|_| 1),
            (Kind::I64, c) => c.as_i64().map(|_| 1),
            (Kind::U64, c) => c.as_u64().map(|_| 1),
            (Kind::F32, c) => c.as_f32().map(|_| 1),
            (Kind::Str, _) => Some(1),
            (Kind::F32List, Cell::Floats(x)) => Some(x.len()),
            (Kind::F32List, Cell::Float(_)) => Some(1),
            (Kind::StrList, Cell::Strs(x)) => Some(x.len()),
            (Kind::StrList, Cell::Str(_)) => Some(1),
            (Kind::U64List, Cell::UInts(x)) => Some(x.len()),
            (Kind::U64List, Cell::UInt(_)) => Some(1),
            (Kind::F32List | Kind::StrList | Kind::U64List, _) => None,
        }
    }

    /// Whether the kind is a list.
    pub fn is_list(self) -> bool {
        matches!(self, Kind::F32List | Kind::StrList | Kind::U64List)
    }
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
    /// Float lists.
    F32List(Vec<Option<Vec<f32>>>),
    /// Text lists.
    StrList(Vec<Option<Vec<String>>>),
    /// Unsigned integer lists.
    U64List(Vec<Option<Vec<u64>>>),
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
            Kind::F32List => Column::F32List(Vec::new()),
            Kind::StrList => Column::StrList(Vec::new()),
            Kind::U64List => Column::U64List(Vec::new()),
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
            Column::F32List(_) => Kind::F32List,
            Column::StrList(_) => Kind::StrList,
            Column::U64List(_) => Kind::U64List,
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
            Column::F32List(v) => v.len(),
            Column::StrList(v) => v.len(),
            Column::U64List(v) => v.len(),
        }
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends a cell, converted to the column's kind (null when it does
    /// not convert: [`Kind::convert_len`]).
    pub fn push(&mut self, cell: &Cell) {
        match self {
            Column::Bool(v) => v.push(cell.as_bool()),
            Column::I64(v) => v.push(cell.as_i64()),
            Column::U64(v) => v.push(cell.as_u64()),
            Column::F32(v) => v.push(cell.as_f32()),
            Column::Str(v) => v.push(cell.as_text()),
            Column::F32List(v) => v.push(cell.as_floats()),
            Column::StrList(v) => v.push(cell.as_texts()),
            Column::U64List(v) => v.push(cell.as_uints()),
        }
    }

    /// Appends `n` nulls.
    pub fn push_nulls(&mut self, n: usize) {
        match self {
            Column::Bool(v) => v.resize(v.len() + n, None),
            Column::I64(v) => v.resize(v.len() + n, None),
            Column::U64(v) => v.resize(v.len() + n, None),
            Column::F32(v) => v.resize(v.len() + n, None),
            Column::Str(v) => v.resize(v.len() + n, None),
            Column::F32List(v) => v.resize(v.len() + n, None),
            Column::StrList(v) => v.resize(v.len() + n, None),
            Column::U64List(v) => v.resize(v.len() + n, None),
        }
    }

    /// True when every value is null (or there is none).
    pub fn is_all_null(&self) -> bool {
        match self {
            Column::Bool(v) => v.iter().all(Option::is_none),
            Column::I64(v) => v.iter().all(Option::is_none),
            Column::U64(v) => v.iter().all(Option::is_none),
            Column::F32(v) => v.iter().all(Option::is_none),
            Column::Str(v) => v.iter().all(Option::is_none),
            Column::F32List(v) => v.iter().all(Option::is_none),
            Column::StrList(v) => v.iter().all(Option::is_none),
            Column::U64List(v) => v.iter().all(Option::is_none),
        }
    }

    /// Appends the values of `other`. Of another kind, both are first
    /// converted to the kind that holds both sides' values ([`infer_kind`];
    /// an all-null side takes the other's kind).
    pub fn append(&mut self, other: Column) {
        let other = match (&mut *self, other) {
            (Column::Bool(a), Column::Bool(b)) => return a.extend(b),
            (Column::I64(a), Column::I64(b)) => return a.extend(b),
            (Column::U64(a), Column::U64(b)) => return a.extend(b),
            (Column::F32(a), Column::F32(b)) => return a.extend(b),
            (Column::Str(a), Column::Str(b)) => return a.extend(b),
            (Column::F32List(a), Column::F32List(b)) => return a.extend(b),
            (Column::StrList(a), Column::StrList(b)) => return a.extend(b),
            (Column::U64List(a), Column::U64List(b)) => return a.extend(b),
            (_, other) => other,
        };
        let kind = if self.is_all_null() {
            other.kind()
        } else if other.is_all_null() {
            self.kind()
        } else {
            let cells: Vec<Cell> = (0..self.len())
                .map(|i| self.cell(i))
                .chain((0..other.len()).map(|i| other.cell(i)))
                .collect();
            infer_kind(cells.iter())
        };
        let mut merged = Column::new(kind);
        for i in 0..self.len() {
            merged.push(&self.cell(i));
        }
        for i in 0..other.len() {
            merged.push(&other.cell(i));
        }
        *self = merged;
    }

    /// The value at a row as a cell.
    pub fn cell(&self, row: usize) -> Cell {
        let c = match self {
            Column::Bool(v) => v.get(row).copied().flatten().map(Cell::Bool),
            Column::I64(v) => v.get(row).copied().flatten().map(Cell::Int),
            Column::U64(v) => v.get(row).copied().flatten().map(Cell::UInt),
            Column::F32(v) => v.get(row).copied().flatten().map(Cell::Float),
            Column::Str(v) => v.get(row).cloned().flatten().map(Cell::Str),
            Column::F32List(v) => v.get(row).cloned().flatten().map(Cell::Floats),
            Column::StrList(v) => v.get(row).cloned().flatten().map(Cell::Strs),
            Column::U64List(v) => v.get(row).cloned().flatten().map(Cell::UInts),
        };
        c.unwrap_or(Cell::Null)
    }
}

/// The kind that holds every non-null cell of a column without loss where
/// possible: one type → that type; integers of both signs → `I64` (or
/// `U64` when all are non-negative and some exceed `i64`); integers and
/// floats → `F32`; only float lists → `F32List`; only text lists →
/// `StrList`; only integer lists → `U64List`; anything else (mixed text) → `Str`. An all-null column is `Str`.
pub fn infer_kind<'a>(cells: impl Iterator<Item = &'a Cell>) -> Kind {
    let mut guess = KindGuess::default();
    cells.for_each(|c| guess.add(c));
    guess.kind()
}

/// [`infer_kind`] a cell at a time: what the cells seen so far hold, and
/// the kind that holds them ([`KindGuess::kind`]), for a column whose
/// cells are not all kept.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KindGuess {
    bools: bool,
    ints: bool,
    negative: bool,
    uints: bool,
    big: bool,
    floats: bool,
    text: bool,
    float_lists: bool,
    text_lists: bool,
    int_lists: bool,
}

impl KindGuess {
    /// Takes one cell.
    pub fn add(&mut self, c: &Cell) {
        match c {
            Cell::Null => {}
            Cell::Bool(_) => self.bools = true,
            Cell::Int(x) => {
                self.ints = true;
                self.negative |= *x < 0;
            }
            Cell::UInt(x) => {
                self.uints = true;
                self.big |= i64::try_from(*x).is_err();
            }
            Cell::Float(_) => self.floats = true,
            Cell::Str(_) => self.text = true,
            Cell::Floats(_) => self.float_lists = true,
            Cell::Strs(_) => self.text_lists = true,
            Cell::UInts(_) => self.int_lists = true,
        }
    }

    /// The kind that holds every cell taken ([`infer_kind`]).
    pub fn kind(&self) -> Kind {
        let KindGuess {
            bools: b,
            ints: i,
            negative: neg,
            uints: u,
            big,
            floats: f,
            text: other,
            float_lists: lists,
            text_lists: str_lists,
            int_lists,
        } = *self;
        if lists || str_lists || int_lists {
            let kinds = [lists, str_lists, int_lists].iter().filter(|&&k| k).count();
            return if b || i || u || f || other || kinds > 1 {
                Kind::Str
            } else if lists {
                Kind::F32List
            } else if str_lists {
                Kind::StrList
            } else {
                Kind::U64List
            };
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

    /// Appends the rows of `other` (a table of the same name from another
    /// demo): the columns are the union of both, in first-seen order; a
    /// column one side lacks is null in that side's rows; a column whose
    /// kinds differ is converted as [`Column::append`] does.
    pub fn append(&mut self, other: Table) {
        let before = self.rows();
        let added = other.rows();
        for (name, column) in other.columns {
            match self.columns.iter_mut().find(|(n, _)| *n == name) {
                Some((_, mine)) => mine.append(column),
                None => {
                    let mut fresh = Column::new(column.kind());
                    fresh.push_nulls(before);
                    fresh.append(column);
                    self.columns.push((name, fresh));
                }
            }
        }
        for (_, c) in &mut self.columns {
            let missing = (before + added).saturating_sub(c.len());
            c.push_nulls(missing);
        }
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

    fn table(columns: Vec<(&str, Column)>) -> Table {
        Table {
            name: "t".into(),
            columns: columns
                .into_iter()
                .map(|(n, c)| (n.to_string(), c))
                .collect(),
        }
    }

    #[test]
    fn append_takes_the_union_of_columns() {
        let mut a = table(vec![
            ("tick", Column::I64(vec![Some(1), Some(2)])),
            ("x", Column::F32(vec![Some(0.5), None])),
        ]);
        let b = table(vec![
            ("y", Column::Str(vec![Some("b".into())])),
            ("tick", Column::I64(vec![Some(3)])),
        ]);
        a.append(b);
        assert_eq!(a.column_names(), ["tick", "x", "y"]);
        assert_eq!(a.rows(), 3);
        assert_eq!(
            a.column("tick"),
            Some(&Column::I64(vec![Some(1), Some(2), Some(3)]))
        );
        assert_eq!(
            a.column("x"),
            Some(&Column::F32(vec![Some(0.5), None, None]))
        );
        assert_eq!(
            a.column("y"),
            Some(&Column::Str(vec![None, None, Some("b".into())]))
        );
        // Appending to an empty table gives the other table.
        let mut empty = Table {
            name: "t".into(),
            columns: Vec::new(),
        };
        empty.append(a.clone());
        assert_eq!(empty, a);
    }

    #[test]
    fn append_converts_columns_whose_kinds_differ() {
        // An all-null side takes the other's kind.
        let mut a = table(vec![("h", Column::Str(vec![None, None]))]);
        a.append(table(vec![("h", Column::I64(vec![Some(7)]))]));
        assert_eq!(a.column("h"), Some(&Column::I64(vec![None, None, Some(7)])));
        let mut b = table(vec![("h", Column::U64(vec![Some(3)]))]);
        b.append(table(vec![("h", Column::Bool(vec![None]))]));
        assert_eq!(b.column("h"), Some(&Column::U64(vec![Some(3), None])));
        // Both with values: the kind that holds both.
        let mut c = table(vec![("v", Column::I64(vec![Some(-2)]))]);
        c.append(table(vec![("v", Column::F32(vec![Some(0.25)]))]));
        assert_eq!(
            c.column("v"),
            Some(&Column::F32(vec![Some(-2.0), Some(0.25)]))
        );
        let mut d = table(vec![("v", Column::I64(vec![Some(1)]))]);
        d.append(table(vec![("v", Column::Str(vec![Some("x".into())]))]));
        assert_eq!(
            d.column("v"),
            Some(&Column::Str(vec![Some("1".into()), Some("x".into())]))
        );
    }

    #[test]
    fn inference() {
        assert_eq!(infer_kind([Cell::Int(1), Cell::Null].iter()), Kind::I64);
        assert_eq!(infer_kind([Cell::UInt(u64::MAX)].iter()), Kind::U64);
        assert_eq!(
            infer_kind([Cell::Int(-1), Cell::Float(0.5)].iter()),
            Kind::F32
        );
        assert_eq!(infer_kind([Cell::Bool(true)].iter()), Kind::Bool);
        assert_eq!(infer_kind([Cell::Floats(vec![1.0])].iter()), Kind::F32List);
        assert_eq!(
            infer_kind([Cell::Floats(vec![1.0]), Cell::Str("a".into())].iter()),
            Kind::Str
        );
        assert_eq!(
            infer_kind([Cell::Strs(vec!["a".into()]), Cell::Null].iter()),
            Kind::StrList
        );
        assert_eq!(
            infer_kind([Cell::Strs(vec![]), Cell::Floats(vec![])].iter()),
            Kind::Str
        );
        // A list column converts a single value to a one-element list.
        assert_eq!(
            infer_kind([Cell::UInts(vec![1]), Cell::Null].iter()),
            Kind::U64List
        );
        assert_eq!(
            infer_kind([Cell::UInts(vec![1]), Cell::Strs(vec![])].iter()),
            Kind::Str
        );
        let mut ids = Column::new(Kind::U64List);
        ids.push(&Cell::UInts(vec![7, 8]));
        ids.push(&Cell::Null);
        assert_eq!(ids.cell(0), Cell::UInts(vec![7, 8]));
        assert_eq!(ids.cell(1), Cell::Null);
        assert_eq!(Cell::UInts(vec![7, 8]).to_string(), "[7,8]");
        let mut c = Column::new(Kind::StrList);
        c.push(&Cell::Str("x".into()));
        c.push(&Cell::Int(1));
        assert_eq!(c.cell(0), Cell::Strs(vec!["x".into()]));
        assert_eq!(c.cell(1), Cell::Null);
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
