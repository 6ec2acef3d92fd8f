//! How a result class is made from one field list: `record!` declares an
//! immutable class (`frozen`, `eq`, optionally `hash`) whose fields are
//! plain Rust values turned into Python values only when read, with
//! `__match_args__` and a `Name(field=value, ...)` repr. Returning one
//! costs one small allocation (DESIGN §8).

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};

pub(crate) type Obj = Py<PyAny>;

/// A field of a result class: how it reads in Python and in a repr.
pub(crate) trait Value {
    /// The Python value.
    fn to_py<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>>;
    /// The Python value, from a value made for it (a getter's): a class
    /// moves into its object instead of being copied again.
    fn into_py<'py>(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>>
    where
        Self: Sized,
    {
        self.to_py(py)
    }
    /// Its text in the class's repr.
    fn repr(&self) -> String;
}

macro_rules! plain {
    ($($t:ty),*) => {$(
        impl Value for $t {
            fn to_py<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                Ok(self.into_pyobject(py)?.into_any())
            }
            fn repr(&self) -> String {
                self.to_string()
            }
        }
    )*};
}
plain!(u64, u32, u8, usize);

impl Value for bool {
    fn to_py<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(pyo3::types::PyBool::new(py, *self).to_owned().into_any())
    }
    fn repr(&self) -> String {
        if *self { "True" } else { "False" }.to_owned()
    }
}

macro_rules! text {
    ($($t:ty),*) => {$(
        impl Value for $t {
            fn to_py<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                Ok(self.into_pyobject(py)?.into_any())
            }
            fn repr(&self) -> String {
                format!("{self:?}")
            }
        }
    )*};
}
text!(String, &str);

impl<T: Value> Value for Option<T> {
    fn to_py<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match self {
            Some(v) => v.to_py(py),
            None => Ok(py.None().into_bound(py)),
        }
    }
    fn into_py<'py>(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match self {
            Some(v) => v.into_py(py),
            None => Ok(py.None().into_bound(py)),
        }
    }
    fn repr(&self) -> String {
        self.as_ref().map_or_else(|| "None".to_owned(), Value::repr)
    }
}

/// A value lent: read as the value is.
impl<T: Value> Value for &T {
    fn to_py<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        (**self).to_py(py)
    }
    fn repr(&self) -> String {
        (**self).repr()
    }
}

/// Bytes: Python `bytes`, `<n bytes>` in a repr.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub(crate) struct Bytes(pub(crate) Vec<u8>);

impl Value for Bytes {
    fn to_py<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(PyBytes::new(py, &self.0).into_any())
    }
    fn repr(&self) -> String {
        format!("<{} bytes>", self.0.len())
    }
}

fn items<'py, T: Value>(py: Python<'py>, values: &[T]) -> PyResult<Vec<Bound<'py, PyAny>>> {
    values.iter().map(|v| v.to_py(py)).collect()
}

fn owned_items<'py, T: Value>(py: Python<'py>, values: Vec<T>) -> PyResult<Vec<Bound<'py, PyAny>>> {
    values.into_iter().map(|v| v.into_py(py)).collect()
}

/// A list of values.
impl<T: Value> Value for Vec<T> {
    fn to_py<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(pyo3::types::PyList::new(py, items(py, self)?)?.into_any())
    }
    fn into_py<'py>(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(pyo3::types::PyList::new(py, owned_items(py, self)?)?.into_any())
    }
    fn repr(&self) -> String {
        format!("<{} items>", self.len())
    }
}

/// A tuple of values.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub(crate) struct Tuple<T>(pub(crate) Vec<T>);

impl<T: Value> Value for Tuple<T> {
    fn to_py<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(PyTuple::new(py, items(py, &self.0)?)?.into_any())
    }
    fn into_py<'py>(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(PyTuple::new(py, owned_items(py, self.0)?)?.into_any())
    }
    fn repr(&self) -> String {
        format!("<{} items>", self.0.len())
    }
}

/// The Python object of a value made for it (a result, a decision).
pub(crate) fn object(py: Python<'_>, v: impl Value) -> PyResult<Obj> {
    Ok(v.into_py(py)?.unbind())
}

/// A new Python object of a class.
pub(crate) fn new<T: pyo3::PyClass + Into<pyo3::PyClassInitializer<T>>>(
    py: Python<'_>,
    v: T,
) -> PyResult<Obj> {
    Ok(Bound::new(py, v)?.into_any().unbind())
}

