//! The crate's modules import each other without cycles: every arrow goes down.
//!
//! Reads every file under `src/` as text (tests excluded: a `#[cfg(test)] mod` block), collects
//! the paths it names (`use crate::…`, `use super::…`, and `crate::…` paths written inline),
//! resolves each to the file that defines the item (following `pub use` re-exports), and looks
//! for strongly connected components of two or more files. A module's `mod.rs` stands above the
//! files of its own folder, so its arrows into them (re-exports, an enum over its children)
//! count as going down. A cycle fails the test, naming its
//! files and the names that tie them, unless it lies inside a group listed in `KNOWN`.
//!
//! `AQMLAB_MODULE_GRAPH_SRC=DIR` checks another source tree (a scratch copy with a cycle added
//! on purpose shows the test failing).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Cycles that predate this check, by the files they may span: the TCP sender and its
/// loss-recovery variants call each other through `Conn` (being split by responsibility).
const KNOWN: &[&[&str]] = &[&[
    "transport/tcp/sender/mod.rs",
    "transport/tcp/trace.rs",
    "transport/tcp/recovery/mod.rs",
    "transport/tcp/recovery/reno.rs",
    "transport/tcp/recovery/newreno.rs",
    "transport/tcp/recovery/sack.rs",
]];

/// One source file: its module path (`["aqm", "red"]`), the items it defines and re-exports,
/// and the paths it names.
struct File {
    module: Vec<String>,
    defines: BTreeSet<String>,
    /// `pub use a::b::C` (as an absolute module path + name), by the name it exports.
    reexports: BTreeMap<String, Vec<String>>,
    paths: Vec<Vec<String>>,
}

fn src_dir() -> PathBuf {
    std::env::var_os("AQMLAB_MODULE_GRAPH_SRC")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("src"))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("readable src dir")
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn module_of(rel: &str) -> Vec<String> {
    let stem = rel.trim_end_matches(".rs");
    let mut parts: Vec<String> = stem.split('/').map(str::to_string).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The code of a file without comments and without its test module.
fn code_of(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        if t.starts_with("#[cfg(test)]") {
            match lines.peek().map(|n| n.trim_start()) {
                // The test module, inline: the rest of the file.
                Some(n) if n.starts_with("mod ") && n.ends_with('{') => break,
                // A test-only module in a file of its own.
                Some(n) if n.starts_with("mod ") => {
                    lines.next();
                    continue;
                }
                _ => {}
            }
        }
        let code = match line.find("//") {
            Some(i) => &line[..i],
            None => line,
        };
        out.push_str(code);
        out.push('\n');
    }
    out
}

/// Expands one `use` tree (`a::{b, c::{d, self}}`) into flat paths.
fn expand_tree(prefix: &[String], tree: &str, out: &mut Vec<Vec<String>>) {
    let tree = tree.trim();
    if tree.is_empty() {
        return;
    }
    if let Some(open) = tree.find('{') {
        let head: Vec<String> = tree[..open]
            .split("::")
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let mut base = prefix.to_vec();
        base.extend(head);
        let mut depth = 0;
        let mut start = 0;
        for (i, ch) in inner.char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    expand_tree(&base, &inner[start..i], out);
                    start = i + 1;
                }
                _ => {}
            }
        }
        expand_tree(&base, &inner[start..], out);
        return;
    }
    let tree = tree.split(" as ").next().unwrap_or(tree);
    let mut path = prefix.to_vec();
    path.extend(tree.split("::").map(|s| s.trim().to_string()));
    if path.last().is_some_and(|s| s == "self") {
        path.pop();
    }
    out.push(path);
}

