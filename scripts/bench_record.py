"""`tooldbg record`'s added latency, against a direct connection (on demand, not in CI):

    python3 scripts/bench_record.py [--requests 300] [--events 100]

A local upstream on 127.0.0.1 answers a ~2 KB JSON body, or streams SSE events (chunked, keep-alive,
~200 bytes each, one every 2 ms: faster than models write). The client (http.client, one keep-alive
connection per thread) asks it directly and through `tooldbg record` running as its own process (writing and
fsyncing its JSON Lines file as a user's would). Reported, as medians:

* per request: the time from sending a request to having read its whole JSON response, through the
  proxy minus direct;
* per streamed event: the time from the upstream writing an event to the client having read it,
  through the proxy minus direct; at 1 stream and at 20 concurrent streams (5 rounds of each).

Times are wall-clock (`perf_counter`), the stamps of upstream and client taken in this one process.
"""

from __future__ import annotations

import argparse
import http.client
import json
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BODY = json.dumps({"id": "chatcmpl-bench", "object": "chat.completion", "choices": [{"index": 0, "message": {
    "role": "assistant", "content": "x" * 1800}, "finish_reason": "stop"}]}).encode()
#: Streams of each kind, direct and proxied in turn.
ROUNDS = 5
#: When each event was written, by (stream id, event number).
SENT: dict[tuple[str, int], float] = {}


class Upstream(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass

    def do_POST(self) -> None:  # noqa: N802
        request = json.loads(self.rfile.read(int(self.headers["content-length"])))
        if not request.get("stream"):
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(BODY)))
            self.end_headers()
            self.wfile.write(BODY)
            return
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        stream = request["id"]
        for n in range(request["events"]):
            event = b'data: {"id":"%s","n":%d,"delta":{"content":"%s"}}\n\n' % (
                stream.encode(), n, b"y" * 120)
            SENT[stream, n] = time.perf_counter()
            self.wfile.write(b"%x\r\n%b\r\n" % (len(event), event))
            time.sleep(0.002)
        self.wfile.write(b"0\r\n\r\n")


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 64  # 20 streams connect at once


def connect(url: str) -> http.client.HTTPConnection:
    host, port = url.removeprefix("http://").rsplit(":", 1)
    return http.client.HTTPConnection(host, int(port), timeout=60)


def requests(url: str, count: int) -> list[float]:
    """Seconds per JSON request, on one keep-alive connection (the first few left out: warm-up)."""
    connection, times = connect(url), []
    payload = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]})
    for _ in range(count + 10):
        start = time.perf_counter()
        connection.request("POST", "/v1/chat/completions", payload, {"content-type": "application/json"})
        connection.getresponse().read()
        times.append(time.perf_counter() - start)
    connection.close()
    return times[10:]


_EVENT = re.compile(rb'"id":"([^"]+)","n":(\d+)')


def stream(url: str, stream_id: str, events: int) -> list[float]:
    """Seconds from the upstream writing each event to this client having read it."""
    connection = connect(url)
    request = json.dumps({"stream": True, "id": stream_id, "events": events})
    connection.request("POST", "/v1/chat/completions", request, {"content-type": "application/json"})
    response = connection.getresponse()
    delays, buffer = [], b""
    while True:
        piece = response.read1(65536)
        if not piece:
            break
        now = time.perf_counter()
        buffer += piece
        *done, buffer = buffer.split(b"\n\n")
        for event in done:
            found = _EVENT.search(event)
            if found:
                delays.append(now - SENT[found.group(1).decode(), int(found.group(2))])
    connection.close()
    return delays


def streams(url: str, concurrent: int, events: int, tag: str) -> list[float]:
    with ThreadPoolExecutor(concurrent) as pool:
        runs = pool.map(lambda i: stream(url, f"{tag}-{i}", events), range(concurrent))
        return [d for run in runs for d in run]


def proxy(upstream: str, output: Path) -> tuple[subprocess.Popen[str], str]:
    command = [sys.executable, "-m", "tooldbg", "record", "-o", str(output), "--upstream", upstream,
               "--listen", "127.0.0.1:0"]
    process = subprocess.Popen(command, cwd=ROOT, stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    line = process.stderr.readline()
    found = re.search(r"listening on (http://\S+),", line)
    if not found:
        process.kill()
        raise SystemExit(f"tooldbg record did not start: {line}")
    threading.Thread(target=lambda: process.stderr.read(), daemon=True).start()  # type: ignore[union-attr]
    return process, found.group(1)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.3f} ms"


def measure(count: int, events: int) -> dict[str, float]:
    server = Server(("127.0.0.1", 0), Upstream)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    upstream = f"http://127.0.0.1:{server.server_address[1]}"
    with tempfile.TemporaryDirectory() as tmp:
        recorder, through = proxy(upstream, Path(tmp) / "bench.jsonl")
        try:
            figures = {}
            direct, proxied = requests(upstream, count), requests(through, count)
            figures["request direct"] = statistics.median(direct)
            figures["request added"] = statistics.median(proxied) - statistics.median(direct)
            for concurrent in (1, 20):
                direct, proxied = [], []
                for round in range(ROUNDS):  # alternated, so a busy moment of the machine hits both
                    direct += streams(upstream, concurrent, events, f"d{concurrent}-{round}")
                    proxied += streams(through, concurrent, events, f"p{concurrent}-{round}")
                figures[f"event direct x{concurrent}"] = statistics.median(direct)
                figures[f"event added x{concurrent}"] = statistics.median(proxied) - statistics.median(direct)
        finally:
            recorder.terminate()
            recorder.wait(timeout=30)
            server.shutdown()
    return figures


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--events", type=int, default=100, help="events per stream")
    args = parser.parse_args(argv)
    figures = measure(args.requests, args.events)
    print("| measured (median) | direct | added by `tooldbg record` | target |")
    print("|---|---|---|---|")
    print(f"| per request (~2 KB JSON) | {ms(figures['request direct'])} | {ms(figures['request added'])} "
          "| < 2 ms |")
    for n in (1, 20):
        label = f"{n} stream{'s' if n > 1 else ''}"
        print(f"| per streamed event, {label} | {ms(figures[f'event direct x{n}'])} | "
              f"{ms(figures[f'event added x{n}'])} | < 0.5 ms |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
