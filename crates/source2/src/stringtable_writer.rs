//! Writing string-table entries: the inverse of
//! [`StringTable::apply_entries`](crate::stringtable::StringTable::apply_entries).
//!
//! The `string_data` of `CSVCMsg_CreateStringTable` and
//! `CSVCMsg_UpdateStringTable` is a bitstream of entries (layout in
//! [`crate::stringtable`]). Several bitstreams decode to the same entries:
//! an index may be written as "next" or as an explicit number, a key in full
//! or as a prefix of one of the last 32 keys plus a suffix, a value
//! compressed or not. To write a stream the game wrote, byte for byte,
//! [`read_entry_stream`] records each choice the game made in an
//! [`EntryStream`] (with the value bytes as stored, and the bits after the
//! last entry), and [`write_entry_stream`] writes exactly those choices.
//! Changing a stream means changing its records: an [`EntryRecord`] can be
//! built by hand, too.
//!
//! ```
//! use gamewire_source2::stringtable::StringTable;
//! use gamewire_source2::stringtable_writer::{
//!     read_entry_stream, write_entry_stream, EncodedKey, EncodedValue, EntryRecord,
//!     EntryStream, IndexStep, KeyPrefix,
//! };
//!
//! let format = StringTable { name: "t".into(), ..Default::default() };
//! let stream = EntryStream {
//!     entries: vec![
//!         EntryRecord {
//!             step: IndexStep::Next,
//!             key: Some(EncodedKey { prefix: None, suffix: b"player_1".to_vec() }),
//!             value: Some(EncodedValue { compressed: None, stored: vec![1, 2] }),
//!         },
//!         EntryRecord {
//!             step: IndexStep::Explicit(4), // index 4 + 1
//!             // 7 bytes of the newest key ("player_"), then "2".
//!             key: Some(EncodedKey {
//!                 prefix: Some(KeyPrefix { position: 0, length: 7 }),
//!                 suffix: b"2".to_vec(),
//!             }),
//!             value: None,
//!         },
//!     ],
//!     ..Default::default()
//! };
//! let data = write_entry_stream(&format, &stream)?;
//! // Read back: the same choices; the writer padded the last byte with
//! // zero bits, which the reader keeps as trailing bits.
//! let read = read_entry_stream(&format, &data, 2)?;
//! assert_eq!(read.entries, stream.entries);
//! assert!(read.trailing_bits < 8 && read.trailing.iter().all(|&b| b == 0));
//! assert_eq!(write_entry_stream(&format, &read)?, data);
//!
//! let mut table = format.clone();
//! table.apply_entries(&data, 2)?;
//! assert_eq!(table.entries[5].key, "player_2");
//! # Ok::<(), gamewire_source2::ErrorKind>(())
//! ```

use gamewire_bits::{BitReader, BitWriter};

use crate::error::{ErrorKind, StringTableError, TableRef};
use crate::stringtable::{StringTable, MAX_ENTRIES, MAX_KEY_LEN};

/// How an entry's index is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexStep {
    /// The previous entry's index plus one (the first entry: index 0).
    Next,
    /// The varuint32 written: the index is this value plus one.
    Explicit(u32),
}

/// A key prefix taken from the key history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyPrefix {
    /// Which of the last 32 keys, 0 being the oldest one kept (5 bits).
    pub position: u8,
    /// How many of its bytes (5 bits: at most 31).
    pub length: u8,
}

/// A key as written.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EncodedKey {
    /// The prefix from the history, if any.
    pub prefix: Option<KeyPrefix>,
    /// The bytes written after it (a cstring: no zero byte inside).
    pub suffix: Vec<u8>,
}

/// A value as written.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EncodedValue {
    /// The compression flag, present when the table's flags have bit 0 and
    /// its values are not of fixed size.
    pub compressed: Option<bool>,
    /// The bytes as stored: a raw snappy block when compressed; for
    /// fixed-size values, `user_data_size_bits` bits (the last byte holds
    /// the remaining bits, least significant first).
    pub stored: Vec<u8>,
}

/// One entry as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryRecord {
    /// How the index is given.
    pub step: IndexStep,
    /// The key, if the entry sets one.
    pub key: Option<EncodedKey>,
    /// The value, if the entry sets one.
    pub value: Option<EncodedValue>,
}

/// An entry bitstream, choice by choice.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EntryStream {
    /// The entries in stream order.
    pub entries: Vec<EntryRecord>,
    /// The bits after the last entry (least significant first; the last
    /// byte may be partial).
    pub trailing: Vec<u8>,
    /// How many bits `trailing` holds.
    pub trailing_bits: u64,
}

