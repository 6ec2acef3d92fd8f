//! `zlink-schema [--check]`: writes every binding's copy of the host
//! surface from the one place it is written by hand: the closed sets from
//! the bridge's `codes.rs` (their stable numbers, names and docs), the
//! result types from `surface/mod.rs` (records and unions: the bridge's
//! encoder, the JVM's records and reader, Node's reader and types, Python's
//! pyo3 classes and their stubs), or with
//! `--check` fails when a checked-in copy differs from what it would write
//! (`make lint`). Run from anywhere in the checkout to work on.
//!
//! Why a generator of our own, read from the Rust source (as cbindgen
//! reads it for the C header): the files must keep each language's public
//! shapes exactly (Java enums with `code()`/`wireName()`, Node's plain
//! names, Python's `Literal`s), which general tools such as
//! serde-generate do not emit; and it runs at build time only, so the
//! decoders cost what hand-written ones did.

mod c_emit;
mod codes;
mod emit;
mod jni_emit;
mod operations;
mod operations_emit;
mod python_emit;
mod surface;
mod surface_emit;

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
    let surface_rs = root.join("bridge/src/surface/mod.rs");
    let surface_source = std::fs::read_to_string(&surface_rs)
        .map_err(|e| format!("cannot read {}: {e}", surface_rs.display()))?;
    let names: Vec<String> = sets.iter().map(|s| s.name.clone()).collect();
    let surface = surface::read(&surface_source, &names)?;
    let mut outputs = emit::all(&sets)?;
    outputs.extend(surface_emit::all(&surface)?);
    outputs.extend(c_emit::all(&surface)?);
    let pyi_path = root.join(python_emit::PYI);
    let pyi = std::fs::read_to_string(&pyi_path)
        .map_err(|e| format!("cannot read {}: {e}", pyi_path.display()))?;
    outputs.extend(python_emit::all(&surface, &pyi)?);
    outputs.extend(jni_emit::all(&jvm_sources(&root)?)?);
    outputs = with_operations(&root, &surface, &names, outputs)?;
    let mut stale = Vec::new();
    for mut out in outputs {
        if out.path.ends_with(".rs") {
            out.text = rustfmt(&out.text)?;
        }
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

/// `outputs` with the operations' files: the stubs `outputs` already
/// wrote gain their operations region (one file, two generators).
fn with_operations(
    root: &Path,
    surface: &surface::Surface,
    codes: &[String],
    mut outputs: Vec<emit::Output>,
) -> Result<Vec<emit::Output>, String> {
    let read = |path: &str| {
        std::fs::read_to_string(root.join(path)).map_err(|e| format!("cannot read {path}: {e}"))
    };
    let ops = operations::read(&read("bridge/src/surface/operations.rs")?, surface, codes)?;
    let at = outputs
        .iter()
        .position(|o| o.path == python_emit::PYI)
        .ok_or("the stubs were not generated")?;
    let bindings = operations_emit::Bindings {
        pyi: outputs.remove(at).text,
        python: read(operations_emit::PYTHON)?,
        dts: read(operations_emit::DTS)?,
        js: read(operations_emit::JS)?,
        java: read(operations_emit::JAVA)?,
        header: read(operations_emit::HEADER)?,
    };
    outputs.extend(operations_emit::all(&ops, surface, &bindings)?);
    Ok(outputs)
}

/// The JVM crate's Rust files (path, text), every one under
/// `bindings-jvm/src`, in the order Native.java lists their entry points:
/// `natives/mod.rs`, its modules in the order it declares them, then the
/// rest by path (`fast.rs`, ...).
fn jvm_sources(root: &Path) -> Result<Vec<(String, String)>, String> {
    let src = root.join("bindings-jvm/src");
    let mut paths = Vec::new();
    rust_files(&src, &src, &mut paths)?;
    let mut first = vec!["natives/mod.rs".to_owned()];
    let natives = std::fs::read_to_string(src.join("natives/mod.rs"))
        .map_err(|e| format!("cannot read bindings-jvm/src/natives/mod.rs: {e}"))?;
    for line in natives.lines() {
        if let Some(module) = line.strip_prefix("mod ").and_then(|l| l.strip_suffix(';')) {
            first.push(format!("natives/{module}.rs"));
        }
    }
    paths.sort_by_key(|p| {
        (
            first.iter().position(|f| f == p).unwrap_or(usize::MAX),
            p.clone(),
        )
    });
    paths
        .into_iter()
        .map(|path| {
            let full = src.join(&path);
            std::fs::read_to_string(&full)
                .map(|text| (path, text))
                .map_err(|e| format!("cannot read {}: {e}", full.display()))
        })
        .collect()
}

/// Every `.rs` file under `dir`, as paths relative to `base`.
fn rust_files(base: &Path, dir: &Path, out: &mut Vec<String>) -> Result<(), String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            rust_files(base, &path, out)?;
        } else if path.extension().is_some_and(|x| x == "rs") {
            let relative = path.strip_prefix(base).map_err(|e| e.to_string())?;
            out.push(relative.to_string_lossy().into_owned());
        }
    }
    Ok(())
}

/// `text` as rustfmt writes it (the generated Rust must pass `cargo fmt
/// --check`).
fn rustfmt(text: &str) -> Result<String, String> {
    use std::io::Write;
    let mut child = std::process::Command::new("rustfmt")
        .args(["--edition", "2024", "--emit", "stdout"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run rustfmt: {e}"))?;
    child
        .stdin
        .take()
        .ok_or("rustfmt has no stdin")?
        .write_all(text.as_bytes())
        .map_err(|e| format!("rustfmt: {e}"))?;
    let out = child
        .wait_with_output()
        .map_err(|e| format!("rustfmt: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "rustfmt refused the generated Rust: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    String::from_utf8(out.stdout).map_err(|e| format!("rustfmt: {e}"))
}

/// The repository this is run in: the nearest folder, from the current
/// one up, that holds `bridge/src/codes.rs`. Found at run time, never baked
/// in at build time: a build shared by several checkouts (one target
/// folder) must check the checkout it runs in.
fn repository_root() -> Result<PathBuf, String> {
    let here = std::env::current_dir().map_err(|e| format!("no current folder: {e}"))?;
    here.ancestors()
        .find(|dir| dir.join("bridge/src/codes.rs").is_file())
        .map(Path::to_path_buf)
        .ok_or_else(|| format!("{} is not inside a zlink checkout", here.display()))
}
