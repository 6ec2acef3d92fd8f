//! `zlink.wire`: the strict frame codec (docs/wire.md) for hosts and tests.

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use zlink_bridge::core::wire::{self, DecodeLimits, Frame, json};

use crate::errors::raise;

/// One decoded frame. `to_dict()` describes it exactly as the `frame`
/// field of the golden vectors in `testdata/wire/*.json`.
#[pyclass(name = "Frame", module = "zlink.wire", frozen, eq)]
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct PyFrame(Frame);

#[pymethods]
impl PyFrame {
    /// The command's name: "Message", "Request", "Reply", "Rejection",
    /// "MessageFollow", "SessionBind", ..., and the relocation commands.
    #[getter]
    fn command(&self) -> &'static str {
        json::command_name(&self.0)
    }
    /// The language-neutral description, as a dict (u64s as decimal strings).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let text = json::describe(&self.0).to_string();
        py.import("json")?.call_method1("loads", (text,))
    }
    /// The same description as JSON text.
    fn to_json(&self) -> String {
        json::describe(&self.0).to_string()
    }
    fn __repr__(&self) -> String {
        format!("Frame(command={:?})", self.command())
    }
}

/// Decodes one frame strictly; raises `WireError` (with `kind`) otherwise.
#[pyfunction]
#[pyo3(name = "_wire_decode", signature = (data, *, max_object_id_bytes = 1024, max_payload_bytes = 1_048_576, max_state_bytes = 16_777_216))]
fn decode(
    data: &[u8],
    max_object_id_bytes: usize,
    max_payload_bytes: usize,
    max_state_bytes: usize,
) -> PyResult<PyFrame> {
    let limits = DecodeLimits {
        max_object_id_bytes,
        max_payload_bytes,
        max_state_bytes,
    };
    wire::decode(data, &limits)
        .map(PyFrame)
        .map_err(|e| raise(e.into()))
}

/// Encodes a frame to its exact bytes.
#[pyfunction]
#[pyo3(name = "_wire_encode")]
fn encode<'py>(py: Python<'py>, frame: &PyFrame) -> Bound<'py, PyBytes> {
    PyBytes::new(py, &wire::encode(&frame.0))
}

/// Adds the codec to the native module; `zlink/wire.py` is its public face.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyFrame>()?;
    m.add_function(wrap_pyfunction!(decode, m)?)?;
    m.add_function(wrap_pyfunction!(encode, m)?)?;
    m.add("WIRE_VERSION", wire::WIRE_VERSION)?;
    Ok(())
}
