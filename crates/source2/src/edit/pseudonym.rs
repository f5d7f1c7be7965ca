//! Keyed pseudonyms: each player's fake steam id, fake account id and fake
//! name, derived from a secret key with HMAC-SHA256.
//!
//! A SteamID64 is a 64-bit number (Valve's "SteamID" documentation, and
//! `steamid.go` in demoinfocs-golang):
//!
//! ```text
//! bits 56..63  universe        1 = public
//! bits 52..55  account type    1 = individual
//! bits 32..51  instance        1 = desktop
//! bits  0..31  account id      the 32-bit id the games also send alone
//! ```
//!
//! so an individual public account is `76561197960265728 + account id`
//! (`0x0110_0001_0000_0000 + account id`). The demo carries the account id
//! in the forms listed in [`mod@crate::edit::anonymize`]: as 64 or 32 bits
//! little-endian, as protobuf varints, and as decimal text (`[U:1:id]`,
//! `STEAM_1:y:z` with `y = id & 1`, `z = id >> 1`).
//!
//! [`Pseudonyms`] maps:
//!
//! - an account id to a fake one, `HMAC(key, "account" ‖ steam id)` reduced
//!   into the range of ids that are written in the same number of bytes in
//!   every one of those forms (the same varint length, the same number of
//!   decimal digits for the id and for `id >> 1`), so that the fake id can
//!   replace the real one in place, bit for bit, wherever it occurs;
//! - a steam id to the steam id with the same upper 32 bits (universe,
//!   type, instance) and the fake account id: still a valid-looking
//!   `7656119…` id;
//! - a player to `Player-` and six characters of RFC 4648's base32
//!   alphabet (A-Z, 2-7) drawn from `HMAC(key, "name" ‖ steam id)`, or, for
//!   bots (steam id 0), from `HMAC(key, "bot" ‖ name)`: 2^30 names, so two
//!   players of one dataset share a name with a probability of about
//!   n²/2^31 (n = 1000 players: 0.05%); the fake steam id stays the key to
//!   join on.
//!
//! The same key gives the same player the same fake ids in every demo: the
//! fake steam id is the key to join anonymized demos on. A player's fake
//! name does not depend on the name they play under. Without the key, the fake ids
//! cannot be traced back to real ones; a key derived from a passphrase
//! ([`crate::edit::anonymize::AnonymizeOptions::from_passphrase`]) is only
//! as secret as the passphrase is hard to guess.

use hmac::{Hmac, Mac};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// RFC 4648 base32 alphabet.
const BASE32: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/// The steam id of account id 0 of an individual public account.
pub const STEAM_ID64_BASE: u64 = 0x0110_0001_0000_0000;

/// Derives fake ids and names from a 32-byte key.
#[derive(Clone)]
pub struct Pseudonyms {
    key: [u8; 32],
}

impl std::fmt::Debug for Pseudonyms {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The key is the secret: never printed.
        f.write_str("Pseudonyms { .. }")
    }
}

/// Bytes of a protobuf varint of `v`.
pub fn varint_len(v: u64) -> usize {
    let bits = 64 - v.leading_zeros() as usize;
    bits.div_ceil(7).max(1)
}

/// Decimal digits of `v`.
pub fn decimal_len(v: u64) -> usize {
    let mut n = 1;
    let mut v = v / 10;
    while v > 0 {
        n += 1;
        v /= 10;
    }
    n
}

/// The smallest and largest value written with `digits` decimal digits.
fn decimal_range(digits: usize) -> (u64, u64) {
    let lo = if digits <= 1 {
        0
    } else {
        10u64.saturating_pow(digits as u32 - 1)
    };
    (lo, 10u64.saturating_pow(digits as u32).saturating_sub(1))
}

/// The smallest and largest value whose varint has `bytes` bytes.
fn varint_range(bytes: usize) -> (u64, u64) {
    let lo = if bytes <= 1 {
        0
    } else {
        1u64 << (7 * (bytes - 1))
    };
    let hi = if 7 * bytes >= 64 {
        u64::MAX
    } else {
        (1u64 << (7 * bytes)) - 1
    };
    (lo, hi)
}

impl Pseudonyms {
    /// Pseudonyms under this key.
    pub fn new(key: [u8; 32]) -> Self {
        Pseudonyms { key }
    }

    /// `HMAC(key, label ‖ data ‖ block)`.
    fn mac(&self, label: &[u8], data: &[u8], block: u32) -> [u8; 32] {
        // HMAC takes a key of any length: new_from_slice cannot fail.
        let Ok(mut mac) = HmacSha256::new_from_slice(&self.key) else {
            return [0; 32];
        };
        mac.update(label);
        mac.update(&[0]);
        mac.update(data);
        mac.update(&block.to_le_bytes());
        mac.finalize().into_bytes().into()
    }

    /// The fake account id of the player with this steam id (whose account
    /// id is its low 32 bits): written in as many bytes as the real one as
    /// a varint, in decimal, and as `id >> 1` in decimal; never the real id
    /// (unless it is the only id of its kind) nor 0.
    pub fn account_id(&self, steamid: u64) -> u32 {
        let real = u64::from(steamid as u32);
        let (d_lo, d_hi) = decimal_range(decimal_len(real));
        let (v_lo, v_hi) = varint_range(varint_len(real));
        let (h_lo, h_hi) = decimal_range(decimal_len(real >> 1));
        let lo = d_lo.max(v_lo).max(h_lo.saturating_mul(2)).max(1);
        let hi = d_hi
            .min(v_hi)
            .min(h_hi.saturating_mul(2).saturating_add(1))
            .min(u64::from(u32::MAX));
        if lo > hi {
            // Cannot happen for a real id (it lies in the range itself).
            return real as u32;
        }
        let span = hi - lo + 1;
        let mac = self.mac(b"account", &steamid.to_le_bytes(), 0);
        let mut word = [0u8; 8];
        word.copy_from_slice(&mac[..8]);
        let mut fake = lo + u64::from_le_bytes(word) % span;
        if fake == real && span > 1 {
            fake = lo + (fake - lo + 1) % span;
        }
        fake as u32
    }

