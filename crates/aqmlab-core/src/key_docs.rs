//! Documentation of a table's keys, read from its serde and JSON Schema derives: the key
//! names in declaration order, each key's type, default and doc comment ([`KeyDoc`]). The
//! scenario reference ([`crate::schema`]) and each algorithm's listing
//! ([`crate::aqm::AqmConfig::docs`]) are built from it. A leaf: it knows no table of its own.

use schemars::generate::SchemaSettings;
use schemars::transform::RecursiveTransform;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Draft 7 (what Taplo and most editors read), every subschema inlined except the qdisc union,
/// which three tables share (`#/definitions/qdisc`).
fn settings() -> SchemaSettings {
    let mut s = SchemaSettings::draft07();
    s.inline_subschemas = true;
    s.transforms.push(Box::new(RecursiveTransform(tidy)));
    s
}

/// A generator with the project's settings.
pub fn generator() -> SchemaGenerator {
    SchemaGenerator::new(settings())
}

/// The schema of one table type, as a root schema (qdisc tables by reference).
pub fn schema_of<T: JsonSchema>() -> Schema {
    generator().into_root_schema_for::<T>()
}

/// TOML has no null: an `Option` key is simply left out, so the schema must not offer `null`.
/// Doc comments are wrapped in the source: rejoin the lines of each paragraph.
fn tidy(schema: &mut Schema) {
    let Some(obj) = schema.as_object_mut() else {
        return;
    };
    if let Some(Value::Array(types)) = obj.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let only = types.remove(0);
            obj.insert("type".into(), only);
        }
    }
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(alts)) = obj.get_mut(key) else {
            continue;
        };
        alts.retain(|a| a.get("type").and_then(Value::as_str) != Some("null"));
        if alts.len() == 1 {
            let Some(Value::Object(only)) = alts.pop() else {
                continue;
            };
            obj.remove(key);
            for (k, v) in only {
                obj.entry(k).or_insert(v);
            }
        }
    }
    // `const` is draft 6; a one-value `enum` says the same to every draft (Taplo reads draft 4).
    if let Some(c) = obj.remove("const") {
        obj.insert("enum".into(), Value::Array(vec![c]));
    }
    if let Some(Value::String(text)) = obj.get_mut("description") {
        *text = one_paragraph_per_line(text);
    }
}

/// Joins the lines of each paragraph with spaces; paragraphs stay apart by a blank line.
fn one_paragraph_per_line(text: &str) -> String {
    text.split("\n\n")
        .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The schema of one algorithm's table: its `Params` plus `kind`, titled with its name.
pub(crate) fn kind_schema<P: JsonSchema>(
    gen: &mut SchemaGenerator,
    kind: &str,
    name: &str,
    source: &str,
) -> Value {
    let mut schema = P::json_schema(gen);
    let obj = schema.ensure_object();
    obj.insert("title".into(), name.into());
    obj.insert("description".into(), source.into());
    let props = obj
        .entry("properties")
        .or_insert_with(|| Value::Object(Default::default()));
    if let Value::Object(props) = props {
        props.insert("kind".into(), serde_json::json!({ "enum": [kind] }));
    }
    match obj
        .entry("required")
        .or_insert_with(|| Value::Array(vec![]))
    {
        Value::Array(req) => req.insert(0, "kind".into()),
        other => *other = serde_json::json!(["kind"]),
    }
    schema.to_value()
}

/// The field names of a serde-derived struct in declaration order (JSON Schema objects keep
/// no order; the reference tables list keys as the struct does). serde's derive hands them to
/// `deserialize_struct`, which this probe records and then refuses.
pub fn field_order<T: DeserializeOwned>() -> &'static [&'static str] {
    use serde::de::{self, Visitor};

    struct Probe<'a>(&'a mut &'static [&'static str]);

    impl<'de> de::Deserializer<'de> for Probe<'_> {
        type Error = de::value::Error;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
            Err(de::Error::custom("not a struct"))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _name: &'static str,
            fields: &'static [&'static str],
            _visitor: V,
        ) -> Result<V::Value, Self::Error> {
            *self.0 = fields;
            Err(de::Error::custom("probe"))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
            option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
            ignored_any
        }
    }

    let mut fields: &'static [&'static str] = &[];
    let _ = T::deserialize(Probe(&mut fields));
    fields
}

