#!/usr/bin/env bash
# `npm test`: type-checks, makes sure PostgreSQL and Redis are up, then runs every test file
# (unit tests beside the code, plugin tests, black-box tests in test/) with Node's test runner.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/services.sh
# The README's plugin, settings and v1 route tables follow the registry: a plugin added with its
# folder and one line in plugins.config.ts gets its rows here (commit the result).
node --no-node-snapshot --import tsx scripts/readme-tables.ts
# Type-checks run beside the first test files instead of before them (about 30 s of wall time
# otherwise, while tsx runs the tests without checking types); their errors are printed after the
# test report and fail the run. tsconfig.test.json extends tsconfig.json with the same options and
# includes every file it does (plus tests and scripts, which declare no global or module types), so
# checking it alone also proves what `tsc -p tsconfig.json` (the build) would check. Incremental:
# what a previous run found is kept in scratch/ (gitignored), so a run after a small change checks
# again only what it touches (about 5 s of CPU instead of 16 for tsconfig.test.json).
mkdir -p scratch
typecheck_log=scratch/typecheck.txt
(node_modules/.bin/tsc -p tsconfig.test.json --noEmit --incremental --tsBuildInfoFile scratch/tsc-test.tsbuildinfo \
  && node_modules/.bin/tsc -p console/tsconfig.json --incremental --tsBuildInfoFile scratch/tsc-console.tsbuildinfo) >"$typecheck_log" 2>&1 &
typecheck=$!
# A run ended early (Ctrl-C, a failed step) does not leave the checks running behind it.
trap 'pkill -P "$typecheck" 2>/dev/null; kill "$typecheck" 2>/dev/null; true' EXIT
mapfile -t found < <(find core plugins server test -name '*.test.ts' -not -path '*/node_modules/*' | sort)
if [ ${#found[@]} -eq 0 ]; then echo "no test files found" >&2; exit 1; fi
# Longest first (LPT): files start in the order given, so a multi-minute file started last would
# not run alone on one core at the end. scripts/slow-tests.txt names the known slow files, slowest
# first (from scratch/test-durations.txt of a full run; refresh it when the order drifts); the rest
# follow alphabetically. A listed file that no longer exists is skipped. scripts/run-tests.mjs
# keeps that order (`node --test` itself would sort the files).
files=()
declare -A listed=()
while read -r f; do
  [[ -z "$f" || "$f" == \#* || ! -f "$f" || -n "${listed[$f]:-}" ]] && continue
  files+=("$f")
  listed[$f]=1
done < scripts/slow-tests.txt
for f in "${found[@]}"; do [ -n "${listed[$f]:-}" ] || files+=("$f"); done
# Two reports: the runner's usual one on stdout (spec on a terminal, TAP otherwise, as `node --test`
# does), and per-file wall-clock seconds, slowest first, in scratch/test-durations.txt (gitignored)
# so the next run can see which files grow.
# Three files at a time by default on a 2-core machine: at two, a full run left about a third of the
# cores idle while files waited on their servers, LibreOffice or Chromium (TEST_CONCURRENCY sets it).
# Every test file's process gets this process's flags (run-tests.mjs). --liftoff-only: V8 runs
# WebAssembly with its baseline compiler only. Each process compiles PGlite's 9 MB wasm for its
# embedded databases (core/storage/pglite-wasm.ts), and tiering its hot functions up with TurboFan
# cost ~2.4 s of CPU per server start (helper threads), about half of what a start costs, repaid
# only by a database thread that lives far longer than a test file. So only here: the service
# (`npm start`, `npm run dev`) keeps TurboFan for its long-lived database thread. The code lane's
# WebAssembly runs in sandbox worker processes started with their own flags, not these.
set +e
node --no-node-snapshot --liftoff-only --import tsx --test-timeout=900000 scripts/run-tests.mjs "${TEST_CONCURRENCY:-3}" \
  scratch/test-durations.txt "${files[@]}"
tests=$?
wait "$typecheck"
typechecked=$?
trap - EXIT
if [ "$typechecked" -ne 0 ]; then
  echo "Type-check failed (tsc -p tsconfig.test.json, then console/tsconfig.json):" >&2
  cat "$typecheck_log" >&2
  exit 1
fi
exit "$tests"
