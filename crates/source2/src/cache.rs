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
//! 500 events with their keys) is the same kind of per-build constant and is
//! shared the same way, in the same cache.

use std::hash::Hasher;
use std::sync::{Arc, Mutex};

use crate::error::ErrorKind;
use crate::gameevent::EventDescriptors;
use crate::serializer::SendTables;

/// Builds kept by [`SendTableCache::default`].
pub const DEFAULT_CAPACITY: usize = 4;

#[derive(Debug)]
struct Entry<T> {
    hash: u64,
    payload: Box<[u8]>,
    built: Arc<T>,
    last_used: u64,
}

#[derive(Debug)]
struct Inner<T> {
    entries: Vec<Entry<T>>,
    clock: u64,
    hits: u64,
    misses: u64,
}

/// Values built from bytes, keyed by those bytes, least recently used first
/// out.
#[derive(Debug)]
struct ByBytes<T> {
    capacity: usize,
    inner: Mutex<Inner<T>>,
}

/// Built send tables (and game-event descriptors), keyed by the bytes they
/// were built from; shareable between threads (`Arc<SendTableCache>`).
#[derive(Debug)]
pub struct SendTableCache {
    tables: ByBytes<SendTables>,
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

impl<T> ByBytes<T> {
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
        let err = cache.get_or_build(b"bad", |_| Err(ErrorKind::SendTables("no".into())));
        assert!(err.is_err());
        assert_eq!(cache.len(), 2);
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
