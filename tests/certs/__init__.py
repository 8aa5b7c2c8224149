"""A certificate no trust store holds, for the tests of TLS verification (`probe` and `record` must
refuse it): self-signed for 127.0.0.1, valid until 2126, made for this project with
`openssl req -x509 -newkey rsa:2048 -nodes -days 36500 -subj /CN=127.0.0.1
-addext subjectAltName=IP:127.0.0.1` (key and certificate in one file). Committed rather than made
per run, so the tests need no openssl and skip nothing; it guards nothing but these tests."""

import ssl
from pathlib import Path

UNTRUSTED = Path(__file__).parent / "untrusted-127.0.0.1.pem"


def untrusted_server_context() -> ssl.SSLContext:
    """A server-side TLS context presenting the untrusted certificate."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(UNTRUSTED)
    return context
