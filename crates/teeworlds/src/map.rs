//! Map download checks.
//!
//! The `map_change` system message announces the map's name, CRC32 (the
//! zlib/IEEE CRC of the whole file), size and SHA-256 (0.7.5
//! `CServer::LoadMap`). The client requests the data with
//! `request_map_data` and receives `map_data` chunks of `chunk_size` bytes,
//! `num_response_chunks_per_request` per request.

use sha2::{Digest, Sha256};

/// Error verifying a downloaded map.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MapError {
    /// Wrong size.
    #[error("the map has {actual} bytes, the server announced {expected}")]
    Size {
        /// Announced.
        expected: i64,
        /// Received.
        actual: usize,
    },
    /// Wrong CRC.
    #[error("the map CRC is {actual:#010x}, the server announced {expected:#010x}")]
    Crc {
        /// Announced.
        expected: u32,
        /// Computed.
        actual: u32,
    },
    /// Wrong SHA-256.
    #[error("the map SHA-256 is {actual}, the server announced {expected}")]
    Sha256 {
        /// Announced (hex).
        expected: String,
        /// Computed (hex).
        actual: String,
    },
}

/// CRC32 of a map file as the engine computes it.
pub fn crc32(data: &[u8]) -> u32 {
    crc32fast::hash(data)
}

/// SHA-256 of a map file.
pub fn sha256(data: &[u8]) -> [u8; 32] {
    Sha256::digest(data).into()
}

/// Checks size, CRC and SHA-256 of downloaded map data.
pub fn verify(data: &[u8], size: i32, crc: i32, sha: &[u8; 32]) -> Result<(), MapError> {
    if i64::from(size) != data.len() as i64 {
        return Err(MapError::Size {
            expected: i64::from(size),
            actual: data.len(),
        });
    }
    let c = crc32(data);
    if c != crc as u32 {
        return Err(MapError::Crc {
            expected: crc as u32,
            actual: c,
        });
    }
    let s = sha256(data);
    if &s != sha {
        return Err(MapError::Sha256 {
            expected: crate::msg::hex(sha),
            actual: crate::msg::hex(&s),
        });
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn known_digests() {
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
        let s = sha256(b"abc");
        assert_eq!(crate::msg::hex(&s[..4]), "ba7816bf");
        assert!(verify(b"abc", 3, crc32(b"abc") as i32, &s).is_ok());
        assert!(matches!(
            verify(b"abd", 3, crc32(b"abc") as i32, &s),
            Err(MapError::Crc { .. })
        ));
    }
}
