#!/usr/bin/env bash
# Packages a built a2a-tck as the release asset the Action's binary-url and `cargo binstall`
# (tck/Cargo.toml [package.metadata.binstall]) expect:
#     a2a-tck-v<version>-<target>.tar.gz   holding   a2a-tck-v<version>-<target>/a2a-tck
# and beside it <asset>.sha256 (`<hex>  <asset>`, for sha256sum -c and the Action's sha256).
#
#     bash scripts/package.sh [BINARY [TARGET [OUT]]]
# BINARY defaults to the release build ($CARGO_TARGET_DIR or target/, release/a2a-tck), TARGET
# to rustc's host triple, OUT to target/dist. The binary must print the workspace's version.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
binary="${1:-${CARGO_TARGET_DIR:-$root/target}/release/a2a-tck}"
target="${2:-$(rustc -vV | sed -n 's/^host: //p')}"
out="${3:-$root/target/dist}"
version="$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/Cargo.toml" | head -n1)"

[ -x "$binary" ] || { echo "package: no executable $binary (cargo build --release --locked -p a2a-tck)" >&2; exit 1; }
said="$("$binary" -V)"
[ "$said" = "a2a-tck $version" ] || { echo "package: $binary says '$said', the workspace is $version" >&2; exit 1; }

name="a2a-tck-v$version-$target"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/$name" "$out"
cp "$binary" "$work/$name/a2a-tck"
chmod 755 "$work/$name/a2a-tck"
# Reproducible: fixed owner, order and times.
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$work" -cf - "$name" \
  | gzip -n -9 > "$out/$name.tar.gz"
(cd "$out" && sha256sum "$name.tar.gz" > "$name.tar.gz.sha256")
echo "$out/$name.tar.gz"
