//! Snapshots: the game state the server sends every tick.
//!
//! # Facts (teeworlds 0.7.5 `src/engine/shared/snapshot.cpp`,
//! `src/engine/client/client.cpp`; libtw2 `doc/snapshot.md`)
//!
//! * A snapshot is a list of items; an item has a key `type << 16 | id` and a
//!   list of 32-bit ints. Types go up to `0x7fff`, ids up to `0xffff`.
//! * The **CRC** is the wrapping sum of every data int of every item (keys
//!   are not summed).
//! * The server sends a **delta** against an older snapshot the client
//!   acknowledged (or against the empty snapshot). The delta is a list of
//!   ints, each packed as a [`crate::int`] variable int:
//!   `num_deleted, num_updated, num_temp`, then `num_deleted` keys, then per
//!   updated item `type, id, [size in ints if the type has no fixed size],
//!   data`. For an item present in the old snapshot the data are
//!   differences to add (wrapping); otherwise they are the values.
//!   Old items not deleted are kept.
//! * Messages: `snap` (id 6: tick, tick - delta tick, part count, part, crc,
//!   size, bytes), `snap_empty` (id 7: tick, tick - delta tick; an empty
//!   delta, no CRC check) and `snap_single` (id 8: tick, tick - delta tick,
//!   crc, size, bytes). Note the second field is the *distance* to the delta
//!   tick; a distance that yields a negative delta tick means "against the
//!   empty snapshot".
//! * Parts carry at most 900 bytes (`MAX_SNAPSHOT_PACKSIZE`), at most 64
//!   parts (`CSnapshot::MAX_PARTS`); a whole snapshot is at most 64 KiB and
//!   1024 items.
//!
//! # Bounds
//! Reassembly keeps one tick's parts (at most 64 x 900 bytes). The store
//! keeps at most [`MAX_STORED`] snapshots of at most 64 KiB each, and drops
//! snapshots older than the delta tick of the last applied delta, like the
//! client does.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use crate::int::{decompress_ints, IntError};
use crate::msg::{SnapObject, ITEM_SIZES};

/// Largest snapshot type id (`CSnapshot::MAX_TYPE`).
pub const MAX_TYPE: i32 = 0x7fff;
/// Largest snapshot item id (`CSnapshot::MAX_ID`).
pub const MAX_ID: i32 = 0xffff;
/// Most parts of one snapshot (`CSnapshot::MAX_PARTS`).
pub const MAX_PARTS: i32 = 64;
/// Most bytes of one snapshot (`CSnapshot::MAX_SIZE`).
pub const MAX_SIZE: usize = 64 * 1024;
/// Most items in one snapshot (`CSnapshotBuilder::MAX_ITEMS`).
pub const MAX_ITEMS: usize = 1024;
/// Most bytes in one part (`MAX_SNAPSHOT_PACKSIZE`).
pub const MAX_PACK_SIZE: usize = 900;
/// Most snapshots kept for deltas.
pub const MAX_STORED: usize = 100;

/// One snapshot item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Item {
    /// Type id.
    pub type_id: u16,
    /// Item id.
    pub id: u16,
    /// The ints.
    pub data: Vec<i32>,
}

impl Item {
    /// `type << 16 | id`.
    pub fn key(&self) -> u32 {
        (u32::from(self.type_id) << 16) | u32::from(self.id)
    }

    /// The typed object, if the type is a known 0.7.5 object of the right size.
    pub fn object(&self) -> Option<SnapObject> {
        SnapObject::from_ints(self.type_id, &self.data)
    }
}

/// A snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Snapshot {
    items: Vec<Item>,
    #[serde(skip)]
    index: HashMap<u32, usize>,
}

