//! How a flow group gives one value per flow: a fixed value, a linear ramp across the group, an
//! explicit list, or uniform random draws.
//!
//! ```toml
//! access_delay = "10ms"
//! access_delay = { linear = ["5ms", "150ms"] }   # flow i of n: a + (b − a)·i/(n − 1)
//! access_delay = { list = ["10ms", "100ms"] }     # one per flow (length must equal count)
//! access_delay = { uniform = ["1ms", "200ms"] }   # independent draws per flow (scenario seed)
//! ```

use std::fmt;
use std::marker::PhantomData;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use crate::rng::SimRng;
use crate::time::{parse_duration, parse_rate, Rate, SimDuration};

/// A value type that scenarios write as a unit string and that can be interpolated.
pub trait UnitValue: Copy + fmt::Debug + PartialOrd {
    const WHAT: &'static str;
    fn parse(s: &str) -> Result<Self, String>;
    fn render(&self) -> String;
    fn to_f64(self) -> f64;
    fn from_f64(v: f64) -> Self;
}

impl UnitValue for SimDuration {
    const WHAT: &'static str = "a duration such as \"10ms\"";
    fn parse(s: &str) -> Result<Self, String> {
        parse_duration(s)
    }
    fn render(&self) -> String {
        format!("{}ms", self.as_millis_f64())
    }
    fn to_f64(self) -> f64 {
        self.0 as f64
    }
    fn from_f64(v: f64) -> Self {
        SimDuration(v.round().max(0.0) as u64)
    }
}

impl UnitValue for Rate {
    const WHAT: &'static str = "a rate such as \"10Mbps\"";
    fn parse(s: &str) -> Result<Self, String> {
        parse_rate(s).map(Rate)
    }
    fn render(&self) -> String {
        self.to_string()
    }
    fn to_f64(self) -> f64 {
        self.0 as f64
    }
    fn from_f64(v: f64) -> Self {
        Rate(v.round().max(1.0) as u64)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Spread<T> {
    Fixed(T),
    Linear(T, T),
    List(Vec<T>),
    Uniform(T, T),
}

impl<T: UnitValue> Spread<T> {
    /// The value for each of `n` flows. `rng` is used only by `Uniform`.
    pub fn values(&self, n: usize, rng: &mut SimRng) -> Vec<T> {
        match self {
            Spread::Fixed(v) => vec![*v; n],
            Spread::Linear(a, b) => (0..n)
                .map(|i| {
                    let f = if n <= 1 {
                        0.0
                    } else {
                        i as f64 / (n - 1) as f64
                    };
                    T::from_f64(a.to_f64() + (b.to_f64() - a.to_f64()) * f)
                })
                .collect(),
            Spread::List(v) => v.clone(),
            Spread::Uniform(a, b) => (0..n)
                .map(|_| T::from_f64(rng.uniform_range(a.to_f64(), b.to_f64())))
                .collect(),
        }
    }

    /// Checks the shape against the group size; returns a message for the error.
    pub fn check(&self, n: usize) -> Result<(), String> {
        match self {
            Spread::List(v) if v.len() != n => Err(format!(
                "a list of {} values for {n} flows (one per flow)",
                v.len()
            )),
            Spread::Linear(a, b) | Spread::Uniform(a, b) if a > b => {
                Err("[low, high] with low <= high".into())
            }
            _ => Ok(()),
        }
    }

    pub fn max(&self) -> T {
        match self {
            Spread::Fixed(v) => *v,
            Spread::Linear(a, b) | Spread::Uniform(a, b) => {
                if a > b {
                    *a
                } else {
                    *b
                }
            }
            Spread::List(v) => v
                .iter()
                .copied()
                .fold(v[0], |m, x| if x > m { x } else { m }),
        }
    }
}

impl<T: UnitValue> Serialize for Spread<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let pair = |a: &T, b: &T| vec![a.render(), b.render()];
        let (key, vals) = match self {
            Spread::Fixed(v) => return s.serialize_str(&v.render()),
            Spread::Linear(a, b) => ("linear", pair(a, b)),
            Spread::Uniform(a, b) => ("uniform", pair(a, b)),
            Spread::List(v) => ("list", v.iter().map(|x| x.render()).collect()),
        };
        let mut m = s.serialize_map(Some(1))?;
        m.serialize_entry(key, &vals)?;
        m.end()
    }
}

