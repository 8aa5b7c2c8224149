"""The relay self-test: a scripted conversation sent through BASE_URL, every exchange recorded, then
each step judged by tooldbg's own rules on the recorded exchanges, read back exactly as `tooldbg
check` reads the capture.

The conversation (one tool, `get_forecast`, whose `city_code` is an uncommon required string with a
pattern and whose `days` is an integer):

1. exchange `forced`: a call to `get_forecast` forced by `tool_choice`;
2. exchange `second-round`: that call's result sent back by its id, holding a reference (a nonce)
   only the result knows; the model is to quote it;
3. exchanges `parallel-calls` and `parallel-results`: two cities asked for at once (two calls in one
   turn), their results sent back in reverse order, each with its own reference: the answer must
   give each city its own;
4. exchange `streamed`: the forced call again, streamed.

Steps and what fails them (`STEPS`): each finding a rule reports on the capture belongs to one step,
by its code where the code names a layer (TD603, TD602, TD201–TD205, TD206–TD207, TD5xx) and
otherwise by the exchange it is on. A step passes only on what was observed: a call that arrived,
arguments the rules read, a reference quoted back. A step that cannot be judged because an earlier
one failed, or that was not selected, is skipped with the reason.
"""

from __future__ import annotations

import re
import secrets
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import formats
from ..checks import run_checks
from ..checks.base import Finding
from ..jsonio import dumps, dumps_str, try_loads
from ..load import Loaded, load_bytes
from ..model import Invocation, Text
from ..shorten import plain, quote
from ..timeline import ExchangeRead
from . import har
from .apis import Api, Choice, Reply, Tool
from .http import Sent, Unreachable, opener, post

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "city_code": {"type": "string", "pattern": "^[A-Z]{3}$",
                      "description": "IATA city code: three capital letters, e.g. OSL"},
        "days": {"type": "integer", "minimum": 1, "maximum": 7, "description": "How many days ahead, 1 to 7"},
    },
    "required": ["city_code", "days"],
    "additionalProperties": False,
}
TOOL = Tool("get_forecast", "The weather forecast for a city, by its IATA city code.", SCHEMA)
SYSTEM = ("You are talking to an automated tool-calling test. Call the tools exactly as asked. When tool "
          "results come back, answer with one line per call: the city code, '=', then the reference that "
          "call's result gave, copied exactly (for example OSL=PRB-0A1B2C3D). Say nothing else.")
FORCED = "Get the 3-day forecast for Oslo, city code OSL."
PARALLEL = ("Get the 2-day forecasts for Oslo (OSL) and Bergen (BGO): call get_forecast for both cities at "
            "once, two calls in one turn.")
STREAMED = "This answer is streamed. Get the 3-day forecast for Oslo, city code OSL."


@dataclass(frozen=True, slots=True)
class Step:
    name: str
    layer: str
    what: str


STEPS: tuple[Step, ...] = (
    Step("forced-call", "tools dropped",
         "tool_choice forces get_forecast: a call arrives (text instead is TD603)"),
    Step("finish-reason", "finish reason",
         "the finish reason fits a call (TD602; OpenAI's `stop` for a named tool and Gemini's `STOP` are "
         "right)"),
    Step("arguments-shape", "arguments encoding",
         "arguments in the wire's shape: a JSON string parsed once (Chat, Responses), an object elsewhere "
         "(TD201-TD205)"),
    Step("schema-carried", "schema simplified",
         "city_code (a string with a pattern) and days (an integer) arrive as declared (TD206, TD207)"),
    Step("second-round", "multi-turn",
         "the result goes back by id and the answer quotes the reference only the result held (a 400 here is "
         "TD901, the call repeated TD601)"),
    Step("parallel", "parallel pairing",
         "two calls in one turn, their results sent back reversed: the answer gives each city its own "
         "reference (a relay pairing by position swaps them)"),
    Step("streamed", "streaming",
         "the forced call streamed: fragments assemble (TD501-TD504) into the non-streamed arguments"),
)
NAMES = tuple(s.name for s in STEPS)

