#!/usr/bin/env bash
# Runs cupar's GPU tests under compute-sanitizer (memcheck with the leak check, racecheck,
# synccheck, initcheck) with scaled-down sizes, plus planted defects each tool must report.
#   scripts/sanitize.sh [-B build] [-j jobs] [--tools memcheck,racecheck] [--scale small] ...
# See scripts/sanitize.py for the options. Needs a GPU, a build (cmake --build build) and Python 3.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v compute-sanitizer >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/compute-sanitizer ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
exec python3 scripts/sanitize.py "$@"
