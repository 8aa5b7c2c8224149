"""The interactive debugger (Textual). Only the CLI imports this package; the core never does."""
