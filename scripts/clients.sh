#!/usr/bin/env bash
# Client mode in CI: installs the official SDKs' clients from the registries (a2a-sdk from PyPI,
# @a2a-js/sdk from npm, the versions the adapters pin) into a scratch folder, and runs
# `a2a-tck client` on each adapter through every play, with the SDK's reviewed baseline where
# it has one. Reports: reports/client-python.* and reports/client-js.*. Needs python3, node,
# npm and the release build of the kit.
set -euo pipefail
cd "$(dirname "$0")/.."

kit=${A2A_TCK:-target/release/a2a-tck}
[ -x "$kit" ] || cargo build --release --locked -p a2a-tck
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

echo "-- installing a2a-sdk (PyPI) and @a2a-js/sdk (npm) into $scratch"
python3 -m venv "$scratch/py"
"$scratch/py/bin/pip" install --quiet --disable-pip-version-check -r adapters/python/requirements.txt
mkdir -p "$scratch/js"
cp adapters/js/package.json "$scratch/js/"
(cd "$scratch/js" && npm install --silent --no-audit --no-fund --ignore-scripts >/dev/null)

status=0
run() {
  local name=$1 command=$2
  shift 2
  echo "-- a2a-tck client: $name"
  "$kit" client --cmd "$command" --report "reports/client-$name.json" \
    --junit "reports/client-$name.junit.xml" --markdown "reports/client-$name.md" \
    --html "reports/client-$name.html" "$@" || status=1
}
run python "$scratch/py/bin/python adapters/python/adapter.py"
run js "NODE_PATH=$scratch/js/node_modules node adapters/js/adapter.mjs" --expect adapters/js/expected.toml
exit "$status"