/// Error building or applying a snapshot.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SnapshotError {
    /// The packed ints did not decode.
    #[error("snapshot delta ints: {0}")]
    Ints(#[from] IntError),
    /// The delta ended early.
    #[error("the snapshot delta ends at int {at} while reading {what}")]
    Truncated {
        /// What was being read.
        what: &'static str,
        /// Int offset.
        at: usize,
    },
    /// A count or size was negative or too big.
    #[error("snapshot delta {what} is {value}, outside 0..={max}")]
    BadCount {
        /// What.
        what: &'static str,
        /// Value.
        value: i32,
        /// Limit.
        max: i64,
    },
    /// An item type or id out of range.
    #[error("snapshot item type {type_id} / id {id} is out of range (int {at})")]
    BadKey {
        /// Type.
        type_id: i32,
        /// Id.
        id: i32,
        /// Int offset.
        at: usize,
    },
    /// Too many items or bytes.
    #[error("the snapshot would exceed {MAX_ITEMS} items or {MAX_SIZE} bytes")]
    TooBig,
    /// The delta tick is not stored.
    #[error("snapshot for tick {tick} refers to delta tick {delta_tick}, which is not stored")]
    MissingDelta {
        /// The new tick.
        tick: i32,
        /// The missing tick.
        delta_tick: i32,
    },
    /// The CRC did not match.
    #[error("snapshot for tick {tick} has CRC {actual:#x}, the server said {expected:#x}")]
    Crc {
        /// Tick.
        tick: i32,
        /// From the message.
        expected: i32,
        /// Computed.
        actual: i32,
    },
    /// A bad part header.
    #[error("snapshot part {part} of {num_parts} with {size} bytes is invalid")]
    BadPart {
        /// Part.
        part: i32,
        /// Parts.
        num_parts: i32,
        /// Bytes.
        size: usize,
    },
}

impl Snapshot {
    /// An empty snapshot.
    pub fn new() -> Self {
        Snapshot::default()
    }

    /// The items in order.
    pub fn items(&self) -> &[Item] {
        &self.items
    }

    /// Number of items.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True without items.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The item with this type and id.
    pub fn get(&self, type_id: u16, id: u16) -> Option<&Item> {
        let key = (u32::from(type_id) << 16) | u32::from(id);
        self.index.get(&key).and_then(|&i| self.items.get(i))
    }

    /// Size in bytes as the reference lays it out (offsets, keys, data).
    pub fn byte_size(&self) -> usize {
        self.items.iter().map(|i| 8 + i.data.len() * 4).sum()
    }

    /// Adds an item, or replaces the data of the item with the same key.
    pub fn insert(&mut self, type_id: u16, id: u16, data: Vec<i32>) -> Result<(), SnapshotError> {
        let key = (u32::from(type_id) << 16) | u32::from(id);
        if let Some(&i) = self.index.get(&key) {
            if let Some(item) = self.items.get_mut(i) {
                item.data = data;
            }
            return Ok(());
        }
        if self.items.len() >= MAX_ITEMS || self.byte_size() + 8 + data.len() * 4 > MAX_SIZE {
            return Err(SnapshotError::TooBig);
        }
        self.index.insert(key, self.items.len());
        self.items.push(Item { type_id, id, data });
        Ok(())
    }

    /// The CRC: wrapping sum of all data ints.
    pub fn crc(&self) -> i32 {
        self.items
            .iter()
            .flat_map(|i| i.data.iter())
            .fold(0i32, |a, &b| a.wrapping_add(b))
    }

