"""No scenario string ever becomes Tcl code: every string the ns-2 script takes from a scenario
(its name, topology node names, which also name routes and groups' ends, the trace directory)
is quoted by ``tcl.word``. The generated script is run by ``tclsh`` with ns-2's objects stubbed
out, so a payload that escaped its quoting would run ``exec touch`` and create the file."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import aqmlab
from aqmlab.ns2 import tcl
from conftest import ROOT

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

TCLSH = shutil.which("tclsh")
NEEDS_TCLSH = pytest.mark.skipif(TCLSH is None, reason="tclsh not installed (apt-get install tcl)")

#: Stand-ins for ns-2's commands: any unknown command (`new`, `$ns node`, `Queue/RED set`, ...)
#: returns an empty string, so the script's own Tcl (substitutions, lists, comments) is parsed
#: and evaluated as ns-2 would, without a simulator.
PRELUDE = "proc unknown {args} { return {} }\nset defaultRNG rng\n"


def _payloads(target: Path) -> list[str]:
    t = str(target)
    return [
        f"x\nexec touch {t}",
        f"A[exec touch {t}]",
        f"}}\nexec touch {t}\n{{",
        f"{{[exec touch {t}]}}",
        f"x\\\nexec touch {t}",
        f"$tcl_version[exec touch {t}]",
        f'"; exec touch {t}; "',
        f"x) [exec touch {t}] (",
        f"x\rexec touch {t}",
        f"x\u2028\u0085exec touch {t}; # é 😀",
    ]


#: The parking lot's measured link (`measure = true`), as its summary names it.
MEASURED = "R0->R1"


def _doc() -> dict:
    text = aqmlab.validate(
        ROOT / "scenarios/examples/parking_lot.toml", set=["duration=2s", "warmup=1s"]
    )
    return tomllib.loads(text)


def _flows(doc: dict) -> list[tcl.FlowRun]:
    names = [g["group"] for g in doc["flows"]]
    f = aqmlab.run(doc).flows.to_pydict()
    return [
        tcl.FlowRun(i, names.index(g), round(r * 1e6), s)
        for i, g, r, s in zip(f["id"], f["group"], f["rtt_ms"], f["start_s"], strict=True)
    ]


def _rename_nodes(doc: dict, rename: dict[str, str]) -> dict:
    out = dict(doc)
    topo = dict(doc["topology"])
    topo["nodes"] = [rename[n] for n in topo["nodes"]]
    topo["links"] = [
        dict(e, **{"from": rename[e["from"]], "to": rename[e["to"]]}) for e in topo["links"]
    ]
    out["topology"] = topo
    groups = []
    for g in doc["flows"]:
        g = dict(g, src=rename[g["src"]], dst=rename[g["dst"]])
        if g.get("path"):
            g["path"] = [rename[n] for n in g["path"]]
        groups.append(g)
    out["flows"] = groups
    return out


def _run_tcl(script: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    path = cwd / "script.tcl"
    path.write_text(PRELUDE + script, encoding="utf-8")
    return subprocess.run(
        [TCLSH, str(path)], cwd=cwd, capture_output=True, text=True, timeout=60, check=False
    )


@pytest.fixture(scope="module")
def parking_lot() -> tuple[dict, list[tcl.FlowRun]]:
    doc = _doc()
    return doc, _flows(doc)


@NEEDS_TCLSH
def test_word_reads_back_as_the_same_text(tmp_path):
    target = tmp_path / "pwned"
    words = [*_payloads(target), "", "plain-R1", "a b\tc", "\\", "{", "}", "[", "]", "$", ";"]
    script = "".join(
        f"puts [string equal {tcl.tcl_word(w)} [encoding convertfrom utf-8 [binary decode hex "
        f"{{{w.encode('utf-8').hex()}}}]]]\n"
        for w in words
    )
    res = _run_tcl(script, tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["1"] * len(words)
    assert not target.exists()


@NEEDS_TCLSH
def test_scenario_name_never_runs(tmp_path, parking_lot):
    doc, flows = parking_lot
    target = tmp_path / "pwned"
    for payload in _payloads(target):
        script = tcl.translate(dict(doc, name=payload), flows, seed=1, measured_link=MEASURED)
        res = _run_tcl(script.text, tmp_path)
        assert res.returncode == 0, (payload, res.stderr)
        assert not target.exists(), payload


@NEEDS_TCLSH
def test_node_names_never_run(tmp_path, parking_lot):
    doc, flows = parking_lot
    target = tmp_path / "pwned"
    for payload in _payloads(target):
        # Each router gets a distinct hostile name; routes, groups' ends and paths follow it.
        rename = {n: f"{payload}{k}" for k, n in enumerate(doc["topology"]["nodes"])}
        measured = "->".join(rename[n] for n in MEASURED.split("->"))
        script = tcl.translate(
            _rename_nodes(doc, rename), flows, seed=1, measured_link=measured
        ).text
        res = _run_tcl(script, tmp_path)
        assert res.returncode == 0, (payload, res.stderr)
        assert not target.exists(), payload


@NEEDS_TCLSH
def test_trace_directory_never_runs(tmp_path, parking_lot):
    doc, flows = parking_lot
    target = tmp_path / "pwned"
    for payload in _payloads(target)[:4]:
        trace_dir = tmp_path / payload.replace("/", "_")
        script = tcl.translate(
            doc,
            flows,
            seed=1,
            trace_flows=[flows[0].id],
            trace_dir=str(trace_dir),
            measured_link=MEASURED,
        ).text
        trace_dir.mkdir()
        res = _run_tcl(script, tmp_path)
        assert res.returncode == 0, (payload, res.stderr)
        assert not target.exists(), payload
        # The trace file was opened where it was asked for, under the hostile name.
        assert (trace_dir / f"ns2_trace_{flows[0].id}.tr").exists()


def test_schema_accepts_the_names_the_quoting_must_survive():
    # The attack is reachable: the schema takes any text as a name and as a node name.
    hostile = "A[exec touch /tmp/x]\nexec touch /tmp/y"
    doc = _doc()
    renamed = _rename_nodes(
        doc, {n: f"{hostile}{k}" for k, n in enumerate(doc["topology"]["nodes"])}
    )
    renamed["name"] = hostile
    assert tomllib.loads(aqmlab.validate(renamed))["name"] == hostile
