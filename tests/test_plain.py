"""ghcomments.plain: the records' decorator behaves as the dataclasses it replaced."""

from __future__ import annotations

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
