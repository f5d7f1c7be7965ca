#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
use super::*;

fn v(i: i32) -> Value {
    Value::I32(i)
}

/// Send tables of one serializer `Root`: `fixed` (uint32[3]), `a`
/// (uint32), `arr` (a variable array of uint32).
fn root_tables() -> SendTables {
    use source2_demo_protobufs::{
        CSvcMsgFlattenedSerializer, ProtoFlattenedSerializerFieldT, ProtoFlattenedSerializerT,
    };
    let symbols = [
        "Root",
        "uint32[3]",
        "fixed",
        "uint32",
        "a",
        "CNetworkUtlVectorBase< uint32 >",
        "arr",
    ];
    let field = |ty: i32, name: i32| ProtoFlattenedSerializerFieldT {
        var_type_sym: Some(ty),
        var_name_sym: Some(name),
        ..Default::default()
    };
    let msg = CSvcMsgFlattenedSerializer {
        serializers: vec![ProtoFlattenedSerializerT {
            serializer_name_sym: Some(0),
            serializer_version: Some(0),
            fields_index: vec![0, 1, 2],
        }],
        symbols: symbols.iter().map(|s| s.to_string()).collect(),
        fields: vec![field(1, 2), field(3, 4), field(5, 6)],
        ..Default::default()
    };
    SendTables::build(&msg).unwrap()
}

/// Field data: the ops (by number), then the values as varuint32s.
fn field_data(ops: &[usize], values: &[u32]) -> Vec<u8> {
    let codes = crate::fieldpath::codes();
    let mut w = gamewire_bits::BitWriter::new();
    for &op in ops.iter().chain(&[39]) {
        let (bits, len) = codes[op];
        w.write_bits(u64::from(bits), len).unwrap();
    }
    for &v in values {
        w.write_varuint32(v);
    }
    w.finish()
}

fn apply_data(ops: &[usize], values: &[u32]) -> Result<FieldState, String> {
    let tables = root_tables();
    let data = field_data(ops, values);
    let mut state = FieldState::default();
    let mut paths = Paths::default();
    read_fields(
        &tables,
        0,
        &mut state,
        &mut BitReader::new(&data),
        &mut paths,
        1.0 / 64.0,
    )
    .map_err(|e| format!("{} {}", e.path.unwrap_or_default(), e.error))?;
    Ok(state)
}

// Ops: 7 PushOneLeftDeltaOneRightZero ([-1] -> [0 0]), 0 PlusOne,
// 29 PopAllButOnePlusOne, 5 PushOneLeftDeltaZeroRightZero.
const OPS: [usize; 7] = [7, 0, 0, 29, 0, 5, 0];

/// `skip_fields` over the same data: the bits consumed and the error,
/// with the state it leaves.
fn skip_data(ops: &[usize], values: &[u32]) -> Result<(FieldState, u64), String> {
    let tables = root_tables();
    let data = field_data(ops, values);
    let mut state = FieldState::default();
    let mut paths = Paths::default();
    let mut r = BitReader::new(&data);
    skip_fields(&tables, 0, &mut state, &mut r, &mut paths, 1.0 / 64.0)
        .map_err(|e| format!("{} {}", e.path.unwrap_or_default(), e.error))?;
    Ok((state, r.position()))
}

#[test]
fn skipped_fields_read_the_same_bits_and_keep_only_array_lengths() {
    let values = [20, 21, 22, 7, 2, 10, 11];
    let (skipped, read_to) = skip_data(&OPS, &values).unwrap();
    // read_fields on the same data ends at the same bit.
    let tables = root_tables();
    let data = field_data(&OPS, &values);
    let mut r = BitReader::new(&data);
    read_fields(
        &tables,
        0,
        &mut FieldState::default(),
        &mut r,
        &mut Paths::default(),
        1.0 / 64.0,
    )
    .unwrap();
    assert_eq!(read_to, r.position());
    // Only `arr`'s length is kept.
    let mut all = Vec::new();
    skipped.collect_all(&mut all);
    assert_eq!(all.len(), 1);
    assert_eq!(skipped.get(&[2]).cloned(), Some(Value::U32(2)));
}