    /// The fake steam id: the real one's upper 32 bits (universe, account
    /// type, instance) and [`Pseudonyms::account_id`]. 0 (a bot) stays 0.
    pub fn steamid(&self, steamid: u64) -> u64 {
        if steamid == 0 {
            return 0;
        }
        (steamid & 0xffff_ffff_0000_0000) | u64::from(self.account_id(steamid))
    }

    /// The fake name of a player: `Player-` and six base32 characters (30
    /// bits) of `HMAC(key, "name" ‖ steam id)`, or for a bot (`steamid` 0)
    /// of `HMAC(key, "bot" ‖ name)`.
    pub fn name(&self, steamid: u64, name: &str) -> String {
        let mac = if steamid == 0 {
            self.mac(b"bot", name.as_bytes(), 0)
        } else {
            self.mac(b"name", &steamid.to_le_bytes(), 0)
        };
        let mut word = [0u8; 8];
        word.copy_from_slice(&mac[..8]);
        let bits = u64::from_le_bytes(word);
        let mut out = String::with_capacity(NAME_PREFIX.len() + NAME_CHARS);
        out.push_str(NAME_PREFIX);
        for i in 0..NAME_CHARS {
            let c = ((bits >> (5 * i)) & 31) as usize;
            out.push(char::from(BASE32.get(c).copied().unwrap_or(b'A')));
        }
        out
    }
}

impl Pseudonyms {
    /// A fake name of exactly `len` base32 characters (`HMAC(key, "name" ‖
    /// steam id)`, or `"bot" ‖ name` for a bot, over as many blocks as
    /// needed): for blobs gamewire does not model, where a name can only be
    /// replaced in place.
    pub fn name_of_length(&self, steamid: u64, name: &str, len: usize) -> String {
        let (label, data): (&[u8], Vec<u8>) = if steamid == 0 {
            (b"bot", name.as_bytes().to_vec())
        } else {
            (b"name", steamid.to_le_bytes().to_vec())
        };
        let mut out = String::with_capacity(len);
        let mut block = 1u32;
        while out.len() < len {
            let mac = self.mac(label, &data, block);
            block += 1;
            // One character from each byte's low 5 bits.
            for &b in &mac {
                if out.len() >= len {
                    break;
                }
                out.push(char::from(
                    BASE32.get(usize::from(b & 31)).copied().unwrap_or(b'A'),
                ));
            }
        }
        out
    }
}

/// What every fake name starts with.
pub const NAME_PREFIX: &str = "Player-";

/// Base32 characters after [`NAME_PREFIX`].
const NAME_CHARS: usize = 6;

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn fake_ids_keep_every_written_length() {
        let p = Pseudonyms::new([7; 32]);
        for acc in [
            1u32,
            127,
            128,
            6_721_005,
            210_377_205,
            999_999,
            1_000_000,
            268_435_455,
            268_435_456,
            u32::MAX,
        ] {
            let steamid = STEAM_ID64_BASE + u64::from(acc);
            let fake = p.account_id(steamid);
            let (a, f) = (u64::from(acc), u64::from(fake));
            assert_eq!(varint_len(a), varint_len(f), "{acc} -> {fake}");
            assert_eq!(decimal_len(a), decimal_len(f), "{acc} -> {fake}");
            assert_eq!(decimal_len(a >> 1), decimal_len(f >> 1), "{acc} -> {fake}");
            if acc > 9 {
                assert_ne!(acc, fake);
            }
            let fs = p.steamid(steamid);
            assert_eq!(fs >> 32, steamid >> 32);
            assert_eq!(fs as u32, fake);
            assert_eq!(decimal_len(fs), decimal_len(steamid));
            assert_eq!(varint_len(fs), varint_len(steamid));
        }
        assert_eq!(p.steamid(0), 0);
    }

    #[test]
    fn names_are_keyed_and_stable() {
        let a = Pseudonyms::new([1; 32]);
        let b = Pseudonyms::new([2; 32]);
        let s = 76_561_197_966_986_733;
        let n = a.name(s, "Partridge");
        assert_eq!(n.len(), NAME_PREFIX.len() + NAME_CHARS);
        assert!(n.starts_with(NAME_PREFIX));
        assert!(n[NAME_PREFIX.len()..].bytes().all(|c| BASE32.contains(&c)));
        // A player keeps the name whatever they call themselves.
        assert_eq!(n, a.name(s, "another name"));
        assert_ne!(n, b.name(s, "Partridge"));
        assert_ne!(a.name(0, "Vox"), a.name(0, "Uri"));
        assert_eq!(a.name(0, "Vox"), a.name(0, "Vox"));
        assert_ne!(a.account_id(s), b.account_id(s));
        for len in [0, 1, 3, 32, 33, 100] {
            let n = a.name_of_length(s, "Partridge", len);
            assert_eq!(n.len(), len);
            assert!(n.bytes().all(|c| BASE32.contains(&c)));
        }
    }
}
