//! Send tables shared between the demos of a batch.
//!
//! Every demo carries its send tables (`DEM_SendTables`, a few hundred
//! kilobytes of `CSVCMsg_FlattenedSerializer`), and turning them into
//! [`SendTables`] is the largest fixed cost of a parse: on a short CS2 clip
//! about a fifth of all the work. Demos recorded by the same game build
//! carry byte-identical send tables, so a tool that parses many demos can
//! build them once: give every [`DemoParser`](crate::DemoParser) the same
//! [`SendTableCache`] with
//! [`DemoParser::with_send_table_cache`](crate::DemoParser::with_send_table_cache).
//!
//! An entry is found by the exact bytes of the message (a hash narrows the
//! search, the bytes are then compared in full), so a hit gives exactly the
//! tables a fresh build would. The cache holds a few builds (least recently
//! used goes first), so its memory is bounded whatever the number of demos.
//!
//! The game-event descriptor list (`CMsgSource1LegacyGameEventList`, some
//! 200-350 events with their keys) is the same kind of per-build constant and is
//! shared the same way, in the same cache. So are decoded class baselines
//! (`instancebaseline` entries): one is kept with the send-table build it
//! was decoded against, keyed by serializer, tick interval and exact bytes,
//! and goes when that build leaves the cache.

use std::hash::Hasher;
use std::sync::{Arc, Mutex};

use crate::entity::FieldState;
use crate::error::ErrorKind;
use crate::gameevent::EventDescriptors;
use crate::serializer::{SendTables, SerializerId};

/// Baselines kept per send-table build at most.
pub const MAX_BASELINES_PER_BUILD: usize = 4096;

/// Decoded baselines of one build: (serializer, tick interval bits, hash of
/// the bytes) → (bytes, baseline).
type Baselines = rustc_hash::FxHashMap<(SerializerId, u32, u64), (Box<[u8]>, Arc<FieldState>)>;

/// Builds kept by [`SendTableCache::default`].
pub const DEFAULT_CAPACITY: usize = 4;

#[derive(Debug)]
struct Entry<T, X> {
    hash: u64,
    payload: Box<[u8]>,
    built: Arc<T>,
    last_used: u64,
    /// What else is kept with `built` and goes with it (for send tables:
    /// the class baselines decoded against them).
    extra: X,
}

#[derive(Debug)]
struct Inner<T, X> {
    entries: Vec<Entry<T, X>>,
    clock: u64,
    hits: u64,
    misses: u64,
}

/// Values built from bytes, keyed by those bytes, least recently used first
/// out; each with an `X` kept beside it.
#[derive(Debug)]
struct ByBytes<T, X = ()> {
    capacity: usize,
    inner: Mutex<Inner<T, X>>,
}

/// Built send tables (and game-event descriptors), keyed by the bytes they
/// were built from; shareable between threads (`Arc<SendTableCache>`).
#[derive(Debug)]
pub struct SendTableCache {
    tables: ByBytes<SendTables, Baselines>,
    events: ByBytes<EventDescriptors>,
}

impl Default for SendTableCache {
    fn default() -> Self {
        SendTableCache::new(DEFAULT_CAPACITY)
    }
}

/// Hits and misses so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CacheStats {
    /// Demos whose send tables were already built.
    pub hits: u64,
    /// Demos whose send tables were built (and then kept).
    pub misses: u64,
}

fn hash(payload: &[u8]) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    h.write(payload);
    h.write_usize(payload.len());
    h.finish()
}

impl SendTableCache {
    /// A cache that keeps up to `capacity` builds (at least one) of each
    /// kind.
    pub fn new(capacity: usize) -> Self {
        SendTableCache {
            tables: ByBytes::new(capacity),
            events: ByBytes::new(capacity),
        }
    }

    /// The tables built from `payload` (the bytes of a
    /// `CSVCMsg_FlattenedSerializer`), building them with `build` on a miss.
    /// A failed build is not cached. The lock is not held while building, so
    /// two threads that miss on the same tables at once both build them
    /// (and both results are equal).
    pub fn get_or_build(
        &self,
        payload: &[u8],
        build: impl FnOnce(&[u8]) -> Result<SendTables, ErrorKind>,
    ) -> Result<Arc<SendTables>, ErrorKind> {
        self.tables.get_or_build(payload, build)
    }

    /// The game-event descriptors decoded from `payload` (the bytes of a
    /// `CMsgSource1LegacyGameEventList`), as [`SendTableCache::get_or_build`].
    pub fn descriptors_or_build(
        &self,
        payload: &[u8],
        build: impl FnOnce(&[u8]) -> Result<EventDescriptors, ErrorKind>,
    ) -> Result<Arc<EventDescriptors>, ErrorKind> {
        self.events.get_or_build(payload, build)
    }

