"""`tooldbg record`: a loopback reverse proxy that forwards each request to its provider and appends
the exchange, as it crossed the wire, to a JSON Lines file tooldbg reads (`journal`, `proxy`,
`routes`, `session`)."""
