"""Ownership that cannot be faked or lost: a result directory is aqmlab's only through its
marker and manifest; what the user added survives; a run never replaces a sweep nor a sweep a
run; single files are replaced only when aqmlab wrote them; writers of one destination exclude
each other with one line."""

from __future__ import annotations

import json
import shutil
import threading

import pytest

import aqmlab
from aqmlab import output
from conftest import TINY, run_cli


@pytest.fixture(scope="module")
def result() -> aqmlab.Results:
    return aqmlab.run(TINY)


@pytest.mark.parametrize(
    "look_alike",
    [("runs.parquet",), ("comparison.csv",), ("summary.json", "scenario.toml"), (".aqmlab",)],
)
def test_a_look_alike_directory_is_refused(tmp_path, result, look_alike):
    d = tmp_path / "thesis"
    d.mkdir()
    (d / "ch1.tex").write_text("\\chapter{}")
    for name in look_alike:
        (d / name).write_text("aqmlab results\n")  # the marker of older versions, too
    with pytest.raises(aqmlab.ScenarioError, match="did not write"):
        result.write(d, plots=False)
    assert (d / "ch1.tex").read_text() == "\\chapter{}"


def test_files_the_user_added_survive_a_rerun(tiny_path, tmp_path):
    out = tmp_path / "res"
    assert run_cli("run", tiny_path, "--out", out, "--no-plots").code == 0
    marker = json.loads((out / output.MARKER).read_text())
    assert marker["kind"] == "run" and "summary.json" in marker["files"]
    (out / "analysis.md").write_text("my notes")
    r = run_cli("run", tiny_path, "--out", out, "--no-plots")
    assert r.code == 2 and r.stderr.count("\n") == 1, r.stderr
    assert "analysis.md" in r.stderr
    assert (out / "analysis.md").read_text() == "my notes"
    (out / "analysis.md").unlink()
    assert run_cli("run", tiny_path, "--out", out, "--no-plots").code == 0


def test_a_copied_marker_does_not_make_a_directory_ours(tmp_path, result):
    ours = result.write(tmp_path / "ours", plots=False)
    mine = tmp_path / "mine"
    mine.mkdir()
    shutil.copy(ours / output.MARKER, mine / output.MARKER)
    (mine / "summary.json").write_text("my own summary")  # a name the manifest lists
    with pytest.raises(aqmlab.ScenarioError, match=r"summary\.json"):
        result.write(mine, plots=False)
    assert (mine / "summary.json").read_text() == "my own summary"


def test_a_run_never_replaces_a_sweep_nor_a_sweep_a_run(tiny_path, tmp_path):
    sweep_file = tmp_path / "sw.toml"
    sweep_file.write_text(f'base = "{tiny_path.name}"\n[axes]\n"bottleneck.buffer" = [10]\n')
    sw, run = tmp_path / "sw", tmp_path / "run"
    assert run_cli("sweep", sweep_file, "--out", sw, "--workers", "1", "--no-progress").code == 0
    assert run_cli("run", tiny_path, "--out", run, "--no-plots").code == 0
    r = run_cli("run", tiny_path, "--out", sw, "--no-plots")
    assert r.code == 2 and "holds a sweep result" in r.stderr and r.stderr.count("\n") == 1
    assert (sw / "runs.parquet").is_file()
    r = run_cli("sweep", sweep_file, "--out", run, "--workers", "1", "--no-progress")
    assert r.code == 2 and "holds a run result" in r.stderr
    assert (run / "summary.json").is_file()
    # The sweep resumes into its own directory, keeping what the user put there.
    (sw / "notes.md").write_text("keep")
    assert run_cli("sweep", sweep_file, "--out", sw, "--workers", "1", "--no-progress").code == 0
    assert (sw / "notes.md").read_text() == "keep"