#: Codes that name the layer a step tests: their findings are that step's, on any exchange.
_CODE_STEPS = {"TD603": "forced-call", "TD602": "finish-reason",
               **dict.fromkeys(("TD201", "TD202", "TD203", "TD204", "TD205"), "arguments-shape"),
               "TD206": "schema-carried", "TD207": "schema-carried",
               **dict.fromkeys(("TD501", "TD502", "TD503", "TD504"), "streamed")}
#: The step each exchange is made for: any other finding on it is that step's.
_EXCHANGE_STEPS = {"forced": "forced-call", "second-round": "second-round", "parallel-calls": "parallel",
                   "parallel-results": "parallel", "streamed": "streamed"}
#: Findings the probe provokes on purpose, by the exchange they are on: noted, never a failure. The
#: results go back in reverse order (TD401); a call whose arguments came back in the wrong shape is
#: replayed in the shape the API requires (TD306), or the provider would refuse every later request.
#: (Each result names its call's city, so results paired by position without ids are no TD107.)
_PROVOKED = {"second-round": {"TD306"}, "parallel-results": {"TD401", "TD306"}}


class ProbeError(Exception):
    """The probe cannot go on (no answer, TLS, a refused key, no such endpoint): one line; the
    exchanges recorded so far are kept in `exchanges`."""

    def __init__(self, message: str, exchanges: list[dict[str, Any]]) -> None:
        super().__init__(message)
        self.exchanges = exchanges


@dataclass(frozen=True, slots=True)
class Place:
    """Where in the capture a step's evidence is."""

    exchange: int | None
    pointer: str
    code: str | None = None
    chunk: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "exchange": self.exchange, "pointer": self.pointer, "chunk": self.chunk}


@dataclass(frozen=True, slots=True)
class Verdict:
    step: str
    verdict: str  # pass | fail | skip
    layer: str
    reason: str
    codes: tuple[str, ...] = ()
    evidence: tuple[Place, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"step": self.step, "verdict": self.verdict, "layer": self.layer, "codes": list(self.codes),
                "reason": self.reason, "evidence": [p.to_dict() for p in self.evidence]}


@dataclass(slots=True)
class Outcome:
    """A probe run: the capture (its entries), the capture as `check` reads it, its findings, and the
    verdicts."""

    entries: list[dict[str, Any]]
    loaded: Loaded
    findings: list[Finding]
    verdicts: list[Verdict]

    @property
    def failed(self) -> bool:
        return any(v.verdict == "fail" for v in self.verdicts)

    def document(self) -> dict[str, Any]:
        """The HAR, each entry on which a step failed marked with that step's finding codes."""
        entries = [dict(e) for e in self.entries]
        for verdict in self.verdicts:
            for place in verdict.evidence if verdict.verdict == "fail" else ():
                if place.code and place.exchange is not None:
                    marks = entries[place.exchange][har.FIELD] = dict(entries[place.exchange][har.FIELD])
                    focus = marks.setdefault("focus", [])
                    if place.code not in focus:
                        focus.append(place.code)
        return har.document(entries)


@dataclass(slots=True)
class Answer:
    """One exchange as the probe reads it back, through the same readers `check` uses."""

    read: ExchangeRead
    sent: Sent

    @property
    def status(self) -> int:
        return self.sent.status

    @property
    def error(self) -> str | None:
        """The provider's message when it refused the request, else None."""
        response = self.read.responses[0] if self.read.responses else None
        if self.status >= 400 or (response is not None and response.error is not None):
            said = response.error.message if response is not None and response.error is not None else ""
            return f"HTTP {self.status}: {plain(said, 300) or '(no message)'}"
        return None

    @property
    def calls(self) -> list[Invocation]:
        return [p for r in self.read.responses if r.turn is not None for p in r.turn.parts
                if isinstance(p, Invocation)]

    @property
    def texts(self) -> list[Text]:
        return [p for r in self.read.responses if r.turn is not None for p in r.turn.parts
                if isinstance(p, Text)]

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.texts)

    @property
    def body(self) -> Any:
        response = self.read.exchange.response
        return response.body if response is not None else None