#[test]
fn skipped_fields_out_of_range_are_the_same_errors() {
    // A fourth element of the fixed array; a third element of `arr`
    // (length 2, kept while skipping); a field past the serializer's.
    let mut ops = OPS.to_vec();
    ops.push(0);
    for (ops, values, want) in [
        (
            vec![7, 0, 0, 0],
            vec![1, 2, 3, 4],
            ["[0 3]", "fixed array fixed"],
        ),
        (
            ops,
            vec![20, 21, 22, 7, 2, 10, 11, 12],
            ["[2 2]", "variable array arr"],
        ),
        (
            vec![7, 0, 0, 29, 0, 0],
            vec![1, 2, 3, 4, 2, 9],
            ["[3]", "outside serializer Root"],
        ),
    ] {
        let e = skip_data(&ops, &values).unwrap_err();
        assert!(e.contains(want[0]) && e.contains(want[1]), "{e}");
        // The same path and reason as when the fields are decoded.
        let full = apply_data(&ops, &values).unwrap_err();
        assert!(full.contains(want[0]) && full.contains(want[1]), "{full}");
    }
    // Data that ends inside a value is an error, not a panic.
    let data = field_data(&OPS, &[20]);
    let tables = root_tables();
    let e = skip_fields(
        &tables,
        0,
        &mut FieldState::default(),
        &mut BitReader::new(&data),
        &mut Paths::default(),
        1.0 / 64.0,
    )
    .unwrap_err();
    assert!(matches!(e.error, FieldError::Value(_)), "{}", e.error);
}

#[test]
fn a_value_cut_short_leaves_the_state_as_it_was() {
    // The values are decoded in place: a value that ends with the data
    // must neither leave a new value behind nor change an old one.
    let tables = root_tables();
    let read = |state: &mut FieldState, values: &[u32]| {
        let data = field_data(&OPS, values);
        read_fields(
            &tables,
            0,
            state,
            &mut BitReader::new(&data),
            &mut Paths::default(),
            1.0 / 64.0,
        )
    };
    let all = |state: &FieldState| {
        let mut all = Vec::new();
        state.collect_all(&mut all);
        all.into_iter()
            .map(|(k, v)| (k, v.clone()))
            .collect::<Vec<_>>()
    };
    // A new state: the first value is whole, the second is cut.
    let mut state = FieldState::default();
    let e = read(&mut state, &[20]).unwrap_err();
    assert!(matches!(e.error, FieldError::Value(_)), "{}", e.error);
    assert_eq!(state.get(&[0, 0]).cloned(), Some(Value::U32(20)));
    assert_eq!(state.get(&[0, 1]), None);
    assert_eq!(state.values.len(), 1);
    // A state with every value: the same paths again, cut after three.
    let mut state = FieldState::default();
    read(&mut state, &[20, 21, 22, 7, 2, 10, 11]).unwrap();
    let before = all(&state);
    let count = state.values.len();
    let e = read(&mut state, &[30, 31, 32]).unwrap_err();
    assert!(matches!(e.error, FieldError::Value(_)), "{}", e.error);
    assert_eq!(state.values.len(), count);
    let after = all(&state);
    assert_eq!(after.len(), before.len());
    for ((k, v), (k0, v0)) in after.iter().zip(&before) {
        assert_eq!(k, k0);
        let want = match key_to_path(*k).as_slice() {
            [0, 0] => Value::U32(30),
            [0, 1] => Value::U32(31),
            [0, 2] => Value::U32(32),
            _ => v0.clone(),
        };
        assert_eq!(v, &want, "{}", key_to_path(*k));
    }
}

