//! Errors a user can cause. Every one names where (the key path in the scenario), what (the bad
//! value) and what is allowed, so the CLI can print it on one line and exit 2.

use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioError {
    /// Dotted key path, e.g. `bottleneck.qdisc.max_p` or `flows.0.access_delay`.
    pub path: String,
    /// The offending value as the user wrote it (or a description of it).
    pub value: String,
    /// What would have been accepted.
    pub allowed: String,
}

impl ScenarioError {
    pub fn new(
        path: impl Into<String>,
        value: impl Into<String>,
        allowed: impl Into<String>,
    ) -> Self {
        ScenarioError {
            path: path.into(),
            value: value.into(),
            allowed: allowed.into(),
        }
    }

    /// The same error under a parent key: `prefixed("bottleneck.qdisc")` turns `max_p` into
    /// `bottleneck.qdisc.max_p`.
    pub fn prefixed(mut self, parent: &str) -> Self {
        self.path = join_path(parent, &self.path);
        self
    }
}

/// Joins a parent and child key path with a dot, dropping empty parts.
pub fn join_path(parent: &str, child: &str) -> String {
    match (parent.is_empty(), child.is_empty()) {
        (true, _) => child.to_string(),
        (_, true) => parent.to_string(),
        _ => format!("{parent}.{child}"),
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() {
            "<scenario>"
        } else {
            &self.path
        };
        write!(f, "{path}: {} ({})", self.value, self.allowed)
    }
}

impl std::error::Error for ScenarioError {}

/// Shorthand for parameter validation in algorithm files: `check(cond, "max_p", max_p, "in (0, 1]")`.
pub fn check(
    ok: bool,
    key: &str,
    value: impl fmt::Display,
    allowed: &str,
) -> Result<(), ScenarioError> {
    if ok {
        Ok(())
    } else {
        Err(ScenarioError::new(key, value.to_string(), allowed))
    }
}

/// Converts a serde error (with the path serde_path_to_error tracked) into a `ScenarioError`.
pub fn from_serde<E: fmt::Display>(err: serde_path_to_error::Error<E>) -> ScenarioError {
    // serde_path_to_error writes `flows[0].count`; scenarios and `--set` say `flows.0.count`.
    let path = err.path().to_string().replace('[', ".").replace(']', "");
    let path = if path == "." { String::new() } else { path };
    let msg = err.inner().to_string();
    // serde's messages read "invalid value: X, expected Y" / "unknown field `k`, expected one of …".
    if let Some(rest) = msg.strip_prefix("unknown field ") {
        let (field, expected) = rest.split_once(", ").unwrap_or((rest, ""));
        let field = field.split('`').nth(1).unwrap_or(field).trim();
        // serde_path_to_error's path already ends with the unknown key.
        let path = if path == field || path.ends_with(&format!(".{field}")) {
            path
        } else {
            join_path(&path, field)
        };
        return ScenarioError::new(path, "unknown key", expected.to_string());
    }
    if let Some(rest) = msg.strip_prefix("missing field ") {
        let field = rest.split('`').nth(1).unwrap_or(rest).trim();
        return ScenarioError::new(join_path(&path, field), "missing", "this key is required");
    }
    match msg.split_once(", expected ") {
        Some((got, expected)) => {
            ScenarioError::new(path, got.to_string(), format!("expected {expected}"))
        }
        None => ScenarioError::new(path, msg, "see `aqmlab algorithms` and docs/scenarios.md"),
    }
}
