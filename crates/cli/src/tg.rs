//! `gamewire tg`: Star Trek: Bridge Commander TGBufferStream tools.
//!
//! - `gamewire tg cf16 encode VALUE`: a CompressedFloat16 code and its parts.
//! - `gamewire tg cf16 decode CODE`: the value of a code (hex, `0x` optional).
//! - `gamewire tg read HEX --as "byte,bit,bit,short,float,cf16,cvec3"`: decode a
//!   buffer with a field list (names in `gamewire_tgstream::fields`), printing
//!   each field with its byte offset; a failure names the field and offset.

use clap::{Args, Subcommand, ValueEnum};
use gamewire_tgstream::fields::{
    decode_fields, parse_field_list, DecodedField, FieldListItemError, FieldValue,
};
use gamewire_tgstream::{Cf16, Magnitude};
use serde_json::json;
use std::io::Write;

use crate::error::CliError;

/// A line on standard output; a closed standard output is an error (the
/// command then ends quietly), never a panic.
macro_rules! out {
    ($($arg:tt)*) => {
        writeln!(std::io::stdout().lock(), $($arg)*).map_err(CliError::Output)?
    };
}

/// Arguments of `gamewire tg`.
#[derive(Debug, Args)]
pub struct TgArgs {
    #[command(subcommand)]
    command: TgCommand,
}

