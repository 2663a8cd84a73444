"""Typing and notebook display: the package ships ``py.typed`` and stubs whose names match the
compiled module (``make lint`` runs the full ``mypy.stubtest`` on signatures), and ``Results``
renders a short HTML view in notebooks."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import numpy as np

import aqmlab
from aqmlab import _core, notebook
from conftest import TINY

PACKAGE = Path(aqmlab.__file__).parent


def test_package_is_typed():
    assert (PACKAGE / "py.typed").is_file()


def test_stub_all_is_the_compiled_modules_all():
    stub = ast.parse((PACKAGE / "_core.pyi").read_text(encoding="utf-8"))
    (names,) = [
        ast.literal_eval(node.value)
        for node in stub.body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "__all__"
    ]
    assert sorted(names) == sorted(_core.__all__)


def test_results_html_shows_headline_numbers_and_a_small_queue_plot():
    res = aqmlab.run(TINY)
    page = res._repr_html_()
    assert page.startswith("<div>") and page.endswith("</div>")
    assert "aqmlab run: tiny" in page
    assert "<table" in page and "utilisation" in page and "Jain" in page
    (points,) = re.findall(r"points='([^']*)'", page)
    assert 2 <= len(points.split()) <= notebook.MAX_POINTS


def test_queue_sketch_keeps_a_short_burst_of_a_long_run():
    t = np.arange(100_000) * 0.01
    q = np.zeros(100_000)
    q[54_321] = 50.0  # one sample out of 100 000
    svg = notebook.queue_svg(t, q)
    coords = [tuple(map(float, p.split(","))) for p in re.findall(r"[\d.]+,[\d.]+", svg)]
    assert len(coords) == notebook.MAX_POINTS
    assert min(y for _, y in coords) == 0.0  # the burst reaches the top of the plot
    assert "peak 50" in svg


def test_queue_sketch_of_no_samples_is_empty():
    assert notebook.queue_svg(np.array([]), np.array([])) == ""
