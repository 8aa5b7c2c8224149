"""The constructors of the canonical nodes readers make by the hundred (`tooldbg.model` exports them):
plain functions that store each field straight into its slot."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import MISSING, fields
from typing import Any, ParamSpec, TypeVar

from .model import NO_META, Invocation, Part, Result, Role, Text, Tool, Turn, _no_meta
from .source import NO_SOURCE, Source

_Node = TypeVar("_Node")
_Params = ParamSpec("_Params")


def constructor(cls: Callable[_Params, _Node]) -> Callable[_Params, _Node]:
    """A node class's constructor as a plain function, for the readers that make nodes by the
    hundred: the same keywords and defaults, the same node, at about half the cost. Calling a class
    with keywords packs them into a dict for `__init__`, which unpacks it again (that was a quarter
    of reading a request); a function takes its keywords as they are given, and this one stores each
    field straight into its slot."""
    assert isinstance(cls, type)
    return _storing(cls, None, ())


def in_order(cls: type[Any]) -> Callable[[Callable[_Params, _Node]], Callable[_Params, _Node]]:
    """`constructor`, with the signature of the function it decorates: each field of `cls` once, as
    a plain parameter with the field's default, in the order the hot readers pass them. Called so,
    without keywords, the function is called in place by the interpreter, where keywords or a
    keyword-only parameter take its generic call (66 K of 1.65 M instructions reading a request)."""

    def made(signature: Callable[_Params, _Node]) -> Callable[_Params, _Node]:
        code = signature.__code__
        assert not code.co_kwonlyargcount and not code.co_flags & 0x0C  # (no *args, **kwargs)
        return _storing(cls, code.co_varnames[:code.co_argcount], signature.__defaults__ or ())
    return made


def _storing(cls: type[Any], order: tuple[str, ...] | None, defaults: tuple[Any, ...]) -> Any:
    """The function that makes a `cls` node, each field stored into its slot: its parameters
    keyword-only (`order` None), or plain in `order`, whose `defaults` must be the fields' own."""
    assert not hasattr(cls, "__post_init__")
    scope: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
    stores = []
    for f in fields(cls):
        if f.default is not MISSING:
            scope[f"_{f.name}"] = f.default
        else:  # (the one factory a node field has gives the one empty meta)
            assert f.default_factory in (MISSING, _no_meta)
            scope[f"_{f.name}"] = MISSING if f.default_factory is MISSING else NO_META
        stores.append(f"    node.{f.name} = {f.name}\n")
    names = order if order is not None else tuple(f.name for f in fields(cls))
    assert sorted(names) == sorted(f.name for f in fields(cls))
    assert order is None or all(scope[f"_{name}"] is value for name, value in
                                zip(names[len(names) - len(defaults):], defaults, strict=True))
    params = ", ".join(name if scope[f"_{name}"] is MISSING else f"{name}=_{name}" for name in names)
    exec(f"def {cls.__name__}({'*, ' if order is None else ''}{params}):\n    node = _new(_cls)\n"
         f"{''.join(stores)}    return node\n", scope)
    return scope[cls.__name__]


# The constructors of the nodes readers make one of per wire node, shared by every reader: `in_order`
# makes each from its signature (their bodies are never run).
@in_order(Text)
def new_text(text: str, source: Source = NO_SOURCE, meta: Mapping[str, Any] = NO_META) -> Text:
    raise NotImplementedError


@in_order(Invocation)
def new_invocation(name: str, id: str = "", arguments: Any = None, wire_id: str | None = None,
                   source: Source = NO_SOURCE, raw_arguments: str | None = None,
                   meta: Mapping[str, Any] = NO_META) -> Invocation:
    raise NotImplementedError


@in_order(Result)
def new_result(wire_id: str | None = None, invocation_id: str | None = None, name: str | None = None,
               is_error: bool = False, content: tuple[Part, ...] = (), source: Source = NO_SOURCE,
               meta: Mapping[str, Any] = NO_META) -> Result:
    raise NotImplementedError


@in_order(Turn)
def new_turn(role: Role, parts: tuple[Part, ...] = (), source: Source = NO_SOURCE,
             meta: Mapping[str, Any] = NO_META) -> Turn:
    raise NotImplementedError


new_tool = constructor(Tool)
