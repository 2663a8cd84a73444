#!/usr/bin/env bash
# Builds bench/ns3/dumbbell.cc against ns-3.44 from PyPI (the `ns3` wheel: headers and shared
# libraries, no compiler run of ns-3 itself). The wheel goes into a venv under the user's cache
# directory (NS3_VENV, default ${XDG_CACHE_HOME:-~/.cache}/aqmlab/ns3-venv, ~300 MB); the
# program's name carries a hash of dumbbell.cc, so each version of the source (another checkout,
# another branch) gets its own binary and none overwrites another. Prints the program's path.
# First run: a few minutes (download + one g++ compile of ~1 min); later runs: instant.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
venv=${NS3_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/aqmlab/ns3-venv}
[[ -x $venv/bin/python ]] || python3 -m venv "$venv" >&2
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
if [[ ! -d $site/ns3/include ]]; then
  "$venv/bin/pip" install --quiet "ns3==3.44.post0" >&2
fi
ns3=$site/ns3
bin=$venv/aqmlab-dumbbell-$(sha256sum "$here/dumbbell.cc" | cut -c1-12)
if [[ ! -x $bin ]]; then
  echo "building $bin (g++, about a minute)" >&2
  g++ -std=c++20 -O2 -DNS3_BUILD_PROFILE_RELEASE -I"$ns3/include" "$here/dumbbell.cc" -o "$bin.tmp" \
    -L"$ns3/lib64" -Wl,--no-as-needed -lns3.44-core -lns3.44-network -lns3.44-internet \
    -lns3.44-traffic-control -lns3.44-point-to-point -lns3.44-applications -lns3.44-stats \
    -lns3.44-bridge -Wl,--as-needed -Wl,-rpath,"$ns3/lib64" >&2
  mv "$bin.tmp" "$bin"
fi
echo "$bin"
