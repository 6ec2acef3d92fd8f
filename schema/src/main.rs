//! `zlink-schema [--check]`: writes every binding's copy of the host
//! surface's closed sets from the one place they are written by hand, the
//! bridge's `codes.rs` (their stable numbers, names and docs), or with
//! `--check` fails when a checked-in copy differs from what it would write
//! (`make lint`). Run from anywhere in the repository.
//!
//! Why a generator of our own, read from the Rust source (as cbindgen
//! reads it for the C header): the files must keep each language's public
//! shapes exactly (Java enums with `code()`/`wireName()`, Node's plain
//! names, Python's `Literal`s), which general tools such as
//! serde-generate do not emit; and it runs at build time only, so the
//! decoders cost what hand-written ones did.

mod codes;
mod emit;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn main() -> ExitCode {
    let check = match std::env::args().nth(1).as_deref() {
        None => false,
        Some("--check") => true,
        Some(other) => {
            eprintln!("zlink-schema: unknown argument {other:?}; usage: zlink-schema [--check]");
            return ExitCode::from(2);
        }
    };
    match run(check) {
        Ok(stale) if stale.is_empty() => ExitCode::SUCCESS,
        Ok(stale) => {
            for path in stale {
                eprintln!("zlink-schema: {path} is stale; run `make schema` and commit it");
            }
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("zlink-schema: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Writes (or, with `check`, compares) every generated file; the paths
/// found stale.
fn run(check: bool) -> Result<Vec<String>, String> {
    let root = repository_root()?;
    let codes_rs = root.join("bridge/src/codes.rs");
    let source = std::fs::read_to_string(&codes_rs)
        .map_err(|e| format!("cannot read {}: {e}", codes_rs.display()))?;
    let sets = codes::read(&source)?;
    let mut stale = Vec::new();
    for out in emit::all(&sets)? {
        let path = root.join(&out.path);
        let now = std::fs::read_to_string(&path).unwrap_or_default();
        if now == out.text {
            continue;
        }
        if check {
            stale.push(out.path);
        } else {
            std::fs::write(&path, &out.text)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            println!("zlink-schema: wrote {}", out.path);
        }
    }
    Ok(stale)
}

/// The repository: this crate's parent folder.
fn repository_root() -> Result<PathBuf, String> {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.parent()
        .map(Path::to_path_buf)
        .ok_or_else(|| "the schema crate has no parent folder".to_owned())
}