#[test]
fn sibling_paths_decode_as_walked_ones() {
    // [0 0] [0 1] [0 2] [1] [2] (arr's length) [2 0] [2 1]: the
    // siblings take the shortcut, the length and the first element of
    // each node the walk.
    let s = apply_data(&OPS, &[20, 21, 22, 7, 2, 10, 11]).unwrap();
    let u = |x: u32| Some(Value::U32(x));
    assert_eq!(s.get(&[0, 0]).cloned(), u(20));
    assert_eq!(s.get(&[0, 2]).cloned(), u(22));
    assert_eq!(s.get(&[1]).cloned(), u(7));
    assert_eq!(s.get(&[2]).cloned(), u(2));
    assert_eq!(s.get(&[2, 0]).cloned(), u(10));
    assert_eq!(s.get(&[2, 1]).cloned(), u(11));
    let mut all = Vec::new();
    s.collect_all(&mut all);
    assert_eq!(all.len(), 7);
}

#[test]
fn sibling_paths_out_of_range_are_errors() {
    // A fourth element of the fixed array, by a sibling step.
    let e = apply_data(&[7, 0, 0, 0], &[1, 2, 3, 4]).unwrap_err();
    assert!(
        e.contains("[0 3]") && e.contains("fixed array fixed"),
        "{e}"
    );
    // A third element of `arr` whose length is 2, by a sibling step.
    let mut ops = OPS.to_vec();
    ops.push(0);
    let e = apply_data(&ops, &[20, 21, 22, 7, 2, 10, 11, 12]).unwrap_err();
    assert!(
        e.contains("[2 2]") && e.contains("variable array arr"),
        "{e}"
    );
    // A field index past the serializer's, by a sibling step.
    let e = apply_data(&[7, 0, 0, 29, 0, 0], &[1, 2, 3, 4, 2, 9]).unwrap_err();
    assert!(
        e.contains("[3]") && e.contains("outside serializer Root"),
        "{e}"
    );
}

#[test]
fn set_get_grow_and_relocate() {
    let mut s = FieldState::default();
    s.set(&[0], v(1)).unwrap();
    s.set(&[2, 1], v(21)).unwrap();
    // The root is not the last node any more: growing it relocates it.
    s.set(&[9], v(9)).unwrap();
    s.set(&[2, 7], v(27)).unwrap();
    s.set(&[2, 7, 3], v(273)).unwrap();
    s.set(&[0], v(100)).unwrap();
    assert_eq!(s.get(&[0]), Some(&v(100)));
    assert_eq!(s.get(&[2, 1]), Some(&v(21)));
    assert_eq!(s.get(&[2, 7]), Some(&v(27)));
    assert_eq!(s.get(&[2, 7, 3]), Some(&v(273)));
    assert_eq!(s.get(&[9]), Some(&v(9)));
    assert_eq!(s.get(&[1]), None);
    assert_eq!(s.get(&[2, 8]), None);
    assert_eq!(s.get(&[2, 1, 0]), None);
    assert_eq!(s.get(&[-1]), None);
    assert!(s.set(&[], v(0)).is_err());
    assert!(s
        .set(&[crate::serializer::MAX_ARRAY_LEN as i32], v(0))
        .is_err());
}

#[test]
fn the_last_node_grows_in_place_to_its_exact_length() {
    // The root, then a child node, each the last node of the arena while
    // its fields come in rising order, with gaps: each grows in place to
    // the index written, no slot more, nothing moved.
    let mut s = FieldState::default();
    s.slots.reserve(256);
    for i in (0..40).step_by(3) {
        s.set(&[i], v(i)).unwrap();
    }
    // A header slot, then the root's 40 slots.
    assert_eq!((s.root_start, s.root_len), (1, 40));
    assert_eq!(s.slots.len(), 41);
    for i in 0..20 {
        s.set(&[39, i * 2], v(1000 + i)).unwrap();
    }
    // The child node's header, then its 39 slots.
    assert_eq!(s.slots.len(), 41 + 1 + 39);
    assert_eq!(s.node(Owner::Slot(40)), (42, 39));
    // Past the arena's room: the arena grows, the node still in place,
    // with the same values.
    for i in 0..200 {
        s.set(&[39, 38 + i], v(2000 + i)).unwrap();
    }
    for i in (0..40).step_by(3) {
        assert_eq!(s.get(&[i]), Some(&v(i)), "{i}");
        assert_eq!(s.get(&[i + 1]), None, "{i}");
    }
    for i in 0..19 {
        assert_eq!(s.get(&[39, i * 2]), Some(&v(1000 + i)), "{i}");
        assert_eq!(s.get(&[39, i * 2 + 1]), None, "{i}");
    }
    for i in 0..200 {
        assert_eq!(s.get(&[39, 38 + i]), Some(&v(2000 + i)), "{i}");
    }
}

