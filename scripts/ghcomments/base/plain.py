"""`@plain`: the small part of dataclasses the bundle uses, without importing dataclasses.

dataclasses imports inspect (with ast, dis and tokenize): about 8 ms of every run, a tenth of
a no-change poll (CONTRACT section 20). The bundle's records need only this: fields from the
class's own annotations in order, a default per field (`factory(list)` for a fresh list or
dict each time), keyword or positional construction, `__repr__`, `__eq__` on the fields, and
`frozen=True` (read-only, hashable), and `replace`. No inheritance of fields, no
`__post_init__`.
"""

from __future__ import annotations

_MISSING = object()


class factory:  # noqa: N801  (reads as dataclasses' field(default_factory=...))
    """A field's default built anew for each instance: `items: list = factory(list)`."""

    __slots__ = ("make",)

    def __init__(self, make):
        self.make = make


def plain(cls=None, *, frozen=False):
    """Class decorator: see the module's docstring."""
    if cls is None:
        return lambda c: _build(c, frozen)
    return _build(cls, frozen)


def _build(cls, frozen):
    names = tuple(cls.__dict__.get("__annotations__", {}))
    defaults = {}
    for name in names:
        if name in cls.__dict__:
            defaults[name] = cls.__dict__[name]
            if isinstance(defaults[name], factory):
                delattr(cls, name)  # the class shows no shared default
        elif defaults:
            raise TypeError(f"{cls.__name__}: field {name!r} without a default follows one "
                            "with a default")
    title = cls.__name__
    setter = object.__setattr__

    def __init__(self, *args, **kwargs):
        if len(args) > len(names):
            raise TypeError(f"{title}() takes {len(names)} arguments, {len(args)} given")
        values = dict(zip(names, args))
        for key, value in kwargs.items():
            if key not in names:
                raise TypeError(f"{title}() got an unexpected keyword argument {key!r}")
            if key in values:
                raise TypeError(f"{title}() got multiple values for argument {key!r}")
            values[key] = value
        for name in names:
            if name not in values:
                default = defaults.get(name, _MISSING)
                if default is _MISSING:
                    raise TypeError(f"{title}() missing required argument {name!r}")
                values[name] = default.make() if isinstance(default, factory) else default
            setter(self, name, values[name])

    def __repr__(self):
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
        return f"{type(self).__qualname__}({inner})"

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in names)

    cls.__init__ = __init__
    cls.__repr__ = __repr__
    cls.__eq__ = __eq__
    cls.__match_args__ = names
    if frozen:
        def __setattr__(self, name, value):
            raise AttributeError(f"cannot assign to field {name!r} of a frozen {title}")

        def __delattr__(self, name):
            raise AttributeError(f"cannot delete field {name!r} of a frozen {title}")

        def __hash__(self):
            return hash(tuple(getattr(self, n) for n in names))

        cls.__setattr__ = __setattr__
        cls.__delattr__ = __delattr__
        cls.__hash__ = __hash__
    else:
        cls.__hash__ = None  # mutable and compared by value: unhashable, as dataclasses makes it
    return cls


def replace(record, **changes):
    """A copy of a @plain record with `changes` (dataclasses.replace)."""
    values = {name: getattr(record, name) for name in type(record).__match_args__}
    values.update(changes)
    return type(record)(**values)
