//! Compressed demo files from strangers: arbitrary bytes behind each
//! format's magic go through `gamewire_query::input::unpack`. It returns the
//! demo, the demo with a cut, or an error, and never panics; what comes out
//! stays within the decompression limit, and a cut or an error is located
//! at the bytes that came out before it.
#![no_main]

use gamewire_query::input::{decompressed_limit, unpack, Compression, InputCut, InputError};
use libfuzzer_sys::fuzz_target;

const MAGIC: [&[u8]; 4] = [&[0x1f, 0x8b], b"BZh", &[0x28, 0xb5, 0x2f, 0xfd], b""];

fuzz_target!(|input: &[u8]| {
    let Some((&pick, rest)) = input.split_first() else {
        return;
    };
    // The first byte picks a magic to put in front (or none: the bytes as
    // they are, which may carry one themselves).
    let mut data = MAGIC[usize::from(pick % 4)].to_vec();
    data.extend_from_slice(rest);
    let compressed = Compression::of(&data).is_some();
    let limit = decompressed_limit(data.len());
    let len = data.len();
    match unpack("fuzz".as_ref(), data) {
        Ok((out, cut)) => {
            assert!(out.len() as u64 <= limit.max(len as u64));
            if !compressed {
                assert!(cut.is_none() && out.len() == len);
            }
            if let Some(cut) = cut {
                assert!(compressed);
                let InputCut::Compressed { byte_offset, .. } = cut else {
                    panic!("{cut}");
                };
                assert_eq!(byte_offset, out.len() as u64);
            }
        }
        Err(e) => {
            assert!(compressed);
            match e {
                InputError::TooLarge { size, .. } => assert!(size <= limit + 1),
                InputError::Cut(InputCut::Compressed { byte_offset, .. }) => {
                    assert!(byte_offset < 8)
                }
                other => panic!("{other}"),
            }
        }
    }
});