#[test]
fn sized_nodes_match_unsized() {
    let paths: &[&[i32]] = &[&[3], &[5, 0], &[5, 2], &[1], &[5, 1, 4], &[7]];
    let mut a = FieldState::default();
    let mut b = FieldState::default();
    let sizes = [8, 3, 6, 0, 0, 0, 0];
    for (i, p) in paths.iter().enumerate() {
        a.set(p, v(i as i32)).unwrap();
        b.set_sized(p, v(i as i32), &sizes).unwrap();
    }
    for p in paths {
        assert_eq!(a.get(p), b.get(p));
    }
    let mut out_a = Vec::new();
    let mut out_b = Vec::new();
    a.collect_all(&mut out_a);
    b.collect_all(&mut out_b);
    assert_eq!(out_a, out_b);
    assert_eq!(out_a.len(), paths.len());
}

#[test]
fn layered_state_reads_through_to_the_baseline() {
    let mut base = FieldState::default();
    base.set(&[0], v(1)).unwrap();
    base.set(&[4, 2], v(42)).unwrap();
    base.set(&[6], v(6)).unwrap();
    let base = Arc::new(base);
    let mut e = FieldState::layered(Arc::clone(&base));
    e.set(&[4, 2], v(99)).unwrap();
    e.set(&[5], v(5)).unwrap();
    assert_eq!(e.get(&[0]), Some(&v(1)));
    assert_eq!(e.get(&[4, 2]), Some(&v(99)));
    assert_eq!(e.get(&[5]), Some(&v(5)));
    assert_eq!(e.get(&[6]), Some(&v(6)));
    // The baseline is untouched.
    assert_eq!(base.get(&[4, 2]), Some(&v(42)));
    // Every value once, own values hiding the baseline's, in path order.
    let mut out = Vec::new();
    e.collect_all(&mut out);
    let got: Vec<(Vec<i32>, Value)> = out
        .iter()
        .map(|(k, val)| (key_to_path(*k).as_slice().to_vec(), (*val).clone()))
        .collect();
    assert_eq!(
        got,
        vec![
            (vec![0], v(1)),
            (vec![4, 2], v(99)),
            (vec![5], v(5)),
            (vec![6], v(6)),
        ]
    );
}

proptest::proptest! {
    /// The flat tree behaves like a map from paths to values, with and
    /// without a baseline underneath.
    #[test]
    fn behaves_like_a_map(
        base_ops in proptest::collection::vec(
            (proptest::collection::vec(0i32..24, 1..4), -5i32..5), 0..40),
        ops in proptest::collection::vec(
            (proptest::collection::vec(0i32..24, 1..4), -5i32..5), 0..80),
    ) {
        use std::collections::BTreeMap;
        let mut base = FieldState::default();
        let mut model: BTreeMap<Vec<i32>, i32> = BTreeMap::new();
        for (p, x) in &base_ops {
            base.set(p, v(*x)).unwrap();
            model.insert(p.clone(), *x);
        }
        let mut s = FieldState::layered(Arc::new(base));
        for (p, x) in &ops {
            s.set(p, v(*x)).unwrap();
            model.insert(p.clone(), *x);
        }
        for (p, x) in &model {
            proptest::prop_assert_eq!(s.get(p), Some(&v(*x)));
        }
        let mut out = Vec::new();
        s.collect_all(&mut out);
        let got: Vec<(Vec<i32>, Value)> = out
            .iter()
            .map(|(k, val)| (key_to_path(*k).as_slice().to_vec(), (*val).clone()))
            .collect();
        let want: Vec<(Vec<i32>, Value)> =
            model.iter().map(|(p, x)| (p.clone(), v(*x))).collect();
        proptest::prop_assert_eq!(got, want);
    }
}
