"""Fuzzing tooldbg as an attacker would: mutated logs through every path a user can reach.

    seeds.py     the inputs mutated: every file of `sample_transcripts/` and of the corpus,
                 plus the raw binary event streams their recordings carry as base64 and the
                 canonical documents of the samples
    mutate.py    structured mutation (JSON trees, JSON Lines, SSE events, AWS event-stream frames,
                 and the JSON / SSE / base64 documents nested in their strings, as HAR and
                 recorder files keep bodies) and byte mutation; deterministic by (seed, index)
    exercise.py  the oracle: one input through load, check (with and without a target), the
                 report (text, JSON, GitHub), show, convert to every target with its pre-flight,
                 the canonical round trip, the TUI's loader, and the CLI commands themselves

    sessions.py   agent sessions made up in every wire format (each request tooldbg's own replay
                 of the history, each response the model's next turn), written in every container
    properties.py the metamorphic properties (issue 17): what must not change when a file is re-laid
                 out, its exchanges put in another container, `fix` run on `fix`'s output, a log
                 diffed against its conversion, a canonical document read back, sessions
                 interleaved, secrets planted, the hash seed changed
    workers.py    two processes running commands under different PYTHONHASHSEED values

`tests/test_fuzz.py` runs a bounded number of examples in the normal test run;
`scripts/fuzz.py --count 100000 --seed N` is the long mode, `--properties all` the properties' (see
its docstring).
"""