    /// Applies a delta (already unpacked to ints) to `self`, producing the new
    /// snapshot. `sizes` gives the fixed item size in ints per type (0: sent
    /// explicitly).
    pub fn apply_delta(&self, delta: &[i32], sizes: &[usize]) -> Result<Snapshot, SnapshotError> {
        let mut pos = 0usize;
        let mut next = |what: &'static str| -> Result<i32, SnapshotError> {
            let v = delta
                .get(pos)
                .copied()
                .ok_or(SnapshotError::Truncated { what, at: pos })?;
            pos += 1;
            Ok(v)
        };
        let num_deleted = next("the deleted item count")?;
        let num_updated = next("the updated item count")?;
        let _num_temp = next("the temporary item count")?;
        let left = delta.len().saturating_sub(3) as i64;
        for (what, v) in [
            ("deleted item count", num_deleted),
            ("updated item count", num_updated),
        ] {
            if v < 0 || i64::from(v) > left {
                return Err(SnapshotError::BadCount {
                    what,
                    value: v,
                    max: left,
                });
            }
        }
        let nd = num_deleted as usize;
        let deleted = delta.get(3..3 + nd).ok_or(SnapshotError::Truncated {
            what: "deleted keys",
            at: 3,
        })?;
        let mut out = Snapshot::new();
        for item in &self.items {
            if !deleted.iter().any(|&k| k as u32 == item.key()) {
                out.insert(item.type_id, item.id, item.data.clone())?;
            }
        }
        let mut pos = 3 + nd;
        for _ in 0..num_updated {
            let at = pos;
            let type_id = *delta.get(pos).ok_or(SnapshotError::Truncated {
                what: "an item type",
                at,
            })?;
            let id = *delta.get(pos + 1).ok_or(SnapshotError::Truncated {
                what: "an item id",
                at,
            })?;
            pos += 2;
            if !(0..=MAX_TYPE).contains(&type_id) || !(0..=MAX_ID).contains(&id) {
                return Err(SnapshotError::BadKey { type_id, id, at });
            }
            let fixed = sizes.get(type_id as usize).copied().unwrap_or(0);
            let size = if fixed != 0 {
                fixed
            } else {
                let s = *delta.get(pos).ok_or(SnapshotError::Truncated {
                    what: "an item size",
                    at: pos,
                })?;
                pos += 1;
                if s < 0 || s as usize > MAX_SIZE / 4 {
                    return Err(SnapshotError::BadCount {
                        what: "item size",
                        value: s,
                        max: (MAX_SIZE / 4) as i64,
                    });
                }
                s as usize
            };
            let data = delta.get(pos..pos + size).ok_or(SnapshotError::Truncated {
                what: "item data",
                at: pos,
            })?;
            pos += size;
            let (t, i) = (type_id as u16, id as u16);
            let new_data: Vec<i32> = match self.get(t, i) {
                Some(old) if old.data.len() == size => old
                    .data
                    .iter()
                    .zip(data)
                    .map(|(a, b)| a.wrapping_add(*b))
                    .collect(),
                Some(old) => {
                    // A size change: the reference adds over the new size,
                    // reading past the old item; we treat missing old ints as 0.
                    (0..size)
                        .map(|k| old.data.get(k).copied().unwrap_or(0).wrapping_add(data[k]))
                        .collect()
                }
                None => data.to_vec(),
            };
            out.insert(t, i, new_data)?;
        }
        Ok(out)
    }

    /// Creates the delta from `self` to `to` (ints, before packing), the way
    /// the server does: deleted keys, then changed or new items.
    pub fn create_delta(&self, to: &Snapshot, sizes: &[usize]) -> Vec<i32> {
        let deleted: Vec<i32> = self
            .items
            .iter()
            .filter(|i| to.get(i.type_id, i.id).is_none())
            .map(|i| i.key() as i32)
            .collect();
        let mut body = Vec::new();
        let mut updated = 0;
        for item in &to.items {
            let old = self.get(item.type_id, item.id);
            let diff: Vec<i32> = match old {
                Some(o) => item
                    .data
                    .iter()
                    .enumerate()
                    .map(|(k, n)| n.wrapping_sub(o.data.get(k).copied().unwrap_or(0)))
                    .collect(),
                None => item.data.clone(),
            };
            if old.is_some() && diff.iter().all(|&d| d == 0) {
                continue;
            }
            updated += 1;
            body.push(i32::from(item.type_id));
            body.push(i32::from(item.id));
            if sizes.get(usize::from(item.type_id)).copied().unwrap_or(0) == 0 {
                body.push(item.data.len() as i32);
            }
            body.extend(diff);
        }
        let mut out = vec![deleted.len() as i32, updated, 0];
        out.extend(deleted);
        out.extend(body);
        out
    }
}

/// The 0.7.5 fixed item sizes in ints, indexed by type id.
pub fn item_sizes() -> &'static [usize] {
    &ITEM_SIZES
}

/// Item sizes as DDNet 16.4 registers them for 0.7 clients ("sixup"): its
/// 0.7 object list predates the race objects, so `player_info_race` (23)
/// and `game_data_race` (24) are sent with an explicit size. (Found by
/// parsing the corpus capture `ddnet16.4_sixup_capture.jsonl`: only this
/// table consumes the deltas exactly and matches the server's CRCs.)
pub fn item_sizes_ddnet_sixup() -> &'static [usize] {
    static SIZES: [usize; 25] = {
        let mut s = ITEM_SIZES;
        s[23] = 0;
        s[24] = 0;
        s
    };
    &SIZES
}

/// Which table of fixed item sizes the peer uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SizeProfile {
    /// Teeworlds 0.7.5.
    #[default]
    Vanilla,
    /// DDNet's 0.7 mode.
    DdnetSixup,
}

