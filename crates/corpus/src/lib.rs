//! Where gamewire's tests and benchmarks find the corpus of real demos,
//! captures and vectors.
//!
//! The corpus is `GAMEWIRE_CORPUS` when that is set (a relative value is
//! taken from the workspace root), and `../shared/corpus` relative to the
//! workspace root otherwise. The workspace root is found at build time from
//! this crate's own manifest directory, so every test binary sees the same
//! directory whatever its working directory. The Python tests and the
//! scripts in `scripts/` follow the same rule.
//!
//! ```
//! let demo = gamewire_corpus::path("cs2/14065.dem");
//! assert!(demo.starts_with(gamewire_corpus::root()));
//! assert!(demo.ends_with("cs2/14065.dem"));
//! ```

use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

/// The environment variable that names the corpus directory.
pub const ENV: &str = "GAMEWIRE_CORPUS";

/// The corpus directory when [`ENV`] is not set, relative to the workspace root.
pub const DEFAULT: &str = "../shared/corpus";

/// The workspace root: two levels above this crate (`crates/corpus`).
pub fn workspace_root() -> PathBuf {
    normalize(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
}

/// The corpus directory: [`ENV`] if set and not empty, else [`DEFAULT`],
/// either taken from the [`workspace_root`] when relative.
pub fn root() -> PathBuf {
    root_from(std::env::var_os(ENV))
}

/// `rel` inside the corpus directory, e.g. `path("cs2/14065.dem")`.
pub fn path(rel: impl AsRef<Path>) -> PathBuf {
    root().join(rel)
}

/// Every Source 2 demo of the corpus (the `.dem` files of its `cs2`,
/// `deadlock` and `dota2` folders), sorted. A folder that cannot be read
/// is an error naming it.
pub fn source2_demos() -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for game in ["cs2", "deadlock", "dota2"] {
        let folder = path(game);
        let entries = std::fs::read_dir(&folder).map_err(|e| {
            std::io::Error::new(e.kind(), format!("corpus folder {}: {e}", folder.display()))
        })?;
        for e in entries.flatten() {
            if e.path().extension().is_some_and(|x| x == "dem") {
                out.push(e.path());
            }
        }
    }
    out.sort();
    Ok(out)
}

fn root_from(var: Option<OsString>) -> PathBuf {
    let dir = var
        .filter(|v| !v.is_empty())
        .map_or_else(|| PathBuf::from(DEFAULT), PathBuf::from);
    // `join` keeps an absolute `dir` as it is.
    normalize(&workspace_root().join(dir))
}

/// `path` with its `.` and `..` components folded away lexically (no
/// symbolic link is followed, nothing needs to exist).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_shared_corpus_beside_the_workspace() {
        let root = root_from(None);
        let workspace = workspace_root();
        assert_eq!(
            root,
            workspace
                .parent()
                .unwrap_or(&workspace)
                .join("shared/corpus")
        );
        assert_eq!(root_from(Some(OsString::new())), root);
    }

    #[test]
    fn the_workspace_root_holds_the_workspace_manifest() {
        let root = workspace_root();
        assert!(root.join("Cargo.toml").is_file(), "{}", root.display());
        assert!(root.join("crates/corpus/Cargo.toml").is_file());
        assert!(root.components().all(|c| c != Component::ParentDir));
    }

    #[test]
    fn a_relative_variable_is_taken_from_the_workspace_root() {
        let root = root_from(Some("elsewhere/corpus".into()));
        assert_eq!(root, workspace_root().join("elsewhere/corpus"));
        let up = root_from(Some("../other".into()));
        assert_eq!(
            Some(up.as_path()),
            workspace_root()
                .parent()
                .map(|p| p.join("other"))
                .as_deref()
        );
    }

    #[test]
    fn an_absolute_variable_is_used_as_it_is() {
        assert_eq!(
            root_from(Some("/data/corpus".into())),
            PathBuf::from("/data/corpus")
        );
        assert_eq!(
            root_from(Some("/data/./x/../corpus".into())),
            PathBuf::from("/data/corpus")
        );
    }

    #[test]
    fn path_joins_below_the_root() {
        let p = path("teeworlds/captures");
        assert!(p.starts_with(root()));
        assert!(p.ends_with("teeworlds/captures"));
    }
}