/// An immutable result class from its field list. `[hash]` makes it
/// hashable; `match (...)` lists `__match_args__` (default: every field);
/// a trailing `{ ... }` adds methods (a constructor, say). Two shapes:
///
/// - `"Name" PyName { field: Type, ... }`: a struct of plain fields;
/// - `"Name" PyName(Inner as v) { field: expr, ... }`: a wrapper of a
///   plain value `v` (the core's), each field an expression on it.
macro_rules! record {
    (
        $(#[doc = $doc:literal])*
        $name:literal $rust:ident $([$hash:ident])? { $($field:ident: $ty:ty),* $(,)? }
        $(match ($($m:ident),*))?
        $({ $($extra:tt)* })?
    ) => {
        $(#[doc = $doc])*
        #[pyclass(name = $name, module = "zlink", frozen, eq $(, $hash)?)]
        #[derive(Clone, PartialEq, Eq)]
        pub(crate) struct $rust {
            $(pub(crate) $field: $ty,)*
        }

        impl $rust {
            /// The value of these fields, in order.
            #[allow(dead_code, clippy::too_many_arguments)]
            pub(crate) fn of($($field: $ty),*) -> Self {
                $rust { $($field),* }
            }
        }
        record!(@hash [$($hash)?] $rust [$($field),*]);
        record!(@methods me $name $rust [$($field: &me.$field),*] [$($($m),*)?] [$($($extra)*)?]);
    };
    (
        $(#[doc = $doc:literal])*
        $name:literal $rust:ident($inner:ty as $v:ident) $([$hash:ident])? {
            $($field:ident: $get:expr),* $(,)?
        }
        $(match ($($m:ident),*))?
        $({ $($extra:tt)* })?
    ) => {
        $(#[doc = $doc])*
        #[pyclass(name = $name, module = "zlink", frozen, eq $(, $hash)?)]
        #[derive(Clone, PartialEq, Eq)]
        pub(crate) struct $rust(pub(crate) $inner);
        record!(@hash [$($hash)?] $rust [0]);

        impl From<$inner> for $rust {
            fn from(v: $inner) -> Self {
                $rust(v)
            }
        }
        record!(@methods me $name $rust [$($field: { let $v = &me.0; $get }),*]
            [$($($m),*)?] [$($($extra)*)?]);
    };
    (@hash [] $rust:ident [$($part:tt),*]) => {};
    (@hash [hash] $rust:ident [$($part:tt),*]) => {
        impl std::hash::Hash for $rust {
            fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
                $(std::hash::Hash::hash(&self.$part, state);)*
            }
        }
    };
    (@methods $me:ident $name:literal $rust:ident [$($field:ident: $get:expr),*] [$($m:ident),*] [$($extra:tt)*]) => {
        #[pymethods]
        impl $rust {
            $(
                #[getter]
                fn $field<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                    let $me = self;
                    $crate::values::Value::into_py($get, py)
                }
            )*

            #[classattr]
            fn __match_args__(py: Python<'_>) -> PyResult<Bound<'_, pyo3::types::PyTuple>> {
                let all: &[&str] = &[$(stringify!($field)),*];
                let chosen: &[&str] = &[$(stringify!($m)),*];
                pyo3::types::PyTuple::new(py, if chosen.is_empty() { all } else { chosen })
            }

            fn __repr__(&self) -> String {
                $crate::values::Value::repr(self)
            }

            $($extra)*
        }

        impl $crate::values::Value for $rust {
            fn to_py<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                Ok(Bound::new(py, self.clone())?.into_any())
            }
            fn into_py<'py>(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                Ok(Bound::new(py, self)?.into_any())
            }
            fn repr(&self) -> String {
                let $me = self;
                let fields: &[String] = &[$(format!(
                    concat!(stringify!($field), "={}"),
                    $crate::values::Value::repr(&$get)
                )),*];
                format!("{}({})", $name, fields.join(", "))
            }
        }
    };
}

/// A class with no fields, made with `Name()`.
macro_rules! unit {
    ($(#[doc = $doc:literal])* $name:literal $rust:ident) => {
        $(#[doc = $doc])*
        #[pyclass(name = $name, module = "zlink", frozen, eq, hash)]
        #[derive(Clone, PartialEq, Eq, Hash)]
        pub(crate) struct $rust;

        #[pymethods]
        impl $rust {
            #[new]
            fn new() -> Self {
                $rust
            }
            #[classattr]
            fn __match_args__(py: Python<'_>) -> Bound<'_, pyo3::types::PyTuple> {
                pyo3::types::PyTuple::empty(py)
            }
            fn __repr__(&self) -> &'static str {
                concat!($name, "()")
            }
        }

        impl $crate::values::Value for $rust {
            fn to_py<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                Ok(Bound::new(py, $rust)?.into_any())
            }
            fn repr(&self) -> String {
                concat!($name, "()").to_owned()
            }
        }
    };
}

/// Adds classes to a module.
macro_rules! classes {
    ($m:ident: $($class:ident)*) => {
        $($m.add_class::<$class>()?;)*
    };
}

/// Bytes borrowed from a value: Python `bytes` (one copy, when read).
pub(crate) struct BytesRef<'a>(pub(crate) &'a [u8]);

impl Value for BytesRef<'_> {
    fn to_py<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(PyBytes::new(py, self.0).into_any())
    }
    fn repr(&self) -> String {
        format!("<{} bytes>", self.0.len())
    }
}
