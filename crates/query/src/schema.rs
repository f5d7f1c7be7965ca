//! The send tables of a demo as a tree: each serializer's fields with
//! their type, model (value, fixed or variable array, fixed, polymorphic
//! or variable table) and decoder, nested tables indented beneath. This is
//! what `gamewire schema` prints.

use std::io::Write;

use gamewire_source2::serializer::{FieldModel, SendTables};
use gamewire_source2::{DemoState, Interests, Visitor};

use crate::prop_checks::closest;

/// A visitor that asks for the send tables only: the parse reads the
/// signon and stops.
#[derive(Debug, Clone, Copy, Default)]
pub struct SendTablesOnly;

impl Visitor for SendTablesOnly {
    fn interests(&self) -> Interests {
        Interests {
            send_tables: true,
            ..Interests::NONE
        }
    }
}

/// Writes the fields of serializer `ser` at indentation `depth` (two
/// spaces a level), then each nested table's fields beneath its field.
/// `stack` holds the serializers being written (start with an empty one):
/// a serializer already on it, or a depth over 12, is not entered again.
pub fn write_serializer(
    out: &mut impl Write,
    tables: &SendTables,
    ser: u32,
    depth: usize,
    stack: &mut Vec<u32>,
) -> std::io::Result<()> {
    let Some(s) = tables.serializer(ser) else {
        return Ok(());
    };
    if stack.contains(&ser) || depth > 12 {
        return Ok(());
    }
    stack.push(ser);
    let pad = "  ".repeat(depth);
    for (i, &fi) in s.fields.iter().enumerate() {
        let Some(f) = tables.fields.get(fi as usize) else {
            continue;
        };
        let (model, decoder, child) = match &f.model {
            FieldModel::Value(d) => ("value", d.describe(), None),
            FieldModel::FixedArray { len, element } => (
                "fixed_array",
                format!("{len} x {}", element.describe()),
                None,
            ),
            FieldModel::VariableArray(d) => ("variable_array", d.describe(), None),
            FieldModel::FixedTable { serializer, poly } => (
                if poly.is_empty() {
                    "fixed_table"
                } else {
                    "polymorphic_table"
                },
                String::new(),
                Some(*serializer),
            ),
            FieldModel::VariableTable(s) => ("variable_table", String::new(), Some(*s)),
        };
        let fallback = if f.fallback { " FALLBACK" } else { "" };
        writeln!(
            out,
            "{pad}[{i}] {} : {} [{model}] {decoder}{fallback}",
            tables.symbol(f.name),
            tables.symbol(f.var_type)
        )?;
        if let Some(c) = child {
            write_serializer(out, tables, c, depth + 1, stack)?;
        }
    }
    stack.pop();
    Ok(())
}

/// The class names of the demo closest to `want` (for an error about a
/// class the demo does not have).
pub fn closest_classes(state: &DemoState, want: &str) -> Vec<String> {
    let names: Vec<&str> = state
        .classes
        .iter()
        .map(|c| c.name.as_str())
        .filter(|n| !n.is_empty())
        .collect();
    closest(want, &names)
}
