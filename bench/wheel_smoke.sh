#!/usr/bin/env bash
# Wheel smoke test (issue 11): build the portable wheel (make wheel), install it into an empty
# venv outside the repository, and run a paper reproduction there. Prints the timings.
#   bench/wheel_smoke.sh            (needs network access to PyPI for the wheel's dependencies)
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
t0=$(date +%s)
make wheel
t1=$(date +%s)
wheel=$(ls -t dist/aqmlab-*.whl | head -1)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$PYTHON" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --upgrade pip
"$work/venv/bin/python" -m pip install --quiet "$wheel"
t2=$(date +%s)
cd "$work"   # no repository around: the scenarios must come from the package
"$work/venv/bin/aqmlab" reproduce adaptive_red_004 --quick --no-progress --out "$work/out"
test -s "$work/out/report.html"
t3=$(date +%s)
echo "wheel: $wheel ($(du -k "$OLDPWD/$wheel" 2>/dev/null | cut -f1) KiB)"
echo "timings: make wheel $((t1 - t0)) s, venv + install $((t2 - t1)) s, reproduce --quick $((t3 - t2)) s"
