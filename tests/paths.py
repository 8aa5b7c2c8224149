"""Where the tests find their data: the repo's samples, and the corpus of real traffic vendored in
`tests/corpus/` (its README says where each file comes from and under which licence)."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_transcripts"
CORPUS = ROOT / "tests" / "corpus"
if not CORPUS.is_dir():
    raise RuntimeError(f"the traffic corpus is missing: expected it at {CORPUS}")
