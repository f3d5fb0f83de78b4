#!/usr/bin/env bash
# The steps of the repository's GitHub Action (action.yml), as one script a test can run on
# any machine:
#   action.sh install   installs a2a-tck: A2A_TCK_VERSION is a git tag or commit of
#                       A2A_TCK_REPOSITORY (cargo install --git --rev, --locked), or `local`
#                       (cargo install --path of this checkout); skipped when the installed
#                       kit already is that version (the Action caches ~/.cargo/bin).
#   action.sh run       runs the kit: A2A_TCK_TARGET, A2A_TCK_CARD_URL, A2A_TCK_EXPECT,
#                       A2A_TCK_REPORTS (directory), A2A_TCK_ARGS (further arguments, split
#                       on spaces as a shell would, quotes respected); writes report.json,
#                       report.junit.xml, report.html and report.md there, appends the Markdown
#                       to $GITHUB_STEP_SUMMARY when set, and exits with the kit's status.
# A2A_TCK_BIN names the binary to run (default: a2a-tck on PATH).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
bin="${A2A_TCK_BIN:-a2a-tck}"

case "${1:-}" in
  install)
    version="${A2A_TCK_VERSION:?A2A_TCK_VERSION: a git tag or commit, or local}"
    if [ "$version" = local ]; then
      cargo install --locked --path "$here/tck" --bin a2a-tck
      exit 0
    fi
    stamp="$HOME/.cargo/bin/.a2a-tck-version"
    if command -v a2a-tck >/dev/null 2>&1 && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$version" ]; then
      echo "a2a-tck $version is installed (cached)"
      exit 0
    fi
    cargo install --locked --force --git "${A2A_TCK_REPOSITORY:?}" --rev "$version" a2a-tck
    echo "$version" > "$stamp"
    ;;
  run)
    reports="${A2A_TCK_REPORTS:-a2a-reports}"
    mkdir -p "$reports"
    args=(--target "${A2A_TCK_TARGET:-builtin}"
          --report "$reports/report.json" --junit "$reports/report.junit.xml"
          --html "$reports/report.html" --markdown "$reports/report.md")
    [ -n "${A2A_TCK_CARD_URL:-}" ] && args+=(--card-url "$A2A_TCK_CARD_URL")
    [ -n "${A2A_TCK_EXPECT:-}" ] && args+=(--expect "$A2A_TCK_EXPECT")
    if [ -n "${A2A_TCK_ARGS:-}" ]; then
      # Split on spaces, quotes keeping words together (xargs' rules), nothing in it run.
      mapfile -d '' extra < <(printf '%s' "$A2A_TCK_ARGS" | xargs printf '%s\0')
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
    echo "usage: action.sh install|run (see the comment at the top)" >&2
    exit 2
    ;;
esac
