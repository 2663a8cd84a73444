"""The general topology form end to end: the parking-lot example through the CLI and the API,
per-link results on disk, and errors that name the key."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq

import aqmlab
from aqmlab import compare
from aqmlab import scenario as sc
from conftest import ROOT, STABLE_KEYS, run_cli

PARKING_LOT = ROOT / "scenarios" / "examples" / "parking_lot.toml"
SHORT = ("--set", "duration=8s", "--set", "warmup=2s")
HOPS = ["R0->R1", "R1->R2", "R2->R3"]


def test_parking_lot_runs_through_the_cli_and_writes_per_link_results(tmp_path: Path):
    out = tmp_path / "out"
    r = run_cli("run", PARKING_LOT, *SHORT, "--json", "--no-plots", "--out", out)
    assert r.code == 0, r.stderr
    summary = json.loads(r.stdout)
    assert summary.keys() >= STABLE_KEYS
    assert summary["measured_link"] == "R0->R1"
    assert summary["qdisc"] == "red"
    rows = summary["links"]
    assert [x["link"] for x in rows] == [
        n for h in HOPS for n in (h, "->".join(h.split("->")[::-1]))
    ]
    assert [x["qdisc"] for x in rows[::2]] == ["red"] * 3
    assert summary["utilisation"] == rows[0]["utilisation"]
    for hop in rows[::2]:
        assert hop["utilisation"] > 0.8, hop

    links = pq.read_table(out / "links.parquet").to_pandas()
    declared = links[links.role.isin([x["link"] for x in rows])]
    assert len(declared) == 6
    # Every link, declared or generated (access.*, sink.*), adds up.
    assert (links.arrivals == links.dequeued + links.drops + links.backlog).all()
    flows = pq.read_table(out / "flows.parquet").to_pandas()
    assert len(flows) == sum(g["count"] for g in sc.load(PARKING_LOT)["flows"])
    assert set(flows.group) == {"long", "cross1", "cross2", "cross3"}
    # The run's page has the per-link table, one row per declared link direction.
    page = (out / "report.html").read_text()
    assert "<h2>Links</h2>" in page
    for x in rows:
        assert f"<td>{x['link'].replace('>', '&gt;')}</td>" in page, x["link"]
    assert page.count("R0-&gt;R1") >= 2  # measured link in the headline, and its table row


def test_parking_lot_through_the_api_with_a_qdisc_per_link(tmp_path: Path):
    res = aqmlab.run(
        PARKING_LOT,
        set={
            "duration": "8s",
            "warmup": "2s",
            "topology.links.1.qdisc": {"kind": "codel"},
            "topology.links.2.qdisc": {"kind": "droptail"},
        },
    )
    kinds = [x["qdisc"] for x in res.summary["links"][::2]]
    assert kinds == ["red", "codel", "droptail"]
    assert compare.qdisc_label(res.scenario_toml) == "red"
    groups = res.summary["groups"]
    assert groups["long"]["mean_goodput_mbps"] < groups["cross1"]["mean_goodput_mbps"]
    out = res.write(tmp_path / "api", plots=False)
    roles = pq.read_table(out / "links.parquet").column("role").to_pylist()
    assert roles[:6] == ["R0->R1", "R1->R0", "R1->R2", "R2->R1", "R2->R3", "R3->R2"]
    # The resolved scenario runs again to the same bytes.
    again = aqmlab.run((out / "scenario.toml").read_text())
    assert again.summary_json == res.summary_json


def test_bad_topology_is_one_line_naming_the_key(tmp_path: Path):
    out = tmp_path / "out"
    r = run_cli("run", PARKING_LOT, *SHORT, "--set", "flows.0.dst=R9", "--out", out)
    assert r.code == 2
    assert r.stderr.startswith('error: flows.0.dst: "R9" (a node of the topology: "R0", ')
    assert len(r.stderr.strip().splitlines()) == 1
    assert not out.exists()
    r = run_cli("validate", PARKING_LOT, "--set", "topology.links.1.to=R1")
    assert r.code == 2
    assert r.stderr.startswith('error: topology.links.1.to: "R1" (a node other than from')
