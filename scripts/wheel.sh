#!/usr/bin/env bash
# Builds the Python wheel that carries the `a2a-tck` binary and proves it works where no Rust
# toolchain is used: maturin is installed from PyPI into a fresh venv, builds the wheel
# (release, into target/wheels/, reusing the workspace's target/release build), the wheel is
# installed into a second fresh venv, and its `a2a-tck` prints its version and runs the
# built-in reference agent to a conformant report. Any failure stops the script non-zero.
#
#     bash scripts/wheel.sh            # then: pip install target/wheels/a2a_tck-*.whl
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
python="${PYTHON:-python3}"
maturin_spec='maturin>=1.9,<2' # as in tck/pyproject.toml [build-system]

fail() { echo "wheel: FAILED: $*" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# A fresh Debian image may lack what venv needs (ensurepip, package python3-venv): install it.
if ! "$python" -c 'import ensurepip, venv' >/dev/null 2>&1; then
  echo "== $python has no ensurepip/venv: installing python3-venv"
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq python3-venv >/dev/null
  "$python" -c 'import ensurepip, venv' || fail "$python still lacks ensurepip/venv after installing python3-venv"
fi

echo "== maturin into a fresh venv"
"$python" -m venv "$work/build"
"$work/build/bin/python" -m pip install --quiet --disable-pip-version-check "$maturin_spec"
"$work/build/bin/maturin" --version

echo "== build the wheel (release)"
out="$root/target/wheels"
mkdir -p "$out"
rm -f "$out"/a2a_tck-*.whl
"$work/build/bin/maturin" build --release --locked -m tck/Cargo.toml --out "$out"
wheels=("$out"/a2a_tck-*.whl)
[ "${#wheels[@]}" = 1 ] && [ -f "${wheels[0]}" ] || fail "expected one a2a_tck wheel in $out, found: ${wheels[*]}"
wheel="${wheels[0]}"
echo "built $(basename "$wheel") ($(du -h "$wheel" | cut -f1))"

echo "== install it into another fresh venv (no index: the wheel needs nothing else)"
"$python" -m venv "$work/use"
"$work/use/bin/python" -m pip install --quiet --disable-pip-version-check --no-index "$wheel"
tck="$work/use/bin/a2a-tck"
[ -x "$tck" ] || fail "the wheel installed no a2a-tck into the venv's bin/"

echo "== a2a-tck -V from the venv"
version_line="$(PATH="$work/use/bin:/usr/bin:/bin" a2a-tck -V)" || fail "a2a-tck -V exited non-zero"
echo "$version_line"
expected="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n1)"
[ "$version_line" = "a2a-tck $expected" ] || fail "expected 'a2a-tck $expected', got '$version_line'"

echo "== a built-in run from the venv"
(cd "$work" && PATH="$work/use/bin:/usr/bin:/bin" a2a-tck --quiet --report report.json --junit report.xml) \
  || fail "the built-in run exited non-zero"
"$work/use/bin/python" - "$work/report.json" "$work/report.xml" <<'PY' || fail "the report of the built-in run is not a complete conformant report"
import json, sys
report = json.load(open(sys.argv[1]))
assert report["complete"] is True, "report not complete"
assert report["verdict"] == "conformant", report["verdict_reason"]
assert report["target"]["builtin"] is True
assert len(report["results"]) > 0
assert open(sys.argv[2]).read().lstrip().startswith("<?xml"), "junit is not XML"
print(f"wheel: OK ({len(report['results'])} results, verdict {report['verdict']})")
PY
