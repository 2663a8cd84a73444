//! Which behaviour of the model a run depends on: the run cache's key (`aqmlab.sweep`).
//!
//! The golden test (`tests/golden.rs`) records a hash of every golden case's results and, in
//! `golden_kinds.json`, the qdisc kinds each case runs (`qdisc_kinds`: the measured link's, a
//! topology's own links', and DropTail, which every network has). A scenario's identity hashes
//! the recorded results of the cases whose kinds are all among its own: a change that may alter
//! its results moves one of them (the golden test's contract), while a change confined to
//! another kind, or a new algorithm with its new cases, leaves it as it was, so the runs cached
//! for it stay valid.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use crate::scenario::expand::expand;
use crate::scenario::Scenario;

/// The qdisc kinds a scenario's network runs: every link's (DropTail on every link the
/// scenario does not give a qdisc).
pub fn qdisc_kinds(s: &Scenario) -> BTreeSet<&'static str> {
    expand(s)
        .topology
        .links
        .iter()
        .map(|l| l.qdisc.kind())
        .collect()
}

struct Recorded {
    /// Case name -> result hash, quick and full lengths.
    hashes: [BTreeMap<String, String>; 2],
    /// Case name -> its kinds.
    kinds: BTreeMap<String, Vec<String>>,
}

fn recorded() -> &'static Recorded {
    static R: OnceLock<Recorded> = OnceLock::new();
    R.get_or_init(|| {
        let parse = |text: &str| serde_json::from_str(text).unwrap_or_default();
        Recorded {
            hashes: [
                parse(include_str!("../../tests/data/golden_hashes.json")),
                parse(include_str!("../../tests/data/golden_hashes_full.json")),
            ],
            kinds: serde_json::from_str(include_str!("../../tests/data/golden_kinds.json"))
                .unwrap_or_default(),
        }
    })
}

/// The identity of a model restricted to `kinds`: FNV-1a over the recorded hashes of the cases
/// whose kinds are all in `kinds`, in name order.
fn identity(
    hashes: &[BTreeMap<String, String>],
    case_kinds: &BTreeMap<String, Vec<String>>,
    kinds: &BTreeSet<&str>,
) -> u64 {
    let mut h = crate::FNV_OFFSET;
    for (i, file) in hashes.iter().enumerate() {
        for (name, hash) in file {
            let covered = case_kinds
                .get(name)
                .is_some_and(|ks| ks.iter().all(|k| kinds.contains(k.as_str())));
            if covered {
                h = crate::fnv1a(&[i as u8], h);
                h = crate::fnv1a(name.as_bytes(), h);
                h = crate::fnv1a(hash.as_bytes(), h);
            }
        }
    }
    h
}

/// The identity of the behaviour `s`'s results depend on (see the module docs).
pub fn of(s: &Scenario) -> u64 {
    let r = recorded();
    identity(&r.hashes, &r.kinds, &qdisc_kinds(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    fn kinds(pairs: &[(&str, &[&str])]) -> BTreeMap<String, Vec<String>> {
        pairs
            .iter()
            .map(|(a, ks)| (a.to_string(), ks.iter().map(|k| k.to_string()).collect()))
            .collect()
    }

    /// A new algorithm's cases leave other kinds' identities alone; a moved hash of a case a
    /// scenario covers moves its identity; one of another kind does not.
    #[test]
    fn identity_follows_only_the_cases_a_scenario_covers() {
        let case_kinds = kinds(&[
            ("matrix/droptail/reno", &["droptail"]),
            ("matrix/red/reno", &["droptail", "red"]),
            ("matrix/new/reno", &["droptail", "new"]),
        ]);
        let before = [map(&[
            ("matrix/droptail/reno", "a"),
            ("matrix/red/reno", "b"),
        ])];
        let red: BTreeSet<&str> = ["droptail", "red"].into();
        let droptail: BTreeSet<&str> = ["droptail"].into();
        let id = identity(&before, &case_kinds, &red);
        // A new kind with its cases.
        let added = [map(&[
            ("matrix/droptail/reno", "a"),
            ("matrix/new/reno", "c"),
            ("matrix/red/reno", "b"),
        ])];
        assert_eq!(identity(&added, &case_kinds, &red), id);
        // A change to RED.
        let red_moved = [map(&[
            ("matrix/droptail/reno", "a"),
            ("matrix/red/reno", "B"),
        ])];
        assert_ne!(identity(&red_moved, &case_kinds, &red), id);
        assert_eq!(
            identity(&red_moved, &case_kinds, &droptail),
            identity(&before, &case_kinds, &droptail)
        );
        // An engine change moves DropTail's cases, so every identity.
        let engine_moved = [map(&[
            ("matrix/droptail/reno", "A"),
            ("matrix/red/reno", "b"),
        ])];
        assert_ne!(identity(&engine_moved, &case_kinds, &red), id);
    }

    /// Every golden case has its kinds recorded, and the recorded data parse.
    #[test]
    fn recorded_cases_have_kinds() {
        let r = recorded();
        assert!(r.hashes[0].len() > 60, "quick hashes parse");
        for name in r.hashes.iter().flat_map(|f| f.keys()) {
            assert!(r.kinds.contains_key(name), "{name} has no recorded kinds");
        }
    }
}
