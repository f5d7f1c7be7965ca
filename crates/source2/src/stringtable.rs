//! String tables: named, indexed key/value lists the server keeps in sync.
//!
//! Tables are created by `CSVCMsg_CreateStringTable` (their id is their
//! creation order) and changed by `CSVCMsg_UpdateStringTable`. Both carry a
//! bitstream of entries; `DEM_StringTables` and `DEM_FullPacket` carry whole
//! snapshots as protobuf lists instead.
//!
//! Entry bitstream, per entry:
//!
//! ```text
//! bool   increment      true: index = previous + 1; false: index = varuint32 + 1
//! bool   has_key
//!   bool use_history    key = prefix of one of the last 32 keys + a cstring:
//!     5 bits history position, 5 bits prefix length
//!   else cstring key
//! bool   has_value
//!   fixed-size tables: user_data_size_bits bits
//!   otherwise: [bool compressed if flags & 1], then the size in bytes as a
//!   UBitVar (using_varint_bitcounts) or 17 bits; then the bytes (snappy if
//!   compressed)
//! ```
//! (Facts from dotabuff/manta `string_table.go` and demoinfocs-golang
//! `stringtables.go`, cross-checked.) The `userinfo` table's values are
//! `CMsgPlayerInfo` protobufs; `instancebaseline` maps a class id (decimal
//! key) to the field data of that class's baseline entity.

use gamewire_bits::BitReader;

use crate::error::{ErrorKind, StringTableError, TableRef};

/// Keys remembered for prefix compression.
pub const KEY_HISTORY: usize = 32;
/// Most entries we accept in one table (the engine's limit is 2^16).
pub const MAX_ENTRIES: usize = 1 << 16;
/// Longest key or entry value, in bytes.
pub const MAX_KEY_LEN: usize = 4096;

/// One entry.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StringTableEntry {
    /// The key (a string).
    pub key: String,
    /// The user data.
    pub value: Vec<u8>,
}

/// A string table.
#[derive(Debug, Clone, Default)]
pub struct StringTable {
    /// Table name.
    pub name: String,
    /// Entries by index; an index never written holds an empty entry.
    pub entries: Vec<StringTableEntry>,
    /// Whether values have a fixed size.
    pub user_data_fixed_size: bool,
    /// Fixed value size in bits.
    pub user_data_size_bits: u32,
    /// Table flags (bit 0: values may be compressed).
    pub flags: i32,
    /// Whether value sizes are UBitVars (otherwise 17 bits).
    pub using_varint_bitcounts: bool,
    /// The table was not wanted ([`crate::Visitor::wants_string_table`]):
    /// it exists, with its name, id and flags, but its entries are not
    /// decoded, so `entries` stays empty.
    pub skipped: bool,
}

/// Which entries an update touched.
pub type ChangedEntries = Vec<usize>;

impl StringTable {
    /// Applies an entry bitstream of `count` entries; returns the indices changed.
    pub fn apply_entries(&mut self, data: &[u8], count: i32) -> Result<ChangedEntries, ErrorKind> {
        let table = || TableRef::Name(self.name.clone());
        if count < 0 || count as usize > MAX_ENTRIES {
            return Err(ErrorKind::StringTable {
                table: table(),
                problem: StringTableError::EntryCountOutOfRange { count },
            });
        }
        let mut r = BitReader::new(data);
        // The last KEY_HISTORY keys, oldest at `history_head`: a ring of
        // reused buffers, so a key costs no allocation beyond its own.
        let mut history: [Vec<u8>; KEY_HISTORY] = std::array::from_fn(|_| Vec::new());
        let (mut history_head, mut history_len) = (0usize, 0usize);
        let mut index: i64 = -1;
        let mut changed = Vec::new();
        let mut scratch = Vec::new();
        let mut unpacked = Vec::new();
        let mut key_bytes = Vec::new();
        let bits = |e| ErrorKind::bits("string table entry", e);
        for _ in 0..count {
            if r.read_bool().map_err(bits)? {
                index += 1;
            } else {
                index = i64::from(r.read_varuint32().map_err(bits)?) + 1;
            }
            if index < 0 || index as usize >= MAX_ENTRIES {
                return Err(ErrorKind::StringTable {
                    table: table(),
                    problem: StringTableError::EntryIndexOutOfRange { index },
                });
            }
            let mut key = None;
            if r.read_bool().map_err(bits)? {
                // Assembled in a reused buffer; the key gets one exact
                // allocation.
                key_bytes.clear();
                if r.read_bool().map_err(bits)? {
                    let pos = r.read_bits(5).map_err(bits)? as usize;
                    let len = r.read_bits(5).map_err(bits)? as usize;
                    if pos < history_len {
                        if let Some(prev) = history.get((history_head + pos) % KEY_HISTORY) {
                            key_bytes.extend_from_slice(&prev[..len.min(prev.len())]);
                        }
                    }
                }
                r.read_cstring_bytes_into(MAX_KEY_LEN, &mut key_bytes)
                    .map_err(bits)?;
                let k = String::from_utf8_lossy(&key_bytes).into_owned();
                let slot = if history_len == KEY_HISTORY {
                    let oldest = history_head;
                    history_head = (history_head + 1) % KEY_HISTORY;
                    oldest
                } else {
                    history_len += 1;
                    (history_head + history_len - 1) % KEY_HISTORY
                };
                if let Some(buf) = history.get_mut(slot) {
                    buf.clear();
                    buf.extend_from_slice(k.as_bytes());
                }
                key = Some(k);
            }
            let mut value = false;
            if r.read_bool().map_err(bits)? {
                let mut compressed = false;
                let bit_len = if self.user_data_fixed_size {
                    u64::from(self.user_data_size_bits)
                } else {
                    if self.flags & 1 != 0 {
                        compressed = r.read_bool().map_err(bits)?;
                    }
                    let bytes = if self.using_varint_bitcounts {
                        u64::from(r.read_ubitvar().map_err(bits)?)
                    } else {
                        r.read_bits(17).map_err(bits)?
                    };
                    bytes * 8
                };
                // Read into a reused buffer; it is swapped into the entry
                // below (and the entry's old value becomes the next buffer).
                r.read_bits_into_vec(bit_len, &mut scratch).map_err(bits)?;
                if compressed {
                    decompress_into(&scratch, "string table value", &mut unpacked)?;
                    std::mem::swap(&mut scratch, &mut unpacked);
                }
                value = true;
            }
            let idx = index as usize;
            if idx >= self.entries.len() {
                self.entries.resize(idx + 1, StringTableEntry::default());
            }
            if let Some(entry) = self.entries.get_mut(idx) {
                if let Some(k) = key {
                    entry.key = k;
                }
                if value {
                    std::mem::swap(&mut entry.value, &mut scratch);
                }
            }
            changed.push(idx);
        }
        Ok(changed)
    }

