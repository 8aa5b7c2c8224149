"""A real relay for the `diff` tests: an OpenAI Chat → Anthropic relay (`relay.py`) in front of a
stand-in Anthropic Messages upstream (`upstream.py`), both stdlib HTTP servers on 127.0.0.1 with an
ephemeral port, started and stopped by the tests (`servers.py`), and an agent that talks to the relay
(`agent.py`). The relay captures every exchange on both sides as HAR; its faults are switchable.
Test support, not product code."""