/// Makes a path absolute (from the crate root), or `None` for another crate's.
fn absolute(module: &[String], is_mod_file: bool, path: &[String]) -> Option<Vec<String>> {
    let mut base: Vec<String> = match path.first().map(String::as_str) {
        Some("crate") => Vec::new(),
        Some("super") | Some("self") => {
            // Inside `a/b.rs` (module a::b), `self` is a::b and `super` is a.
            let _ = is_mod_file;
            module.to_vec()
        }
        _ => return None,
    };
    let mut rest = path;
    if path[0] == "crate" {
        rest = &path[1..];
    }
    while let Some(first) = rest.first() {
        match first.as_str() {
            "super" => {
                base.pop();
            }
            "self" => {}
            _ => break,
        }
        rest = &rest[1..];
    }
    base.extend(rest.iter().cloned());
    Some(base)
}

fn parse(rel: &str, text: &str) -> File {
    let module = module_of(rel);
    let is_mod_file = rel.ends_with("mod.rs") || rel == "lib.rs";
    let code = code_of(text);
    let mut defines = BTreeSet::new();
    let mut reexports = BTreeMap::new();
    let mut paths = Vec::new();
    for line in code.lines() {
        let t = line.trim_start();
        let t = t
            .strip_prefix("pub(crate) ")
            .or_else(|| t.strip_prefix("pub "))
            .unwrap_or(t);
        for kw in [
            "struct ", "enum ", "trait ", "fn ", "type ", "const ", "static ", "mod ",
        ] {
            if let Some(rest) = t.strip_prefix(kw) {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                defines.insert(name);
            }
        }
    }
    // `use` statements, possibly spanning lines.
    let mut rest = code.as_str();
    while let Some(i) = rest.find("use ") {
        let before = &rest[..i];
        let at_start = before
            .chars()
            .last()
            .is_none_or(|c| c.is_whitespace() || c == ';' || c == '{' || c == '}');
        let after = &rest[i + 4..];
        let end = after.find(';').unwrap_or(after.len());
        if at_start {
            let public = before.trim_end().ends_with("pub") || before.trim_end().ends_with(')');
            let mut flat = Vec::new();
            expand_tree(&[], &after[..end], &mut flat);
            for p in flat {
                if let Some(abs) = absolute(&module, is_mod_file, &p) {
                    if public {
                        if let Some(name) = abs.last() {
                            reexports.insert(name.clone(), abs.clone());
                        }
                    }
                    paths.push(abs);
                } else if public && p.len() > 1 && p[0] != "std" {
                    // `pub use child::Name` inside a module: relative to this module.
                    let mut abs = module.clone();
                    abs.extend(p.iter().cloned());
                    if let Some(name) = abs.last() {
                        reexports.insert(name.clone(), abs.clone());
                    }
                    paths.push(abs);
                }
            }
        }
        rest = &after[end.min(after.len())..];
    }
    // Inline paths: `crate::a::b::C` anywhere in the code (strings too: `schema_with = "…"`).
    let mut rest = code.as_str();
    while let Some(i) = rest.find("crate::") {
        let tail = &rest[i..];
        let len = tail
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .unwrap_or(tail.len());
        let p: Vec<String> = tail[..len]
            .split("::")
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        if let Some(abs) = absolute(&module, is_mod_file, &p) {
            paths.push(abs);
        }
        rest = &tail[len.max(1)..];
    }
    File {
        module,
        defines,
        reexports,
        paths,
    }
}

/// The file an absolute path lands in: the longest module prefix, then the item it names
/// (a child module, a definition, or a re-export followed to its source).
fn resolve(
    files: &BTreeMap<Vec<String>, (String, File)>,
    path: &[String],
    depth: u32,
) -> Option<String> {
    let mut k = path.len();
    while k > 0 && !files.contains_key(&path[..k]) {
        k -= 1;
    }
    let (rel, file) = files.get(&path[..k])?;
    let Some(name) = path.get(k) else {
        return Some(rel.clone());
    };
    if file.defines.contains(name) || depth > 8 {
        return Some(rel.clone());
    }
    match file.reexports.get(name) {
        Some(target) if target.as_slice() != path => {
            resolve(files, target, depth + 1).or_else(|| Some(rel.clone()))
        }
        _ => Some(rel.clone()),
    }
}

