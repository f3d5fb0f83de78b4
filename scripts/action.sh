#!/usr/bin/env bash
# The steps of the repository's GitHub Action (action.yml), as one script a test can run on
# any machine:
#   action.sh key       prints `source=<hash>` for $GITHUB_OUTPUT: a digest of where the kit
#                       comes from (the inputs below), the last part of the cache key.
#   action.sh install   installs a2a-tck into A2A_TCK_HOME (default ~/.a2a-tck: bin/a2a-tck
#                       and a stamp naming its source; the directory the Action caches) and
#                       puts its bin/ on $GITHUB_PATH when set. A2A_TCK_VERSION is a git tag
#                       or commit of A2A_TCK_REPOSITORY, or `local` (this checkout). The first
#                       source given is used:
#                         A2A_TCK_BINARY_URL  a prebuilt binary: a release asset (.tar.gz,
#                                             .tgz, .zip or the bare binary), any URL curl takes
#                         A2A_TCK_WHEEL       a wheel file (path or URL), pip-installed into a venv
#                         A2A_TCK_INDEX_URL   a Python package index holding the wheel:
#                                             pip install a2a-tck==VERSION into a venv
#                         (none)              cargo install --locked --git --rev VERSION, or
#                                             --path of this checkout for `local`
#                       A2A_TCK_SHA256, when set, is the SHA-256 of the downloaded binary-url
#                       asset or wheel (pip's --hash for the index): a mismatch installs
#                       nothing and exits 2. The install is skipped when the stamp names the
#                       same source and its a2a-tck runs. It prints which source it took and
#                       how long it took.
#   action.sh run       runs the kit: A2A_TCK_TARGET, A2A_TCK_CARD_URL, A2A_TCK_EXPECT,
#                       A2A_TCK_REPORTS (directory), A2A_TCK_ARGS (further arguments, split
#                       on spaces as a shell would, quotes respected); writes report.json,
#                       report.junit.xml, report.html and report.md there, appends the Markdown
#                       to $GITHUB_STEP_SUMMARY when set, and exits with the kit's status.
# A2A_TCK_BIN names the binary to run (default: A2A_TCK_HOME's, else a2a-tck on PATH).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
prefix="${A2A_TCK_HOME:-$HOME/.a2a-tck}"

fail() { echo "a2a-tck install: $*" >&2; exit 2; }

# The SHA-256 of a file (of standard input without one), lower-case hex.
sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "${1:--}" | cut -d' ' -f1
  else
    shasum -a 256 "${1:--}" | cut -d' ' -f1
  fi
}

# Where the kit comes from, one line: the stamp's content, and (hashed) the cache key's end.
source_of() {
  local version="${A2A_TCK_VERSION:?A2A_TCK_VERSION: a git tag or commit, or local}"
  local given=0 line
  [ -n "${A2A_TCK_BINARY_URL:-}" ] && given=$((given + 1))
  [ -n "${A2A_TCK_WHEEL:-}" ] && given=$((given + 1))
  [ -n "${A2A_TCK_INDEX_URL:-}" ] && given=$((given + 1))
  [ "$given" -le 1 ] || fail "give at most one of binary-url, wheel and index-url"
  if [ -n "${A2A_TCK_BINARY_URL:-}" ]; then
    line="binary-url $A2A_TCK_BINARY_URL"
  elif [ -n "${A2A_TCK_WHEEL:-}" ]; then
    line="wheel $A2A_TCK_WHEEL"
  elif [ -n "${A2A_TCK_INDEX_URL:-}" ]; then
    line="index-url $A2A_TCK_INDEX_URL"
  elif [ "$version" = local ]; then
    line="cargo-path $here/tck"
  else
    line="cargo-git ${A2A_TCK_REPOSITORY:?A2A_TCK_REPOSITORY: where the sources are}"
  fi
  [ -n "${A2A_TCK_SHA256:-}" ] && [ "$given" = 0 ] && fail "sha256 is for binary-url, wheel or index-url"
  echo "a2a-tck $version from $line sha256 ${A2A_TCK_SHA256:--} on $(uname -sm)"
}

# Fetches a URL (or copies a path) to a file.
fetch() {
  case "$1" in
    *://*) curl -fsSL --retry 3 -o "$2" "$1" || fail "could not download $1" ;;
    *) cp "$1" "$2" || fail "no file $1" ;;
  esac
}

