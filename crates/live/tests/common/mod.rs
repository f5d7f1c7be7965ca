//! Shared by the tests (`server` also by gamewire-query's broadcast tests).

pub mod server;

use std::path::Path;

use gamewire_source2::broadcast::Fragment;
use server::Result;

/// The folder's fragments in playback order (its signup `start.bin`, the
/// sync fragment's `full.bin`, then every `delta.bin` from there), as the
/// folder reader picks them.
pub fn folder_fragments(dir: &Path) -> Result<Vec<Fragment>> {
    let sync: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("sync.json"))?)?;
    let number = |k: &str| sync.get(k).and_then(serde_json::Value::as_u64);
    let first = number("fragment").ok_or("no fragment")?;
    let signup = number("signup_fragment").unwrap_or(0);
    let read = |rel: String| -> Result<Fragment> {
        Ok(Fragment {
            data: std::fs::read(dir.join(&rel))?,
            name: rel,
        })
    };
    let mut out = vec![
        read(format!("{signup}/start.bin"))?,
        read(format!("{first}/full.bin"))?,
    ];
    let mut n = first;
    while dir.join(format!("{n}/delta.bin")).is_file() {
        out.push(read(format!("{n}/delta.bin"))?);
        n += 1;
    }
    Ok(out)
}
