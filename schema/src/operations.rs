//! The host operations, read from the bridge's `surface/operations.rs`:
//! the methods of its `Operations` trait (name, doc, whether it may wait on
//! the store, parameters, result) in the surface's types, and the host
//! classes (`pub type` aliases) they may name besides.

use syn::{FnArg, Item, Pat, ReturnType, TraitItem};

use crate::codes::doc;
use crate::surface::{Surface, Ty};

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Param {
    pub(crate) name: String,
    pub(crate) ty: Ty,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Op {
    /// The Rust (snake_case) name.
    pub(crate) name: String,
    pub(crate) doc: Vec<String>,
    /// It may wait on the store (`async fn`).
    pub(crate) waits: bool,
    pub(crate) params: Vec<Param>,
    /// `None`: it returns nothing.
    pub(crate) result: Option<Ty>,
}

impl Op {
    /// How many leading parameters a call must give: the rest are
    /// trailing options.
    pub(crate) fn required(&self) -> usize {
        self.params
            .iter()
            .rposition(|p| !matches!(p.ty, Ty::Opt(_)))
            .map_or(0, |i| i + 1)
    }
}

/// Reads the operations `source` (the text of `operations.rs`) declares,
/// each type resolved against `surface` and the closed sets `codes`.
pub(crate) fn read(source: &str, surface: &Surface, codes: &[String]) -> Result<Vec<Op>, String> {
    let file = syn::parse_file(source)
        .map_err(|e| format!("surface/operations.rs does not parse: {e}"))?;
    let hosts: Vec<String> = file
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Type(t) => Some(t.ident.to_string()),
            _ => None,
        })
        .collect();
    let Some(operations) = file.items.iter().find_map(|i| match i {
        Item::Trait(t) if t.ident == "Operations" => Some(t),
        _ => None,
    }) else {
        return Err("surface/operations.rs has no trait Operations".into());
    };
    let ty = |name: &str, t: &syn::Type| {
        let ty = surface
            .ty_of(t, codes, &hosts)
            .ok_or_else(|| format!("operations: {name}: unsupported type"))?;
        match records_unknown(surface, &ty) {
            Some(k) => Err(format!("operations: {name}: no record or host class {k}")),
            None => Ok(ty),
        }
    };
    let mut ops = Vec::new();
    for item in &operations.items {
        let TraitItem::Fn(f) = item else { continue };
        let name = f.sig.ident.to_string();
        let mut params = Vec::new();
        for input in &f.sig.inputs {
            let FnArg::Typed(t) = input else { continue };
            let Pat::Ident(p) = &*t.pat else {
                return Err(format!("operations: {name}: a parameter is a plain name"));
            };
            let param = p.ident.to_string();
            params.push(Param {
                ty: ty(&format!("{name}({param})"), &t.ty)?,
                name: param,
            });
        }
        let result = match &f.sig.output {
            ReturnType::Default => None,
            ReturnType::Type(_, t) => Some(ty(&name, t)?),
        };
        ops.push(Op {
            name,
            doc: doc(&f.attrs),
            waits: f.sig.asyncness.is_some(),
            params,
            result,
        });
    }
    Ok(ops)
}

/// A record `ty` names that the surface does not define.
fn records_unknown(surface: &Surface, ty: &Ty) -> Option<String> {
    match ty {
        Ty::Record(k) if surface.record(k).is_none() => Some(k.clone()),
        Ty::Opt(t) | Ty::List(t) => records_unknown(surface, t),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn surface() -> Surface {
        crate::surface::read("pub struct Route { pub node: u64 }", &[]).expect("reads")
    }

    #[test]
    fn reads_waiting_trailing_options_and_host_classes() {
        let source = r#"
            pub type Config = x::Config;
            pub trait Operations {
                /// Looks.
                async fn look(&self, id: String, at: Option<u64>) -> Option<Route>;
                fn set(&self, config: Config);
            }
        "#;
        let ops = read(source, &surface(), &[]).expect("reads");
        assert_eq!(ops[0].name, "look");
        assert!(ops[0].waits);
        assert_eq!(ops[0].required(), 1);
        assert_eq!(ops[0].doc, ["Looks."]);
        assert_eq!(
            ops[0].result,
            Some(Ty::Opt(Box::new(Ty::Record("Route".into()))))
        );
        assert_eq!(ops[1].params[0].ty, Ty::Opaque("Config".into()));
        assert_eq!(ops[1].result, None);
    }

    #[test]
    fn an_unknown_type_is_refused() {
        let source = "pub trait Operations { fn f(&self) -> Nowhere; }";
        let e = read(source, &surface(), &[]).unwrap_err();
        assert!(e.contains("Nowhere"), "{e}");
    }
}
