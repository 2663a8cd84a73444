//! Simulated time, rates and sizes, and the unit strings scenarios use.
//!
//! Time is an integer count of nanoseconds (`SimTime` for instants, `SimDuration` for spans), so
//! runs repeat bit for bit on every machine: no floating-point clock accumulates rounding error.
//! Rates are integer bits per second, sizes integer bytes. Unit strings follow networking
//! convention: `k`, `M`, `G` are powers of ten ("10Mbps" = 10 000 000 bit/s, "150KB" = 150 000
//! bytes), and "B" means bytes while "b"/"bps" mean bits.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// Nanoseconds per second.
pub const NS_PER_SEC: u64 = 1_000_000_000;

/// An instant of simulated time, in nanoseconds since the start of the run.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

/// A span of simulated time, in nanoseconds.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimDuration(pub u64);

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    pub const MAX: SimTime = SimTime(u64::MAX);

    pub fn from_secs_f64(s: f64) -> SimTime {
        SimTime(SimDuration::from_secs_f64(s).0)
    }
    pub fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NS_PER_SEC as f64
    }
    /// Time elapsed since `earlier`; zero if `earlier` is later (never wraps).
    pub fn since(self, earlier: SimTime) -> SimDuration {
        SimDuration(self.0.saturating_sub(earlier.0))
    }
}

impl SimDuration {
    pub const ZERO: SimDuration = SimDuration(0);

    pub const fn from_micros(us: u64) -> SimDuration {
        SimDuration(us * 1_000)
    }
    pub const fn from_millis(ms: u64) -> SimDuration {
        SimDuration(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> SimDuration {
        SimDuration(s * NS_PER_SEC)
    }
    /// Rounds to the nearest nanosecond; negative or NaN inputs give zero.
    pub fn from_secs_f64(s: f64) -> SimDuration {
        if s.is_nan() || s <= 0.0 {
            SimDuration(0)
        } else {
            SimDuration((s * NS_PER_SEC as f64).round() as u64)
        }
    }
    pub fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NS_PER_SEC as f64
    }
    pub fn as_millis_f64(self) -> f64 {
        self.0 as f64 / 1e6
    }
    /// Time to serialise `bytes` onto a link of `rate_bps`, rounded up to whole nanoseconds.
    #[inline]
    pub fn transmission(bytes: u64, rate_bps: u64) -> SimDuration {
        // Per packet on the hot path: a 64-bit division when bits x 1e9 fits (any packet under
        // 2.3 GB), the same result as the 128-bit one, which costs a call to __udivti3.
        let rate = rate_bps.max(1);
        if let Some(bits) = bytes.checked_mul(8 * NS_PER_SEC) {
            return SimDuration(bits.div_ceil(rate));
        }
        let bits = bytes as u128 * 8 * NS_PER_SEC as u128;
        SimDuration(bits.div_ceil(rate as u128) as u64)
    }
}

/// The shortest period a periodic timer may have (AQM control-law updates, TCP timer bounds).
/// A timer runs whether or not packets flow: at 1 ns a run spends ~100 s of CPU per simulated
/// second on timer events alone. 1 µs is below one packet's transmission time at any link rate
/// the papers use (1500 bytes at 10 Gbit/s take 1.2 µs), so a law updated more often than that
/// sees nothing new between updates.
pub const MIN_TIMER_PERIOD: SimDuration = SimDuration(1_000);

impl Add<SimDuration> for SimTime {
    type Output = SimTime;
    fn add(self, d: SimDuration) -> SimTime {
        SimTime(self.0.saturating_add(d.0))
    }
}
impl AddAssign<SimDuration> for SimTime {
    fn add_assign(&mut self, d: SimDuration) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Sub<SimTime> for SimTime {
    type Output = SimDuration;
    fn sub(self, o: SimTime) -> SimDuration {
        self.since(o)
    }
}
impl Add for SimDuration {
    type Output = SimDuration;
    fn add(self, o: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_add(o.0))
    }
}
impl Sub for SimDuration {
    type Output = SimDuration;
    fn sub(self, o: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_sub(o.0))
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.as_secs_f64())
    }
}
impl fmt::Display for SimDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}ms", self.as_millis_f64())
    }
}

/// Splits "10Mbps" into (10.0, "Mbps"). Rejects empty, NaN, infinite and negative numbers.
fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|(_, c)| {
            !(c.is_ascii_digit() || *c == '.' || *c == 'e' || *c == 'E' || *c == '-' || *c == '+')
        })
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(end);
    let value: f64 = num.parse().ok()?;
    if !value.is_finite() || value < 0.0 {
        return None;
    }
    Some((value, unit.trim()))
}

