"""What the formats' writers share: the `Writer` base class (the conversation, its losses and the
origins of what is emitted), the target a writer writes for, and `Fitting`, the call ids and tool
names made to fit that target."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from operator import countOf, eq, itemgetter
from typing import TYPE_CHECKING, Any, Self, TypeGuard, TypeVar, cast

from ..fit import all_pass, describe, passes
from ..model import Conversation, Invocation, Loss, Opaque, Part, Result
from .catalog import FACTS
from .freeform import as_functions
from .origins import Origin, Origins, Unrecorded
from .profiles import wire_format
from .settings import Paths, lifted, report_parameters, request_loss, without, write_model, write_settings

if TYPE_CHECKING:
    from ..targets import Table
    from .base import Facts, Written

_Emitted = TypeVar("_Emitted")


def history_ends_on_call(title: str, answer: str) -> str:
    """The one wording of a conversation that ends on a call with no result (`Writer.ends_on_calls`)."""
    return (f"the conversation ends on this call with no result: a history, which {title} rejects as a "
            f"request until {answer} answers it")


def loss_for(losses: list[Loss], message: str, turn: int | None = None,
             part: int | None = None) -> None:
    """Append one loss (a tiny helper so writers read as a list of decisions)."""
    losses.append(Loss(message, turn, part))


class Writer:
    """What a writer class starts from: the conversation it writes, the losses it reports and the
    origins of what it emits (`carries`). A format without freeform (custom) tools writes them as
    functions of one string (`freeform.as_functions`)."""

    #: Whether the format declares freeform (custom) tools and writes their calls' text as it is.
    FREEFORM = False

    def __init__(self, conversation: Conversation) -> None:
        self.losses: list[Loss] = []
        self.conv = conversation if self.FREEFORM else as_functions(conversation, self.lose)
        self.marks: Origins | Unrecorded = Origins()

    def recording(self, origins: bool, again: Callable[[], Written]) -> Self:
        """This writer, recording where each node it emits came from unless `origins` is false (a
        format's `write(…, origins=False)`): `origins` then writes again with `again` when first
        read (`origins.Unrecorded`)."""
        if not origins:
            self.marks = Unrecorded(lambda: again().origins)
        return self

    @property
    def marker(self) -> Callable[[Any, int | None, int | None], Any] | None:
        """`Origins.mark` when origins are recorded, else None: read once, it lets a writer's loop over
        the nodes do nothing per node for origins nobody asked for (`marker is None`)."""
        return self.marks.mark if isinstance(self.marks, Origins) else None

    def lose(self, message: str, turn: int | None = None, part: int | None = None) -> None:
        loss_for(self.losses, message, turn, part)

    def ends_on_calls(self, title: str, answer: str) -> None:
        """A conversation that ends on the model's calls is a history, not yet a request: said once
        per call in the report, as the contract asks, rather than a result invented or the calls
        dropped (`answer`: what answers a call in the format, `a tool_result`)."""
        turns = self.conv.turns
        if not turns or turns[-1].role != "assistant":
            return
        for p, part in enumerate(turns[-1].parts):
            if isinstance(part, Invocation):
                self.lose(history_ends_on_call(title, answer), len(turns) - 1, p)

    def carries(self, node: _Emitted, turn: int | None, part: int | None = None, at: str = "") -> _Emitted:
        """Emit `node` as carrying part `part` of turn `turn` (see `Origins.mark`)."""
        return self.marks.mark(node, turn, part, at)

    def moved(self, node: Any, holder: dict[str, Any] | list[Any], at: str) -> None:
        """What `node` carried is now `holder`'s `at` (see `Origins.moved`)."""
        self.marks.moved(node, holder, at)

    # ---- the request: model, settings, other formats' parameters (one wording: settings.request_loss)

    def lose_setting(self, name: str, value: Any, verdict: str, why: str) -> None:
        """A request-level loss, in the one wording `settings.request_loss` gives them all."""
        self.lose(request_loss(name, value, verdict, why))

    def write_model(self, body: dict[str, Any], facts: Facts) -> None:
        """The model where the format's body names it; reported when the body needs one and has none."""
        write_model(body, self.conv, facts.title, facts.model_key, self.losses)

    def write_settings(self, body: dict[str, Any], facts: Facts, target: str) -> None:
        """The conversation's settings at the format's fields (after its own meta is back in `body`)."""
        settings, _ = lifted(self.conv, facts.name, _settings_paths)
        write_settings(body, settings, facts.title, facts.settings, self.losses, ranges=facts.setting_ranges,
                       max_tokens_default=facts.max_tokens_default,
                       max_tokens_key=_limits(target).max_tokens_key)
        if facts.stream_key is not None and facts.stream_key not in body and _streamed(self.conv.meta, facts):
            body[facts.stream_key] = True

    def report_parameters(self, facts: Facts) -> None:
        """Each request parameter another format kept in the conversation's meta, as not carried (a
        request that streamed is written streaming where the target has the key: `write_settings`)."""
        if not self.conv.meta:  # (none kept)
            return
        settings, meta = lifted(self.conv, facts.name, _settings_paths)
        streamed = _streamed(meta, facts)
        for origin, key in streamed:
            meta[origin] = without(meta[origin], [(key,)])
        if streamed and facts.stream_key is None:
            self.lose_setting(streamed[0][1], True, "not carried",
                              f"{facts.title} streams by the URL the request is sent to, not by a body field")
        report_parameters(facts.name, facts.title, settings, meta, self.losses, _settings_paths)

    def origins(self, body: dict[str, Any]) -> Mapping[str, Origin]:
        """Where the nodes marked so far sit in the final `body`, found when first read (see
        `Origins.resolve`)."""
        return self.marks.later(body)


_place = itemgetter(0, 1)  # of a (turn, part, node) triple


@cache
def _limits(target: str) -> Table:
    """Target `target`'s limit table (empty for a target without limits), looked up once: an import
    in a function costs as much as a dozen calls each time it runs."""
    from ..targets import Table, table  # the tables load when something is written, not with the registry

    return table(target) or Table()


def _settings_paths(name: str) -> Paths | None:
    """Format `name`'s setting fields (None for a name that is no format)."""
    facts = FACTS.get(name)
    return facts.settings if facts is not None else None


def _stream_key(name: str) -> str | None:
    """Format `name`'s `Facts.stream_key` (None for a name that is no format)."""
    facts = FACTS.get(name)
    return facts.stream_key if facts is not None else None


def _streamed(meta: Mapping[str, Any], target: Facts) -> list[tuple[str, str]]:
    """(format, its stream key) of each other format whose details in `meta` say the request
    streamed (that key true)."""
    return [(origin, key) for origin, values in meta.items() if origin != target.name
            and isinstance(values, Mapping) and (key := _stream_key(origin)) is not None
            and values.get(key) is True]


def _restated(name: str) -> Mapping[str, Any]:
    """Format `name`'s `Facts.restated` ({} for a name that is no format)."""
    facts = FACTS.get(name)
    return facts.restated if facts is not None else {}


def report_foreign(name: str, meta: Mapping[str, Any], losses: list[Loss], turn: int | None = None,
                   part: int | None = None, what: str = "details") -> None:
    """Report as lost the details other formats kept on a node: only their writers can put them
    back, and a writer says what it cannot carry."""
    if not meta:  # most nodes (writers ask this of every node they write)
        return
    for origin in sorted(set(meta) - {name}):
        values = meta[origin]
        if isinstance(values, Mapping):
            restated = _restated(origin)
            values = {k: v for k, v in values.items() if k not in restated or restated[k] != v}
            if not values:
                continue
        keys = ", ".join(sorted(map(str, values))) if isinstance(values, Mapping) else ""
        losses.append(Loss(f"{origin} {what} not carried" + (f": {keys}" if keys else ""), turn, part))


def is_own_opaque(part: Part, name: str) -> TypeGuard[Opaque]:
    """An Opaque format `name`'s reader made (a wire object): its writer puts it back verbatim.
    The part comes first: a TypeGuard narrows its function's first argument."""
    return isinstance(part, Opaque) and part.origin == name and isinstance(part.value, dict)


# ------------------------------------------------------------------ ids and names a target accepts


def writer_target(name: str, target: str | None) -> str:
    """The target a format `name`'s writer writes for: its own name by default, or a profile that
    speaks it (`mistral` for openai-chat); any other is a ValueError."""
    target = target or name
    if wire_format(target) != name:
        raise ValueError(f"the {name} writer cannot write for {target!r}")
    return target


class Fitting:
    """The call ids and tool names a writer emits, made to fit its target through
    `tooldbg.targets` — the same table the TD801/TD806 pre-flight judges with — in one code path
    for every writer.

    Planned over the whole conversation before anything is written, so a call, every result that
    answers it and a `tool_choice` naming a tool agree wherever they are written: every distinct tool
    name maps to one written name, and distinct names stay distinct (Gemini binds results by name);
    a name or id that already fits is kept, and one made to fit never takes its place. Ids: each
    call's wire id (a call without one gets `id_prefix` + its canonical id, none when `id_prefix` is
    None; so does a result that answers no call and has no id); calls that share a wire id keep
    sharing the written one unless `unique_ids` (the target rejects repeated ids), and a result
    takes its call's written id. The methods return what to write and report each rewrite as a loss
    at the turn and part given; what cannot be made to fit is written as it is and said so."""

    def __init__(self, conv: Conversation, target: str, losses: list[Loss], *,
                 id_prefix: str | None = "call_", unique_ids: bool = False) -> None:
        from ..targets import fit_tool_names  # see `_limits`

        self.target = target
        self.losses = losses
        self._limits = _limits(target)
        names = [t.name for t in conv.tools]
        #: Call key (its canonical id, or `@turn.part` when it has none) → the call's own tool name,
        #: for a writer that checks a result's name against its call's.
        self.called: dict[str | None, str] = {}
        #: Every call, with its turn and part, in order: a writer's plan need not walk every part again.
        self.calls: list[tuple[int, int, Invocation]] = []
        self._wire: dict[str | None, str | None] = {}  # call key → the call's own wire id
        # Each call's fitted id (None: it cannot be made to fit) and written id, worked out once per
        # call rather than at each of its occurrences (its call and every result naming it); a call
        # without an id slot has none (`_wire` holds None). `_ids`: the written id of each slot.
        self._fitted: dict[str | None, str | None] = {}
        #: Call key → the id written for the call (`written_id`; read it, never change it): a writer
        #: that asks it per result looks it up without a method call.
        self.written_ids: dict[str | None, str | None] = {}
        self._ids: Mapping[tuple[str, str], str | None] = {}
        # One pass over the parts: the calls, the results that answer no call before them (their ids
        # are fitted too) and the tool names, in the order they appear.
        loose: list[tuple[int, int, Result]] = []
        wire_ids, called, calls, add_name = self._wire, self.called, self.calls, names.append
        for t, turn in enumerate(conv.turns):
            for p, part in enumerate(turn.parts):
                if type(part) is Invocation:
                    name = part.name
                    if name is not None:
                        add_name(name)
                    key = part.id or f"@{t}.{p}"
                    called[key] = name
                    wire_ids[key] = part.wire_id
                    calls.append((t, p, part))
                elif type(part) is Result:
                    if part.name is not None:
                        add_name(part.name)
                    if part.invocation_id not in wire_ids:  # (no call key is None)
                        loose.append((t, p, part))
        if conv.tool_choice is not None and conv.tool_choice.name is not None:
            names.append(conv.tool_choice.name)
        self._names_used: set[str] = set()
        self._names = fit_tool_names(target, dict.fromkeys(names), used=self._names_used)
        #: Every tool name the conversation uses is written as it is (`name` returns it, saying
        #: nothing): a writer need not ask per call.
        self.names_kept = all(map(eq, self._names, self._names.values()))  # (in C)
        #: Every call's own wire id is written as it is (`written_call_id` returns it, saying nothing;
        #: a call without one has none, as no id is made up).
        self.ids_kept = self._ids_fit(loose, id_prefix, unique_ids)
        if not self.ids_kept:
            self._plan_ids(loose, id_prefix, unique_ids)

    def _ids_fit(self, loose: list[tuple[int, int, Result]], id_prefix: str | None, unique_ids: bool) -> bool:
        """The usual log: every call has a key of its own and a wire id, none is made up, the ids
        are distinct where they must be and fit the target — each is written as it is (what
        `_plan_ids` would find, without a slot per call); false when any of that does not hold."""
        wire_ids = self._wire
        if len(wire_ids) != len(self.calls):  # (calls sharing a canonical id)
            return False
        found = set(wire_ids.values())
        every_call_has_one = None not in found
        if id_prefix is not None and (not every_call_has_one or any(r.wire_id is None for _, _, r in loose)):
            return False  # (an id would be made up)
        found.discard(None)
        distinct = cast("set[str]", found)  # (the calls' own ids, None left out)
        loose_ids = {r.wire_id for _, _, r in loose if r.wire_id is not None}
        if unique_ids and (len(distinct) < len(wire_ids) - countOf(wire_ids.values(), None)
                           or not distinct.isdisjoint(loose_ids)):
            return False
        if not all_pass(distinct | loose_ids, self._limits.call_id):
            return False
        self._fitted = self.written_ids = (
            wire_ids if every_call_has_one else {k: w for k, w in wire_ids.items() if w is not None})
        self._ids = {("wire", w): w for w in loose_ids}
        return True

    def _plan_ids(self, loose: list[tuple[int, int, Result]], id_prefix: str | None,
                  unique_ids: bool) -> None:
        """Every call's written id, planned over the calls and loose results in the order they appear.

        Id slots: a wire id shared by several calls is one slot unless ids must be unique; the
        calls' own ids come first, so an id made up for a call without one never takes theirs."""
        from ..targets import fit_call_ids  # see `_limits`

        slots: dict[tuple[str, str], str] = {}
        made: dict[tuple[str, str], str] = {}
        slot_of: dict[str, tuple[str, str]] = {}  # call key → its slot
        found: list[tuple[int, int, Invocation | Result]] = [*self.calls, *loose]
        for t, p, part in sorted(found, key=_place):
            if isinstance(part, Invocation):
                key = part.id or f"@{t}.{p}"
                wire_id = part.wire_id
                if wire_id is not None:
                    slot = ("call", key) if unique_ids else ("wire", wire_id)
                    slots.setdefault(slot, wire_id)
                elif id_prefix is not None:
                    slot = ("call", key)
                    made[slot] = id_prefix + ("".join(c for c in key if c.isascii() and c.isalnum())
                                              or str(len(made)))
                else:
                    continue
                slot_of[key] = slot
            elif part.wire_id is not None:  # a result answering no call: its own id, fitted
                slots.setdefault(("wire", part.wire_id), part.wire_id)
            elif id_prefix is not None:
                made[("result", f"@{t}.{p}")] = f"{id_prefix}{t}_{p}"
        self._ids = ids = fit_call_ids(self.target, {**slots, **made})
        self._fitted = {key: ids[slot] for key, slot in slot_of.items()}
        self.written_ids = {key: fitted if fitted is not None else self._wire[key]
                         for key, fitted in self._fitted.items()}

    @property
    def _name_rules(self) -> str:
        """The target's tool-name limits in words, for a loss (worked out only when one is said)."""
        return describe(self._limits.tool_name)

    @property
    def _id_rules(self) -> str:
        """The target's call-id limits in words, for a loss."""
        return describe(self._limits.call_id)

    # ---- tool names

    def name(self, name: str, turn: int | None = None, part: int | None = None) -> str:
        """The name to write for tool `name` (declared, called, answered or forced)."""
        fitted = self._names.get(name)
        if fitted == name:  # (the usual name: it fits as it is)
            return name
        written = self.written_name(name)
        if self._names[name] is None:
            self.losses.append(Loss(f"tool name {name!r} cannot be made to fit {self.target} "
                                    f"({self._name_rules}); written as it is", turn, part))
            return name
        if written != name:
            self.losses.append(Loss(f"tool name {name!r} does not fit {self.target} ({self._name_rules}); "
                                    f"wrote {written!r}", turn, part))
        return written

    def written_name(self, name: str) -> str:
        """The name `name` is written as (wherever it is), without reporting anything."""
        fitted = self._names.get(name)
        if fitted:
            return fitted
        if name not in self._names:
            from ..targets import fit_tool_name  # see `_limits`

            self._names[name] = fit_tool_name(self.target, name, self._names_used)
        return self._names[name] or name

    # ---- call ids

    def written_id(self, invocation_id: str | None) -> str | None:
        """The id written for the call with canonical id `invocation_id` (None: it has none, or
        there is no such call), without reporting anything."""
        return self.written_ids.get(invocation_id)

    def call_id(self, call: Invocation, turn: int | None, part: int) -> str | None:
        """The id to write for `call` (None when it has none and none is made: Gemini)."""
        key = call.id or f"@{turn}.{part}"
        if key not in self._fitted:
            return call.wire_id
        written = self._fitted[key]
        old = call.wire_id
        if written is None:
            self.losses.append(Loss(f"call id {old!r} cannot be made to fit {self.target} "
                                    f"({self._id_rules}); written as it is", turn, part))
            return old
        if old is None:
            self.losses.append(Loss(f"call had no id; wrote {written!r}", turn, part))
        elif written != old:
            why = (f"does not fit {self.target} ({self._id_rules})" if not self.fits_id(old)
                   else "is already used")
            self.losses.append(Loss(f"call id {old!r} {why}; wrote {written!r}", turn, part))
        return written

    def written_call_id(self, call: Invocation, turn: int, part: int) -> str | None:
        """`call_id` (its rewrite reported), but the id every call with its key is written with
        (`written_id`): in one look-up for the usual call, whose own id fits."""
        key = call.id or f"@{turn}.{part}"
        fitted = self._fitted.get(key)
        if fitted is not None and fitted == call.wire_id:
            return fitted  # (what `call_id` returns, reporting nothing; `written_id` too)
        self.call_id(call, turn, part)
        return self.written_ids.get(key)

    def result_id(self, result: Result, turn: int | None, part: int) -> str | None:
        """The id to write for `result`: its call's written id (None when its call has none), or,
        for a result that answers no call, its own id made to fit."""
        if result.invocation_id is not None and result.invocation_id in self._wire:
            written = self.written_ids.get(result.invocation_id)
            if written is not None and written != result.wire_id:
                self.losses.append(Loss(f"result had no id; wrote {written!r}, its call's id"
                                        if result.wire_id is None else
                                        f"result id {result.wire_id!r} written as {written!r}, its call's id",
                                        turn, part))
            return written
        if result.wire_id is None:
            made = self._ids.get(("result", f"@{turn}.{part}"))
            if made is not None:
                self.losses.append(Loss(f"result had no id and answers no call; wrote {made!r}", turn, part))
            return made
        fitted = self._ids.get(("wire", result.wire_id))
        if fitted is None:
            self.losses.append(Loss(f"result id {result.wire_id!r} cannot be made to fit {self.target} "
                                    f"({self._id_rules}); written as it is", turn, part))
            return result.wire_id
        if fitted != result.wire_id:
            self.losses.append(Loss(f"result id {result.wire_id!r} does not fit {self.target} "
                                    f"({self._id_rules}); wrote {fitted!r}", turn, part))
        return fitted

    def fits_id(self, value: str) -> bool:
        return passes(value, self._limits.call_id)
