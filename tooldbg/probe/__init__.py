"""`tooldbg probe`: the relay self-test for the five APIs. `steps` runs and judges it, `apis` builds
each API's requests, `http` is the client, `har` the capture, `report` the output; the command is
`tooldbg.cli.probe`."""