fn bits_err(e: gamewire_bits::BitError) -> ErrorKind {
    ErrorKind::bits("string table entry", e)
}

fn write_stored_bits(w: &mut BitWriter, bytes: &[u8], bits: u64) -> Result<(), ErrorKind> {
    let whole = (bits / 8) as usize;
    let rest = (bits % 8) as u32;
    let need = whole + usize::from(rest != 0);
    if bytes.len() != need {
        return Err(ErrorKind::LimitExceeded {
            what: "string table value bytes",
            value: bytes.len() as u64,
            limit: need as u64,
        });
    }
    w.write_bytes(bytes.get(..whole).unwrap_or_default());
    if rest != 0 {
        let last = bytes.get(whole).copied().unwrap_or_default();
        w.write_bits(u64::from(last) & ((1u64 << rest) - 1), rest)
            .map_err(bits_err)?;
    }
    Ok(())
}

/// Reads an entry bitstream of `count` entries for a table of this format
/// (its `user_data_fixed_size`, `user_data_size_bits`, `flags` and
/// `using_varint_bitcounts`), recording every choice made in it.
pub fn read_entry_stream(
    format: &StringTable,
    data: &[u8],
    count: i32,
) -> Result<EntryStream, ErrorKind> {
    let table = || TableRef::Name(format.name.clone());
    if count < 0 || count as usize > MAX_ENTRIES {
        return Err(ErrorKind::StringTable {
            table: table(),
            problem: StringTableError::EntryCountOutOfRange { count },
        });
    }
    let mut r = BitReader::new(data);
    let mut entries = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let step = if r.read_bool().map_err(bits_err)? {
            IndexStep::Next
        } else {
            IndexStep::Explicit(r.read_varuint32().map_err(bits_err)?)
        };
        let key = if r.read_bool().map_err(bits_err)? {
            let prefix = if r.read_bool().map_err(bits_err)? {
                let position = r.read_bits(5).map_err(bits_err)? as u8;
                let length = r.read_bits(5).map_err(bits_err)? as u8;
                Some(KeyPrefix { position, length })
            } else {
                None
            };
            let suffix = r.read_cstring_bytes(MAX_KEY_LEN).map_err(bits_err)?;
            Some(EncodedKey { prefix, suffix })
        } else {
            None
        };
        let value = if r.read_bool().map_err(bits_err)? {
            let mut compressed = None;
            let bit_len = if format.user_data_fixed_size {
                u64::from(format.user_data_size_bits)
            } else {
                if format.flags & 1 != 0 {
                    compressed = Some(r.read_bool().map_err(bits_err)?);
                }
                let bytes = if format.using_varint_bitcounts {
                    u64::from(r.read_ubitvar().map_err(bits_err)?)
                } else {
                    r.read_bits(17).map_err(bits_err)?
                };
                bytes * 8
            };
            let stored = r.read_bits_to_vec(bit_len).map_err(bits_err)?;
            Some(EncodedValue { compressed, stored })
        } else {
            None
        };
        entries.push(EntryRecord { step, key, value });
    }
    let trailing_bits = r.bits_remaining();
    let trailing = r.read_bits_to_vec(trailing_bits).map_err(bits_err)?;
    Ok(EntryStream {
        entries,
        trailing,
        trailing_bits,
    })
}

/// Writes an entry bitstream for a table of this format: the inverse of
/// [`read_entry_stream`]. Its entry count is `stream.entries.len()`.
pub fn write_entry_stream(
    format: &StringTable,
    stream: &EntryStream,
) -> Result<Vec<u8>, ErrorKind> {
    let mut w = BitWriter::new();
    for e in &stream.entries {
        match e.step {
            IndexStep::Next => w.write_bool(true),
            IndexStep::Explicit(v) => {
                w.write_bool(false);
                w.write_varuint32(v);
            }
        }
        match &e.key {
            None => w.write_bool(false),
            Some(k) => {
                w.write_bool(true);
                match k.prefix {
                    None => w.write_bool(false),
                    Some(p) => {
                        w.write_bool(true);
                        for (what, v) in [
                            ("key history position", p.position),
                            ("key prefix length", p.length),
                        ] {
                            if v >= 32 {
                                return Err(ErrorKind::LimitExceeded {
                                    what,
                                    value: u64::from(v),
                                    limit: 31,
                                });
                            }
                            w.write_bits(u64::from(v), 5).map_err(bits_err)?;
                        }
                    }
                }
                if k.suffix.contains(&0) || k.suffix.len() > MAX_KEY_LEN {
                    return Err(ErrorKind::LimitExceeded {
                        what: "string table key bytes (no zero byte inside)",
                        value: k.suffix.len() as u64,
                        limit: MAX_KEY_LEN as u64,
                    });
                }
                w.write_bytes(&k.suffix);
                w.write_u8(0);
            }
        }
        match &e.value {
            None => w.write_bool(false),
            Some(v) => {
                w.write_bool(true);
                if format.user_data_fixed_size {
                    write_stored_bits(&mut w, &v.stored, u64::from(format.user_data_size_bits))?;
                } else {
                    if format.flags & 1 != 0 {
                        w.write_bool(v.compressed.unwrap_or(false));
                    }
                    let len = v.stored.len() as u64;
                    if format.using_varint_bitcounts {
                        let len = u32::try_from(len).map_err(|_| ErrorKind::LimitExceeded {
                            what: "string table value bytes",
                            value: len,
                            limit: u64::from(u32::MAX),
                        })?;
                        w.write_ubitvar(len);
                    } else {
                        if len >= 1 << 17 {
                            return Err(ErrorKind::LimitExceeded {
                                what: "string table value bytes",
                                value: len,
                                limit: (1 << 17) - 1,
                            });
                        }
                        w.write_bits(len, 17).map_err(bits_err)?;
                    }
                    w.write_bytes(&v.stored);
                }
            }
        }
    }
    write_stored_bits(&mut w, &stream.trailing, stream.trailing_bits)?;
    Ok(w.finish())
}