#[derive(Debug, Subcommand)]
enum TgCommand {
    /// Encode or decode a CompressedFloat16.
    Cf16 {
        #[command(subcommand)]
        op: Cf16Op,
    },
    /// Decode a hex buffer with a comma-separated field list.
    Read {
        /// The bytes in hex; spaces and colons are ignored, `0x` is optional.
        hex: String,
        /// Field list: byte, i8, bit, short, int, uint, float, cf16, cvec3,
        /// cvec4 (CF16 magnitude), cvec4f (f32 magnitude), bytes:N, str16;
        /// `name*N` repeats a field.
        #[arg(long = "as", value_name = "FIELDS")]
        fields: String,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
}

#[derive(Debug, Subcommand)]
enum Cf16Op {
    /// Encode a decimal value (float32 arithmetic, as the game).
    Encode {
        /// The value, e.g. 7.5 or -1e3.
        #[arg(allow_negative_numbers = true)]
        value: String,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Decode a 16-bit code given in hex, e.g. 0x4B8D.
    Decode {
        /// The code in hex, `0x` optional.
        code: String,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
}

/// Runs `gamewire tg`.
pub fn run(args: TgArgs) -> Result<(), CliError> {
    match args.command {
        TgCommand::Cf16 {
            op: Cf16Op::Encode { value, format },
        } => encode(&value, format),
        TgCommand::Cf16 {
            op: Cf16Op::Decode { code, format },
        } => decode(&code, format),
        TgCommand::Read {
            hex,
            fields,
            format,
        } => read(&hex, &fields, format),
    }
}

fn cf16_json(code: Cf16) -> serde_json::Value {
    json!({
        "code": format!("{:#06x}", code.to_bits()),
        "sign": u8::from(code.is_negative()),
        "scale": code.scale(),
        "mantissa": code.mantissa(),
        "value": code.decode(),
        "le_bytes": hex_string(&code.to_bits().to_le_bytes()),
    })
}

fn cf16_text(code: Cf16) -> String {
    format!(
        "{:#06x}  sign {}  scale {}  mantissa {}  decodes to {}  wire bytes {}",
        code.to_bits(),
        u8::from(code.is_negative()),
        code.scale(),
        code.mantissa(),
        code.decode(),
        hex_string(&code.to_bits().to_le_bytes())
    )
}

fn encode(value: &str, format: Format) -> Result<(), CliError> {
    let exact: f64 = value
        .trim()
        .parse()
        .map_err(|_| CliError::NotANumber(value.to_string()))?;
    let code = Cf16::encode_exact(exact);
    #[allow(clippy::cast_possible_truncation)]
    let as_f32 = exact as f32;
    let f32_code = Cf16::encode(as_f32);
    match format {
        Format::Text => {
            out!("{}", cf16_text(code));
            if f32_code != code {
                out!(
                    "note: {value} rounded to f32 ({as_f32}) is a decade boundary and encodes as {:#06x}",
                    f32_code.to_bits()
                );
            }
        }
        Format::Json => {
            let mut out = cf16_json(code);
            out["input"] = json!(exact);
            out["f32_code"] = json!(format!("{:#06x}", f32_code.to_bits()));
            out!("{out}");
        }
    }
    Ok(())
}

fn decode(code: &str, format: Format) -> Result<(), CliError> {
    let digits = strip_0x(code.trim());
    let bits =
        u16::from_str_radix(digits, 16).map_err(|_| CliError::NotACf16Code(code.to_string()))?;
    let code = Cf16::from_bits(bits);
    match format {
        Format::Text => out!("{}", cf16_text(code)),
        Format::Json => out!("{}", cf16_json(code)),
    }
    Ok(())
}

fn strip_0x(s: &str) -> &str {
    s.strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .unwrap_or(s)
}

/// Parses hex, ignoring whitespace, colons and a leading `0x`.
fn parse_hex(text: &str) -> Result<Vec<u8>, CliError> {
    let digits: Vec<u8> = strip_0x(text.trim())
        .bytes()
        .filter(|b| !b.is_ascii_whitespace() && *b != b':')
        .collect();
    if !digits.len().is_multiple_of(2) {
        return Err(CliError::TgOddDigits(digits.len()));
    }
    digits
        .chunks(2)
        .enumerate()
        .map(|(i, pair)| {
            std::str::from_utf8(pair)
                .ok()
                .and_then(|s| u8::from_str_radix(s, 16).ok())
                .ok_or(CliError::TgNotHex(i))
        })
        .collect()
}

fn hex_string(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 3);
    for (i, b) in bytes.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(&format!("{b:02x}"));
    }
    out
}

fn value_json(value: &FieldValue<'_>) -> serde_json::Value {
    match value {
        FieldValue::Byte(v) => json!(v),
        FieldValue::I8(v) => json!(v),
        FieldValue::Bit { value, .. } => json!(value),
        FieldValue::Short(v) => json!(v),
        FieldValue::Int32(v) => json!(v),
        FieldValue::UInt32(v) => json!(v),
        FieldValue::Float(v) => json!(v),
        FieldValue::Cf16(c) => cf16_json(*c),
        FieldValue::CVec3(v) => json!({ "dir": v.dir, "value": v.decode() }),
        FieldValue::CVec4(v) => {
            let magnitude = match v.magnitude {
                Magnitude::Cf16(c) => cf16_json(c),
                Magnitude::F32(m) => json!(m),
            };
            json!({ "dir": v.dir, "magnitude": magnitude, "value": v.decode() })
        }
        FieldValue::Bytes(b) => json!(hex_string(b)),
        FieldValue::String16(b) => json!({
            "text": b.escape_ascii().to_string(),
            "hex": hex_string(b),
        }),
        _ => json!(value.to_string()),
    }
}

fn field_json(field: &DecodedField<'_>) -> serde_json::Value {
    let mut out = json!({
        "index": field.index,
        "field": field.kind.to_string(),
        "offset": field.offset,
        "value": value_json(&field.value),
        "text": field.value.to_string(),
    });
    if let FieldValue::Bit { index, .. } = field.value {
        out["bit"] = json!(index);
    }
    out
}

fn error_json(error: &FieldListItemError) -> serde_json::Value {
    json!({
        "index": error.index,
        "field": error.kind.to_string(),
        "offset": error.error.offset(),
        "message": error.to_string(),
    })
}

fn read(hex: &str, list: &str, format: Format) -> Result<(), CliError> {
    let data = parse_hex(hex)?;
    let kinds = parse_field_list(list).map_err(gamewire_tgstream::Error::from)?;
    let (fields, error, end) = decode_fields(&data, &kinds);
    let rest = data.get(end..).unwrap_or_default();
    match format {
        Format::Text => {
            out!("{:>6}  {:>3}  {:<8}  value", "offset", "#", "field");
            for f in &fields {
                let kind = f.kind.to_string();
                out!("{:>6}  {:>3}  {:<8}  {}", f.offset, f.index, kind, f.value);
            }
            if error.is_none() {
                out!(
                    "{} fields, {} of {} bytes read",
                    fields.len(),
                    end,
                    data.len()
                );
                if !rest.is_empty() {
                    out!("{} bytes left at {end}: {}", rest.len(), hex_string(rest));
                }
            }
        }
        Format::Json => {
            let out = json!({
                "length": data.len(),
                "read": end,
                "fields": fields.iter().map(field_json).collect::<Vec<_>>(),
                "left": hex_string(rest),
                "error": error.as_ref().map(error_json),
            });
            out!("{out}");
        }
    }
    match error {
        Some(e) => Err(gamewire_tgstream::Error::from(e).into()),
        None => Ok(()),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn hex_parsing() {
        assert_eq!(parse_hex("0x00 61:ff").unwrap(), [0x00, 0x61, 0xFF]);
        assert_eq!(parse_hex("").unwrap(), Vec::<u8>::new());
        assert!(matches!(parse_hex("abc"), Err(CliError::TgOddDigits(3))));
        assert!(matches!(parse_hex("zz"), Err(CliError::TgNotHex(0))));
    }
}
