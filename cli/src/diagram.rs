//! Writing a mesh run's picture (`zlink sim --trace`, `zlink demo
//! --trace`): the Mermaid text to the file asked for, the page that opens
//! in a browser beside it.

use std::error::Error;
use std::path::Path;

use zlink_core::mesh::Diagram;

/// Writes `diagram` to `path` (Mermaid) and to `path` with `.html` (the
/// page titled `title`); the two paths, as written.
pub(crate) fn write(
    path: &Path,
    title: &str,
    diagram: &Diagram,
) -> Result<(String, String), Box<dyn Error>> {
    let page = path.with_extension("html");
    if page == path {
        return Err(format!(
            "--trace {}: give the Mermaid file another extension than .html (the page is written beside it)",
            path.display()
        )
        .into());
    }
    std::fs::write(path, diagram.mermaid())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    std::fs::write(&page, diagram.html(title))
        .map_err(|e| format!("cannot write {}: {e}", page.display()))?;
    Ok((path.display().to_string(), page.display().to_string()))
}
