"""The scripted model behind every stand-in provider: one deterministic behaviour, read from a
conversation each stand-in has parsed from its own wire format into `Ask`.

It behaves as a model told "use the tools; when results come back, answer one line per call,
`CITY_CODE=REFERENCE`" would:

* the last user turn holds tool results → a text answer, one line per call of the turn before it,
  each call's city code (as its arguments name the city) `=` the reference its result quoted
  (`Reference: PRB-…`; the whole result text when there is none). Results are bound to calls by id,
  as the provider binds them (Gemini without ids: by position among same-name calls);
* tools declared and a tool choice that allows a call → one call per city code the last user text
  names (`OSL`, `BGO`, …), in that order; a choice forcing one named tool calls that tool; a choice
  that forbids parallel calls makes one call. Arguments fill the schema's required fields: an
  integer from the text's "N days" (else 1), an enum's first value, a field whose name says `code`
  the city code, any other string the city's name. A schema with no properties (a relay stripped
  it) gets `{"city": name}`: the model guesses a name;
* no tools, or a choice of `none`, or no city named under `auto` → an apology in text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

CITIES = {"OSL": "Oslo", "BGO": "Bergen", "TRD": "Trondheim", "SVG": "Stavanger"}
APOLOGY = "I cannot look that up: no tool is available to me here."
_REFERENCE = re.compile(r"[Rr]eference:?\s*([A-Za-z0-9_-]+)")
_DAYS = re.compile(r"(\d+)[- ]days?\b")


@dataclass(frozen=True)
class Call:
    name: str
    arguments: Any
    id: str | None = None


@dataclass(frozen=True)
class Result:
    text: str
    id: str | None = None
    name: str | None = None


@dataclass(frozen=True)
class Turn:
    role: str  # "user" | "assistant"
    text: str = ""
    calls: tuple[Call, ...] = ()
    results: tuple[Result, ...] = ()


@dataclass(frozen=True)
class Ask:
    """What the model is asked: the turns, the declared tools (name → JSON schema of the
    arguments) and the tool choice: `none`, `auto`, `required`, or `tool` with `forced` naming it."""

    turns: tuple[Turn, ...]
    tools: Mapping[str, Any] = field(default_factory=dict)
    choice: str = "auto"
    forced: str | None = None
    parallel: bool = True


@dataclass(frozen=True)
class Reply:
    """What the model says: text, or calls (name, arguments) the stand-in gives ids in its wire."""

    text: str = ""
    calls: tuple[tuple[str, dict[str, Any]], ...] = ()


def answer(ask: Ask) -> Reply:
    last = ask.turns[-1] if ask.turns else Turn("user")
    if last.results:
        asked = next((t for t in reversed(ask.turns[:-1]) if t.role == "assistant"), Turn("assistant"))
        return Reply(text="\n".join(f"{label(call)}={quoted(result)}"
                                    for call, result in paired(asked.calls, last.results)))
    codes = list(dict.fromkeys(c for c in re.findall(r"\b[A-Z]{3}\b", last.text) if c in CITIES))
    if not ask.tools or ask.choice == "none" or (ask.choice == "auto" and not codes):
        return Reply(text=APOLOGY)
    name = ask.forced if ask.choice == "tool" and ask.forced in ask.tools else next(iter(ask.tools))
    codes = codes or [next(iter(CITIES))]
    if not ask.parallel:
        codes = codes[:1]
    return Reply(calls=tuple((name, fill(ask.tools[name], code, last.text)) for code in codes))


def paired(calls: tuple[Call, ...], results: tuple[Result, ...]) -> list[tuple[Call, Result]]:
    """Each call with the result bound to it: by id, else by position among the calls of its name."""
    out = []
    for k, call in enumerate(calls):
        if call.id is not None:
            result = next((r for r in results if r.id == call.id), None)
        else:
            rank = sum(1 for c in calls[:k] if c.name == call.name)
            named = [r for r in results if r.name in (None, call.name)]
            result = named[rank] if rank < len(named) else None
        if result is not None:
            out.append((call, result))
    return out


def label(call: Call) -> str:
    """The city code of the city a call is about (told by its code or its name), else its name."""
    codes = {name: code for code, name in CITIES.items()} | {code: code for code in CITIES}
    values = call.arguments.values() if isinstance(call.arguments, dict) else ()
    return next((codes[v] for v in values if isinstance(v, str) and v in codes), call.name)


def quoted(result: Result) -> str:
    found = _REFERENCE.search(result.text)
    return found.group(1) if found else result.text


def fill(schema: Any, code: str, text: str) -> dict[str, Any]:
    """The arguments a model writes for city `code` from the schema it was shown."""
    schema = schema if isinstance(schema, dict) else {}
    properties = schema.get("properties") or {}
    if not properties:
        return {"city": CITIES[code]}
    days = _DAYS.search(text)
    arguments: dict[str, Any] = {}
    for name in schema.get("required") or list(properties):
        declared = properties.get(name) or {}
        kind = str(declared.get("type", "string")).lower()
        if kind == "integer":
            arguments[name] = int(days.group(1)) if days else 1
        elif declared.get("enum"):
            arguments[name] = declared["enum"][0]
        elif "code" in name:
            arguments[name] = code
        else:
            arguments[name] = CITIES[code]
    return arguments
