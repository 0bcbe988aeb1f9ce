#!/usr/bin/env bash
# Builds the docs site (docs/ and mkdocs.yml -> site/) that `baccarat run` serves at /docs/ on the
# console's port (firmware/web/docs_site.py). The prop's installs run it (_venv.sh without extras: a
# Pi's start.sh, install-service.sh, an update's new version; start.sh on a PC); run it by hand after
# one that could not (sudo bash scripts/build_docs.sh in /opt/baccarat/current on a Pi with the service).
#
# Quiet, and quick when nothing changed: it builds only when a file the site is made from (the pages,
# and the code the reference pages are generated from) is newer than the site. The builder,
# mkdocs-material, is the venv's "docs" extra (scripts/_venv.sh installs it). On a Raspberry Pi
# nothing is compiled: its compiled dependencies come from Raspberry Pi OS (python3-yaml,
# python3-markupsafe), the rest as wheels; charset-normalizer and watchdog have wheels for arm64 and
# armv7 (docs/develop/docs.md). Without the site the prop runs as ever, and /docs/ says how to build it.
# Never fails the caller: a problem is one line on stderr and exit 1.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
[ -f mkdocs.yml ] || exit 0   # a copy without the docs' sources: nothing to build

stale() {
  [ -f site/index.html ] || return 0
  [ -n "$(find docs mkdocs.yml pyproject.toml baccarat_core firmware hardware -newer site/index.html \
    -not -path '*/__pycache__*' -print -quit 2>/dev/null)" ]
}
stale || exit 0

last_line() {
  # The line of a tool's output that says what went wrong: its last ERROR line, else its last line.
  local found
  found=$(printf '%s\n' "$1" | grep -E '^(ERROR|error)' | tail -n 1)
  [ -n "$found" ] || found=$(printf '%s\n' "$1" | grep -v '^\s*$' | tail -n 1)
  printf '%s' "$found"
}

# In a subshell of its own, its output kept (only its last line is shown when it fails), and neither in an
# if's condition nor before a ||: bash ignores `set -e` there, and _venv.sh would go on past a failed pip.
out=$(
  exec 2>&1
  set -e
  # shellcheck disable=SC2034  # read by _venv.sh
  if grep -qs "Raspberry Pi" "${BACCARAT_MODEL_FILE:-/proc/device-tree/model}"; then apt_packages=(python3-yaml python3-markupsafe); fi
  # shellcheck source=scripts/_venv.sh
  . scripts/_venv.sh docs
  .venv/bin/python -c 'import mkdocs, material'
)
status=$?
if [ "$status" != 0 ]; then
  echo "note: the docs site was not built: its builder (mkdocs-material) could not be installed ($(last_line "$out")); /docs/ says how to build it later" >&2
  exit 1
fi
if ! out=$(NO_MKDOCS_2_WARNING=1 .venv/bin/python -m mkdocs build --quiet --clean --site-dir site.new 2>&1); then
  rm -rf site.new
  echo "note: the docs site was not built: $(last_line "$out")" >&2
  exit 1
fi
rm -rf site.old
[ -d site ] && mv site site.old
mv site.new site
rm -rf site.old
