//! Which ticks a `ticks` table keeps: a set of ticks and tick ranges.
//!
//! A tick set is written as a comma-separated list of items, each a tick
//! (`5`) or an inclusive range (`100..200`, the ticks 100 to 200 both
//! included); a range may leave an end open (`64000..`: to the end of the
//! demo, `..200`: from its start). Spaces around items and around `..` are
//! trimmed: `5, 100 .. 200` is `5,100..200`. Items may overlap or come in
//! any order; the set is what they cover together.
//!
//! ```
//! use gamewire_query::TickSet;
//! let set = TickSet::parse("5, 100..200").unwrap();
//! assert!(set.contains(5) && set.contains(150) && !set.contains(201));
//! assert_eq!(set.max(), Some(200));
//! assert_eq!(set.to_string(), "5,100..200");
//! ```
//!
//! After a run, a set whose every tick lies beyond the demo's last tick is
//! an error ([`crate::QueryError::TickOutOfRange`]) that names the last
//! tick, rather than an empty table.

use std::fmt;
use std::str::FromStr;

use crate::error::QueryError;

/// A set of ticks: disjoint inclusive ranges, sorted.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct TickSet {
    /// Disjoint, non-adjacent inclusive ranges `(first, last)`, sorted.
    ranges: Vec<(i32, i32)>,
}

impl TickSet {
    /// Parses a tick set (`5`, `100..200`, `5, 100..200`, `64000..`);
    /// a malformed item, a range whose end is before its start, or a list
    /// with no item is [`QueryError::BadTicks`].
    pub fn parse(text: &str) -> Result<TickSet, QueryError> {
        let bad = |reason: String| QueryError::BadTicks {
            text: text.to_string(),
            reason,
        };
        let mut ranges = Vec::new();
        for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let range = match item.split_once("..") {
                None => {
                    let t = tick(item).map_err(&bad)?;
                    (t, t)
                }
                Some((first, last)) => {
                    let (first, last) = (first.trim(), last.trim());
                    let first = if first.is_empty() {
                        i32::MIN
                    } else {
                        tick(first).map_err(&bad)?
                    };
                    let last = if last.is_empty() {
                        i32::MAX
                    } else {
                        // `100..=200` is accepted as the same inclusive range.
                        tick(last.strip_prefix('=').unwrap_or(last).trim()).map_err(&bad)?
                    };
                    if last < first {
                        return Err(bad(format!("the range {item:?} ends before it starts")));
                    }
                    (first, last)
                }
            };
            ranges.push(range);
        }
        if ranges.is_empty() {
            return Err(bad("no tick given".into()));
        }
        Ok(TickSet::from_ranges(ranges))
    }

    /// The set of these ticks (in any order, repeated or not).
    pub fn from_ticks(ticks: Vec<i32>) -> TickSet {
        TickSet::from_ranges(ticks.into_iter().map(|t| (t, t)).collect())
    }

    /// The set covered by these inclusive ranges `(first, last)`; a range
    /// whose last tick is before its first covers nothing.
    pub fn from_ranges(mut ranges: Vec<(i32, i32)>) -> TickSet {
        ranges.retain(|(a, b)| a <= b);
        ranges.sort_unstable();
        let mut merged: Vec<(i32, i32)> = Vec::with_capacity(ranges.len());
        for (a, b) in ranges {
            match merged.last_mut() {
                Some(last) if i64::from(a) <= i64::from(last.1) + 1 => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        TickSet { ranges: merged }
    }

    /// Whether the set holds `tick`.
    pub fn contains(&self, tick: i32) -> bool {
        // The last range starting at or before `tick`.
        let i = self.ranges.partition_point(|&(a, _)| a <= tick);
        i.checked_sub(1)
            .and_then(|i| self.ranges.get(i))
            .is_some_and(|&(_, b)| tick <= b)
    }

    /// The greatest tick of the set (`i32::MAX` for a range open at its
    /// end); `None` for the empty set.
    pub fn max(&self) -> Option<i32> {
        self.ranges.last().map(|&(_, b)| b)
    }

    /// The smallest tick of the set (`i32::MIN` for a range open at its
    /// start); `None` for the empty set.
    pub fn min(&self) -> Option<i32> {
        self.ranges.first().map(|&(a, _)| a)
    }

    /// Whether the set holds no tick (only [`TickSet::from_ticks`] of an
    /// empty list, or [`TickSet::default`], make one).
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The set as disjoint inclusive ranges `(first, last)`, sorted.
    pub fn ranges(&self) -> &[(i32, i32)] {
        &self.ranges
    }

    /// The error of a run whose demo's last tick is `last` when every tick
    /// of the set lies beyond it ([`QueryError::TickOutOfRange`]).
    pub fn check_last_tick(&self, last: i32) -> Result<(), QueryError> {
        match self.min() {
            Some(asked) if asked > last => Err(QueryError::TickOutOfRange { asked, last }),
            _ => Ok(()),
        }
    }
}

/// One tick of a tick set's item.
fn tick(text: &str) -> Result<i32, String> {
    text.parse::<i32>()
        .map_err(|_| format!("{text:?} is not a tick (a whole number)"))
}

impl FromStr for TickSet {
    type Err = QueryError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        TickSet::parse(s)
    }
}

