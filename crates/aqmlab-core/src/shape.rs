//! Tables must be written as tables. serde lets a struct be read from a sequence, field by field
//! in declaration order, so `tcp = ["sack", 1460, 52]` would silently mean variant, MSS and ACK
//! size. Rather than wrap every struct's `Deserialize`, we compare what the user wrote with what
//! the schema made of it: wherever the input holds an array and the resolved scenario (every
//! struct serialised back as a table) holds a table at the same key path, a table was given
//! positionally, and that is an error naming the path and the keys it should have used.

use crate::error::{join_path, ScenarioError};

/// Checks `raw` (as parsed from the user's TOML) against `resolved` (the validated value
/// serialised back), recursing through the tables and arrays both hold.
pub fn reject_positional(
    raw: &toml::Value,
    resolved: &toml::Value,
    path: &str,
) -> Result<(), ScenarioError> {
    match (raw, resolved) {
        (toml::Value::Array(items), toml::Value::Table(keys)) => {
            let names: Vec<&str> = keys.keys().map(String::as_str).collect();
            Err(ScenarioError::new(
                path,
                format!("an array of {} values", items.len()),
                format!("a table with named keys: {}", names.join(", ")),
            ))
        }
        (toml::Value::Table(r), toml::Value::Table(v)) => {
            for (key, raw_child) in r {
                if let Some(child) = v.get(key) {
                    reject_positional(raw_child, child, &join_path(path, key))?;
                }
            }
            Ok(())
        }
        (toml::Value::Array(r), toml::Value::Array(v)) if r.len() == v.len() => {
            for (i, (a, b)) in r.iter().zip(v).enumerate() {
                reject_positional(a, b, &join_path(path, &i.to_string()))?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(raw: &str, resolved: &str) -> Result<(), ScenarioError> {
        let raw: toml::Value = toml::from_str(raw).unwrap();
        let resolved: toml::Value = toml::from_str(resolved).unwrap();
        reject_positional(&raw, &resolved, "")
    }

    #[test]
    fn arrays_where_tables_resolved_are_errors_with_the_path() {
        let e = check(
            "[[flows]]\ntcp = ['sack', 1460, 52]",
            "[[flows]]\n[flows.tcp]\nvariant = 'sack'\nmss = 1460\nack_bytes = 52",
        )
        .unwrap_err();
        assert_eq!(e.path, "flows.0.tcp");
        assert!(e.allowed.contains("ack_bytes, mss, variant"), "{e}");
        // Arrays that stay arrays, and tables, pass.
        check(
            "a = [1, 2]\nb = { c = 1 }",
            "a = [1, 2]\nb = { c = 1, d = 2 }",
        )
        .unwrap();
    }
}
