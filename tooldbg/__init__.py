"""tooldbg: load raw LLM provider logs, see every tool call canonically, find where they broke.

The core (`model`, `formats`, `records`, `stitch`, `load`, `convert`) is a library that never imports
Textual or click; the CLI and the TUI are thin layers over it.
"""

__version__ = "0.1.0"