# Refuses a file whose SHA-256 is not A2A_TCK_SHA256 (when set).
verify() {
  [ -n "${A2A_TCK_SHA256:-}" ] || return 0
  local want got
  want="$(printf '%s' "$A2A_TCK_SHA256" | tr 'A-F' 'a-f')"
  got="$(sha256_of "$1")"
  [ "$got" = "$want" ] || fail "refused $2: its sha256 is $got, expected $want; nothing installed"
  echo "sha256 verified: $got"
}

# The kit's release (X.Y.Z) named by a version input vX.Y.Z or X.Y.Z, else nothing.
release_of() {
  local v="${1#v}"
  [[ "$v" =~ ^[0-9]+\.[0-9]+\.[0-9]+([-+].*)?$ ]] && echo "$v"
  return 0
}

now() { echo "${EPOCHREALTIME:-$SECONDS}"; }

install_binary() {
  local url="$1" work="$2" asset name found
  name="${url%%\?*}"
  name="${name##*/}"
  asset="$work/$name"
  fetch "$url" "$asset"
  verify "$asset" "$url"
  mkdir -p "$work/unpacked"
  case "$name" in
    *.tar.gz | *.tgz) tar -xzf "$asset" -C "$work/unpacked" ;;
    *.zip) unzip -q "$asset" -d "$work/unpacked" ;;
    *) cp "$asset" "$work/unpacked/a2a-tck" ;;
  esac
  found="$(find "$work/unpacked" -type f -name a2a-tck | head -n 2)"
  [ -n "$found" ] || fail "$url holds no file named a2a-tck"
  [ "$(printf '%s\n' "$found" | wc -l)" = 1 ] || fail "$url holds more than one a2a-tck"
  rm -rf "$prefix/venv"
  mkdir -p "$prefix/bin"
  cp "$found" "$prefix/bin/a2a-tck.new"
  chmod +x "$prefix/bin/a2a-tck.new"
  mv -f "$prefix/bin/a2a-tck.new" "$prefix/bin/a2a-tck"
}

install_wheel() {
  local version="$1" work="$2" python="${PYTHON:-python3}" requirement release
  local pip=(--quiet --disable-pip-version-check --no-input --only-binary :all: --no-deps)
  if [ -n "${A2A_TCK_WHEEL:-}" ]; then
    # The file keeps its name: pip reads the version and platform from it.
    requirement="$work/$(basename "${A2A_TCK_WHEEL%%\?*}")"
    fetch "$A2A_TCK_WHEEL" "$requirement"
    verify "$requirement" "$A2A_TCK_WHEEL"
    pip+=(--no-index "$requirement")
  else
    release="$(release_of "$version")"
    [ -n "$release" ] || fail "index-url needs version to be a release (vX.Y.Z), not $version"
    # pip checks the hash (its hash-checking mode) before it installs anything.
    requirement="a2a-tck==$release"
    [ -n "${A2A_TCK_SHA256:-}" ] && requirement="$requirement --hash=sha256:$A2A_TCK_SHA256"
    echo "$requirement" > "$work/requirements.txt"
    pip+=(--index-url "$A2A_TCK_INDEX_URL" -r "$work/requirements.txt")
  fi
  rm -rf "$prefix/venv"
  "$python" -m venv --without-pip "$prefix/venv" || fail "$python could not make a venv (python3-venv?)"
  # The host's pip installs into the venv (pip >= 22.3, --python): seconds faster than a venv
  # of its own; else the venv gets its own pip.
  local installer=("$python" -m pip --python "$prefix/venv/bin/python")
  if ! "${installer[@]}" --version >/dev/null 2>&1; then
    "$prefix/venv/bin/python" -m ensurepip --default-pip >/dev/null \
      || fail "$python's venv has no pip (python3-venv?)"
    installer=("$prefix/venv/bin/python" -m pip)
  fi
  if ! "${installer[@]}" install "${pip[@]}"; then
    rm -rf "$prefix/venv"
    fail "pip refused or could not install ${A2A_TCK_WHEEL:-a2a-tck==$release from $A2A_TCK_INDEX_URL}; nothing installed"
  fi
  [ -x "$prefix/venv/bin/a2a-tck" ] || fail "the wheel put no a2a-tck in the venv's bin/"
  mkdir -p "$prefix/bin"
  ln -sfn ../venv/bin/a2a-tck "$prefix/bin/a2a-tck"
}

