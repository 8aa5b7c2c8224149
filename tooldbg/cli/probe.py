"""`tooldbg probe`: the click layer over `tooldbg.probe` (the steps, the client, the capture)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import click

from ..probe.apis import APIS
from .output import emit, fail, json_text, redact


@click.command("probe")
@click.argument("base_url")
@click.option("--api", "api_name", type=click.Choice(list(APIS)), required=True,
              help="The API BASE_URL speaks.")
@click.option("--model", required=True,
              help="The model to ask (in the body; in the URL for Gemini and Bedrock).")
@click.option("-o", "--output", type=click.Path(),
              help="Write the capture here (HAR; default probe-<api>-<time>.har in the working folder).")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text",
              help="text (the verdict table), or the check document with the steps.")
@click.option("--only", multiple=True, metavar="STEPS",
              help="Only these steps (comma-separated; forced-call always runs, the others build on it).")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=60.0, show_default=True,
              help="Seconds each request may take, its streamed answer included.")
@click.option("--key-env", metavar="VAR",
              help="The environment variable holding the key (default: OPENAI_API_KEY, ANTHROPIC_API_KEY, "
                   "GEMINI_API_KEY or AWS_BEARER_TOKEN_BEDROCK, by --api).")
@click.option("--force", is_flag=True, help="Overwrite OUTPUT if it is an existing file.")
def probe_command(base_url: str, api_name: str, model: str, output: str | None, output_format: str,
                  only: tuple[str, ...], timeout: float, key_env: str | None, force: bool) -> None:
    """Self-test tool calling through BASE_URL (what your SDK is given, e.g. https://relay.example/v1):
    a forced call, its finish reason, the arguments' shape, the schema's required fields, a second
    round with the result, two parallel calls answered in reverse order, and the call streamed — each
    step PASS, FAIL or SKIP with the layer it tests and the findings that decided it, judged by
    tooldbg's rules on the exchanges, all of which are written to a HAR. The key is read from the
    environment (never an argument) and is never written or printed. Exit 0 when nothing fails, 1 on a
    failed step, 2 when BASE_URL cannot be reached, TLS fails or the key is refused."""
    from ..jsonio import dumps
    from ..probe.har import document
    from ..probe.report import json_document, text_report
    from ..probe.steps import NAMES, Probe, ProbeError
    from ..writing import check_writable, write_atomically

    redact(True)
    api = APIS[api_name]
    variable = key_env or api.key_env
    key = os.environ.get(variable)
    if not key:
        fail(f"{variable} is not set: the probe reads the {api_name} key from it "
             "(--key-env VAR names another)")
    steps = [s.strip() for value in only for s in value.split(",") if s.strip()]
    unknown = [s for s in steps if s not in NAMES]
    if unknown:
        fail(f"--only {', '.join(unknown)}: no such step (steps: {', '.join(NAMES)})")
    if not base_url.startswith(("http://", "https://")):
        fail(f"{base_url}: BASE_URL must start with http:// or https://")
    path = Path(output or f"probe-{api_name}-{time.strftime('%Y%m%d-%H%M%S')}.har")
    check_writable(path, inputs=[], force=force)
    selected = frozenset(["forced-call", *steps]) if steps else frozenset(NAMES)
    probe = Probe(api, base_url, model, key, timeout=timeout, only=selected)
    try:
        outcome = probe.run(str(path))
    except ProbeError as err:
        if err.exchanges:
            text = dumps(document(err.exchanges), indent=True).decode()
            write_atomically(path, text, inputs=[], force=force)
        fail(f"probe: {err}")
    write_atomically(path, dumps(outcome.document(), indent=True).decode(), inputs=[], force=force)
    if output_format == "json":
        info = {"base_url": base_url, "api": api_name, "model": model, "capture": str(path)}
        click.echo(json_text(json_document(outcome, info)), nl=False)
    else:
        emit(text_report(outcome, f"probe {base_url} · {api_name} · model {model}", str(path)))
    if outcome.failed:
        sys.exit(1)
