"""`--max-total N`: how many items of each round an inbox document returns (CONTRACT section 18).

Every round is read within its own `--limit`; its items then come in units, in the round's order
(one unit per comment; one per review, with all its inline comments: a review is never cut),
each with its size (the items it shows: 0 for one the author filters leave out, which rides
along with the units around it). Rounds are filled round-robin, one unit per round per pass,
while the document holds at most N items. Two units come past N: the document's first (as
section 14's `--max-pages` rule: a review too large for the bound still comes whole, alone),
and the first of a round without a checkpoint (it returns at least its newest item).

`allocate` only counts: which units each round keeps. The rounds cut their readings to that
(engine.py, `Round.cut`), so a cursor never passes an item that was not returned.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Sequence, Tuple

from ..base.plain import replace  # a stream's Batch is a @plain record

DEFAULT_MAX_TOTAL = 100


@dataclass
class Units:
    """One round's units, in the order it gives them up (a round without a checkpoint: its
    newest first), by size."""

    sizes: Sequence[int]
    tail: bool = False


def allocate(rounds: Sequence[Units], total: int) -> List[int]:
    """How many leading units of each round the document keeps."""
    kept = [0] * len(rounds)
    shown = [0] * len(rounds)  # items kept per round
    open_ = [True] * len(rounds)
    used = 0
    while any(open_):
        for i, units in enumerate(rounds):
            if not open_[i]:
                continue
            sizes = units.sizes
            while kept[i] < len(sizes) and sizes[kept[i]] == 0:
                kept[i] += 1  # left out by the filters: passed with its neighbours
            if kept[i] >= len(sizes):
                open_[i] = False
                continue
            size = sizes[kept[i]]
            if used + size <= total or used == 0 or (units.tail and shown[i] == 0):
                kept[i] += 1
                shown[i] += size
                used += size
            else:
                open_[i] = False  # the bound is reached for this round
    return kept


def interleave(by_kind: Sequence[Sequence[int]]) -> List[int]:
    """The kinds' unit indexes taken in turn (a pull request round: reviews, conversation,
    reviews, ...): the order in which a round gives up its units."""
    order: List[int] = []
    at = [0] * len(by_kind)
    while any(at[k] < len(units) for k, units in enumerate(by_kind)):
        for k, units in enumerate(by_kind):
            if at[k] < len(units):
                order.append(k)
                at[k] += 1
    return order


def units_of(rnd: Any, reading: Any, tail: bool) -> List[Tuple[str, int]]:
    """(stream, size) of each unit of a round's reading (engine.py) in the order the round
    gives them up: its streams in turn, each oldest first (newest first when `tail`: no
    checkpoint). The size is what the unit shows, decided by the stream's own `present`, the
    one the document uses. A stream's edited items (already filtered) are units of their own,
    keyed by the stream's `edits_key`, oldest id first."""
    o = rnd.options
    by_kind: List[Tuple[str, List[int]]] = []
    for kind, batch in reading.batches.items():
        stream = rnd.streams[kind]
        sizes = []
        for item in batch.items:
            one = replace(batch, items=[item])
            items, _ = stream.present(one, o.max_body_chars, o.reveal_hidden, o.include_system)
            sizes.append(sum(len(v) for v in items.values()))
        by_kind.append((kind, sizes[::-1] if tail else sizes))
        if batch.edited:  # --include-edits: each edited item a unit of its own (section 19)
            by_kind.append((stream.edits_key, [1] * len(batch.edited)))
    at = [0] * len(by_kind)
    units = []
    for k in interleave([sizes for _, sizes in by_kind]):
        units.append((by_kind[k][0], by_kind[k][1][at[k]]))
        at[k] += 1
    return units


def kept_by_kind(units: Sequence[Tuple[str, int]], kept: int) -> Dict[str, int]:
    """How many units of each stream the first `kept` units hold."""
    counts: Dict[str, int] = {}
    for kind, _size in units:
        counts.setdefault(kind, 0)
    for kind, _size in units[:kept]:
        counts[kind] += 1
    return counts