impl SizeProfile {
    /// The size table.
    pub fn sizes(self) -> &'static [usize] {
        match self {
            SizeProfile::Vanilla => item_sizes(),
            SizeProfile::DdnetSixup => item_sizes_ddnet_sixup(),
        }
    }

    fn other(self) -> Self {
        match self {
            SizeProfile::Vanilla => SizeProfile::DdnetSixup,
            SizeProfile::DdnetSixup => SizeProfile::Vanilla,
        }
    }
}

/// A snapshot message's header, as needed for assembly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SnapHeader {
    /// The tick.
    pub tick: i32,
    /// `tick - delta_tick` as sent.
    pub delta_distance: i32,
    /// Part count (1 for single/empty).
    pub num_parts: i32,
    /// This part.
    pub part: i32,
    /// The CRC (None for snap_empty).
    pub crc: Option<i32>,
}

/// A fully received, applied and checked snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Received {
    /// The tick.
    pub tick: i32,
    /// The delta tick (-1: against the empty snapshot).
    pub delta_tick: i32,
    /// The CRC matched (true for snap_empty, which has none).
    pub crc_ok: bool,
    /// The snapshot.
    pub snapshot: Snapshot,
}

/// Reassembles parts, applies deltas against stored snapshots and checks
/// CRCs.
#[derive(Debug, Clone, Default)]
pub struct SnapshotReceiver {
    store: BTreeMap<i32, Snapshot>,
    cur_tick: Option<i32>,
    parts: Vec<Option<Vec<u8>>>,
    /// The size table in use; switched when only the other one yields a
    /// matching CRC.
    pub profile: SizeProfile,
    /// Snapshots completed.
    pub completed: u64,
    /// Snapshots whose CRC matched.
    pub crc_ok: u64,
}

impl SnapshotReceiver {
    /// An empty receiver.
    pub fn new() -> Self {
        SnapshotReceiver::default()
    }

    /// The newest stored snapshot.
    pub fn latest(&self) -> Option<(i32, &Snapshot)> {
        self.store.iter().next_back().map(|(t, s)| (*t, s))
    }

    /// Forgets everything (map change).
    pub fn reset(&mut self) {
        self.store.clear();
        self.cur_tick = None;
        self.parts.clear();
    }

