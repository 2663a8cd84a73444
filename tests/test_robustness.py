"""Nothing lost, nothing silently wrong. The output policy, invariants on every
summary (fresh or cached), one-line errors for hostile input, workers that die with the sweep."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import aqmlab
from aqmlab import output, sweep
from aqmlab import scenario as sc
from aqmlab.invariants import InvariantError, check_links, check_summary
from conftest import ROOT, TINY, run_cli

# ---- output policy ------------------------------------------------------------------------


def test_cli_refuses_an_existing_file_and_keeps_it(tiny_path: Path, tmp_path: Path):
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes")
    r = run_cli("run", tiny_path, "--out", notes)
    assert r.code == 2 and "--out" in r.stderr and "existing file" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert notes.read_text() == "my notes"
    r = run_cli("run", tiny_path, "--out", notes, "--force", "--no-plots")
    assert r.code == 0, r.stderr
    assert (notes / "summary.json").is_file()


def test_cli_refuses_a_foreign_directory_for_every_command(tiny_path: Path, tmp_path: Path):
    thesis = tmp_path / "thesis"
    thesis.mkdir()
    (thesis / "chapter1.tex").write_text("\\chapter{}")
    sweep_file = tmp_path / "sw.toml"
    sweep_file.write_text(f'base = "{tiny_path.name}"\n[axes]\n"bottleneck.buffer" = [10]\n')
    for args in (
        ["run", tiny_path],
        ["compare", tiny_path, tiny_path],
        ["sweep", sweep_file, "--no-progress"],
        ["reproduce", "adaptive_red_004", "--quick", "--no-progress"],
    ):
        r = run_cli(*args, "--out", thesis)
        assert r.code == 2, (args, r.stderr)
        assert "did not write" in r.stderr, r.stderr
    assert sorted(p.name for p in thesis.iterdir()) == ["chapter1.tex"]


def test_rerunning_into_our_own_result_directory_works(tiny_path: Path, tmp_path: Path):
    out = tmp_path / "res"
    assert run_cli("run", tiny_path, "--out", out, "--no-plots").code == 0
    assert (out / output.MARKER).is_file()
    (out / "summary.json").write_text("{}")  # changed since aqmlab wrote it: named, kept
    r = run_cli("run", tiny_path, "--out", out, "--no-plots")
    assert r.code == 2 and "summary.json" in r.stderr and r.stderr.count("\n") == 1
    assert (out / "summary.json").read_text() == "{}"
    r = run_cli("run", tiny_path, "--out", out, "--no-plots", "--force")
    assert r.code == 0, r.stderr
    assert json.loads((out / "summary.json").read_text())["utilisation"] > 0


def test_results_write_follows_the_same_policy(tmp_path: Path):
    res = aqmlab.run(TINY)
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "data.csv").write_text("1,2")
    with pytest.raises(aqmlab.ScenarioError, match="did not write"):
        res.write(foreign, plots=False)
    assert (foreign / "data.csv").read_text() == "1,2"
    res.write(foreign, plots=False, force=True)
    assert not (foreign / "data.csv").exists() and (foreign / "summary.json").is_file()
    assert [p for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def _unwritable(tmp_path: Path) -> Path:
    if os.geteuid() != 0:
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o555)
        return ro / "out"
    return Path("/proc/aqmlab-out")  # root writes anywhere but into /proc


def test_unwritable_out_fails_before_simulating(tiny_path: Path, tmp_path: Path, monkeypatch):
    from aqmlab import cli

    def no_run(*a, **k):
        raise AssertionError("simulated although --out is unwritable")

    monkeypatch.setattr(aqmlab.api, "run", no_run)
    monkeypatch.setattr(sweep, "run_one", no_run)
    dest = _unwritable(tmp_path)
    assert cli.main(["run", str(tiny_path), "--out", str(dest)]) == 2
    sweep_file = tmp_path / "sw.toml"
    sweep_file.write_text(f'base = "{tiny_path.name}"\n[axes]\n"bottleneck.buffer" = [10]\n')
    assert cli.main(["sweep", str(sweep_file), "--out", str(dest), "--workers", "1"]) == 2
    with pytest.raises(aqmlab.ScenarioError, match="writable"):
        output.check_destination(dest)


def test_interrupted_write_leaves_no_temporary_and_keeps_the_old_result(tmp_path: Path):
    out = tmp_path / "res"
    with output.atomic_dir(out) as d:
        (d / "summary.json").write_text("old")
    with pytest.raises(KeyboardInterrupt), output.atomic_dir(out) as d:
        (d / "summary.json").write_text("half")
        raise KeyboardInterrupt
    assert (out / "summary.json").read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["res"]


def test_sigterm_removes_the_temporary_directory(tmp_path: Path):
    code = (
        "import sys, time\n"
        "from aqmlab import output\n"
        "output.terminate_gracefully()\n"
        f"with output.atomic_dir({str(tmp_path / 'res')!r}) as d:\n"
        "    (d / 'x').write_text('1'); print('ready', flush=True); time.sleep(60)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    assert any(p.name.startswith(".aqmlab.tmp-") for p in tmp_path.iterdir())
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)
    assert list(tmp_path.iterdir()) == []


def _held_elsewhere(tmp_path: Path, name: str) -> subprocess.Popen[str]:
    """A process (standing for a writer in another PID namespace or container) that holds the
    lock of temporary directory ``name`` until killed."""
    code = (
        "import fcntl, os, sys, time\n"
        "fd = os.open(sys.argv[1], os.O_RDWR)\n"
        "fcntl.flock(fd, fcntl.LOCK_EX)\n"
        "print('held', flush=True)\n"
        "time.sleep(600)\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code, str(tmp_path / name / ".aqmlab-lock")],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def test_only_provably_abandoned_temporaries_are_cleaned(tmp_path: Path):
    me = output.token().split(".")
    host, boot = me[0], me[1]

    def temp(name: str) -> Path:
        d = tmp_path / name
        d.mkdir()
        (d / ".aqmlab-lock").write_text("")
        (d / "data").write_text("work")
        return d

    # A dead writer on this host and boot: its lock can be taken, so it is removed. The pid
    # is one alive here (ours), which must not matter: only the lock counts.
    dead = temp(f".aqmlab.tmp-{host}.{boot}.{os.getpid()}.aaaa")
    # A live writer whose pid means nothing here (another PID namespace): it holds the lock.
    live = temp(f".aqmlab.old-{host}.{boot}.999999.bbbb")
    # Another host or another boot: nothing can be proved, kept.
    other_host = temp(f".aqmlab.tmp-otherhost.{boot}.1.cccc")
    other_boot = temp(f".aqmlab.tmp-{host}.00000000-0000-0000-0000-000000000000.1.dddd")
    # Older naming (".NAME.tmp-PID-"), no lock file: kept.
    legacy = tmp_path / ".res.tmp-999999-xyz"
    legacy.mkdir()
    holder = _held_elsewhere(tmp_path, live.name)
    try:
        with output.atomic_dir(tmp_path / "res") as d:
            (d / "f").write_text("1")
        assert not dead.exists()
        assert live.exists() and (live / "data").read_text() == "work"
        assert other_host.exists() and other_boot.exists() and legacy.exists()
    finally:
        holder.kill()
        holder.wait()
    # Its writer gone, the live one is now provably abandoned.
    output.clean_stale(tmp_path)
    assert not live.exists()


def test_a_temporary_is_never_seen_unlocked_by_another_cleaner(tmp_path: Path, monkeypatch):
    # Another worker of a sweep may clean the same parent at any moment, also between the
    # creation of a new temporary's lock file and its flock: it must not find the temporary
    # under its temporary name then, or it takes the lock and deletes it under its writer.
    real_flock = output.fcntl.flock
    cleaning = False

    def flock_after_a_cleaner(fd: int, op: int) -> None:
        nonlocal cleaning
        if not cleaning:
            cleaning = True
            try:
                output.clean_stale(tmp_path)  # the other worker, at the worst moment
            finally:
                cleaning = False
        real_flock(fd, op)

    monkeypatch.setattr(output.fcntl, "flock", flock_after_a_cleaner)
    with output.atomic_dir(tmp_path / "res") as d:
        (d / "f").write_text("1")
    assert (tmp_path / "res" / "f").read_text() == "1"


def test_a_second_writer_of_one_destination_gets_one_line(tmp_path: Path):
    out = tmp_path / "res"
    res = aqmlab.run(TINY)
    busy = "being written by another aqmlab process"
    with output.dest_lock(out), pytest.raises(aqmlab.ScenarioError, match=busy):
        res.write(out, plots=False)
    res.write(out, plots=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["res"]


# ---- invariants ---------------------------------------------------------------------------


def _summary() -> dict:
    return json.loads(aqmlab.run(TINY).summary_json)


@pytest.mark.parametrize(
    ("key", "value", "path"),
    [
        ("utilisation", 7.0, "utilisation"),
        ("utilisation", math.nan, "utilisation"),
        ("loss_rate", -0.1, "loss_rate"),
        ("loss_rate", math.inf, "loss_rate"),
        ("arrivals", -3, "arrivals"),
        ("jain_index", 1.5, "jain_index"),
        ("marks", 2.5, "marks"),
    ],
)
def test_summary_invariants_name_the_run_and_key(key, value, path):
    s = _summary()
    s[key] = value
    with pytest.raises(InvariantError) as e:
        check_summary(s, "tiny-run")
    assert e.value.run == "tiny-run" and e.value.path == path
    assert str(e.value).startswith("run tiny-run: ")


def test_write_checks_a_summary_from_core_once_and_any_other_before_writing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    from aqmlab import invariants

    res = aqmlab.run(TINY)
    calls: list[str] = []
    real = invariants.check_summary
    monkeypatch.setattr(
        invariants, "check_summary", lambda s, run: calls.append(run) or real(s, run)
    )
    res.write(tmp_path / "ok", plots=False)
    assert calls == []  # checked by Results.from_core; the text written is that text
    bad = json.loads(res.summary_json)
    bad["utilisation"] = 7.0
    other = dataclasses.replace(res, summary_json=json.dumps(bad), _summary=None)
    with pytest.raises(InvariantError, match="utilisation"):
        other.write(tmp_path / "bad", plots=False)
    assert calls == [res.name]
    assert not (tmp_path / "bad").exists()


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("goodput_mbps", -1.0),
        ("goodput_mbps", math.nan),
        ("goodput_mbps", math.inf),
        ("goodput_mbps", True),
        ("goodput_mbps", None),
        ("drops", -1),
        ("marks", 2.5),
        ("timeouts", True),
    ],
)
def test_every_flow_of_a_summary_is_checked(key, value):
    s = _summary()
    assert len(s["flows"]) >= 2
    check_summary(s, "tiny-run")
    s["flows"][1][key] = value
    with pytest.raises(InvariantError) as e:
        check_summary(s, "tiny-run")
    assert e.value.path == f"flows.1.{key}"


def test_link_conservation_is_checked():
    links = {k: list(v) for k, v in aqmlab.run(TINY).links.to_pydict().items()}
    check_links(links, "r")
    links["drops"][0] += 1
    with pytest.raises(InvariantError, match="conservation"):
        check_links(links, "r")


def test_link_conservation_on_numpy_columns_names_the_same_link():
    # The core's tables are numpy columns, checked whole; a break is named as the row loop does.
    cols = aqmlab.run(TINY).links.to_pydict()
    links = {k: v if k == "role" else np.asarray(v) for k, v in cols.items()}
    check_links(links, "r")
    for key, delta in (
        ("drops", 1),
        ("tx_packets", 10**6),
        ("enqueued", -(10**6)),
        ("backlog", -(10**6)),
    ):
        broken = {k: v.copy() if k != "role" else v for k, v in links.items()}
        broken[key][-1] += delta
        with pytest.raises(InvariantError) as e:
            check_links(broken, "r")
        assert e.value.path.startswith(f"links.{cols['role'][-1]}")


def test_fresh_runs_pass_the_invariants_with_utilisation_at_most_one():
    # A slow saturated link whose window opens in the middle of a packet (once 1.034).
    doc = sc.loads(TINY)
    doc.update({"duration": "3s", "warmup": "2.04s"})
    doc["bottleneck"].update({"rate": "200kbps", "buffer": 20})
    doc["flows"][0]["tcp"] = {"mss": 1460}
    u = aqmlab.run(doc).summary["utilisation"]
    assert 0.99 < u <= 1.0


def test_damaged_cache_entries_are_run_again(tmp_path: Path):
    pts = sweep.grid(sc.loads(TINY), {"bottleneck.buffer": [10, 20, 30, 40]})
    df = sweep.run_points(pts, tmp_path, workers=1, progress=False)
    dirs = [Path(d) for d in df["run_dir"]]
    (dirs[0] / "summary.json").write_text('{"utilisation": 0.9, "loss')  # truncated
    s = json.loads((dirs[1] / "summary.json").read_text())
    s["utilisation"] = 7.0
    (dirs[1] / "summary.json").write_text(json.dumps(s))
    (dirs[2] / "flows.parquet").unlink()
    again = sweep.run_points(pts, tmp_path, workers=1, progress=False)
    assert list(again["cached"]) == [False, False, False, True]
    assert again["error"].isna().all()
    assert (dirs[2] / "flows.parquet").is_file()
    assert again["utilisation"].between(0, 1).all()


def test_a_run_breaking_an_invariant_is_an_error_naming_it(tmp_path: Path, monkeypatch):
    from aqmlab import _core

    real = _core.run

    def broken(text: str, *control: object) -> dict:
        raw = real(text)
        s = json.loads(raw["summary_json"])
        s["loss_rate"] = 1.5
        raw["summary_json"] = json.dumps(s)
        return raw

    monkeypatch.setattr(_core, "run", broken)
    pts = sweep.grid(sc.loads(TINY), {"bottleneck.buffer": [10]})
    df = sweep.run_points(pts, tmp_path, workers=1, progress=False)
    assert "invalid results" in df["error"][0] and "loss_rate" in df["error"][0]
    assert list((tmp_path / "runs").iterdir()) == []
    with pytest.raises(InvariantError, match="loss_rate"):
        aqmlab.run(TINY)


# ---- hostile input ------------------------------------------------------------------------


def test_tables_given_as_arrays_are_rejected():
    doc = sc.loads(TINY)
    doc["flows"][0]["tcp"] = ["sack", 1460, 52]
    with pytest.raises(aqmlab.ScenarioError) as e:
        aqmlab.validate(doc)
    assert e.value.path == "flows.0.tcp" and "named keys" in str(e.value)


def test_deep_nesting_and_latin1_bytes_are_one_line_errors(tmp_path: Path):
    deep = tmp_path / "deep.toml"
    deep.write_text("x = " + "[" * 250 + "]" * 250 + "\n" + TINY)
    latin = tmp_path / "latin.toml"
    latin.write_bytes(b"# caf\xe9\n" + TINY.encode())
    for path, needle in ((deep, "nested"), (latin, "not UTF-8")):
        r = run_cli("validate", path)
        assert r.code == 2, r.stderr
        assert needle in r.stderr and "Traceback" not in r.stderr
        assert len(r.stderr.strip().splitlines()) == 1
    with pytest.raises(aqmlab.ScenarioError, match="nested"):
        nested: dict = {}
        node = nested
        for _ in range(2000):
            node["a"] = {}
            node = node["a"]
        aqmlab.validate(nested)


@pytest.mark.parametrize(
    ("call", "path"),
    [
        (
            lambda: aqmlab.replay("red", [("enqueue", 0.0)] * 3 + [("enqueue", math.inf)]),
            "events.3.1",
        ),
        (lambda: aqmlab.replay("red", [("enqueue", -1.0)]), "events.0.1"),
        (lambda: aqmlab.replay("red", [("enqueue", math.nan)]), "events.0.1"),
        (lambda: aqmlab.replay("red", [("enqueue", 0.0, 2**32)]), "events.0.2"),
        (lambda: aqmlab.replay("red", [("enqueue", 0.0, 100, 2**32)]), "events.0.3"),
        (lambda: aqmlab.replay("red", [("enqueue", 0.0, 100, 1.5)]), "events.0.3"),
        (lambda: aqmlab.replay("red", [("enqueue", 0.0, 100, "a")]), "events.0.3"),
        (lambda: aqmlab.replay("red", [("enqueue", 0.0)], uniforms=[math.nan]), "uniforms.0"),
        (lambda: aqmlab.replay("red", [("enqueue", 0.0)], uniforms=[0.1, 2.0]), "uniforms.1"),
        (lambda: aqmlab.replay("red", [("enqueue", 0.0)], seed=-1), "seed"),
        (lambda: aqmlab.replay("red", [{"op": "enqueue", "t_ns": 2**64}]), "events.0.t_ns"),
        (lambda: aqmlab.replay(3, []), "qdisc"),
    ],
)
def test_replay_gate_names_the_argument(call, path):
    with pytest.raises(aqmlab.ScenarioError) as e:
        call()
    assert e.value.path == path, str(e.value)
    assert "\n" not in str(e.value)


def test_docs_list_exactly_the_kinds_this_build_has():
    # docs/scenarios.md once listed `pi` and `avq`, which the schema rejects.
    text = (ROOT / "docs" / "scenarios.md").read_text()
    documented = set(re.findall(r"^### `([a-z0-9_]+)`", text, flags=re.M))
    assert documented == {a["kind"] for a in aqmlab.algorithms()}
    readme = (ROOT / "README.md").read_text()
    table = readme.split("## Algorithms", 1)[1].split("\n## ", 1)[0]
    in_readme = set(
        re.findall(
            r"`([a-z0-9_]+)`",
            "\n".join(line.split("|")[1] for line in table.splitlines() if line.startswith("| `")),
        )
    )
    assert in_readme <= documented, f"README names kinds this build lacks: {in_readme - documented}"


# ---- workers die with the sweep -----------------------------------------------------------


def _children(pid: int) -> set[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True)
    return {int(x) for x in out.stdout.split()}


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split()[2] == "Z")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses ps and /proc")
def test_sigkill_of_the_sweep_process_takes_its_workers_down(tmp_path: Path):
    (tmp_path / "tiny.toml").write_text(TINY)
    sw = tmp_path / "sw.toml"
    sw.write_text(
        'base = "tiny.toml"\n[set]\nduration = "600s"\n"bottleneck.rate" = "100Mbps"\n'
        '[axes]\n"bottleneck.buffer" = [10, 20, 30, 40]\n'
    )
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "aqmlab",
            "sweep",
            str(sw),
            "--out",
            str(tmp_path / "o"),
            "--workers",
            "2",
            "--no-progress",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )

    def pool_workers() -> set[int]:
        found = set()
        for c in _children(proc.pid):
            try:
                cmd = Path(f"/proc/{c}/cmdline").read_text(errors="replace")
            except OSError:
                continue
            if "spawn_main" in cmd and _alive(c):
                found.add(c)
        return found

    deadline = time.monotonic() + 60
    workers = pool_workers()
    while len(workers) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
        workers = pool_workers()
    assert len(workers) == 2, "the pool did not start"
    time.sleep(0.5)  # inside a run
    proc.kill()
    proc.wait()
    deadline = time.monotonic() + 15
    while any(_alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [w for w in workers if _alive(w)]
    for w in left:
        os.kill(w, signal.SIGKILL)
    assert not left, f"workers {left} outlived the sweep"


def test_invariant_errors_survive_pickling_from_workers():
    import pickle

    e = pickle.loads(pickle.dumps(InvariantError("r1", "utilisation", 7.0, "in [0, 1]")))
    assert (e.run, e.path, e.value) == ("r1", "utilisation", 7.0)
    assert str(e) == "run r1: utilisation: 7.0 (in [0, 1])"
