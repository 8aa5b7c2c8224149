"""Where the tests find their data: the repo's samples, and the shared corpus of real traffic
that CI lays next to the clone (`../shared/corpus`)."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_transcripts"
CORPUS = ROOT.parent / "shared" / "corpus"
if not CORPUS.is_dir():
    raise RuntimeError(f"the shared corpus is missing: expected it at {CORPUS}")