case "${1:-}" in
  key)
    source_line="$(source_of)"
    digest="$(printf '%s' "$source_line" | sha256_of)"
    echo "source=${digest:0:16}"
    ;;
  install)
    started="$(now)"
    version="${A2A_TCK_VERSION:?A2A_TCK_VERSION: a git tag or commit, or local}"
    source_line="$(source_of)"
    stamp="$prefix/stamp"
    if [ -n "${GITHUB_PATH:-}" ]; then
      echo "$prefix/bin" >> "$GITHUB_PATH"
    fi
    if [ "$version" != local ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$source_line" ] \
      && installed="$("$prefix/bin/a2a-tck" -V 2>/dev/null)"; then
      how="cached (the stamp names this source; nothing downloaded or built)"
    else
      rm -f "$stamp"
      work="$(mktemp -d)"
      trap 'rm -rf "$work"' EXIT
      if [ -n "${A2A_TCK_BINARY_URL:-}" ]; then
        install_binary "$A2A_TCK_BINARY_URL" "$work"
        how="prebuilt binary from $A2A_TCK_BINARY_URL"
      elif [ -n "${A2A_TCK_WHEEL:-}" ] || [ -n "${A2A_TCK_INDEX_URL:-}" ]; then
        install_wheel "$version" "$work"
        how="wheel from ${A2A_TCK_WHEEL:-$A2A_TCK_INDEX_URL} (pip, into $prefix/venv)"
      elif [ "$version" = local ]; then
        rm -rf "$prefix/venv" "$prefix/bin/a2a-tck"
        cargo install --locked --root "$prefix" --path "$here/tck" --bin a2a-tck
        how="built from this checkout (cargo install --path)"
      else
        rm -rf "$prefix/venv" "$prefix/bin/a2a-tck"
        cargo install --locked --force --root "$prefix" \
          --git "$A2A_TCK_REPOSITORY" --rev "$version" a2a-tck
        how="built from $A2A_TCK_REPOSITORY at $version (cargo install --git)"
      fi
      installed="$("$prefix/bin/a2a-tck" -V)" || fail "the installed $prefix/bin/a2a-tck does not run"
      release="$(release_of "$version")"
      if [ -n "$release" ] && [ "$installed" != "a2a-tck $release" ]; then
        rm -f "$prefix/bin/a2a-tck"
        fail "version $version asks for a2a-tck $release, the $how is $installed; removed"
      fi
      echo "$source_line" > "$stamp"
    fi
    elapsed="$(awk -v a="$started" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')"
    echo "a2a-tck install: $installed, $how, in $elapsed s"
    ;;
  run)
    bin="${A2A_TCK_BIN:-}"
    if [ -z "$bin" ]; then
      bin=a2a-tck
      [ -x "$prefix/bin/a2a-tck" ] && bin="$prefix/bin/a2a-tck"
    fi
    reports="${A2A_TCK_REPORTS:-a2a-reports}"
    mkdir -p "$reports"
    args=(--target "${A2A_TCK_TARGET:-builtin}"
          --report "$reports/report.json" --junit "$reports/report.junit.xml"
          --html "$reports/report.html" --markdown "$reports/report.md")
    [ -n "${A2A_TCK_CARD_URL:-}" ] && args+=(--card-url "$A2A_TCK_CARD_URL")
    [ -n "${A2A_TCK_EXPECT:-}" ] && args+=(--expect "$A2A_TCK_EXPECT")
    if [ -n "${A2A_TCK_ARGS:-}" ]; then
      # Split on spaces, quotes keeping words together (xargs' rules), nothing in it run.
      # A quote left open makes xargs refuse the whole input: refuse it too, rather than
      # run the kit with the words before it only.
      split=$(mktemp)
      if ! printf '%s' "$A2A_TCK_ARGS" | xargs printf '%s\0' > "$split"; then
        rm -f "$split"
        fail "the args input does not split into words (an unmatched quote?): $A2A_TCK_ARGS"
      fi
      mapfile -d '' extra < "$split"
      rm -f "$split"
      args+=("${extra[@]}")
    fi
    status=0
    "$bin" "${args[@]}" || status=$?
    if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -f "$reports/report.md" ]; then
      cat "$reports/report.md" >> "$GITHUB_STEP_SUMMARY"
    fi
    exit "$status"
    ;;
  *)
    echo "usage: action.sh key|install|run (see the comment at the top)" >&2
    exit 2
    ;;
esac