    /// The class baseline decoded from `bytes` with the serializer
    /// `serializer` of `tables` at this tick interval, decoding it with
    /// `decode` on a miss. Kept only while `tables` is one of the cached
    /// builds (and up to [`MAX_BASELINES_PER_BUILD`] per build); a failed
    /// decode is not kept.
    pub fn baseline_or_decode<E>(
        &self,
        tables: &Arc<SendTables>,
        serializer: SerializerId,
        tick_interval: f32,
        bytes: &[u8],
        decode: impl FnOnce() -> Result<FieldState, E>,
    ) -> Result<Arc<FieldState>, E> {
        let key = (serializer, tick_interval.to_bits(), hash(bytes));
        let found = self.tables.with_entry(tables, |e| {
            e.extra
                .get(&key)
                .filter(|(b, _)| **b == *bytes)
                .map(|(_, s)| Arc::clone(s))
        });
        if let Some(Some(state)) = found {
            return Ok(state);
        }
        let state = Arc::new(decode()?);
        self.tables.with_entry(tables, |e| {
            if e.extra.len() < MAX_BASELINES_PER_BUILD {
                e.extra
                    .entry(key)
                    .or_insert_with(|| (bytes.into(), Arc::clone(&state)));
            }
        });
        Ok(state)
    }

    /// Send-table hits and misses so far.
    pub fn stats(&self) -> CacheStats {
        self.tables.stats()
    }

    /// Event-descriptor hits and misses so far.
    pub fn descriptor_stats(&self) -> CacheStats {
        self.events.stats()
    }

    /// Send-table builds held now.
    pub fn len(&self) -> usize {
        self.tables.len()
    }

    /// Whether no send-table build is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<T, X: Default> ByBytes<T, X> {
    fn new(capacity: usize) -> Self {
        ByBytes {
            capacity: capacity.max(1),
            inner: Mutex::new(Inner {
                entries: Vec::new(),
                clock: 0,
                hits: 0,
                misses: 0,
            }),
        }
    }

    fn get_or_build(
        &self,
        payload: &[u8],
        build: impl FnOnce(&[u8]) -> Result<T, ErrorKind>,
    ) -> Result<Arc<T>, ErrorKind> {
        let key = hash(payload);
        if let Some(found) = self.lookup(key, payload) {
            return Ok(found);
        }
        let built = Arc::new(build(payload)?);
        self.insert(key, payload, &built);
        Ok(built)
    }

    /// Runs `f` on the entry holding exactly `built` (the same allocation),
    /// if it is still cached.
    fn with_entry<R>(&self, built: &Arc<T>, f: impl FnOnce(&mut Entry<T, X>) -> R) -> Option<R> {
        let mut inner = self.inner.lock().ok()?;
        inner
            .entries
            .iter_mut()
            .find(|e| Arc::ptr_eq(&e.built, built))
            .map(f)
    }

    fn stats(&self) -> CacheStats {
        match self.inner.lock() {
            Ok(inner) => CacheStats {
                hits: inner.hits,
                misses: inner.misses,
            },
            Err(_) => CacheStats::default(),
        }
    }

    fn len(&self) -> usize {
        self.inner.lock().map(|i| i.entries.len()).unwrap_or(0)
    }

    fn lookup(&self, key: u64, payload: &[u8]) -> Option<Arc<T>> {
        // A poisoned lock (a panic elsewhere while holding it) only means
        // the cache is bypassed.
        let mut inner = self.inner.lock().ok()?;
        inner.clock += 1;
        let now = inner.clock;
        let found = inner
            .entries
            .iter_mut()
            .find(|e| e.hash == key && *e.payload == *payload)
            .map(|e| {
                e.last_used = now;
                Arc::clone(&e.built)
            });
        match found {
            Some(_) => inner.hits += 1,
            None => inner.misses += 1,
        }
        found
    }