impl From<Vec<i32>> for TickSet {
    fn from(ticks: Vec<i32>) -> Self {
        TickSet::from_ticks(ticks)
    }
}

/// Writes the set as [`TickSet::parse`] reads it: `5,100..200,64000..`.
impl fmt::Display for TickSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, &(a, b)) in self.ranges.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            match (a, b) {
                (a, b) if a == b => write!(f, "{a}")?,
                (i32::MIN, i32::MAX) => f.write_str("..")?,
                (i32::MIN, b) => write!(f, "..{b}")?,
                (a, i32::MAX) => write!(f, "{a}..")?,
                (a, b) => write!(f, "{a}..{b}")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn parses_ticks_ranges_and_lists() {
        let one = TickSet::parse("5").unwrap();
        assert_eq!(one.ranges(), &[(5, 5)]);
        let range = TickSet::parse("100..200").unwrap();
        assert!(range.contains(100) && range.contains(200) && range.contains(150));
        assert!(!range.contains(99) && !range.contains(201));
        let list = TickSet::parse("5, 100..200").unwrap();
        assert_eq!(list.ranges(), &[(5, 5), (100, 200)]);
        assert_eq!(TickSet::parse("100..=200").unwrap(), range);
    }

    #[test]
    fn trims_spaces() {
        let spaced = TickSet::parse("  5 ,  100 .. 200 ,").unwrap();
        assert_eq!(spaced, TickSet::parse("5,100..200").unwrap());
    }

    #[test]
    fn open_ranges() {
        let tail = TickSet::parse("64000..").unwrap();
        assert!(tail.contains(64000) && tail.contains(i32::MAX) && !tail.contains(63999));
        assert_eq!(tail.max(), Some(i32::MAX));
        let head = TickSet::parse("..10").unwrap();
        assert!(head.contains(-1) && head.contains(10) && !head.contains(11));
        assert_eq!(tail.to_string(), "64000..");
        assert_eq!(head.to_string(), "..10");
    }

    #[test]
    fn merges_overlaps_and_orders() {
        let set = TickSet::parse("300, 5..10, 8..20, 21, 1").unwrap();
        assert_eq!(set.ranges(), &[(1, 1), (5, 21), (300, 300)]);
        assert_eq!(set.to_string(), "1,5..21,300");
        assert_eq!(set.max(), Some(300));
        assert_eq!(set.min(), Some(1));
        let from = TickSet::from_ticks(vec![7, 3, 4, 3, 5]);
        assert_eq!(from.ranges(), &[(3, 5), (7, 7)]);
        assert!(from.contains(4) && !from.contains(6));
        assert_eq!(TickSet::parse(&from.to_string()).unwrap(), from);
    }

    #[test]
    fn malformed_sets_are_usage_errors() {
        for bad in [
            "",
            " , ",
            "abc",
            "5..x",
            "200..100",
            "1.5",
            "5...7",
            "99999999999",
        ] {
            let e = TickSet::parse(bad).unwrap_err();
            assert!(
                matches!(&e, QueryError::BadTicks { text, .. } if text == bad),
                "{bad:?}: {e}"
            );
            assert!(e.is_usage(), "{bad:?}");
        }
        let e = TickSet::parse("200..100").unwrap_err();
        assert!(e.to_string().contains("ends before it starts"), "{e}");
    }

    #[test]
    fn empty_set() {
        let empty = TickSet::from_ticks(Vec::new());
        assert!(empty.is_empty() && !empty.contains(0));
        assert_eq!((empty.max(), empty.min()), (None, None));
        assert!(empty.check_last_tick(10).is_ok());
    }

    #[test]
    fn beyond_the_last_tick() {
        let e = TickSet::parse("999999")
            .unwrap()
            .check_last_tick(5000)
            .unwrap_err();
        assert!(matches!(
            e,
            QueryError::TickOutOfRange {
                asked: 999999,
                last: 5000
            }
        ));
        assert!(e.to_string().contains("5000"), "{e}");
        assert!(e.is_usage());
        // A set with one tick in range is not an error.
        assert!(TickSet::parse("100, 999999")
            .unwrap()
            .check_last_tick(5000)
            .is_ok());
        assert!(TickSet::parse("4000..")
            .unwrap()
            .check_last_tick(5000)
            .is_ok());
        assert!(TickSet::parse("5000")
            .unwrap()
            .check_last_tick(5000)
            .is_ok());
    }
}
