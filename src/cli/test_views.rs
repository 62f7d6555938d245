//! What the parameter tests of `fit` and `generate` share: a parameter
//! struct's fields by name, read from its `Debug` form, and a recipe
//! table's keys (`cli::fit::tests`, `cli::generate::tests`).

use std::collections::{BTreeMap, BTreeSet};

/// The serde field names of `T` (the keys a recipe table takes), read
/// from the parser's message for a key that is none of them.
pub(crate) fn keys<T: serde::de::DeserializeOwned>() -> Vec<String> {
    let err = toml::from_str::<T>("no_such_key = 0")
        .err()
        .unwrap()
        .to_string();
    let list = err
        .split("expected one of ")
        .nth(1)
        .expect("a list of fields");
    list.lines()
        .next()
        .unwrap()
        .split(", ")
        .map(|k| k.trim_matches('`').to_string())
        .collect()
}

/// The top-level fields of a `Debug` struct (`Name { a: 1, b: Some(2) }`,
/// or a newtype around one), by name; a field's value may be a struct.
pub(crate) fn fields(debug: &str) -> BTreeMap<String, String> {
    let body = &debug[debug.find('{').expect("a struct") + 1..];
    let (mut out, mut depth, mut field) = (BTreeMap::new(), 0, String::new());
    for c in body.chars() {
        // A comma or brace of the struct itself, not of a field's value.
        let own = depth == 0 && (c == ',' || c == '}');
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' if depth > 0 => depth -= 1,
            _ => {}
        }
        if own {
            let (name, value) = field.split_once(": ").expect("name: value");
            out.insert(name.trim().to_string(), value.trim().to_string());
            field.clear();
            if c == '}' {
                break;
            }
        } else {
            field.push(c);
        }
    }
    out
}

/// The fields whose values differ between two views.
pub(crate) fn changed(
    a: &BTreeMap<String, String>,
    b: &BTreeMap<String, String>,
) -> BTreeSet<String> {
    a.keys()
        .chain(b.keys())
        .filter(|k| a.get(*k) != b.get(*k))
        .cloned()
        .collect()
}