/// One key of a table, as the reference tables and `aqmlab algorithms` show it.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyDoc {
    pub key: String,
    /// What the value is: `duration`, `integer`, `"reno"`, `"newreno"` or `"sack"`, ...
    pub ty: String,
    /// The default as a TOML value (`0.1`, `"5ms"`, `true`); `None` when the key has none.
    pub default: Option<String>,
    /// The key must be given.
    pub required: bool,
    /// The doc comment of the field, one line per paragraph.
    pub help: String,
}

/// Every key of the table type `T`, in declaration order.
pub fn keys_of<T: JsonSchema + DeserializeOwned>() -> Vec<KeyDoc> {
    keys_in(&schema_of::<T>(), field_order::<T>())
}

/// The keys of an object schema, in the given order (then any others, sorted).
pub fn keys_in(schema: &Schema, order: &[&str]) -> Vec<KeyDoc> {
    let empty = serde_json::Map::new();
    let props = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut keys: Vec<&str> = order
        .iter()
        .copied()
        .filter(|k| props.contains_key(*k))
        .collect();
    keys.extend(
        props
            .keys()
            .map(String::as_str)
            .filter(|k| !order.contains(k)),
    );
    keys.into_iter()
        .map(|key| {
            let p = &props[key];
            KeyDoc {
                key: key.to_string(),
                ty: type_name(p),
                default: p.get("default").and_then(toml_literal),
                required: required.contains(&key),
                help: p
                    .get("description")
                    .and_then(Value::as_str)
                    .map(one_paragraph_per_line)
                    .unwrap_or_default(),
            }
        })
        .collect()
}

/// A JSON value written as a TOML literal (`"5ms"`, `0.1`, `{ kind = "droptail" }`).
pub fn toml_literal(v: &Value) -> Option<String> {
    toml::Value::try_from(v).ok().map(|t| t.to_string())
}

/// A short name of what a schema accepts, for the `type` column.
pub fn type_name(s: &Value) -> String {
    if let Some(r) = s.get("$ref").and_then(Value::as_str) {
        return if r.ends_with("/qdisc") {
            "qdisc table".into()
        } else {
            "table".into()
        };
    }
    if let Some(all) = s.get("allOf").and_then(Value::as_array) {
        if let [one] = all.as_slice() {
            return type_name(one);
        }
    }
    if let Some(title) = s.get("title").and_then(Value::as_str) {
        return title.to_string();
    }
    // A closed set of values: `enum`, or alternatives that are each one value.
    let one_value = |a: &Value| -> Option<String> {
        match a.get("enum").and_then(Value::as_array).map(Vec::as_slice) {
            Some([v]) => Some(format!("`{v}`")),
            _ if !a.is_object() => Some(format!("`{a}`")),
            _ => None,
        }
    };
    if let Some(v) = one_value(s) {
        return v;
    }
    let consts = |alts: &[Value]| -> Option<Vec<String>> { alts.iter().map(one_value).collect() };
    for key in ["enum", "oneOf", "anyOf"] {
        if let Some(alts) = s.get(key).and_then(Value::as_array) {
            if let Some(names) = consts(alts) {
                return or_list(&names);
            }
            let names: Vec<String> = alts.iter().map(type_name).collect();
            return or_list(&names);
        }
    }
    match s.get("type").and_then(Value::as_str) {
        Some("boolean") => "bool".into(),
        Some("integer") => match s.get("minimum").and_then(Value::as_i64) {
            Some(m) if m >= 0 => format!("integer ≥ {m}"),
            _ => "integer".into(),
        },
        Some("number") => "number".into(),
        Some("string") => "string".into(),
        Some("object") => "table".into(),
        Some("array") => {
            let n = s.get("minItems").filter(|n| s.get("maxItems") == Some(*n));
            match (s.get("items"), n.and_then(Value::as_u64)) {
                (Some(items), Some(n)) => {
                    let one = type_name(items);
                    format!("[{}]", vec![one; n as usize].join(", "))
                }
                (Some(items), None) => format!("list of {}", type_name(items)),
                (None, _) => "list".into(),
            }
        }
        _ => "any".into(),
    }
}

fn or_list(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}
