"""ghcomments.base.plain: the records' decorator behaves as the dataclasses it replaced."""

from __future__ import annotations

import re

import pytest

from tests.inprocess import plain as plain_module

plain, factory = plain_module.plain, plain_module.factory


@plain(frozen=True)
class Window:
    page: int
    per_page: int


@plain
class Batch:
    kind: str
    items: list = factory(list)
    more: bool = False


def test_fields_defaults_and_fresh_factories():
    a, b = Batch("x"), Batch(kind="x")
    assert a == b and a.items == [] and a.items is not b.items and a.more is False
    assert repr(Batch("y", [1], more=True)) == "Batch(kind='y', items=[1], more=True)"
    assert not hasattr(Batch, "items") and Batch.more is False
    assert Batch("x") != Batch("z") and Batch("x") != ("x", [], False)


@pytest.mark.parametrize("make", [lambda: Batch(), lambda: Batch("x", [], True, 4),
                                  lambda: Batch("x", kind="y"), lambda: Batch("x", other=1)])
def test_a_bad_construction_is_a_type_error(make):
    with pytest.raises(TypeError):
        make()


def test_frozen_records_are_read_only_and_hashable_mutable_ones_unhashable():
    w = Window(1, 100)
    assert w == Window(page=1, per_page=100) and {w: 1}[Window(1, 100)] == 1
    with pytest.raises(AttributeError):
        w.page = 2
    with pytest.raises(TypeError):
        hash(Batch("x"))
    b = Batch("x")
    b.more = True
    assert b.more is True


def test_replace_copies_every_field_and_changes_only_the_ones_named():
    """plain.replace as dataclasses.replace: budget.py's replace(batch, items=[item])."""
    replace = plain_module.replace
    b = Batch("x", [1, 2], more=True)
    one = replace(b, items=[1])
    assert one == Batch("x", [1], True) and b == Batch("x", [1, 2], True) and one is not b
    assert replace(b).items is b.items  # a copy of the record, not of its fields, no factory
    w = replace(Window(1, 100), page=2)
    assert w == Window(2, 100) and type(w) is Window
    with pytest.raises(AttributeError):
        w.page = 3
    with pytest.raises(TypeError):
        replace(b, other=1)


def test_a_field_without_default_after_one_with_default_is_refused():
    with pytest.raises(TypeError):
        @plain
        class Bad:  # noqa: F841
            a: int = 0
            b: int


def test_the_same_records_as_dataclasses_behave_the_same():
    """Differential: each operation the bundle's callers use, on a @plain record and on the
    dataclass it replaced (same fields, defaults and frozenness), gives the same outcome."""
    import dataclasses

    @dataclasses.dataclass
    class DBatch:
        kind: str
        items: list = dataclasses.field(default_factory=list)
        more: bool = False

    @dataclasses.dataclass(frozen=True)
    class DWindow:
        page: int
        per_page: int

    def outcome(op):
        try:
            value = op()
        except Exception as exc:  # noqa: BLE001  (the outcome compared is the exception's kind)
            return ("raises", AttributeError if isinstance(exc, AttributeError) else type(exc))
        shown = re.sub(r"[\w.]*<locals>\.", "", repr(value))  # both repr the __qualname__
        return ("value", shown.replace("DBatch", "Batch").replace("DWindow", "Window"))

    def delete(obj, name):
        delattr(obj, name)

    def assign(obj, name, value):
        setattr(obj, name, value)
        return obj

    pairs = [(Batch, DBatch, plain_module.replace), (Window, DWindow, dataclasses.replace)]
    (pb, db, preplace), (pw, dw, dreplace) = pairs
    cases = [
        lambda B, W, rep: B("x"),
        lambda B, W, rep: B("x", [1], True),
        lambda B, W, rep: B(kind="x", more=True),
        lambda B, W, rep: B("x") == B("x"),
        lambda B, W, rep: B("x") == B("x", [1]),
        lambda B, W, rep: B("x").items is B("x").items,
        lambda B, W, rep: hash(B("x")),
        lambda B, W, rep: assign(B("x"), "more", True),
        lambda B, W, rep: W(1, 2),
        lambda B, W, rep: W(1, 2) == W(1, 2),
        lambda B, W, rep: W(1, 2) != W(2, 1),
        lambda B, W, rep: hash(W(1, 2)) == hash(W(1, 2)),
        lambda B, W, rep: len({W(1, 2), W(1, 2), W(2, 1)}),
        lambda B, W, rep: assign(W(1, 2), "page", 3),
        lambda B, W, rep: assign(W(1, 2), "other", 3),
        lambda B, W, rep: delete(W(1, 2), "page"),
        lambda B, W, rep: rep(W(1, 2), per_page=5),
        lambda B, W, rep: rep(B("x", [1]), more=True),
        lambda B, W, rep: rep(B("x"), nope=1),
        lambda B, W, rep: W(1),
        lambda B, W, rep: W(1, 2, 3),
        lambda B, W, rep: B(),
    ]
    for i, case in enumerate(cases):
        mine = outcome(lambda c=case: c(pb, pw, preplace))
        theirs = outcome(lambda c=case: c(db, dw, dreplace))
        assert mine == theirs, (i, mine, theirs)