@dataclass(slots=True)
class Probe:
    """One run against `base` (what the user's SDK is given) for `api`."""

    api: Api
    base: str
    model: str
    key: str
    timeout: float = 60.0
    only: frozenset[str] = frozenset(NAMES)
    send: Callable[..., Sent] = post
    #: The HTTP client every request of the run goes through (made once: loading the system's
    #: certificate authorities is most of what a request to a local server costs).
    client: urllib.request.OpenerDirector | None = None
    entries: list[dict[str, Any]] = field(default_factory=list)
    answers: dict[str, Answer] = field(default_factory=dict)
    nonces: dict[str, str] = field(default_factory=dict)  # a call's wire id (or label) → its reference

    def run(self, path: str) -> Outcome:
        """Every exchange, then the verdicts; `path` names the capture in the findings."""
        self.client = self.client or opener()
        forced = self.exchange("forced", [self.api.user(FORCED)], "tool")
        if forced.calls:
            if "second-round" in self.only:
                call = forced.calls[0]
                history = [self.api.user(FORCED), *self.api.replay(forced.body)]
                self.exchange("second-round", [*history, *self.api.results([self.result(call)])], "auto")
            if "parallel" in self.only and self.may_pair():
                self.parallel()
            if "streamed" in self.only:
                self.exchange("streamed", [self.api.user(STREAMED)], "tool", stream=True)
        text = dumps(har.document(self.entries), indent=True)
        loaded = load_bytes(path, text, self.api.name)
        findings = run_checks(loaded)
        return Outcome(self.entries, loaded, findings, Judge(self, loaded, findings).verdicts())

    def may_pair(self) -> bool:
        """Pairing can be judged only where results reach the model: not after second-round failed."""
        if "second-round" not in self.only:
            return True
        second = self.answers.get("second-round")
        call = self.answers["forced"].calls[0]
        return second is not None and second.error is None and self.nonces[_key(call)] in second.text

    def parallel(self) -> None:
        asked = self.exchange("parallel-calls", [self.api.user(PARALLEL)], "required")
        if len(asked.calls) < 2 or asked.error is not None:
            return
        history = [self.api.user(PARALLEL), *self.api.replay(asked.body)]
        # Results bound by id go back in reverse order, which a relay pairing by position gets wrong;
        # calls without ids (Gemini 2.5) are bound by position, so their results go in call order.
        calls = reversed(asked.calls) if unbound(asked.calls) == [] else asked.calls
        replies = [self.result(call) for call in calls]
        self.exchange("parallel-results", [*history, *self.api.results(replies)], "auto")

    def result(self, call: Invocation) -> Reply:
        """The tool's answer to `call`: a forecast with a fresh reference only this result holds."""
        nonce = f"PRB-{secrets.token_hex(4).upper()}"
        self.nonces[_key(call)] = nonce
        arguments = call.arguments if isinstance(call.arguments, dict) else {}
        days = arguments.get("days")
        ahead = days if isinstance(days, int) else "the next"
        text = f"Forecast for {label(call)}, {ahead} days: light rain, 4 °C. Reference: {nonce}."
        return Reply(call.wire_id, call.name, text)

    def exchange(self, purpose: str, history: list[dict[str, Any]], choice: Choice, *,
                 stream: bool = False) -> Answer:
        """Send one request, record it, read it back; stop the probe on what leaves nothing to test."""
        body = self.api.body(self.model, SYSTEM, TOOL, choice, history, stream)
        url = self.api.url(self.base.rstrip("/"), self.model, stream)
        headers = {"content-type": "application/json", "accept": "application/json",
                   **self.api.headers(self.key)}
        try:
            sent = self.send(url, dumps(body), headers, timeout=self.timeout, client=self.client)
        except Unreachable as err:
            raise ProbeError(har.masked(str(err), self.key), self.entries) from None
        self.entries.append(har.entry(sent, purpose, self.key))
        text = dumps(har.document([self.entries[-1]]))
        loaded = load_bytes(f"<{purpose}>", text, self.api.name)
        answer = self.answers[purpose] = Answer(loaded.reads[0], sent)
        said = answer.error
        refused = sent.status == 400 and b"API_KEY_INVALID" in sent.response_body  # Gemini: a 400
        if sent.status in (401, 403, 407) or refused:
            raise ProbeError(f"the key was refused ({har.masked(said or '', self.key)}): {url}", self.entries)
        if sent.status == 404 and purpose == "forced":
            said = har.masked(said or "", self.key)
            raise ProbeError(f"no such endpoint ({said}): {url} — is BASE_URL what the {self.api.name} SDK "
                             "is given?", self.entries)
        return answer