/// Strongly connected components (Tarjan), each sorted, of size ≥ 2.
fn cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct T<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(t: &mut T<'a>, v: &'a str) {
        let n = t.index.len();
        t.index.insert(v, n);
        t.low.insert(v, n);
        t.stack.push(v);
        t.on.insert(v);
        if let Some(next) = t.edges.get(v) {
            for w in next {
                let w = w.as_str();
                if !t.index.contains_key(w) {
                    visit(t, w);
                    let lw = t.low[w];
                    let lv = t.low[v];
                    t.low.insert(v, lv.min(lw));
                } else if t.on.contains(w) {
                    let iw = t.index[w];
                    let lv = t.low[v];
                    t.low.insert(v, lv.min(iw));
                }
            }
        }
        if t.low[v] == t.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = t.stack.pop() {
                t.on.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                t.out.push(comp);
            }
        }
    }
    let mut t = T {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !t.index.contains_key(v.as_str()) {
            visit(&mut t, v);
        }
    }
    t.out
}

fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut paths = Vec::new();
    rust_files(src, &mut paths);
    let mut files = BTreeMap::new();
    for p in paths {
        let rel = p
            .strip_prefix(src)
            .expect("under src")
            .to_string_lossy()
            .replace('\\', "/");
        let text = std::fs::read_to_string(&p).expect("readable source");
        let f = parse(&rel, &text);
        files.insert(f.module.clone(), (rel, f));
    }
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (rel, f) in files.values() {
        let to = edges.entry(rel.clone()).or_default();
        // A module's own `mod.rs` (or `lib.rs`) stands above its children: its arrows into
        // its own folder (re-exports, an enum over its children) go down.
        let folder = rel
            .strip_suffix("mod.rs")
            .or_else(|| rel.strip_suffix("lib.rs"));
        for p in &f.paths {
            if let Some(target) = resolve(&files, p, 0) {
                let into_own_folder = folder.is_some_and(|d| target.starts_with(d));
                if &target != rel && !into_own_folder {
                    to.insert(target);
                }
            }
        }
    }
    edges
}

#[test]
fn no_import_cycle_between_modules() {
    let src = src_dir();
    let edges = graph(&src);
    assert!(
        edges.len() > 20,
        "read only {} files of {src:?}",
        edges.len()
    );
    let new: Vec<Vec<String>> = cycles(&edges)
        .into_iter()
        .filter(|c| {
            !KNOWN
                .iter()
                .any(|known| c.iter().all(|f| known.contains(&f.as_str())))
        })
        .collect();
    let describe = |c: &Vec<String>| -> String {
        let mut s = format!("cycle of {} files:", c.len());
        for a in c {
            for b in edges[a].iter().filter(|b| c.contains(b)) {
                s.push_str(&format!("\n  {a} -> {b}"));
            }
        }
        s
    };
    assert!(
        new.is_empty(),
        "import cycles between modules of {src:?} (every arrow must go down):\n{}",
        new.iter().map(describe).collect::<Vec<_>>().join("\n")
    );
}

/// The parser sees the arrows it must: a path in braces, a `super` path, an inline path, a
/// re-export followed to the file that defines the name.
#[test]
fn the_reader_sees_imports_of_every_form() {
    let edges = graph(&src_dir());
    let has = |a: &str, b: &str| edges.get(a).is_some_and(|s| s.contains(b));
    assert!(
        has("aqm/red.rs", "qdisc/verdict.rs"),
        "Reason via aqm's re-export"
    );
    assert!(
        has("aqm/chablis.rs", "aqm/red_core.rs"),
        "use super::red_core::{{…}}"
    );
    assert!(has("aqm/mod.rs", "shape.rs"), "inline crate::shape::…");
    assert!(
        has("scenario/build.rs", "engine/simulator.rs"),
        "World via engine's re-export"
    );
    assert!(
        has("qdisc/single.rs", "qdisc/flow_queues.rs"),
        "use super::{{FlowQueues, …}}"
    );
    assert!(!has("qdisc/mod.rs", "aqm/mod.rs"));
}