    /// Feeds one snapshot message part. Returns the snapshot once all parts of
    /// its tick are in. A CRC mismatch is returned as an error, and the
    /// snapshot is not stored.
    pub fn feed(&mut self, h: SnapHeader, data: &[u8]) -> Result<Option<Received>, SnapshotError> {
        if h.num_parts < 1
            || h.num_parts > MAX_PARTS
            || h.part < 0
            || h.part >= h.num_parts
            || data.len() > MAX_PACK_SIZE
        {
            return Err(SnapshotError::BadPart {
                part: h.part,
                num_parts: h.num_parts,
                size: data.len(),
            });
        }
        if self.cur_tick != Some(h.tick) || self.parts.len() != h.num_parts as usize {
            self.cur_tick = Some(h.tick);
            self.parts = vec![None; h.num_parts as usize];
        }
        if let Some(slot) = self.parts.get_mut(h.part as usize) {
            *slot = Some(data.to_vec());
        }
        if self.parts.iter().any(Option::is_none) {
            return Ok(None);
        }
        let whole: Vec<u8> = self.parts.iter().flatten().flatten().copied().collect();
        self.parts.clear();
        self.cur_tick = None;
        let delta_tick = h.tick.wrapping_sub(h.delta_distance);
        let empty = Snapshot::new();
        let base = if delta_tick < 0 {
            &empty
        } else {
            self.store
                .get(&delta_tick)
                .ok_or(SnapshotError::MissingDelta {
                    tick: h.tick,
                    delta_tick,
                })?
        };
        let ints = if whole.is_empty() {
            vec![0, 0, 0]
        } else {
            decompress_ints(&whole, MAX_SIZE / 4)?
        };
        self.completed += 1;
        let check = |snap: &Snapshot| -> Result<(), SnapshotError> {
            match h.crc {
                Some(expected) if snap.crc() != expected => Err(SnapshotError::Crc {
                    tick: h.tick,
                    expected,
                    actual: snap.crc(),
                }),
                _ => Ok(()),
            }
        };
        let first = base
            .apply_delta(&ints, self.profile.sizes())
            .and_then(|s| check(&s).map(|()| s));
        let snap = match first {
            Ok(s) => s,
            Err(e) => {
                // The other size table may fit (DDNet's 0.7 mode); only a
                // CRC match makes us switch.
                let other = self.profile.other();
                match base.apply_delta(&ints, other.sizes()) {
                    Ok(s) if h.crc.is_some() && check(&s).is_ok() => {
                        self.profile = other;
                        s
                    }
                    _ => return Err(e),
                }
            }
        };
        let crc_ok = true;
        if crc_ok {
            self.crc_ok += 1;
        }
        // Drop what the server will not use again, then bound the store.
        if delta_tick >= 0 {
            self.store.retain(|&t, _| t >= delta_tick);
        }
        self.store.insert(h.tick, snap.clone());
        while self.store.len() > MAX_STORED {
            self.store.pop_first();
        }
        Ok(Some(Received {
            tick: h.tick,
            delta_tick,
            crc_ok,
            snapshot: snap,
        }))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::int::compress_ints;
    use proptest::prelude::*;

    fn snap(items: &[(u16, u16, Vec<i32>)]) -> Snapshot {
        let mut s = Snapshot::new();
        for (t, i, d) in items {
            s.insert(*t, *i, d.clone()).unwrap();
        }
        s
    }

    #[test]
    fn delta_roundtrip_with_fixed_and_free_sizes() {
        let a = snap(&[
            (4, 0, vec![1, 2, 3]),
            (11, 1, vec![0, 5, 0]),
            (30, 2, vec![9]),
        ]);
        let b = snap(&[
            (4, 0, vec![1, 2, 4]),
            (30, 2, vec![9, 9]),
            (5, 7, vec![1, 1, 0]),
        ]);
        let d = a.create_delta(&b, item_sizes());
        let c = a.apply_delta(&d, item_sizes()).unwrap();
        assert_eq!(c.crc(), b.crc());
        for it in b.items() {
            assert_eq!(c.get(it.type_id, it.id).unwrap().data, it.data);
        }
        assert!(c.get(11, 1).is_none());
    }

    #[test]
    fn receiver_parts_and_crc() {
        let a = snap(&[(4, 0, vec![1, 2, 3])]);
        let d = compress_ints(&Snapshot::new().create_delta(&a, item_sizes()));
        let (p0, p1) = d.split_at(d.len() / 2);
        let mut r = SnapshotReceiver::new();
        let h = |part| SnapHeader {
            tick: 10,
            delta_distance: 11,
            num_parts: 2,
            part,
            crc: Some(6),
        };
        assert!(r.feed(h(1), p1).unwrap().is_none());
        let got = r.feed(h(0), p0).unwrap().unwrap();
        assert!(got.crc_ok);
        assert_eq!(got.delta_tick, -1);
        // An empty delta against tick 10.
        let e = r
            .feed(
                SnapHeader {
                    tick: 12,
                    delta_distance: 2,
                    num_parts: 1,
                    part: 0,
                    crc: None,
                },
                &[],
            )
            .unwrap()
            .unwrap();
        assert_eq!(e.snapshot.crc(), 6);
        // Wrong CRC.
        let bad = r.feed(
            SnapHeader {
                tick: 13,
                delta_distance: 1,
                num_parts: 1,
                part: 0,
                crc: Some(7),
            },
            &compress_ints(&[0, 0, 0]),
        );
        assert!(matches!(bad, Err(SnapshotError::Crc { .. })));
        // Missing delta tick.
        let miss = r.feed(
            SnapHeader {
                tick: 20,
                delta_distance: 1,
                num_parts: 1,
                part: 0,
                crc: Some(0),
            },
            &[],
        );
        assert!(matches!(
            miss,
            Err(SnapshotError::MissingDelta { delta_tick: 19, .. })
        ));
    }

    proptest! {
        #[test]
        fn hostile_delta_never_panics(ints in proptest::collection::vec(-3i32..2000, 0..64)) {
            let base = snap(&[(4, 0, vec![1, 2, 3]), (40, 1, vec![7])]);
            let _ = base.apply_delta(&ints, item_sizes());
        }
    }
}
