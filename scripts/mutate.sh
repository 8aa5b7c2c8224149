#!/usr/bin/env bash
# Mutation testing, on demand (not in CI): mutate tooldbg/checks/, tooldbg/stitch.py, tooldbg/load.py,
# tooldbg/repair/, tooldbg/diff/, tooldbg/jsonio.py, tooldbg/collector.py, tooldbg/records/,
# tooldbg/formats/anthropic/, tooldbg/formats/openai_chat/, tooldbg/formats/gemini/,
# tooldbg/formats/bedrock/, tooldbg/formats/openai_responses/, tooldbg/formats/{writer,settings,meta}.py
# and tooldbg/methodcache.py
# (configured in pyproject.toml, [tool.mutmut]) and run the tests that pin them.
#
#   scripts/mutate.sh                      # every mutant (long: checks/ has thousands)
#   scripts/mutate.sh 'tooldbg.stitch.*' 'tooldbg.load.*'    # only these modules' mutants
#   SAMPLE=400 SEED=7 scripts/mutate.sh 'tooldbg.checks.*'   # a random sample of 400 of them
#
# Needs the [mutation] extra: .venv/bin/pip install -e '.[test,mutation]'. Prints the score
# (killed / all, timeouts counted as killed) and leaves the survivors for
# `.venv/bin/mutmut show NAME` / `.venv/bin/mutmut browse`. mutmut works in ./mutants/ (ignored by git).
set -euo pipefail
cd "$(dirname "$0")/.."
MUTMUT=${MUTMUT:-.venv/bin/mutmut}
PY=${PY:-.venv/bin/python}
# The tests run in ./mutants/, a copy of the repo, where the corpus tests/paths.py finds from here
# is not beside them: name it by its absolute path; without one, the tests that need it are
# skipped, and the mutants only they would kill survive.
TOOLDBG_CORPUS=$("$PY" -c 'from tests.paths import CORPUS, HAVE_CORPUS; print(CORPUS if HAVE_CORPUS else "")')
export TOOLDBG_CORPUS
[[ -n "$TOOLDBG_CORPUS" ]] || echo "mutate: third-party corpus not found: set TOOLDBG_CORPUS" >&2

selection=("$@")
if [[ -n "${SAMPLE:-}" ]]; then
    # mutmut generates every mutant first; then run a reproducible random sample of the selected ones
    "$MUTMUT" run --max-children 1 'nothing.matches.this' >/dev/null 2>&1 || true
    mapfile -t selection < <("$PY" scripts/mutant_sample.py "${SAMPLE}" "${SEED:-0}" "$@")
    echo "sample: ${#selection[@]} mutants (seed ${SEED:-0}) of: ${*:-all}"
    if [[ ${#selection[@]} -eq 0 ]]; then
        # (mutmut given no name runs every mutant: hours. A module added to only_mutate after its
        # copy in ./mutants/ was made is not mutated until that copy is removed.)
        echo "mutate: no mutant matches ${*:-all}: remove its copy under mutants/ to have it mutated" >&2
        exit 2
    fi
fi

"$MUTMUT" run --max-children "${JOBS:-2}" "${selection[@]}"
"$PY" scripts/mutant_sample.py --score "${selection[@]}"