    /// The entry with this key.
    pub fn get(&self, key: &str) -> Option<&StringTableEntry> {
        self.entries.iter().find(|e| e.key == key)
    }
}

/// Decompresses a raw snappy block, bounded by what the input can justify
/// (see [`crate::container::snappy_into`]).
pub(crate) fn decompress(raw: &[u8], what: &'static str) -> Result<Vec<u8>, ErrorKind> {
    let mut out = Vec::new();
    decompress_into(raw, what, &mut out)?;
    Ok(out)
}

/// [`decompress`] into a buffer that is reused (its contents are replaced).
pub(crate) fn decompress_into(
    raw: &[u8],
    what: &'static str,
    out: &mut Vec<u8>,
) -> Result<(), ErrorKind> {
    crate::container::snappy_into(raw, what, "decompressed size", usize::MAX, out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use gamewire_bits::BitWriter;

    fn cstr(w: &mut BitWriter, s: &str) {
        w.write_bytes(s.as_bytes());
        w.write_u8(0);
    }

    #[test]
    fn entries_with_history_and_values() {
        let mut w = BitWriter::new();
        // entry 0: increment, key "player_1", value 2 bytes (17-bit size).
        w.write_bool(true);
        w.write_bool(true);
        w.write_bool(false);
        cstr(&mut w, "player_1");
        w.write_bool(true);
        w.write_bits(2, 17).unwrap();
        w.write_bytes(&[0xAB, 0xCD]);
        // entry 5: explicit index 4+1, key from history: prefix 7 of "player_1" + "2".
        w.write_bool(false);
        w.write_bits(4, 8).unwrap(); // varuint32 4
        w.write_bool(true);
        w.write_bool(true);
        w.write_bits(0, 5).unwrap();
        w.write_bits(7, 5).unwrap();
        cstr(&mut w, "2");
        w.write_bool(false);
        let data = w.finish();
        let mut t = StringTable {
            name: "t".into(),
            ..Default::default()
        };
        let changed = t.apply_entries(&data, 2).unwrap();
        assert_eq!(changed, vec![0, 5]);
        assert_eq!(t.entries[0].key, "player_1");
        assert_eq!(t.entries[0].value, vec![0xAB, 0xCD]);
        assert_eq!(t.entries[5].key, "player_2");
        assert_eq!(t.entries.len(), 6);
    }

    proptest::proptest! {
        /// Keys built from the history (a prefix of one of the last 32
        /// keys plus a suffix) match a plain model of the history, also
        /// after it has wrapped around many times.
        #[test]
        fn key_history_matches_a_model(
            steps in proptest::collection::vec(
                (proptest::option::of((0u32..32, 0u32..32)), "[a-z]{0,6}"),
                1..120,
            )
        ) {
            let mut w = BitWriter::new();
            let mut model: std::collections::VecDeque<String> = Default::default();
            let mut want = Vec::new();
            for (prefix, suffix) in &steps {
                w.write_bool(true); // next index
                w.write_bool(true); // has a key
                let mut key = String::new();
                match prefix {
                    Some((pos, len)) => {
                        w.write_bool(true);
                        w.write_bits(u64::from(*pos), 5).unwrap();
                        w.write_bits(u64::from(*len), 5).unwrap();
                        if let Some(prev) = model.get(*pos as usize) {
                            key.push_str(&prev[..(*len as usize).min(prev.len())]);
                        }
                    }
                    None => w.write_bool(false),
                }
                cstr(&mut w, suffix);
                key.push_str(suffix);
                w.write_bool(false); // no value
                if model.len() == KEY_HISTORY {
                    model.pop_front();
                }
                model.push_back(key.clone());
                want.push(key);
            }
            let data = w.finish();
            let mut t = StringTable::default();
            t.apply_entries(&data, steps.len() as i32).unwrap();
            let got: Vec<&str> = t.entries.iter().map(|e| e.key.as_str()).collect();
            proptest::prop_assert_eq!(got, want.iter().map(String::as_str).collect::<Vec<_>>());
        }
    }

    #[test]
    fn truncated_entries_error() {
        let mut t = StringTable::default();
        assert!(t.apply_entries(&[0xff], 3).is_err());
    }
}