/// Parses a duration string: "5ms", "1.5s", "200us", "10ns", "2min". A bare number is an error
/// (units are required so that "5" cannot silently mean seconds in one place and ms in another).
pub fn parse_duration(s: &str) -> Result<SimDuration, String> {
    let err =
        || format!("'{s}' is not a duration (expected a number with a unit: ns, us, ms, s, min)");
    let (v, unit) = split_number(s).ok_or_else(err)?;
    let scale = match unit {
        "ns" => 1e-9,
        "us" | "µs" => 1e-6,
        "ms" => 1e-3,
        "s" | "sec" => 1.0,
        "min" => 60.0,
        _ => return Err(err()),
    };
    let ns = v * scale * NS_PER_SEC as f64;
    if ns >= U64_LIMIT {
        return Err(format!(
            "'{s}' is out of range (at most {:.0}s, ~584 years)",
            u64::MAX as f64 / NS_PER_SEC as f64
        ));
    }
    Ok(SimDuration::from_secs_f64(v * scale))
}

/// 2^64 as f64: the first value that no longer fits a u64 (nanoseconds, bit/s, bytes). A value
/// at or above it is an error, never silently clamped to u64::MAX.
const U64_LIMIT: f64 = 18_446_744_073_709_551_616.0;

/// Parses a rate string: "10Mbps", "56kbps", "1Gbps", "155Mbps", "1000bps".
pub fn parse_rate(s: &str) -> Result<u64, String> {
    let err =
        || format!("'{s}' is not a rate (expected a number with a unit: bps, kbps, Mbps, Gbps)");
    let (v, unit) = split_number(s).ok_or_else(err)?;
    let scale = match unit {
        "bps" | "b/s" => 1.0,
        "kbps" | "Kbps" | "kb/s" => 1e3,
        "Mbps" | "Mb/s" => 1e6,
        "Gbps" | "Gb/s" => 1e9,
        _ => return Err(err()),
    };
    let bps = (v * scale).round();
    if bps < 1.0 {
        return Err(format!("'{s}' is not a positive rate"));
    }
    if bps >= U64_LIMIT {
        return Err(format!("'{s}' is out of range (at most 18446744073Gbps)"));
    }
    Ok(bps as u64)
}

