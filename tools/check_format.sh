#!/usr/bin/env bash
# The C++ sources in clang-format's style (.clang-format: LLVM, 100 columns): csrc/, the C++
# tests and tools. Exit 1 listing what differs; `--fix` rewrites the files instead.
#
#   tools/check_format.sh          # CI (.ci/run)
#   tools/check_format.sh --fix
#
# The clang-format is the venv's (.ci/setup pins its major version: another major formats some
# constructs differently); CLANG_FORMAT picks another.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
CF=${CLANG_FORMAT:-$VENV/bin/clang-format}
[ -x "$CF" ] || CF=$(command -v clang-format) || {
  echo "check_format: no clang-format (bash .ci/setup installs it)" >&2; exit 1; }

mapfile -t files < <(git ls-files -- 'csrc/*.cpp' 'csrc/*.h' 'tests/*.cpp' 'tests/*.h' \
                                     'tools/*.cpp' 'tools/*.h' 'benchmarks/*.cpp')
if [ "${1:-}" = --fix ]; then
  "$CF" -i "${files[@]}"
  exit 0
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! "$CF" --dry-run --Werror "${files[@]}" 2>"$log"; then
  grep -E "^[^ ].*: error:" "$log" | sed 's/:[0-9]*:[0-9]*: error:.*//' | sort -u \
    | sed 's/^/check_format: not formatted: /' >&2
  echo "check_format: run tools/check_format.sh --fix ($("$CF" --version))" >&2
  exit 1
fi
echo "check_format: ${#files[@]} C++ files formatted ($("$CF" --version))"