    fn insert(&self, key: u64, payload: &[u8], built: &Arc<T>) {
        let Ok(mut inner) = self.inner.lock() else {
            return;
        };
        if inner
            .entries
            .iter()
            .any(|e| e.hash == key && *e.payload == *payload)
        {
            return;
        }
        inner.clock += 1;
        let now = inner.clock;
        if inner.entries.len() >= self.capacity {
            if let Some(oldest) = inner
                .entries
                .iter()
                .enumerate()
                .min_by_key(|(_, e)| e.last_used)
                .map(|(i, _)| i)
            {
                inner.entries.swap_remove(oldest);
            }
        }
        inner.entries.push(Entry {
            hash: key,
            payload: payload.into(),
            built: Arc::clone(built),
            last_used: now,
            extra: X::default(),
        });
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    fn tables(n: usize) -> Result<SendTables, ErrorKind> {
        let mut t = SendTables::default();
        t.fallbacks
            .push((n.to_string(), String::new(), String::new()));
        Ok(t)
    }

    #[test]
    fn equal_bytes_hit_and_other_bytes_miss() {
        let cache = SendTableCache::new(2);
        let a = cache.get_or_build(b"aaaa", |_| tables(1)).unwrap();
        let a2 = cache
            .get_or_build(b"aaaa", |_| panic!("built twice"))
            .unwrap();
        assert!(Arc::ptr_eq(&a, &a2));
        let b = cache.get_or_build(b"aaab", |_| tables(2)).unwrap();
        assert!(!Arc::ptr_eq(&a, &b));
        assert_eq!(cache.stats(), CacheStats { hits: 1, misses: 2 });
        assert_eq!(cache.len(), 2);
    }

    #[test]
    fn least_recently_used_goes_first_and_failures_are_not_kept() {
        let cache = SendTableCache::new(2);
        cache.get_or_build(b"a", |_| tables(1)).unwrap();
        cache.get_or_build(b"b", |_| tables(2)).unwrap();
        cache.get_or_build(b"a", |_| panic!("a is cached")).unwrap();
        // "b" is the least recently used: "c" replaces it.
        cache.get_or_build(b"c", |_| tables(3)).unwrap();
        assert_eq!(cache.len(), 2);
        cache.get_or_build(b"a", |_| panic!("a is cached")).unwrap();
        let mut built = false;
        cache
            .get_or_build(b"b", |_| {
                built = true;
                tables(2)
            })
            .unwrap();
        assert!(built);
        let err = cache.get_or_build(b"bad", |_| {
            Err(ErrorKind::SendTables(
                crate::error::SendTablesError::Missing,
            ))
        });
        assert!(err.is_err());
        assert_eq!(cache.len(), 2);
    }

    fn baseline(n: i32) -> Result<FieldState, ()> {
        let mut s = FieldState::default();
        s.set(&[0], crate::Value::I32(n)).unwrap();
        Ok(s)
    }

    /// Whether asking the cache for this baseline decodes it.
    fn decodes(
        cache: &SendTableCache,
        tables: &Arc<SendTables>,
        (ser, ti, bytes): (SerializerId, f32, &[u8]),
    ) -> bool {
        let mut decoded = false;
        cache
            .baseline_or_decode(tables, ser, ti, bytes, || {
                decoded = true;
                baseline(1)
            })
            .unwrap();
        decoded
    }

    #[test]
    fn baselines_are_kept_with_their_build() {
        let cache = SendTableCache::new(1);
        let a = cache.get_or_build(b"a", |_| tables(1)).unwrap();
        let x = cache
            .baseline_or_decode(&a, 3, 0.015625, b"xx", || baseline(1))
            .unwrap();
        let again = cache
            .baseline_or_decode(&a, 3, 0.015625, b"xx", || -> Result<FieldState, ()> {
                panic!("decoded twice")
            })
            .unwrap();
        assert!(Arc::ptr_eq(&x, &again));
        // Another serializer, tick interval or bytes is another baseline.
        for (ser, ti, bytes) in [
            (4, 0.015625, &b"xx"[..]),
            (3, 0.03125, b"xx"),
            (3, 0.015625, b"xy"),
        ] {
            let other = cache
                .baseline_or_decode(&a, ser, ti, bytes, || baseline(2))
                .unwrap();
            assert!(!Arc::ptr_eq(&x, &other));
        }
        // A failed decode is not kept.
        assert!(cache
            .baseline_or_decode(&a, 9, 0.015625, b"bad", || Err::<FieldState, _>("no"))
            .is_err());
        assert!(decodes(&cache, &a, (9, 0.015625, b"bad")));
        // Tables that are not (or no longer) cached: decoded every time.
        let b = cache.get_or_build(b"b", |_| tables(2)).unwrap(); // evicts "a"
        for _ in 0..2 {
            assert!(decodes(&cache, &a, (3, 0.015625, b"xx")));
        }
        let loose = Arc::new(SendTables::default());
        assert!(decodes(&cache, &loose, (3, 0.015625, b"xx")));
        drop(b);
    }

    #[test]
    fn descriptors_are_kept_apart_from_tables() {
        let cache = SendTableCache::new(2);
        let d = cache
            .descriptors_or_build(b"aaaa", |_| Ok(EventDescriptors::default()))
            .unwrap();
        let d2 = cache
            .descriptors_or_build(b"aaaa", |_| panic!("decoded twice"))
            .unwrap();
        assert!(Arc::ptr_eq(&d, &d2));
        // The same bytes as send tables are another entry.
        cache.get_or_build(b"aaaa", |_| tables(1)).unwrap();
        assert_eq!(cache.descriptor_stats(), CacheStats { hits: 1, misses: 1 });
        assert_eq!(cache.stats(), CacheStats { hits: 0, misses: 1 });
    }
}