def test_plot_replaces_only_a_plot_it_wrote(tiny_path, tmp_path):
    sweep_file = tmp_path / "sw.toml"
    sweep_file.write_text(f'base = "{tiny_path.name}"\n[axes]\n"bottleneck.buffer" = [10, 20]\n')
    sw = tmp_path / "sw"
    assert run_cli("sweep", sweep_file, "--out", sw, "--workers", "1", "--no-progress").code == 0
    args = ("plot", sw / "runs.parquet", "--x", "buffer", "--y", "utilisation")
    mine = tmp_path / "figure.png"
    mine.write_bytes(b"my figure")
    r = run_cli(*args, "--out", mine)
    assert r.code == 2 and "did not write" in r.stderr and mine.read_bytes() == b"my figure"
    assert run_cli(*args, "--out", tmp_path / "new.png").code == 0
    assert run_cli(*args, "--out", tmp_path / "new.png").code == 0  # its own: replaced
    assert run_cli(*args, "--out", mine, "--force").code == 0


def test_crosscheck_record_refuses_a_user_file_before_running(tiny_path, tmp_path):
    ref = tmp_path / "ref.json"
    ref.write_text("{}")
    r = run_cli("crosscheck", tiny_path, "--record", ref, "--out", tmp_path / "cc")
    assert r.code == 2 and "--record" in r.stderr and ref.read_text() == "{}"


def test_reproduce_all_refuses_a_user_index_before_running(tmp_path):
    out = tmp_path / "repro"
    out.mkdir()
    (out / "index.html").write_text("<p>mine</p>")
    r = run_cli("reproduce", "all", "--quick", "--out", out, "--no-progress")
    assert r.code == 2 and "index.html" in r.stderr
    assert (out / "index.html").read_text() == "<p>mine</p>"
    assert [p.name for p in out.iterdir()] == ["index.html"]


def test_a_symlink_loop_is_one_line(tiny_path, tmp_path, result):
    loop = tmp_path / "loop"
    loop.symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(loop)
    with pytest.raises(aqmlab.ScenarioError, match="loop of symbolic links"):
        result.write(loop)
    r = run_cli("run", tiny_path, "--out", loop, "--no-plots")
    assert r.code == 2 and r.stderr.count("\n") == 1 and "loop" in r.stderr


def test_a_name_too_long_is_refused_before_the_run(tiny_path, tmp_path, result, monkeypatch):
    from aqmlab import api, cli

    def no_run(*a, **k):
        raise AssertionError("simulated although --out cannot be created")

    monkeypatch.setattr(api, "run_core", no_run)
    assert cli.main(["run", str(tiny_path), "--out", str(tmp_path / ("x" * 300))]) == 2
    # The longest name the file system takes works: temporaries do not lengthen it.
    assert result.write(tmp_path / ("y" * 250), plots=False).is_dir()


def test_two_writers_of_one_directory_never_see_an_oserror(tmp_path, result):
    out = tmp_path / "shared"
    # Collected here and asserted in the main thread: an assertion inside a thread only ends
    # that thread (pytest reports it as a warning).
    errors: list[BaseException] = []

    def writer() -> None:
        for _ in range(8):
            try:
                result.write(out, plots=False)
            except aqmlab.ScenarioError as e:
                if "being written by another aqmlab process" not in str(e):
                    errors.append(e)  # e.g. "a non-empty directory aqmlab did not write"
            except BaseException as e:  # OSError, FileNotFoundError
                errors.append(e)

    threads = [threading.Thread(target=writer) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert (out / "summary.json").is_file() and output.read_marker(out) is not None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shared"]


def test_a_result_being_replaced_is_refused_as_being_written(tmp_path, result, monkeypatch):
    # The window: another writer, holding the destination's lock, renames the old result aside
    # and the new one in while this one reads its listing and then its marker. Read unlocked,
    # the marker is gone in between and the result looks foreign.
    out = tmp_path / "shared"
    result.write(out, plots=False)
    listed = output.read_marker(out)
    assert listed is not None

    def replaced_meanwhile(directory):
        return None if directory == out else listed

    monkeypatch.setattr(output, "read_marker", replaced_meanwhile)
    with output.dest_lock(out), pytest.raises(aqmlab.ScenarioError) as e:
        output.check_destination(out)
    assert "being written by another aqmlab process" in str(e.value)
    monkeypatch.undo()
    # Once the writer is done, the same result is accepted again.
    assert output.check_destination(out) == out
