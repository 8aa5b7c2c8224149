"""bedrock: placeholder until its reader and writer land."""

NAME = "bedrock"
URL_HINTS: tuple[str, ...] = ()


def sniff(body, side):
    return False


def sniff_stream(events):
    return False