/// Parses a size string: "1500B", "150KB", "1MB".
pub fn parse_size(s: &str) -> Result<u64, String> {
    let err = || format!("'{s}' is not a size (expected a number with a unit: B, KB, MB, GB)");
    let (v, unit) = split_number(s).ok_or_else(err)?;
    let scale = match unit {
        "B" => 1.0,
        "KB" | "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        _ => return Err(err()),
    };
    let bytes = (v * scale).round();
    if bytes >= U64_LIMIT {
        return Err(format!("'{s}' is out of range (at most 18446744073GB)"));
    }
    Ok(bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_beyond_u64_are_errors_not_clamped() {
        assert!(parse_duration("1e18s")
            .unwrap_err()
            .contains("out of range"));
        assert!(parse_duration("1e400s").is_err());
        assert!(parse_rate("1e300Gbps")
            .unwrap_err()
            .contains("out of range"));
        assert!(parse_size("1e30KB").unwrap_err().contains("out of range"));
        assert_eq!(
            parse_duration("1e9s").unwrap().as_nanos(),
            1_000_000_000 * NS_PER_SEC
        );
        assert_eq!(
            parse_rate("18000000000Gbps").unwrap(),
            18_000_000_000_000_000_000
        );
    }

    #[test]
    fn parses_units() {
        assert_eq!(parse_duration("5ms").unwrap(), SimDuration::from_millis(5));
        assert_eq!(
            parse_duration("1.5s").unwrap(),
            SimDuration::from_millis(1500)
        );
        assert_eq!(
            parse_duration("200us").unwrap(),
            SimDuration::from_micros(200)
        );
        assert_eq!(parse_rate("10Mbps").unwrap(), 10_000_000);
        assert_eq!(parse_rate("56kbps").unwrap(), 56_000);
        assert_eq!(parse_size("150KB").unwrap(), 150_000);
        for bad in ["5", "ms", "-5ms", "5 parsecs", "NaNms", "inf s", ""] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
        assert!(parse_rate("0bps").is_err());
        assert!(parse_rate("-10Mbps").is_err());
        assert!(parse_rate("10MBps").is_err());
    }

    #[test]
    fn transmission_time_rounds_up() {
        // 1000 bytes at 10 Mbps = 800 us exactly.
        assert_eq!(
            SimDuration::transmission(1000, 10_000_000),
            SimDuration::from_micros(800)
        );
        // 1 byte at 3 bit/s = 8/3 s, rounded up.
        assert_eq!(SimDuration::transmission(1, 3).0, 2_666_666_667);
        // Beyond the 64-bit fast path: the 128-bit route gives the exact value.
        assert_eq!(
            SimDuration::transmission(u64::MAX / 1000, 8 * NS_PER_SEC).0,
            u64::MAX / 1000
        );
    }
}

/// A link or sending rate in bits per second. In scenarios: a string with a unit ("10Mbps").
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(pub u64);

impl Rate {
    pub fn bps(self) -> u64 {
        self.0
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0 as f64;
        if self.0 >= 1_000_000_000 && self.0.is_multiple_of(1_000_000) {
            write!(f, "{}Gbps", b / 1e9)
        } else if self.0 >= 1_000_000 && self.0.is_multiple_of(1_000) {
            write!(f, "{}Mbps", b / 1e6)
        } else if self.0 >= 1_000 {
            write!(f, "{}kbps", b / 1e3)
        } else {
            write!(f, "{}bps", self.0)
        }
    }
}

/// The number part of a unit string, as `split_number` and `str::parse::<f64>` accept it.
const NUMBER_PATTERN: &str = r"\+?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?";

/// The JSON Schema `pattern` of a duration string (what [`parse_duration`] accepts).
pub fn duration_pattern() -> String {
    format!(r"^\s*{NUMBER_PATTERN}\s*(ns|us|µs|ms|s|sec|min)\s*$")
}

/// The JSON Schema `pattern` of a rate string (what [`parse_rate`] accepts).
pub fn rate_pattern() -> String {
    format!(r"^\s*{NUMBER_PATTERN}\s*(bps|b/s|kbps|Kbps|kb/s|Mbps|Mb/s|Gbps|Gb/s)\s*$")
}

/// The JSON Schema `pattern` of a size string (what [`parse_size`] accepts).
pub fn size_pattern() -> String {
    format!(r"^\s*{NUMBER_PATTERN}\s*(B|KB|kB|MB|GB)\s*$")
}

/// Unit strings in the scenario schema: a string with a `pattern`, titled with the kind of
/// quantity (the reference tables print the title as the key's type).
mod schema_impls {
    use super::*;
    use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
    use std::borrow::Cow;

    impl JsonSchema for SimDuration {
        fn inline_schema() -> bool {
            true
        }
        fn schema_name() -> Cow<'static, str> {
            "duration".into()
        }
        fn json_schema(_: &mut SchemaGenerator) -> Schema {
            json_schema!({
                "title": "duration",
                "type": "string",
                "pattern": duration_pattern(),
                "examples": ["5ms", "1.5s", "2min"],
            })
        }
    }

    impl JsonSchema for Rate {
        fn inline_schema() -> bool {
            true
        }
        fn schema_name() -> Cow<'static, str> {
            "rate".into()
        }
        fn json_schema(_: &mut SchemaGenerator) -> Schema {
            json_schema!({
                "title": "rate",
                "type": "string",
                "pattern": rate_pattern(),
                "examples": ["56kbps", "10Mbps", "1Gbps"],
            })
        }
    }
}

/// Durations and rates appear in scenarios as unit strings; they serialise back the same way.
mod serde_impls {
    use super::*;
    use serde::de::{self, Deserializer, Visitor};
    use serde::{Deserialize, Serialize, Serializer};

    struct UnitVisitor<F>(&'static str, F);

    impl<T, F: Fn(&str) -> Result<T, String>> Visitor<'_> for UnitVisitor<F> {
        type Value = T;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.0)
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
            (self.1)(v).map_err(E::custom)
        }
    }

    impl<'de> Deserialize<'de> for SimDuration {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_str(UnitVisitor(
                "a duration string such as \"5ms\" or \"1.5s\"",
                parse_duration,
            ))
        }
    }
    impl Serialize for SimDuration {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_str(&format!("{}ms", self.as_millis_f64()))
        }
    }
    impl<'de> Deserialize<'de> for Rate {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_str(UnitVisitor(
                "a rate string such as \"10Mbps\"",
                parse_rate_value,
            ))
        }
    }
    fn parse_rate_value(s: &str) -> Result<Rate, String> {
        parse_rate(s).map(Rate)
    }
    impl Serialize for Rate {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_str(&self.to_string())
        }
    }
}
