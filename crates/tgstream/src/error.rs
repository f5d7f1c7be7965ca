//! The crate's error: any error of any layer.
//!
//! Each module reports its own error type, named after what it reads
//! ([`StreamError`] for a read from the stream, [`FieldListError`] for a field
//! list that cannot be parsed, [`FieldListItemError`] for a field that cannot be
//! decoded), so a function says exactly what can go wrong. [`Error`] wraps all
//! of them, for callers that run several layers and want one type behind `?`.
//! It is transparent: its message and its
//! [`source`](std::error::Error::source) are those of the wrapped error.

use crate::fields::{FieldListError, FieldListItemError};
use crate::stream_error::StreamError;

/// Any error of this crate.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A read from the stream ([`Reader`](crate::Reader)).
    #[error(transparent)]
    Stream(#[from] StreamError),
    /// A field list that cannot be parsed ([`crate::fields::parse_field_list`]).
    #[error(transparent)]
    FieldList(#[from] FieldListError),
    /// A field that cannot be decoded ([`crate::fields::decode_fields`]).
    #[error(transparent)]
    Field(#[from] FieldListItemError),
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use std::error::Error as _;

    use super::*;
    use crate::fields::{decode_fields, parse_field_list};
    use crate::Reader;

    fn read_short(data: &[u8]) -> Result<u16, Error> {
        Ok(Reader::new(data).read_u16()?)
    }

    fn parse(spec: &str) -> Result<usize, Error> {
        Ok(parse_field_list(spec)?.len())
    }

    fn decode(data: &[u8], spec: &str) -> Result<usize, Error> {
        let kinds = parse_field_list(spec)?;
        let (fields, error, _) = decode_fields(data, &kinds);
        if let Some(e) = error {
            return Err(e.into());
        }
        Ok(fields.len())
    }

    #[test]
    fn question_mark_lifts_a_stream_error() {
        let inner = Reader::new(&[0x01]).read_u16().unwrap_err();
        let e = read_short(&[0x01]).unwrap_err();
        assert_eq!(e, Error::Stream(inner.clone()));
        assert_eq!(e.to_string(), inner.to_string());
        assert_eq!(read_short(&[0x34, 0x12]), Ok(0x1234));
    }

    #[test]
    fn question_mark_lifts_a_field_list_error() {
        let inner = parse_field_list("byte,nope").unwrap_err();
        let e = parse("byte,nope").unwrap_err();
        assert_eq!(e, Error::FieldList(inner.clone()));
        assert_eq!(e.to_string(), inner.to_string());
        assert_eq!(parse("byte,bit*3"), Ok(4));
    }

    #[test]
    fn question_mark_lifts_a_field_error() {
        let (_, inner, _) = decode_fields(&[0x1C], &parse_field_list("byte,short").unwrap());
        let inner = inner.unwrap();
        let e = decode(&[0x1C], "byte,short").unwrap_err();
        assert_eq!(e, Error::Field(inner.clone()));
        assert_eq!(e.to_string(), inner.to_string());
        assert_eq!(decode(&[0x1C, 0x34, 0x12], "byte,short"), Ok(2));
    }

    #[test]
    fn display_and_source_pass_through() {
        // A stream error has no source; wrapped, it still has none.
        let e = read_short(&[]).unwrap_err();
        assert!(e.source().is_none());
        // A field error's source is the stream error under it, wrapped or not.
        let e = decode(&[], "cf16").unwrap_err();
        let source = e.source().map(ToString::to_string);
        assert!(source.is_some_and(|s| s.contains("a CompressedFloat16")));
    }
}
