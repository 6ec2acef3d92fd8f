//! The result types, read from the bridge's `surface/mod.rs`: its records
//! (structs with named fields, at the top or in a union's module), unions
//! (`#[repr(u8)]` enums whose variants each wrap the record of their name,
//! with a stable tag) and hand-read values (`pub type` aliases of core
//! types).

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
    /// A closed set of `codes.rs`, by its Rust name: its code.
    Code(String),
    /// A closed set's value by its name (`Name<Set>`).
    Name(String),
    /// Another record, by its key.
    Record(String),
    /// A union, by its name.
    Union(String),
    /// A core value each host reads by hand (a `pub type` alias).
    Opaque(String),
    Opt(Box<Ty>),
    List(Box<Ty>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Field {
    /// The Rust (snake_case) name.
    pub(crate) name: String,
    pub(crate) ty: Ty,
    pub(crate) doc: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Record {
    /// The Rust path within the surface: `ReadyRoute`, `outcome::Reply`.
    pub(crate) key: String,
    /// The name hosts give it: `ReadyRoute`, `Reply`.
    pub(crate) name: String,
    /// The union it is nested in (its records live in that union's
    /// module), if any.
    pub(crate) nested_in: Option<String>,
    pub(crate) doc: Vec<String>,
    pub(crate) fields: Vec<Field>,
    /// It derives `Hash` (Python makes its class hashable).
    pub(crate) hash: bool,
}

impl Record {
    /// A name unique across the surface: the record's, after its union's
    /// when nested (`OutcomeReply`).
    pub(crate) fn flat_name(&self) -> String {
        match &self.nested_in {
            Some(u) => format!("{u}{}", self.name),
            None => self.name.clone(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Union {
    pub(crate) name: String,
    pub(crate) doc: Vec<String>,
    /// (tag, record key), in tag order.
    pub(crate) members: Vec<(u8, String)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Surface {
    pub(crate) records: Vec<Record>,
    pub(crate) unions: Vec<Union>,
    /// The hand-read values (`pub type` aliases), by name.
    pub(crate) opaque: Vec<String>,
}

impl Surface {
    /// The unions `record` (a key) is a member of, in file order.
    pub(crate) fn unions_of(&self, record: &str) -> Vec<&Union> {
        self.unions
            .iter()
            .filter(|u| u.members.iter().any(|(_, m)| m == record))
            .collect()
    }

    /// The record of `key`.
    pub(crate) fn record(&self, key: &str) -> Option<&Record> {
        self.records.iter().find(|r| r.key == key)
    }

    /// The fields every member of `u` has, alike, in the first member's
    /// order.
    pub(crate) fn common_fields(&self, u: &Union) -> Vec<Field> {
        let members: Vec<&Record> = u
            .members
            .iter()
            .filter_map(|(_, m)| self.record(m))
            .collect();
        let Some(first) = members.first() else {
            return Vec::new();
        };
        first
            .fields
            .iter()
            .filter(|f| {
                members
                    .iter()
                    .all(|m| m.fields.iter().any(|g| g.name == f.name && g.ty == f.ty))
            })
            .cloned()
            .collect()
    }
}

impl Surface {
    /// The type `t` names when written outside the surface (in
    /// `operations.rs`), where `hosts` are further host classes; `None` if
    /// it is not one the surface can carry.
    pub(crate) fn ty_of(&self, t: &Type, codes: &[String], hosts: &[String]) -> Option<Ty> {
        let unions: Vec<String> = self.unions.iter().map(|u| u.name.clone()).collect();
        let opaque: Vec<String> = self.opaque.iter().chain(hosts).cloned().collect();
        let names = Names {
            codes,
            unions: &unions,
            opaque: &opaque,
            nested: &[],
        };
        ty(t, &names, None)
    }
}

/// Type aliases with a meaning of their own, not hand-read values.
const SCALAR_ALIASES: &[&str] = &["Bytes", "Millis", "Name"];

/// What a type's name may refer to.
struct Names<'a> {
    codes: &'a [String],
    unions: &'a [String],
    opaque: &'a [String],
    /// The structs of each union's module, as (module, name).
    nested: &'a [(String, String)],
}

/// The surface `source` (the text of `surface/mod.rs`) defines; `codes`
/// are the closed sets' names.
pub(crate) fn read(source: &str, codes: &[String]) -> Result<Surface, String> {
    let file =
        syn::parse_file(source).map_err(|e| format!("surface/mod.rs does not parse: {e}"))?;
    let mut surface = Surface {
        records: Vec::new(),
        unions: Vec::new(),
        opaque: Vec::new(),
    };
    let mut structs = Vec::new();
    for item in &file.items {
        match item {
            Item::Struct(s) => structs.push((None, s)),
            Item::Enum(e) => surface.unions.push(union(e)?),
            Item::Type(t) if !SCALAR_ALIASES.contains(&t.ident.to_string().as_str()) => {
                surface.opaque.push(t.ident.to_string());
            }
            Item::Mod(m) => {
                for inner in m.content.iter().flat_map(|(_, items)| items) {
                    if let Item::Struct(s) = inner {
                        structs.push((Some(m.ident.to_string()), s));
                    }
                }
            }
            _ => {}
        }
    }
    let unions: Vec<String> = surface.unions.iter().map(|u| u.name.clone()).collect();
    let nested: Vec<(String, String)> = structs
        .iter()
        .filter_map(|(m, s)| m.clone().map(|m| (m, s.ident.to_string())))
        .collect();
    if let Some((_, s)) = structs
        .iter()
        .find(|(m, s)| m.is_none() && codes.contains(&s.ident.to_string()))
    {
        return Err(format!(
            "{}: a record may not share a closed set's name",
            s.ident
        ));
    }
    let names = Names {
        codes,
        unions: &unions,
        opaque: &surface.opaque,
        nested: &nested,
    };
    for (module, s) in structs {
        surface.records.push(record(module, s, &names)?);
    }
    check(&surface)?;
    Ok(surface)
}

/// Every record a field or a union names exists; a module's records
/// belong to the union named after it, and to it alone.
fn check(surface: &Surface) -> Result<(), String> {
    fn records_in(ty: &Ty, out: &mut Vec<String>) {
        match ty {
            Ty::Record(k) => out.push(k.clone()),
            Ty::Opt(t) | Ty::List(t) => records_in(t, out),
            _ => {}
        }
    }
    let known = |key: &str| surface.record(key).is_some();
    for r in &surface.records {
        let mut named = Vec::new();
        for f in &r.fields {
            records_in(&f.ty, &mut named);
        }
        if let Some(k) = named.iter().find(|k| !known(k)) {
            return Err(format!("{}: no record {k}", r.key));
        }
        if let Some(u) = &r.nested_in {
            let owners = surface.unions_of(&r.key);
            if owners.len() != 1 || &owners[0].name != u {
                return Err(format!(
                    "{}: a record in a union's module is that union's member alone",
                    r.key
                ));
            }
        }
    }
    for u in &surface.unions {
        if let Some((_, m)) = u.members.iter().find(|(_, m)| !known(m)) {
            return Err(format!("{}: no record {m}", u.name));
        }
    }
    Ok(())
}

fn record(
    module: Option<String>,
    s: &syn::ItemStruct,
    names: &Names<'_>,
) -> Result<Record, String> {
    let name = s.ident.to_string();
    let key = module
        .as_ref()
        .map_or_else(|| name.clone(), |m| format!("{m}::{name}"));
    let Fields::Named(named) = &s.fields else {
        return Err(format!("{key}: a record has named fields"));
    };
    let mut fields = Vec::new();
    for f in &named.named {
        let field = f
            .ident
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default();
        let ty = ty(&f.ty, names, module.as_deref())
            .ok_or_else(|| format!("{key}.{field}: unsupported type"))?;
        fields.push(Field {
            name: field,
            ty,
            doc: doc(&f.attrs),
        });
    }
    // A module holds the members of the union of its name (`outcome`:
    // `Outcome`).
    let nested_in = match &module {
        Some(m) => Some(
            names
                .unions
                .iter()
                .find(|u| snake(u) == *m)
                .cloned()
                .ok_or_else(|| format!("{key}: module {m} is named after no union"))?,
        ),
        None => None,
    };
    Ok(Record {
        key,
        name,
        nested_in,
        doc: doc(&s.attrs),
        fields,
        hash: derives_hash(&s.attrs),
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
        // by the variant: they must be the same (in the union's module, or
        // at the top).
        let wrapped = match &v.fields {
            Fields::Unnamed(f) if f.unnamed.len() == 1 => match &f.unnamed[0].ty {
                Type::Path(p) => Some(path(&p.path)),
                _ => None,
            },
            _ => None,
        };
        let variant = v.ident.to_string();
        let nested = format!("{}::{variant}", snake(&e.ident.to_string()));
        match wrapped {
            Some(w) if w == variant || w == nested => members.push((tag, w)),
            _ => {
                return Err(format!(
                    "{}::{variant} must wrap the record {variant} or {nested} alone",
                    e.ident
                ));
            }
        }
    }
    members.sort();
    Ok(Union {
        name: e.ident.to_string(),
        doc: doc(&e.attrs),
        members,
    })
}

/// Whether `#[derive(...)]` lists `Hash`.
fn derives_hash(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| match &a.meta {
        syn::Meta::List(l) if l.path.is_ident("derive") => {
            l.tokens.to_string().split(',').any(|t| t.trim() == "Hash")
        }
        _ => false,
    })
}

/// `RelocationEvent` → `relocation_event`.
pub(crate) fn snake(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// A path as written, without a leading `super::`.
fn path(p: &syn::Path) -> String {
    let parts: Vec<String> = p
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .skip_while(|s| s == "super")
        .collect();
    parts.join("::")
}

/// The type `t` names, written in `module` (a union's, or the top).
fn ty(t: &Type, names: &Names<'_>, module: Option<&str>) -> Option<Ty> {
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
        "Option" => Ty::Opt(Box::new(inner(&last.arguments, names, module)?)),
        "Vec" => Ty::List(Box::new(inner(&last.arguments, names, module)?)),
        "Name" => match inner(&last.arguments, names, module)? {
            Ty::Code(set) => Ty::Name(set),
            _ => return None,
        },
        _ if !plain => return None,
        // In a union's module its own structs shadow the top's (as Rust
        // resolves a local item before a glob import).
        _ if p.path.segments.len() == 1
            && module.is_some_and(|m| names.nested.iter().any(|(nm, n)| nm == m && *n == name)) =>
        {
            Ty::Record(format!("{}::{name}", module.unwrap_or_default()))
        }
        // The surface's own names first: a union may share a closed set's
        // name (`Outcome`), the surface's is meant.
        _ if names.unions.contains(&name) => Ty::Union(name),
        _ if names.opaque.contains(&name) => Ty::Opaque(name),
        _ if names.codes.contains(&name) => Ty::Code(name),
        _ => Ty::Record(path(&p.path)),
    })
}

fn inner(args: &PathArguments, names: &Names<'_>, module: Option<&str>) -> Option<Ty> {
    let PathArguments::AngleBracketed(a) = args else {
        return None;
    };
    match a.args.first()? {
        GenericArgument::Type(t) => ty(t, names, module),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = r#"
        pub struct Ignored { pub reason: String }
        pub mod event {
            use super::*;
            pub struct Ignored { pub refusal: String }
            pub struct Wrapper { pub inner: Ignored, pub outer: super::Ignored }
        }
        #[repr(u8)]
        pub enum Event { Ignored(event::Ignored) = 1, Wrapper(event::Wrapper) = 2 }
    "#;

    #[test]
    fn a_name_in_a_unions_module_is_that_modules_record_first() {
        let s = read(SOURCE, &[]).expect("reads");
        let wrapper = s.record("event::Wrapper").expect("the wrapper");
        assert_eq!(wrapper.fields[0].ty, Ty::Record("event::Ignored".into()));
        assert_eq!(wrapper.fields[1].ty, Ty::Record("Ignored".into()));
    }

    #[test]
    fn a_record_may_not_share_a_closed_sets_name() {
        let e = read("pub struct Failure { pub x: u64 }", &["Failure".into()]).unwrap_err();
        assert!(e.contains("closed set"), "{e}");
    }
}