/// A spread is the value itself, or a one-key table: `linear`/`uniform` with `[low, high]`, or
/// `list` with one value per flow (or host).
impl<T: UnitValue + JsonSchema> JsonSchema for Spread<T> {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> std::borrow::Cow<'static, str> {
        format!("Spread_of_{}", T::schema_name()).into()
    }
    fn json_schema(gen: &mut SchemaGenerator) -> Schema {
        let one = gen.subschema_for::<T>();
        let table = |key: &str, mut items: serde_json::Value, description: &str| {
            items["description"] = description.into();
            serde_json::json!({
                "type": "object",
                "properties": { key: items },
                "required": [key],
                "additionalProperties": false,
            })
        };
        let pair =
            serde_json::json!({ "type": "array", "items": one, "minItems": 2, "maxItems": 2 });
        let list = serde_json::json!({ "type": "array", "items": one, "minItems": 1 });
        json_schema!({
            "title": format!("spread of {}s", T::schema_name()),
            "anyOf": [
                one,
                table("linear", pair.clone(), "[first, last]: evenly spaced across the flows (hosts)."),
                table("uniform", pair, "[low, high]: drawn uniformly at random (from the scenario's seed)."),
                table("list", list, "One value per flow (host), in order."),
            ],
        })
    }
}

struct SpreadVisitor<T>(PhantomData<T>);

impl<'de, T: UnitValue> Visitor<'de> for SpreadVisitor<T> {
    type Value = Spread<T>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} or a table {{ linear = [a, b] }}, {{ list = [...] }} or {{ uniform = [a, b] }}",
            T::WHAT
        )
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Spread<T>, E> {
        T::parse(v).map(Spread::Fixed).map_err(E::custom)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Spread<T>, A::Error> {
        let Some(key) = map.next_key::<String>()? else {
            return Err(de::Error::custom(
                "an empty table (expected linear, list or uniform)",
            ));
        };
        let raw: Vec<String> = map.next_value()?;
        if let Some(extra) = map.next_key::<String>()? {
            return Err(de::Error::custom(format!(
                "a second key `{extra}` (give exactly one of linear, list, uniform)"
            )));
        }
        let vals = raw
            .iter()
            .map(|s| T::parse(s))
            .collect::<Result<Vec<T>, String>>()
            .map_err(de::Error::custom)?;
        let two = |name: &str| -> Result<(T, T), A::Error> {
            match vals.as_slice() {
                [a, b] => Ok((*a, *b)),
                _ => Err(de::Error::custom(format!(
                    "`{name}` with {} values (expected exactly 2: [low, high])",
                    vals.len()
                ))),
            }
        };
        match key.as_str() {
            "linear" => two("linear").map(|(a, b)| Spread::Linear(a, b)),
            "uniform" => two("uniform").map(|(a, b)| Spread::Uniform(a, b)),
            "list" if !vals.is_empty() => Ok(Spread::List(vals)),
            "list" => Err(de::Error::custom("an empty list")),
            other => Err(de::Error::custom(format!(
                "unknown key `{other}` (expected linear, list or uniform)"
            ))),
        }
    }
}

impl<'de, T: UnitValue> Deserialize<'de> for Spread<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(SpreadVisitor(PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize, Serialize)]
    struct W {
        d: Spread<SimDuration>,
    }

    #[test]
    fn parses_each_form_and_expands() {
        let w: W = toml::from_str(r#"d = { linear = ["5ms", "15ms"] }"#).unwrap();
        let mut rng = SimRng::new(1, 1);
        let v = w.d.values(3, &mut rng);
        assert_eq!(
            v,
            vec![
                SimDuration::from_millis(5),
                SimDuration::from_millis(10),
                SimDuration::from_millis(15)
            ]
        );
        let w: W = toml::from_str(r#"d = "7ms""#).unwrap();
        assert_eq!(
            w.d.values(2, &mut rng),
            vec![SimDuration::from_millis(7); 2]
        );
        let w: W = toml::from_str(r#"d = { uniform = ["1ms", "2ms"] }"#).unwrap();
        for x in w.d.values(100, &mut rng) {
            assert!(x >= SimDuration::from_millis(1) && x <= SimDuration::from_millis(2));
        }
        let w: W = toml::from_str(r#"d = { list = ["1ms", "2ms"] }"#).unwrap();
        assert!(w.d.check(3).is_err());
        assert!(w.d.check(2).is_ok());
        // Round trip through serialisation.
        let back: W = toml::from_str(&toml::to_string(&w).unwrap()).unwrap();
        assert_eq!(back.d, w.d);
    }

    #[test]
    fn rejects_bad_forms() {
        for bad in [
            r#"d = { linear = ["5ms"] }"#,
            r#"d = { ramp = ["1ms", "2ms"] }"#,
            r#"d = "5""#,
            r#"d = 5"#,
        ] {
            assert!(toml::from_str::<W>(bad).is_err(), "{bad}");
        }
    }
}
