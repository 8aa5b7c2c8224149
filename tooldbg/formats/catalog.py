"""Each format's `Facts` by name, for the steps the formats share that must know another format's
facts: a writer reporting what another format's reader kept (its `restated` details, its setting
fields). The facts are read from each package's `common` module, which imports no reader or writer,
so these steps look them up without importing the registry (`formats/__init__`), which imports the
writers that use them (tests/test_import_hygiene.py forbids that circle; tests/formats/test_facts.py
checks this table against the registry)."""

from __future__ import annotations

from collections.abc import Mapping

from .anthropic.common import FACTS as ANTHROPIC
from .base import Facts
from .bedrock.common import FACTS as BEDROCK
from .gemini.common import FACTS as GEMINI
from .openai_chat.common import FACTS as OPENAI_CHAT
from .openai_responses.common import FACTS as OPENAI_RESPONSES

FACTS: Mapping[str, Facts] = {facts.name: facts
                              for facts in (ANTHROPIC, BEDROCK, GEMINI, OPENAI_CHAT, OPENAI_RESPONSES)}
