#!/usr/bin/env bash
# Builds the extension into .venv (what `make setup` runs), profile-guided when it can:
#   1. an instrumented build (-Cprofile-generate) into target/pgo-generate,
#   2. tools/pgo_train.py runs a spread of scenarios through it (a few seconds),
#   3. llvm-profdata merges the counts, and the extension is rebuilt with -Cprofile-use into
#      target/pgo-use.
# PGO changes only the compiler's inlining and code layout, never results; it made the
# simulator core 5-7 % faster (docs/performance.md). It needs the llvm-profdata of the
# toolchain's own LLVM (rustup component llvm-tools; installed here when rustup can); without
# it, or with PGO=0, or if any step fails, this is a plain `maturin develop --release`.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
venv=$(cd "$VENV" && pwd)
root=$(pwd)

develop() {
  # Only what running needs: `make test` and `make lint` add the dev extra (tools/dev_deps.py).
  VIRTUAL_ENV=$venv "$venv/bin/maturin" develop --release
}

plain() {
  echo "pgo: $1; building without profile guidance"
  unset CARGO_TARGET_DIR
  RUSTFLAGS=${USER_RUSTFLAGS-} develop
}

USER_RUSTFLAGS=${RUSTFLAGS-}
if [[ ${PGO:-1} == 0 ]]; then
  plain "PGO=0"
  exit 0
fi

sysroot=$(rustc --print sysroot)
host=$(rustc -vV | sed -n 's/^host: //p')
profdata=$sysroot/lib/rustlib/$host/bin/llvm-profdata
if [[ ! -x $profdata ]] && command -v rustup >/dev/null; then
  rustup component add llvm-tools >/dev/null 2>&1 || true
fi
if [[ ! -x $profdata ]]; then
  plain "no llvm-profdata for $(rustc --version) (rustup component llvm-tools)"
  exit 0
fi

raw=$root/target/pgo/raw
merged=$root/target/pgo/merged.profdata
rm -rf "$raw" "$merged"
if ! CARGO_TARGET_DIR=$root/target/pgo-generate \
  RUSTFLAGS="${USER_RUSTFLAGS} -Cprofile-generate=$raw" develop; then
  plain "the instrumented build failed"
  exit 0
fi
if ! "$venv/bin/python" tools/pgo_train.py; then
  plain "the training runs failed"
  exit 0
fi
if ! "$profdata" merge -o "$merged" "$raw"; then
  plain "llvm-profdata merge failed"
  exit 0
fi
if ! CARGO_TARGET_DIR=$root/target/pgo-use \
  RUSTFLAGS="${USER_RUSTFLAGS} -Cprofile-use=$merged" develop; then
  plain "the profile-guided build failed"
  exit 0
fi
echo "pgo: extension built with profile guidance ($merged)"
