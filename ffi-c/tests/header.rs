//! The checked-in header carries the version of the workspace Cargo.toml.

use std::path::Path;

fn define(header: &str, name: &str) -> String {
    header
        .lines()
        .find_map(|l| l.strip_prefix(&format!("#define {name} ")))
        .unwrap_or_else(|| panic!("include/zlink.h defines {name}"))
        .trim()
        .to_owned()
}

#[test]
fn header_version_macros_match_the_workspace_version() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let header = std::fs::read_to_string(root.join("include/zlink.h")).expect("header readable");
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).expect("manifest readable");
    let in_workspace_package = manifest
        .split("[workspace.package]")
        .nth(1)
        .expect("a [workspace.package] table");
    let version = in_workspace_package
        .lines()
        .find_map(|l| l.strip_prefix("version = "))
        .expect("a workspace version")
        .trim_matches('"');
    let from_header = format!(
        "{}.{}.{}",
        define(&header, "ZLINK_VERSION_MAJOR"),
        define(&header, "ZLINK_VERSION_MINOR"),
        define(&header, "ZLINK_VERSION_PATCH")
    );
    assert_eq!(from_header, version);
    assert_eq!(version, env!("CARGO_PKG_VERSION"));
}
