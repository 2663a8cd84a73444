"""Hostile inputs by class, counted (docs/robustness.md): CLI arguments, sweeps,
scenario files, the replay API, Python API misuse, HTML reports, signals, concurrent runs.
Each input has an expectation (an error, or a sound result); a failure is an escaped exception
(a traceback), an accepted input that should be an error, an error that is not one line or
does not name the key, or a check on the output that does not hold. Prints one line per class
(tried, failed) and every failure; exits 1 if any failed.

    .venv/bin/python tests/fuzz/hostile.py [--only CLASS ...]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import cases

import aqmlab
from aqmlab import cli, sweep
from aqmlab import scenario as sc

TINY = """\
name = "tiny"
seed = 1
duration = "2s"
warmup = "0.5s"

[bottleneck]
rate = "2Mbps"
delay = "5ms"
buffer = 20
qdisc = { kind = "red", min_th = 3, max_th = 12 }

[[flows]]
kind = "tcp"
count = 3
access_delay = { linear = ["2ms", "20ms"] }
start = { uniform = ["0s", "0.5s"] }
group = "a"
"""
#: Minutes of CPU: still running when the signal arrives.
LONG = (
    TINY.replace('duration = "2s"', 'duration = "3000s"')
    .replace("count = 3", "count = 200")
    .replace('rate = "2Mbps"', 'rate = "100Mbps"')
    .replace("buffer = 20", "buffer = 500")
)

Outcome = tuple[int, str, str]  # exit code, stdout, stderr


class Tally:
    def __init__(self) -> None:
        self.counts: dict[str, list[int]] = {}
        self.failures: list[str] = []

    def record(self, klass: str, label: str, problem: str | None) -> None:
        c = self.counts.setdefault(klass, [0, 0])
        c[0] += 1
        if problem:
            c[1] += 1
            self.failures.append(f"[{klass}] {label}: {problem}")


def cli_inproc(*args: str | Path) -> Outcome:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main([str(a) for a in args])
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
        except BaseException as e:  # escaped: what a user sees as a traceback
            if isinstance(e, KeyboardInterrupt):
                raise
            return -999, out.getvalue(), f"Traceback: {type(e).__name__}: {e}"
    return code, out.getvalue(), err.getvalue()


def judge(o: Outcome, expect: str, needle: str | None = None) -> str | None:
    code, _, err = o
    if code == -999 or "Traceback" in err:
        return f"traceback: {err.strip()[-300:]}"
    if expect == "ok":
        return None if code == 0 else f"exit {code}: {err.strip()[:300]}"
    if expect == "either" and code == 0:
        return None
    if code == 0:
        return "accepted (exit 0), expected an error"
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    if not lines or "error" not in lines[-1]:
        return f"exit {code} without an error line: {err.strip()[:300]!r}"
    # argparse's usage block (wrapped, indented) precedes its one "error:" line
    ours = [ln for ln in lines if not ln.startswith(("usage:", " "))]
    if len(ours) > 2 or (len(ours) == 2 and "points failed" not in ours[0]):
        return f"error is not one line: {err.strip()[:300]!r}"
    if needle and needle not in err:
        return f"error does not name {needle!r}: {err.strip()[:300]}"
    return None


# ---- CLI arguments -------------------------------------------------------------------------


def cli_class(t: Tally, d: Path) -> None:
    s = d / "tiny.toml"
    s.write_text(TINY)
    real = d / "real"
    real.mkdir()
    (d / "link").symlink_to(real)
    fifo = d / "fifo"
    os.mkfifo(fifo)
    np = "--no-plots"
    rows: list[tuple[list[Any], str, str | None]] = [
        (["run", s, "--seed", "-1"], "error", "seed"),
        (["run", s, "--seed", str(2**70)], "error", "seed"),
        (["run", s, "--seed", "abc"], "error", "--seed"),
        (["run", s, "--seed", str(2**63)], "error", "seed"),
        (["run", s, "--set", "bottleneck.nope=1"], "error", "bottleneck.nope"),
        (["run", s, "--set", "bottleneck.qdisc.max_p=abc"], "error", "max_p"),
        (["run", s, "--set", "bottleneck.qdisc.max_p=1e999"], "error", "max_p"),
        (["run", s, "--set", "=3"], "error", "=3"),
        (["run", s, "--set", ""], "error", None),
        (["run", s, "--set", "flows.9.count=3"], "error", "flows.9"),
        (["run", s, "--set", "flows.-1.count=3"], "error", "flows"),
        (["run", s, "--set", "duration.x=3"], "error", "duration"),
        (["run", s, "--set", "flows.0.count=99999999999999999999"], "error", "flows.0.count"),
        (["run", s, "--set", "bottleneck.qdisc={kind='nope'}"], "error", "kind"),
        (["run", s, "--set", "a" + ".b" * 200 + "=1"], "error", None),
        (["run", s, "--trace-flows", "x,y"], "error", "--trace-flows"),
        (["run", s, "--trace-flows", str(2**70)], "error", "trace"),
        (["frobnicate"], "error", None),
        ([], "error", None),
        (["run"], "error", None),
        (["run", d / "nofile.toml"], "error", "nofile"),
        (["run", d], "error", None),
        (["validate", "/dev/null"], "error", "duration"),
        (["run", s, "--out", "/dev/null"], "error", "--out"),
        # never /dev/null with --force here: before the fix that replaced the system's /dev/null
        (["run", s, "--out", fifo, "--force"], "error", "--out"),
        (["run", s, "--out", d, "--force", np], "error", "--out"),
        (["run", s, "--out", ".", "--force", np], "error", "--out"),
        (["run", s, "--out", "", np], "error", "--out"),
        (["run", s, "--out", d / "tiny.toml", np], "error", "--out"),
        (["run", s, "--out", d / "tiny.toml" / "sub", np], "error", "--out"),
        (["run", s, "--out", d / "no" / "such" / "dir" / "file.txt", np], "ok", None),
        (["run", s, "--out", d / "ü ñ 空 dir" / "x y", np], "ok", None),
        (["run", s, "--out", d / "link", np], "ok", None),
        (["compare", s, s, "--jobs", "-1", "--out", d / "c1"], "error", "--jobs"),
        (["compare", s, s, "--jobs", "0", "--out", d / "c2"], "error", "--jobs"),
        (["crosscheck", s, "--seeds", "0"], "error", "--seeds"),
        (["crosscheck", s, "--seeds", "-5"], "error", "--seeds"),
        (["reproduce", "nope"], "error", "nope"),
        (["reproduce", "adaptive_red_004", "--workers", "0"], "error", "--workers"),
        (["plot", d / "nofile.parquet", "--x", "a", "--y", "b"], "error", "nofile"),
        (["plot", s, "--x", "a", "--y", "b"], "error", None),
        (["sweep", d / "nofile.toml"], "error", "nofile"),
        (["sweep", s, "--workers", "-3"], "error", "--workers"),
        (["run", s, "--json", "--set", "seed=-0"], "either", None),
    ]
    for args, expect, needle in rows:
        o = cli_inproc(*args)
        problem = judge(o, expect, needle)
        label = " ".join(map(str, args))[:120]
        linked = (d / "link").is_symlink() and (real / "summary.json").is_file()
        if problem is None and "link" in label and expect == "ok" and not linked:
            problem = "--out SYMLINK: the link was replaced instead of written through"
        if problem is None and expect == "ok" and "--out" in map(str, args):
            out = Path(str(args[args.index("--out") + 1]))
            mode = out.resolve().stat().st_mode & 0o777
            if mode & 0o044 != 0o044:  # main() sets umask 022
                problem = f"result directory has mode {oct(mode)} (private; umask ignored)"
        t.record("cli", label, problem)


# ---- sweeps ----------------------------------------------------------------------------------


def sweep_class(t: Tally, d: Path) -> None:
    (d / "b.toml").write_text(TINY)
    many = "".join(f'"flows.0.x{i}" = [{", ".join(map(str, range(100)))}]\n' for i in range(5))
    rows: list[tuple[str, str, str, str | None]] = [
        ("empty_axes", "[axes]\n", "ok", None),
        ("no_axes", "", "ok", None),
        ("empty_list", '[axes]\n"bottleneck.buffer" = []\n', "error", "bottleneck.buffer"),
        ("duplicate_points", '[axes]\n"bottleneck.buffer" = [10, 10, 10]\n', "ok", None),
        ("missing_key", '[axes]\n"bottleneck.nope" = [1, 2]\n', "error", "bottleneck.nope"),
        ("missing_top_key", '[axes]\n"nope" = [1, 2]\n', "error", "nope"),
        ("bad_index", '[axes]\n"flows.5.count" = [1]\n', "error", "flows.5"),
        ("empty_key", '[axes]\n"" = [1]\n', "error", None),
        ("one_bad_value", '[axes]\n"bottleneck.buffer" = [10, -1]\n', "error", "buffer"),
        ("mixed_types", '[axes]\n"bottleneck.buffer" = [10, "15KB", true]\n', "error", "buffer"),
        ("mixed_ok", '[axes]\n"bottleneck.buffer" = [10, "15KB"]\n', "ok", None),
        ("huge_product", "[axes]\n" + many, "error", "points"),
        (
            "huge_axis",
            '[axes]\n"bottleneck.buffer" = [' + ",".join(map(str, range(10, 200_010))) + "]\n",
            "error",
            "points",
        ),
        ("huge_seed", "seeds = [99999999999999999999]\n", "error", "seed"),
        ("negative_seed", "seeds = [-1]\n", "error", "seeds"),
        ("bool_seed", "seeds = [true]\n", "error", "seeds"),
        ("huge_repetitions", "repetitions = 100000000\n", "error", "repetitions"),
        ("zero_repetitions", "repetitions = 0\n", "error", "repetitions"),
        ("axes_not_table", "axes = 5\n", "error", "axes"),
        ("labels_not_table", 'labels = 5\n[axes]\n"bottleneck.buffer" = [10]\n', "error", "labels"),
        ("set_not_table", "set = 5\n", "error", "set"),
        ("mode_bad", 'mode = "x"\n', "error", "mode"),
        (
            "zip_uneven",
            'mode = "zip"\n[axes]\n"bottleneck.buffer" = [10, 20]\n"seed" = [1]\n',
            "error",
            "axes",
        ),
        (
            "duplicate_labels",
            '[axes]\n"flows.0.count" = [1]\n"bottleneck.count" = [1]\n',
            "error",
            "labels",
        ),
        ("unknown_sweep_key", "bogus = 1\n", "error", "bogus"),
    ]
    for name, body, expect, needle in rows:
        f = d / f"sw_{name}.toml"
        base = 'base = "b.toml"\n' if "base" not in body else ""
        f.write_text(base + body)
        t0 = time.perf_counter()
        o = cli_inproc("sweep", f, "--out", d / f"o_{name}", "--workers", "1", "--no-progress")
        secs = time.perf_counter() - t0
        problem = judge(o, expect, needle)
        if problem is None and expect == "error" and secs > 20:
            problem = f"the error came after {secs:.0f} s (must come before work)"
        runs = d / f"o_{name}" / "runs"
        if problem is None and expect == "error" and runs.exists() and any(runs.iterdir()):
            problem = "runs were started before the error"
        t.record("sweep", name, problem)
    for name, body in (
        ("no_base", '[axes]\n"seed" = [1]\n'),
        ("base_missing", 'base = "z.toml"'),
        ("base_dir", 'base = "."'),
        ("base_number", "base = 5"),
    ):
        f = d / f"sw_{name}.toml"
        f.write_text(body)
        t.record(
            "sweep",
            name,
            judge(
                cli_inproc("sweep", f, "--no-progress"),
                "error",
                "base" if name != "base_missing" else "z.toml",
            ),
        )


# ---- scenario files --------------------------------------------------------------------------

_BIG = [10**30, 2**63, 2**64, -1, 1e308, -0.0]


def scenario_file_class(t: Tally, d: Path) -> None:
    def check(label: str, data: bytes, expect: str, needle: str | None = None) -> None:
        f = d / "s.toml"
        f.write_bytes(data)
        t.record("scenario-file", label, judge(cli_inproc("validate", f), expect, needle))

    b = TINY.encode()
    check("BOM", b"\xef\xbb\xbf" + b, "ok")
    check("CRLF", b.replace(b"\n", b"\r\n"), "ok")
    check("BOM+CRLF", b"\xef\xbb\xbf" + b.replace(b"\n", b"\r\n"), "ok")
    check("empty file", b"", "error", "duration")
    check("only comments", b"# nothing\n", "error", "duration")
    check("duplicate keys", b + b'duration = "3s"\n', "error", "TOML")
    check("duplicate tables", b + b"[bottleneck]\nrate='1Mbps'\n", "error", "TOML")
    check("latin-1 byte", b"# caf\xe9\n" + b, "error", "UTF-8")
    check("NUL byte", b.replace(b'"2s"', b'"2s\x00"'), "error", None)
    check("binary", bytes(range(256)), "error", None)
    check("nested 300", b"x = " + b"[" * 300 + b"]" * 300 + b"\n" + b, "error", None)
    check("bare CR", b.replace(b"\n", b"\r"), "error", None)
    resolved = sc.loads(aqmlab.validate(TINY))
    resolved["topology"] = None
    del resolved["topology"]
    leaves = [(p, v) for p, v in cases._paths(resolved) if not isinstance(v, (dict, list))]
    for path, value in leaves:
        if isinstance(value, bool):
            continue
        hostile: list[tuple[Any, str]] = []
        if isinstance(value, (int, float)):
            hostile = [(v, "either") for v in _BIG]
            hostile[0] = (10**30, "error")
            hostile[2] = (2**64, "error")
        elif isinstance(value, str):
            m = cases._UNIT.match(value)
            if m:
                u = m.group(2)
                hostile = [
                    (f"1e400{u}", "error"),
                    (f"1e30{u}", "error"),
                    (f"-0{u}", "either"),
                    (f"-1{u}", "error"),
                    (f"nan{u}", "error"),
                    (f"1e-30{u}", "either"),
                ]
        for v, expect in hostile:
            doc = sc._deep_copy(resolved)
            cases._set(doc, path, v)
            text = sc.dumps(doc) if not (isinstance(v, int) and abs(v) >= 2**63) else None
            data = (
                text
                or sc.dumps(resolved).replace(
                    f"{path.rsplit('.', 1)[-1]} = {sc.dumps({'v': value})[4:].strip()}",
                    f"{path.rsplit('.', 1)[-1]} = {v}",
                    1,
                )
            ).encode()
            check(f"{path} = {v!r}", data, expect, path.rsplit(".", 1)[-1])
    fixed = [
        ("rate 0bps", TINY.replace('rate = "2Mbps"', 'rate = "0bps"'), "bottleneck.rate"),
        ("buffer 0", TINY.replace("buffer = 20", "buffer = 0"), "bottleneck.buffer"),
        ("buffer 0B", TINY.replace("buffer = 20", 'buffer = "0B"'), "bottleneck.buffer"),
        ("count 0", TINY.replace("count = 3", "count = 0"), "flows.0.count"),
        ("duration -0s", TINY.replace('duration = "2s"', 'duration = "-0s"'), "duration"),
        ("duration 1e400s", TINY.replace('duration = "2s"', 'duration = "1e400s"'), "duration"),
        ("warmup > duration", TINY.replace('warmup = "0.5s"', 'warmup = "5s"'), "warmup"),
        ("percent buffer", TINY.replace("buffer = 20", 'buffer = "50%"'), "buffer"),
        ("min_th 50%", TINY.replace("min_th = 3", 'min_th = "50%"'), "min_th"),
        ("no flows", TINY.split("[[flows]]")[0], "flows"),
    ]
    for label, text, needle in fixed:
        check(label, text.encode(), "error", needle)
    topo_base = (Path(cases.ROOT) / "scenarios/examples/parking_lot.toml").read_text()
    topo = [
        (
            "flow to unreachable node",
            topo_base.replace(
                'nodes = ["R0", "R1", "R2", "R3"]', 'nodes = ["R0", "R1", "R2", "R3", "R9"]'
            ).replace('dst = "R3"', 'dst = "R9"', 1),
            "R9",
        ),
        ("flow to unknown node", topo_base.replace('dst = "R3"', 'dst = "RX"', 1), "RX"),
        ("flow src = dst", topo_base.replace('dst = "R3"', 'dst = "R0"', 1), "dst"),
        ("self-link", topo_base.replace('from = "R2"\nto = "R3"', 'from = "R2"\nto = "R2"'), "R2"),
        ("link to unknown node", topo_base.replace('to = "R3"', 'to = "Q"', 1), "Q"),
        ("duplicate node", topo_base.replace('"R2", "R3"]', '"R2", "R2", "R3"]'), "R2"),
        ("no nodes", topo_base.replace('nodes = ["R0", "R1", "R2", "R3"]', "nodes = []"), "nodes"),
        (
            "loop R2->R0",
            topo_base + '\n[[topology.links]]\nfrom = "R2"\nto = "R0"\nrate = '
            '"10Mbps"\ndelay = "1ms"\n',
            None,
        ),
        (
            "bottleneck and topology",
            topo_base + '\n[bottleneck]\nrate = "1Mbps"\ndelay = "1ms"\n',
            None,
        ),
    ]
    for label, text, needle in topo:
        expect = "either" if label.startswith("loop") else "error"
        check(label, text.encode(), expect, needle)
        if expect == "either" and judge(cli_inproc("validate", d / "s.toml"), "ok") is None:
            o = cli_inproc(
                "run",
                d / "s.toml",
                "--json",
                "--set",
                'duration="3s"',
                "--set",
                'warmup="1s"',
                "--out",
                d / "loop_out",
                "--force",
                "--no-plots",
            )
            t.record("scenario-file", f"{label} (run)", judge(o, "ok"))


# ---- replay ----------------------------------------------------------------------------------


def replay_class(t: Tally, d: Path) -> None:
    rng = random.Random(7)
    for kind in cases.kinds():
        try:
            recs = aqmlab.replay(kind, [])
            t.record("replay", f"{kind} empty", None if recs == [] else f"returned {recs!r:.80}")
        except BaseException as e:
            t.record("replay", f"{kind} empty", f"{type(e).__name__}: {e}")
        sub = cases.Tally()
        events, _ = cases.random_events(rng, 200_000)
        cases.check_replay(kind, events, sub, f"{kind} 200k", uniforms=None)
        t.record("replay", f"{kind} 200,000 events", "; ".join(sub.failures) or None)
        for i, bad in enumerate(cases.HOSTILE_EVENTS):
            good, _ = cases.random_events(rng, 20)
            evs = [*good[:10], bad, *good[10:]]
            try:
                aqmlab.replay(kind, evs)
                problem: str | None = "accepted"
            except aqmlab.ScenarioError as e:
                problem = None if "events.10" in str(e) or "events" in str(e) else f"no path: {e}"
            except BaseException as e:
                problem = f"{type(e).__name__}: {e!s:.150}"
            t.record("replay", f"{kind} bad op {i} {bad!r:.40}", problem)


# ---- Python API misuse -----------------------------------------------------------------------


def api_class(t: Tally, d: Path) -> None:
    s = str(d / "tiny.toml")
    Path(s).write_text(TINY)
    pts = sweep.grid(sc.loads(TINY), {"bottleneck.buffer": [10]})
    res = aqmlab.run(s)
    fifo = d / "fifo"
    os.mkfifo(fifo)
    calls: list[tuple[str, Callable[[], Any], str | None]] = [
        ("run(None)", lambda: aqmlab.run(None), "scenario"),  # type: ignore[arg-type]
        ("run(42)", lambda: aqmlab.run(42), "scenario"),  # type: ignore[arg-type]
        ("run(b'x')", lambda: aqmlab.run(b"x"), "scenario"),  # type: ignore[arg-type]
        ("run([path])", lambda: aqmlab.run([s]), "scenario"),  # type: ignore[arg-type]
        ("run(set=5)", lambda: aqmlab.run(s, set=5), "set"),  # type: ignore[arg-type]
        ("run(set=[1])", lambda: aqmlab.run(s, set=[1]), "set"),  # type: ignore[list-item]
        ("run(set=b'x=1')", lambda: aqmlab.run(s, set=b"x=1"), "set"),  # type: ignore[arg-type]
        ("run(seed='x')", lambda: aqmlab.run(s, seed="x"), "seed"),  # type: ignore[arg-type]
        ("run(seed=1.5)", lambda: aqmlab.run(s, seed=1.5), "seed"),  # type: ignore[arg-type]
        ("run(seed=-1)", lambda: aqmlab.run(s, seed=-1), "seed"),
        ("run(seed=2**70)", lambda: aqmlab.run(s, seed=2**70), "seed"),
        ("run(seed=True)", lambda: aqmlab.run(s, seed=True), "seed"),
        ("run(count=10**30)", lambda: aqmlab.run(s, set={"flows.0.count": 10**30}), "count"),
        ("run(duration=None)", lambda: aqmlab.run(s, set={"duration": None}), "duration"),
        ("run(duration=object())", lambda: aqmlab.run(s, set={"duration": object()}), "duration"),
        ("run({'duration': {1, 2}})", lambda: aqmlab.run({"duration": {1, 2}}), "duration"),
        ("run(path of a dir)", lambda: aqmlab.run(d), None),
        ("validate(set='x')", lambda: aqmlab.validate(s, set="x"), "x"),
        ("replay(None, [])", lambda: aqmlab.replay(None, []), "qdisc"),  # type: ignore[arg-type]
        ("replay('red', None)", lambda: aqmlab.replay("red", None), "events"),  # type: ignore
        ("replay('red', 5)", lambda: aqmlab.replay("red", 5), "events"),  # type: ignore
        ("replay('nope', [])", lambda: aqmlab.replay("nope", []), "kind"),
        ("replay(max_p=2)", lambda: aqmlab.replay({"kind": "red", "max_p": 2}, []), "max_p"),
        ("grid(path, {})", lambda: sweep.grid(s, {"bottleneck.buffer": [5]}), "ok"),
        ("grid({}, {'a': 5})", lambda: sweep.grid({}, {"a": 5}), "axes"),  # type: ignore
        ("grid({}, 5)", lambda: sweep.grid({}, 5), "axes"),  # type: ignore[arg-type]
        ("grid(seeds=5)", lambda: sweep.grid({}, {"a": [1]}, seeds=5), "seeds"),  # type: ignore
        ("grid(seeds=['x'])", lambda: sweep.grid({}, {"a": [1]}, seeds=["x"]), "seeds"),  # type: ignore
        (
            "grid(10^10 points)",
            lambda: sweep.grid({}, {f"a{i}": list(range(100)) for i in range(5)}),
            "points",
        ),
        ("run_points(5, out)", lambda: sweep.run_points(5, d / "rp1"), "points"),  # type: ignore
        ("run_points([1], out)", lambda: sweep.run_points([1], d / "rp2"), "points"),  # type: ignore
        ("run_points(out=5)", lambda: sweep.run_points(pts, 5), "--out"),  # type: ignore
        (
            "run_points(workers=-3)",
            lambda: sweep.run_points(pts, d / "rp3", workers=-3, progress=False),
            "workers",
        ),
        (
            "run_points(scheduler=5)",
            lambda: sweep.run_points(pts, d / "rp4", scheduler=5, progress=False),
            "scheduler",
        ),
        ("Results.table('x')", lambda: res.table("x"), "KeyError"),
        ("Results.table(5)", lambda: res.table(5), "KeyError"),  # type: ignore[arg-type]
        ("Results.write(None)", lambda: res.write(None), "out_dir"),  # type: ignore[arg-type]
        ("Results.write(5)", lambda: res.write(5), "out_dir"),  # type: ignore[arg-type]
        ("Results.write(FIFO, force=True)", lambda: res.write(fifo, force=True), "out_dir"),
        ("load_summary(failed run dir)", lambda: sweep.load_summary(d / "nope"), "OSError"),
    ]
    for label, fn, needle in calls:
        try:
            fn()
            problem = None if needle == "ok" else "accepted"
        except aqmlab.ScenarioError as e:
            problem = None if needle in (None, "ok") or needle in str(e) else f"no {needle!r}: {e}"
        except KeyError as e:
            problem = None if needle == "KeyError" else f"KeyError: {e}"
        except OSError as e:
            problem = None if needle == "OSError" else f"OSError: {e}"
        except BaseException as e:
            if isinstance(e, KeyboardInterrupt):
                raise
            problem = f"{type(e).__name__}: {e!s:.150}"
        t.record("python-api", label, problem)
    # reading the results of a failed run: the sweep's row says so, no directory is served
    bad = sweep.grid(sc.loads(TINY), {"bottleneck.buffer": [10, -1]})
    df = sweep.run_points(bad, d / "failed", workers=1, progress=False)
    ok = df["error"].notna().tolist() == [False, True] and df["run_dir"].isna().tolist() == [
        False,
        True,
    ]
    t.record("python-api", "sweep row of a failed point", None if ok else df.to_string()[:200])


# ---- HTML reports ------------------------------------------------------------------------------

EVIL = ["<script>alert(1)</script>", "\"'><img src=x onerror=alert(2)>", "</title><b>x", "&lt;&"]


def html_class(t: Tally, d: Path) -> None:
    (d / "tiny.toml").write_text(TINY)
    for i, evil in enumerate(EVIL):
        doc = sc.loads(TINY)
        doc["name"] = evil
        doc["flows"][0]["group"] = evil
        res = aqmlab.run(doc)
        out = res.write(d / f"h{i}", plots=False)
        page = (out / "report.html").read_text(encoding="utf-8")
        bad = [e for e in ("<script>alert", "<img src=x", "</title><b>") if e in page]
        t.record("html", f"run report, name/group {evil!r}", f"raw {bad}" if bad else None)
        # a comparison whose run names come from file stems with HTML in them
        stem = d / f"c{i}"
        stem.mkdir()
        f = stem / f"{evil.replace('/', '_')}.toml"
        f.write_text(sc.dumps(doc))
        o = cli_inproc("compare", f, d / "tiny.toml", "--out", d / f"cmp{i}", "--no-plots")
        problem = judge(o, "ok")
        if problem is None:
            page = (d / f"cmp{i}" / "report.html").read_text(encoding="utf-8")
            bad = [e for e in ("<script>alert", "<img src=x", "</title><b>") if e in page]
            problem = f"raw {bad}" if bad else None
        t.record("html", f"compare report, stem {evil!r}", problem)
        # a sweep whose labels hold HTML
        sw = stem / "sw.toml"
        sw.write_text(f'base = "../tiny.toml"\n[axes]\n"flows.0.group" = [{json.dumps(evil)}]\n')
        o = cli_inproc("sweep", sw, "--out", d / f"sw{i}", "--no-progress", "--workers", "1")
        problem = judge(o, "ok")
        if problem is None:
            page = (d / f"sw{i}" / "report.html").read_text(encoding="utf-8")
            bad = [e for e in ("<script>alert", "<img src=x", "</title><b>") if e in page]
            problem = f"raw {bad}" if bad else None
        t.record("html", f"sweep report, label {evil!r}", problem)


# ---- signals and concurrent runs ---------------------------------------------------------------


def _aqmlab(*args: Any, cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "aqmlab", *map(str, args)],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _leftovers(parent: Path) -> list[str]:
    return [p.name for p in parent.rglob(".*") if ".tmp-" in p.name or ".old-" in p.name]


def signal_class(t: Tally, d: Path) -> None:
    (d / "long.toml").write_text(LONG)
    (d / "tiny.toml").write_text(TINY)
    for sig in (signal.SIGINT, signal.SIGTERM):
        name = signal.Signals(sig).name
        # a run: killed mid-simulation, its --out holds the previous result or nothing
        out = d / f"run_{name}"
        p = _aqmlab("run", "tiny.toml", "--out", out, "--no-plots", cwd=d)
        p.communicate(timeout=300)
        before = (out / "summary.json").read_text()
        p = _aqmlab("run", "long.toml", "--out", out, "--no-plots", cwd=d)
        time.sleep(4)
        p.send_signal(sig)
        _, err = p.communicate(timeout=120)
        problems = []
        if p.returncode == 0:
            problems.append("exit 0 after the signal")
        if "Traceback" in err:
            problems.append(f"traceback: {err[-200:]}")
        if (out / "summary.json").read_text() != before:
            problems.append("the previous result was changed")
        if _leftovers(d):
            problems.append(f"left {_leftovers(d)}")
        t.record("signals", f"run + {name}", "; ".join(problems) or None)
        # a sweep: killed mid-way, then resumed: every point, none half-written
        sw = d / f"sw_{name}.toml"
        sw.write_text(
            'base = "long.toml"\n[set]\nduration = "30s"\n[axes]\n'
            '"bottleneck.buffer" = [10, 20, 30, 40, 50, 60]\n'
        )
        sout = d / f"sweep_{name}"
        p = _aqmlab("sweep", sw, "--out", sout, "--workers", "2", "--no-progress", cwd=d)
        time.sleep(8)
        p.send_signal(sig)
        _, err = p.communicate(timeout=120)
        problems = []
        if p.returncode == 0:
            problems.append("exit 0 after the signal")
        if "Traceback" in err:
            problems.append(f"traceback: {err[-200:]}")
        runs = sout / "runs"
        for r in runs.iterdir() if runs.exists() else []:
            if not r.name.startswith(".") and not sweep.is_complete(r):
                problems.append(f"{r.name[:8]} looks finished but is not")
        p = _aqmlab("sweep", sw, "--out", sout, "--workers", "2", "--no-progress", cwd=d)
        out_s, err = p.communicate(timeout=600)
        if p.returncode != 0 or "6 points" not in out_s:
            problems.append(f"resume: exit {p.returncode} {out_s[-100:]} {err[-200:]}")
        if _leftovers(sout):
            problems.append(f"left {_leftovers(sout)}")
        t.record("signals", f"sweep + {name}, then resume", "; ".join(problems) or None)


def concurrent_class(t: Tally, d: Path) -> None:
    (d / "tiny.toml").write_text(TINY)
    for trial in range(3):
        out = d / f"same{trial}"
        procs = [
            _aqmlab("run", "tiny.toml", "--out", out, "--seed", str(seed), "--no-plots", cwd=d)
            for seed in (1, 2)
        ]
        results = [p.communicate(timeout=300) for p in procs]
        codes = [p.returncode for p in procs]
        problems = []
        for (_, err), code in zip(results, codes, strict=True):
            if "Traceback" in err:
                problems.append(f"traceback: {err[-200:]}")
            elif code != 0 and "error:" not in err:
                problems.append(f"exit {code} without an error line")
        if 0 not in codes:
            problems.append(f"neither run succeeded: {codes} {[e[-150:] for _, e in results]}")
        summary = json.loads((out / "summary.json").read_text())
        scen = sc.loads((out / "scenario.toml").read_text())
        if summary.get("seed", scen["seed"]) != scen["seed"]:
            problems.append("summary.json and scenario.toml come from different runs")
        if _leftovers(d):
            problems.append(f"left {_leftovers(d)}")
        t.record(
            "concurrent", f"two runs into one --out, trial {trial}", "; ".join(problems) or None
        )
    # two sweeps into one --out: each finishes or is refused in one line while the other runs
    # (the directory's lock); every point once
    sw = d / "sw.toml"
    sw.write_text('base = "tiny.toml"\n[axes]\n"bottleneck.buffer" = [10, 20, 30, 40]\n')
    procs = [
        _aqmlab("sweep", sw, "--out", d / "both", "--workers", "1", "--no-progress", cwd=d)
        for _ in range(2)
    ]
    res = [p.communicate(timeout=600) for p in procs]
    problems = [
        f"exit {p.returncode}: {e[-200:]}"
        for p, (_, e) in zip(procs, res, strict=True)
        if p.returncode != 0
        and not (p.returncode == 2 and "being written by another aqmlab process" in e)
    ]
    if all(p.returncode != 0 for p in procs):
        problems.append("neither sweep ran")
    runs = [r for r in (d / "both" / "runs").iterdir() if not r.name.startswith(".")]
    if len(runs) != 4 or not all(sweep.is_complete(r) for r in runs):
        problems.append(f"{len(runs)} run directories")
    t.record("concurrent", "two sweeps into one --out", "; ".join(problems) or None)


CLASSES: dict[str, Callable[[Tally, Path], None]] = {
    "cli": cli_class,
    "sweep": sweep_class,
    "scenario-file": scenario_file_class,
    "replay": replay_class,
    "python-api": api_class,
    "html": html_class,
    "signals": signal_class,
    "concurrent": concurrent_class,
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--only", nargs="*", default=list(CLASSES), choices=list(CLASSES))
    args = ap.parse_args()
    os.umask(0o022)
    # started in the background by a shell, SIGINT arrives ignored, and children inherit that
    signal.signal(signal.SIGINT, signal.default_int_handler)
    t = Tally()
    t0 = time.perf_counter()
    for name in args.only:
        with tempfile.TemporaryDirectory() as tmp:
            cwd = Path.cwd()
            os.chdir(tmp)
            try:
                CLASSES[name](t, Path(tmp))
            except BaseException as e:
                if isinstance(e, KeyboardInterrupt):
                    raise
                t.record(name, "the class itself", f"crashed: {type(e).__name__}: {e!s:.300}")
            finally:
                os.chdir(cwd)
        tried, failed = t.counts.get(name, [0, 0])
        print(f"{name}: {tried} inputs, {failed} failed", flush=True)
    for f in t.failures:
        print(f"  {f}")
    total = sum(c[0] for c in t.counts.values())
    bad = sum(c[1] for c in t.counts.values())
    print(f"total: {total} inputs, {bad} failed, {time.perf_counter() - t0:.0f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
