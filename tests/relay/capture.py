"""Run the agent through the relay with some faults and keep both captures:

    .venv/bin/python -m tests.relay.capture OUT_DIR [FAULT…] [--stream] [--anthropic]

writes OUT_DIR/client.har and OUT_DIR/upstream.har (how docs/examples/ was made)."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.relay import agent
from tests.relay.relay import FAULTS, Relay
from tests.relay.servers import Har, serving, url
from tests.relay.upstream import Upstream


def capture(out: Path, faults: set[str], **how: object) -> tuple[Path, Path, list[int]]:
    unknown = faults - set(FAULTS)
    if unknown:
        raise SystemExit(f"unknown fault(s) {sorted(unknown)}; the faults are: {', '.join(FAULTS)}")
    client, upstream = Har("tiny-relay (client side)"), Har("tiny-relay (upstream side)")
    with serving(Upstream, limit=10) as model, \
            serving(Relay, limit=10, upstream=url(model), faults=faults, client_har=client,
                    upstream_har=upstream) as relay:
        statuses = agent.run(url(relay), **how)  # type: ignore[arg-type]
    out.mkdir(parents=True, exist_ok=True)
    return client.save(out / "client.har"), upstream.save(out / "upstream.har"), statuses


def main(argv: list[str]) -> None:
    words = [a for a in argv if not a.startswith("--")]
    if not words:
        raise SystemExit(__doc__)
    how = {"stream": "--stream" in argv, "protocol": "anthropic" if "--anthropic" in argv else "openai-chat"}
    client, upstream, statuses = capture(Path(words[0]), set(words[1:]), **how)
    print(f"{client}\n{upstream}\nstatuses seen by the client: {statuses}")


if __name__ == "__main__":
    main(sys.argv[1:])
