//! The closed sets of the host surface, read from the bridge's `codes.rs`:
//! each `#[repr(u32)]` enum with its stable numbers and documentation, and
//! the stable names its `named!` call gives (a variant's own name unless
//! given). Value 0 (`None`) marks "not this kind of result" in the C ABI's
//! flat forms only, so it is left out here.

use proc_macro2::{TokenStream, TokenTree};
use syn::{Attribute, Expr, Item, Lit};

/// One closed set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CodeSet {
    /// The Rust name (`UnavailableReason`).
    pub(crate) name: String,
    /// Its documentation, one entry per line.
    pub(crate) doc: Vec<String>,
    /// Its values in number order, 0 left out.
    pub(crate) values: Vec<CodeValue>,
}

/// One value of a closed set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CodeValue {
    /// The Rust variant (`LeaseExpired`).
    pub(crate) variant: String,
    /// The stable number.
    pub(crate) code: u32,
    /// The stable name hosts use (`LeaseExpired`, `spot`).
    pub(crate) name: String,
    /// Its documentation, one entry per line.
    pub(crate) doc: Vec<String>,
}

/// Every closed set `source` (the text of `codes.rs`) defines.
pub(crate) fn read(source: &str) -> Result<Vec<CodeSet>, String> {
    let file = syn::parse_file(source).map_err(|e| format!("codes.rs does not parse: {e}"))?;
    let mut sets = Vec::new();
    let mut names = Vec::new();
    for item in &file.items {
        match item {
            Item::Enum(e) if has_repr_u32(&e.attrs) => sets.push(code_set(e)?),
            Item::Macro(m) if m.mac.path.is_ident("named") => names.push(named(&m.mac.tokens)?),
            _ => {}
        }
    }
    for set in &mut sets {
        let Some((_, given)) = names.iter().find(|(t, _)| *t == set.name) else {
            return Err(format!("{} has no named! call", set.name));
        };
        for value in &mut set.values {
            if let Some((_, name)) = given.iter().find(|(v, _)| *v == value.variant) {
                value.name.clone_from(name);
            }
        }
    }
    Ok(sets)
}

fn has_repr_u32(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("repr") && a.parse_args::<syn::Ident>().is_ok_and(|repr| repr == "u32")
    })
}

fn code_set(e: &syn::ItemEnum) -> Result<CodeSet, String> {
    let mut values = Vec::new();
    for v in &e.variants {
        let code = match &v.discriminant {
            Some((_, Expr::Lit(lit))) => match &lit.lit {
                Lit::Int(n) => n.base10_parse::<u32>().map_err(|e| e.to_string())?,
                _ => return Err(format!("{}::{}: not a number", e.ident, v.ident)),
            },
            _ => return Err(format!("{}::{} has no stable number", e.ident, v.ident)),
        };
        if code == 0 {
            continue;
        }
        values.push(CodeValue {
            variant: v.ident.to_string(),
            code,
            name: v.ident.to_string(),
            doc: doc(&v.attrs),
        });
    }
    values.sort_by_key(|v| v.code);
    // Node reads names by position (codes.js): the numbers must run 1..=n.
    if let Some((i, v)) = values
        .iter()
        .enumerate()
        .find(|(i, v)| u32::try_from(*i + 1).ok() != Some(v.code))
    {
        return Err(format!(
            "{}::{} is numbered {}, not {}: a set's numbers run from 1 without a gap",
            e.ident,
            v.variant,
            v.code,
            i + 1
        ));
    }
    Ok(CodeSet {
        name: e.ident.to_string(),
        doc: doc(&e.attrs),
        values,
    })
}

/// The first paragraph of the `///` lines of `attrs`, without their
/// leading space: what every language says. Later paragraphs are the C
/// ABI's own (the header keeps them).
pub(crate) fn doc(attrs: &[Attribute]) -> Vec<String> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(syn::ExprLit {
                    lit: Lit::Str(s), ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .map(|line| line.strip_prefix(' ').unwrap_or(&line).to_owned())
        .take_while(|line| !line.trim().is_empty())
        .collect()
}

/// A `named!(Type { Variant, Variant = "name", ... })` call: the type and
/// the names it gives.
fn named(tokens: &TokenStream) -> Result<(String, Vec<(String, String)>), String> {
    let mut trees = tokens.clone().into_iter();
    let (Some(TokenTree::Ident(ty)), Some(TokenTree::Group(body))) = (trees.next(), trees.next())
    else {
        return Err(format!("named!({tokens}): expected `Type {{ ... }}`"));
    };
    let mut given = Vec::new();
    let mut variant: Option<String> = None;
    for tree in body.stream() {
        match tree {
            TokenTree::Ident(i) => variant = Some(i.to_string()),
            TokenTree::Literal(l) => {
                let text = l.to_string();
                let name = text.trim_matches('"').to_owned();
                let Some(v) = variant.take() else {
                    return Err(format!("named!({ty}): a name without a variant"));
                };
                given.push((v, name));
            }
            _ => {}
        }
    }
    Ok((ty.to_string(), given))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_has_its_numbers_names_and_docs_without_none() {
        let sets = read(
            r#"
/// Which kind.
///
/// For C only.
#[repr(u32)]
pub enum Kind {
    /// Not one.
    None = 0,
    /// A Spot.
    Spot = 1,
    /// An Actor.
    Actor = 2,
}
named!(Kind { None, Spot = "spot", Actor });
"#,
        )
        .expect("parses");
        assert_eq!(sets.len(), 1);
        let kind = &sets[0];
        assert_eq!(kind.doc, vec!["Which kind."]);
        let shown: Vec<_> = kind
            .values
            .iter()
            .map(|v| (v.code, v.name.as_str(), v.doc[0].as_str()))
            .collect();
        assert_eq!(
            shown,
            vec![(1, "spot", "A Spot."), (2, "Actor", "An Actor.")]
        );
    }

    #[test]
    fn a_set_without_stable_numbers_or_names_is_an_error() {
        let no_number = "#[repr(u32)] enum K { A } named!(K { A });";
        assert!(read(no_number).unwrap_err().contains("stable number"));
        let no_names = "#[repr(u32)] enum K { A = 1 }";
        assert!(read(no_names).unwrap_err().contains("named!"));
    }
}
