//! The result types, read from the bridge's `surface/mod.rs`: its records
//! (structs with named fields) and unions (`#[repr(u8)]` enums whose
//! variants each wrap the record of their name, with a stable tag).

use syn::{Expr, Fields, GenericArgument, Item, Lit, PathArguments, Type};

use crate::codes::doc;

/// A field's type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Ty {
    U64,
    U32,
    Bool,
    Text,
    Bytes,
    Millis,
    OptU64,
    /// A closed set of `codes.rs`, by its Rust name.
    Code(String),
    /// Another record.
    Record(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Field {
    /// The Rust (snake_case) name.
    pub(crate) name: String,
    pub(crate) ty: Ty,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Record {
    pub(crate) name: String,
    pub(crate) doc: Vec<String>,
    pub(crate) fields: Vec<Field>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Union {
    pub(crate) name: String,
    pub(crate) doc: Vec<String>,
    /// (tag, record name), in tag order.
    pub(crate) members: Vec<(u8, String)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Surface {
    pub(crate) records: Vec<Record>,
    pub(crate) unions: Vec<Union>,
}

impl Surface {
    /// The unions `record` is a member of, in file order.
    pub(crate) fn unions_of(&self, record: &str) -> Vec<&Union> {
        self.unions
            .iter()
            .filter(|u| u.members.iter().any(|(_, m)| m == record))
            .collect()
    }
}

/// The surface `source` (the text of `surface/mod.rs`) defines; `codes`
/// are the closed sets' names.
pub(crate) fn read(source: &str, codes: &[String]) -> Result<Surface, String> {
    let file =
        syn::parse_file(source).map_err(|e| format!("surface/mod.rs does not parse: {e}"))?;
    let mut surface = Surface {
        records: Vec::new(),
        unions: Vec::new(),
    };
    for item in &file.items {
        match item {
            Item::Struct(s) => surface.records.push(record(s, codes)?),
            Item::Enum(e) => surface.unions.push(union(e)?),
            _ => {}
        }
    }
    let known = |name: &str| surface.records.iter().any(|r| r.name == name);
    for r in &surface.records {
        for f in &r.fields {
            if let Ty::Record(name) = &f.ty
                && !known(name)
            {
                return Err(format!("{}.{}: no record {name}", r.name, f.name));
            }
        }
    }
    for u in &surface.unions {
        if let Some((_, m)) = u.members.iter().find(|(_, m)| !known(m)) {
            return Err(format!("{}: no record {m}", u.name));
        }
    }
    Ok(surface)
}

fn record(s: &syn::ItemStruct, codes: &[String]) -> Result<Record, String> {
    let Fields::Named(named) = &s.fields else {
        return Err(format!("{}: a record has named fields", s.ident));
    };
    let mut fields = Vec::new();
    for f in &named.named {
        let name = f
            .ident
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default();
        let ty = ty(&f.ty, codes).ok_or_else(|| format!("{}.{name}: unsupported type", s.ident))?;
        fields.push(Field { name, ty });
    }
    Ok(Record {
        name: s.ident.to_string(),
        doc: doc(&s.attrs),
        fields,
    })
}

fn union(e: &syn::ItemEnum) -> Result<Union, String> {
    let mut members = Vec::new();
    for v in &e.variants {
        let tag = match &v.discriminant {
            Some((_, Expr::Lit(l))) => match &l.lit {
                Lit::Int(n) => n.base10_parse::<u8>().map_err(|e| e.to_string())?,
                _ => return Err(format!("{}::{}: not a number", e.ident, v.ident)),
            },
            _ => return Err(format!("{}::{} has no stable tag", e.ident, v.ident)),
        };
        // The member's layout is the wrapped record's; the hosts name it
        // by the variant: they must be the same.
        let wrapped = match &v.fields {
            Fields::Unnamed(f) if f.unnamed.len() == 1 => match &f.unnamed[0].ty {
                Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
                _ => None,
            },
            _ => None,
        };
        if wrapped.as_deref() != Some(v.ident.to_string().as_str()) {
            return Err(format!(
                "{}::{} must wrap the record {} alone",
                e.ident, v.ident, v.ident
            ));
        }
        members.push((tag, v.ident.to_string()));
    }
    members.sort();
    Ok(Union {
        name: e.ident.to_string(),
        doc: doc(&e.attrs),
        members,
    })
}

fn ty(t: &Type, codes: &[String]) -> Option<Ty> {
    let Type::Path(p) = t else { return None };
    let last = p.path.segments.last()?;
    let name = last.ident.to_string();
    let plain = matches!(last.arguments, PathArguments::None);
    Some(match name.as_str() {
        "u64" => Ty::U64,
        "u32" => Ty::U32,
        "bool" => Ty::Bool,
        "String" => Ty::Text,
        "Bytes" => Ty::Bytes,
        "Millis" => Ty::Millis,
        "Option" => match inner(&last.arguments)? {
            Ty::U64 => Ty::OptU64,
            _ => return None,
        },
        _ if !plain => return None,
        _ if codes.contains(&name) => Ty::Code(name),
        _ => Ty::Record(name),
    })
}

fn inner(args: &PathArguments) -> Option<Ty> {
    let PathArguments::AngleBracketed(a) = args else {
        return None;
    };
    match a.args.first()? {
        GenericArgument::Type(t) => ty(t, &[]),
        _ => None,
    }
}