/// Every table of `tables` with its entries, as the `CDemoStringTables`
/// snapshot a `DEM_StringTables` frame or a `DEM_FullPacket` carries (the
/// form the parser restores tables from).
pub fn snapshot(
    tables: &[crate::stringtable::StringTable],
) -> source2_demo_protobufs::CDemoStringTables {
    use source2_demo_protobufs::c_demo_string_tables::{ItemsT, TableT};
    source2_demo_protobufs::CDemoStringTables {
        tables: tables
            .iter()
            .map(|t| TableT {
                table_name: Some(t.name.clone()),
                items: t
                    .entries
                    .iter()
                    .map(|e| ItemsT {
                        str: Some(e.key.clone()),
                        data: Some(e.value.clone()),
                    })
                    .collect(),
                items_clientside: Vec::new(),
                table_flags: Some(t.flags),
            })
            .collect(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn record(key: Option<EncodedKey>, value: Option<EncodedValue>) -> EntryStream {
        EntryStream {
            entries: vec![EntryRecord {
                step: IndexStep::Next,
                key,
                value,
            }],
            ..Default::default()
        }
    }

    #[test]
    fn fixed_size_values_round_trip_bit_for_bit() {
        let format = StringTable {
            user_data_fixed_size: true,
            user_data_size_bits: 13,
            ..Default::default()
        };
        let stream = record(
            None,
            Some(EncodedValue {
                compressed: None,
                stored: vec![0xab, 0x15],
            }),
        );
        let data = write_entry_stream(&format, &stream).unwrap();
        let read = read_entry_stream(&format, &data, 1).unwrap();
        assert_eq!(read.entries, stream.entries);
        assert_eq!(write_entry_stream(&format, &read).unwrap(), data);
        let mut t = format.clone();
        t.apply_entries(&data, 1).unwrap();
        assert_eq!(t.entries[0].value, vec![0xab, 0x15]);
    }

    #[test]
    fn what_cannot_be_written_is_an_error() {
        let plain = StringTable::default();
        let long_prefix = record(
            Some(EncodedKey {
                prefix: Some(KeyPrefix {
                    position: 0,
                    length: 32,
                }),
                suffix: Vec::new(),
            }),
            None,
        );
        assert!(write_entry_stream(&plain, &long_prefix).is_err());
        let zero_inside = record(
            Some(EncodedKey {
                prefix: None,
                suffix: b"a\0b".to_vec(),
            }),
            None,
        );
        assert!(write_entry_stream(&plain, &zero_inside).is_err());
        let fixed = StringTable {
            user_data_fixed_size: true,
            user_data_size_bits: 8,
            ..Default::default()
        };
        let wrong_size = record(
            None,
            Some(EncodedValue {
                compressed: None,
                stored: vec![1, 2],
            }),
        );
        assert!(write_entry_stream(&fixed, &wrong_size).is_err());
        let too_big = record(
            None,
            Some(EncodedValue {
                compressed: None,
                stored: vec![0; 1 << 17],
            }),
        );
        assert!(write_entry_stream(&plain, &too_big).is_err());
    }

    #[test]
    fn truncated_streams_are_errors() {
        let plain = StringTable::default();
        assert!(read_entry_stream(&plain, &[0xff], 3).is_err());
        assert!(read_entry_stream(&plain, &[], -1).is_err());
    }
}