def label(call: Invocation) -> str:
    """How an answer names a call: its city code, else its first string argument, else its name."""
    arguments = call.arguments if isinstance(call.arguments, dict) else {}
    code = arguments.get("city_code")
    if isinstance(code, str):
        return code
    return next((v for v in arguments.values() if isinstance(v, str)), call.name)


def unbound(calls: Sequence[Invocation]) -> list[Invocation]:
    """The calls that carry no id: their results can only be bound by position."""
    return [call for call in calls if not call.wire_id]


def _names(call: Invocation) -> set[str]:
    """What an answer may call a call by: each string argument it has (a code, a city's name)."""
    arguments = call.arguments if isinstance(call.arguments, dict) else {}
    return {v for v in arguments.values() if isinstance(v, str) and v} or {call.name}


def _key(call: Invocation) -> str:
    return call.wire_id or f"{call.name}:{dumps_str(call.arguments)}"


class Judge:
    """The verdicts of one run, from the findings on its capture and what it observed."""

    def __init__(self, probe: Probe, loaded: Loaded, findings: list[Finding]) -> None:
        self.probe, self.loaded, self.findings = probe, loaded, findings
        purposes = [e[har.FIELD]["probe"] for e in probe.entries]
        self.exchange_of = {p: i for i, p in enumerate(purposes)}
        # The exchanges as `check` reads the capture: their places are the capture's.
        self.answers = {p: Answer(loaded.reads[i], probe.answers[p].sent)
                        for p, i in self.exchange_of.items()}
        self.owned: dict[str, list[Finding]] = {s.name: [] for s in STEPS}
        self.noted: dict[str, list[Finding]] = {s.name: [] for s in STEPS}
        # A stream that broke while assembling explains whatever else is wrong with its calls.
        broken = {f.exchange for f in findings if _CODE_STEPS.get(f.code) == "streamed"}
        for finding in findings:
            purpose = purposes[finding.exchange] if finding.exchange is not None and \
                0 <= finding.exchange < len(purposes) else "forced"
            step = _EXCHANGE_STEPS[purpose] if finding.exchange in broken else \
                _CODE_STEPS.get(finding.code) or _EXCHANGE_STEPS[purpose]
            provoked = finding.code in _PROVOKED.get(purpose, ()) or finding.severity == "info"
            (self.noted if provoked else self.owned)[step].append(finding)

    def verdicts(self) -> list[Verdict]:
        return [self.verdict(step) for step in STEPS]

    def verdict(self, step: Step) -> Verdict:
        forced = self.answers["forced"]
        if step.name not in self.probe.only:
            return self.skip(step, "not selected (--only)")
        if step.name != "forced-call" and not forced.calls:
            return self.skip(step, "no call arrived in forced-call: nothing to judge")
        judge: dict[str, Callable[[Step], Verdict]] = {
            "forced-call": self.forced_call, "finish-reason": self.finish_reason,
            "arguments-shape": self.arguments_shape, "schema-carried": self.schema_carried,
            "second-round": self.second_round, "parallel": self.parallel, "streamed": self.streamed}
        return judge[step.name](step)

    # -- building verdicts

    def skip(self, step: Step, reason: str) -> Verdict:
        return Verdict(step.name, "skip", step.layer, reason)

    def fail(self, step: Step, reason: str, extra: Sequence[Finding] = (),
             seen: Sequence[Place] = ()) -> Verdict:
        """A failure: `reason`, the step's findings (and `extra` ones) as its codes and evidence, and
        `seen`, the places of what the probe itself observed (an answer's text)."""
        found = sorted([*self.owned[step.name], *extra], key=lambda f: _CODE_STEPS.get(f.code) != step.name)
        codes = tuple(dict.fromkeys(f.code for f in found))
        places = tuple(dict.fromkeys([*(Place(f.exchange, f.pointer, f.code, f.chunk) for f in found),
                                      *seen]))
        if found and not reason:
            first = found[0]
            reason = f"{first.code} {first.name}: {first.message}"
        return Verdict(step.name, "fail", step.layer, reason, codes, places)

    def passed(self, step: Step, reason: str, purpose: str, pointer: str = "") -> Verdict:
        if self.owned[step.name]:
            return self.fail(step, "")
        noted = self.noted[step.name]
        if noted:
            why = {f.code: _PROVOKED_WHY.get(f.code, f.message) for f in noted}
            said = "; ".join(f"{code} noted: {text}" for code, text in why.items())
            reason += f" ({said})"
        exchange = self.exchange_of.get(purpose)
        return Verdict(step.name, "pass", step.layer, reason, (), (Place(exchange, pointer),))

    def location(self, purpose: str, part: Invocation | Text | None = None) -> str:
        """The capture's address of `part`, else of the answer's finish reason."""
        if part is not None:
            return part.source.address
        response = self.answers[purpose].read.exchange.response
        pointer = formats.facts(self.probe.api.name).finish_pointer
        return f"{response.location}#{pointer}" if response is not None else ""

    # -- the steps

    def forced_call(self, step: Step) -> Verdict:
        forced = self.answers["forced"]
        if forced.error is not None:
            return self.fail(step, f"the request forcing {TOOL.name} was refused: {forced.error}")
        if not forced.calls:
            said = forced.text.strip()
            shown = f"text: {quote(said, 120)}" if said else "empty"
            return self.fail(step, f"{TOOL.name} was forced, but the answer is {shown}: the tools (or the "
                                   "tool choice) did not reach the model")
        call = forced.calls[0]
        return self.passed(step, f"a {call.name} call arrived (id {quote(call.wire_id)})", "forced",
                           self.location("forced", call))

    def finish_reason(self, step: Step) -> Verdict:
        forced = self.answers["forced"]
        reasons = [r.finish_reason for r in forced.read.responses]
        said = reasons[0] if reasons else None
        why = {"stop": " (OpenAI's answer to a tool_choice naming a function)",
               "STOP": " (Gemini ends every call turn with STOP)",
               "completed": " (Responses has no finish reason: the call is a function_call item)",
               }.get(str(said), "")
        return self.passed(step, f"finish reason {quote(said)} with the call{why}", "forced",
                           self.location("forced"))

    def arguments_shape(self, step: Step) -> Verdict:
        call = self.answers["forced"].calls[0]
        if call.raw_arguments is not None:
            return self.fail(step, f"the arguments are not JSON: {quote(call.raw_arguments, 80)}")
        string = formats.facts(self.probe.api.name).arguments == "string"
        shape = "a JSON string that parses once" if string else "an object"
        return self.passed(step, f"the arguments arrived as {shape}: {dumps_str(call.arguments)}", "forced",
                           self.location("forced", call))

    def schema_carried(self, step: Step) -> Verdict:
        call = self.answers["forced"].calls[0]
        arguments = call.arguments if isinstance(call.arguments, dict) else None
        if arguments is None:
            return self.skip(step, "the arguments could not be read as an object (see arguments-shape)")
        code, days = arguments.get("city_code"), arguments.get("days")
        if self.owned[step.name]:
            return self.fail(step, "")
        if not (isinstance(code, str) and re.fullmatch(SCHEMA["properties"]["city_code"]["pattern"], code)
                and isinstance(days, int) and not isinstance(days, bool)):
            return self.fail(step, f"the required city_code and days did not arrive as declared: "
                                   f"{dumps_str(arguments)}")
        return self.passed(step, f"city_code {quote(code)} (pattern ^[A-Z]{{3}}$) and days {days} (integer) "
                                 "arrived as declared", "forced", self.location("forced", call))

    def second_round(self, step: Step) -> Verdict:
        second = self.answers.get("second-round")
        if second is None:
            return self.skip(step, "no second round was sent")
        if second.error is not None:
            return self.fail(step, f"the request carrying the result was refused: {second.error}")
        call = self.answers["forced"].calls[0]
        nonce = self.probe.nonces[_key(call)]
        if nonce not in second.text:
            again = f" and called {second.calls[0].name} again" if second.calls else ""
            return self.fail(step, f"the answer does not quote {nonce}, which only the result held{again}: "
                                   "the model did not see the result")
        quoting = next(t for t in second.texts if nonce in t.text)
        return self.passed(step, f"the answer quotes {nonce}, which only the result held", "second-round",
                           self.location("second-round", quoting))

    def parallel(self, step: Step) -> Verdict:
        if not self.probe.may_pair():
            return self.skip(step, "results do not reach the model (second-round failed): nothing to pair")
        asked = self.answers.get("parallel-calls")
        if asked is None:
            return self.skip(step, "no parallel request was sent")
        if asked.error is not None:
            return self.fail(step, f"the request for two calls was refused: {asked.error}")
        if len(asked.calls) < 2:
            return self.skip(step, f"{len(asked.calls)} call came back where two were asked for: the model "
                                   "or the relay made no parallel calls, so there is nothing to pair")
        answered = self.answers.get("parallel-results")
        if answered is None:
            return self.skip(step, "the results were not sent")
        if answered.error is not None:
            return self.fail(step, f"the request carrying both results was refused: {answered.error}")
        calls = asked.calls
        lines = answered.text.splitlines() or [answered.text]
        exchange = self.exchange_of["parallel-results"]
        said = tuple(Place(exchange, t.source.address) for t in answered.texts[:1])
        for call in calls:
            nonce = self.probe.nonces[_key(call)]
            line = next((ln for ln in lines if nonce in ln), None)
            if line is None:
                return self.fail(step, f"the answer does not give {label(call)} its reference {nonce}",
                                 seen=said)
            own = _names(call)
            others = {n for c in calls if c is not call for n in _names(c)} - own
            if not any(n in line for n in own) and any(o in line for o in others):
                provoked = self.noted[step.name]
                given = next(o for o in sorted(others) if o in line)
                return self.fail(step, f"the answer gives {label(call)}'s reference {nonce} to {given}: the "
                                       "results, sent back in reverse order, were paired with the calls by "
                                       "position", provoked, said)
        order = "in call order (the calls carry no ids: position binds them)" if unbound(calls) else \
            "in reverse order"
        return self.passed(step, f"results sent back {order}; the answer gives each city its own reference",
                           "parallel-results",
                           self.location("parallel-results", answered.texts[0]))

    def streamed(self, step: Step) -> Verdict:
        streamed = self.answers.get("streamed")
        if streamed is None:
            return self.skip(step, "no streamed request was sent")
        if streamed.error is not None:
            return self.fail(step, f"the streamed request was refused: {streamed.error}")
        if not streamed.read.streams:
            kind = streamed.sent.header("content-type") or "no content type"
            return self.fail(step, f"the answer is not a stream ({kind})")
        if self.owned[step.name]:
            return self.fail(step, "")
        if not streamed.calls:
            return self.fail(step, "no call arrived in the stream")
        expected = _parsed(self.answers["forced"].calls[0].arguments)
        got = _parsed(streamed.calls[0].arguments)
        if got != expected:
            return self.fail(step, f"the streamed arguments {dumps_str(got)} differ from the non-streamed "
                                   f"{dumps_str(expected)}")
        events = len(streamed.read.exchange.response.events or ()) if streamed.read.exchange.response else 0
        return self.passed(step, f"{events} events assembled into the non-streamed arguments "
                                 f"{dumps_str(got)}", "streamed",
                           self.location("streamed", streamed.calls[0]))


def _parsed(arguments: Any) -> Any:
    """Arguments to compare: a JSON string (where an object belongs) as the value it holds."""
    if isinstance(arguments, str):
        ok, value = try_loads(arguments)
        return value if ok else arguments
    return arguments


#: Why a provoked finding is no failure.
_PROVOKED_WHY = {"TD401": "the probe sent the results in reverse order on purpose",
                 "TD306": "the probe replayed the arguments in the shape the API requires"}
