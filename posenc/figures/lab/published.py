"""What the papers found, in words, beside what our tiny models show, computed from the results (not written in).

- Press, Smith and Lewis 2022 (ALiBi, ICLR), Fig. 1: language models trained at L = 512 and 1024 tokens on
  WikiText-103, evaluated on longer inputs. Sinusoidal perplexity climbs within tens of tokens past L, rotary
  within a hundred or two, the T5 bias later, and ALiBi stays flat far past L.
- Kazemnejad et al. 2023 (NeurIPS), "The Impact of Positional Encoding on Length Generalization in
  Transformers": on synthetic tasks (copy, addition, ...) NoPE and the T5 bias generalised best, ALiBi and RoPE
  less, and absolute encodings (sinusoidal, learned) worst.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from posenc.figures.lab.common import scheme_name
from posenc.figures.lab.seeds import seeds_words
from posenc.figures.lab.source import SCHEME_ORDER
from posenc.i18n import _

TOLERANCE = 0.10  # "holds up": loss at 4L within 10% of its loss at L
MULTIPLE = 4


def published() -> list[str]:
    """The two papers' orderings, one sentence each, with the source."""
    return [
        _(
            "**Press et al. 2022** (ALiBi, ICLR), Fig. 1: language models trained at L = 512 and 1024 tokens on "
            "WikiText-103. Past L, sinusoidal perplexity climbs within tens of tokens, rotary within a hundred or "
            "two, the T5 bias later, and ALiBi stays flat."
        ),
        _(
            "**Kazemnejad et al. 2023** (NeurIPS), *The Impact of Positional Encoding on Length Generalization in "
            "Transformers*: on synthetic tasks, NoPE and the T5 bias generalised best, ALiBi and RoPE less, and "
            "absolute encodings worst."
        ),
    ]


def growth(results: Mapping[str, Any], mode: str = "sliding", multiple: int = MULTIPLE) -> dict[str, float | None]:
    """Each scheme's loss at ``multiple``·L over its loss at L (None where it has no loss there)."""
    train_length = results["train_length"]
    ratios: dict[str, float | None] = {}
    for scheme in SCHEME_ORDER:
        rows = {row["length"]: row.get("loss") for row in results["lm"][mode].get(scheme, [])}
        at_l, far = rows.get(train_length), rows.get(multiple * train_length)
        if scheme in results["lm"][mode]:
            ratios[scheme] = None if at_l is None or far is None else far / at_l
    return ratios


COPY_MULTIPLE = 2  # the copy statement: strings twice the longest trained one


def copy_accuracy(results: Mapping[str, Any], multiple: int = COPY_MULTIPLE) -> dict[str, float]:
    """Each scheme's exact-match copy accuracy on strings ``multiple`` times the longest trained one (schemes with
    no answer there, a learned table past its rows, are left out); empty without copy results."""
    if "copy_letters" not in results:
        return {}
    length = 2 * multiple * results["copy_letters"] + 1
    found = {}
    for scheme in SCHEME_ORDER:
        row = next((row for row in results["copy"].get(scheme, []) if row["length"] == length), None)
        if row is not None and row.get("accuracy") is not None:
            found[scheme] = row["accuracy"]
    return found


def passkey_accuracy(results: Mapping[str, Any], multiple: int = MULTIPLE) -> dict[str, float]:
    """Each scheme's passkey accuracy at ``multiple``·L tokens (schemes with none there left out); empty without
    passkey results."""
    length = multiple * results["train_length"]
    found = {}
    for scheme in SCHEME_ORDER:
        row = next((row for row in results.get("passkey", {}).get(scheme, []) if row["length"] == length), None)
        if row is not None and row.get("accuracy") is not None:
            found[scheme] = row["accuracy"]
    return found


def _mean_of(tables: Sequence[Mapping[str, float]]) -> dict[str, float]:
    """The mean of each scheme that every table holds."""
    return {s: sum(t[s] for t in tables) / len(tables) for s in tables[0] if all(s in t for t in tables)}


def _every(views_ratios: Sequence[Mapping[str, float | None]], holds) -> list[str]:
    """The schemes for which ``holds(ratio)`` is true in every seed (in the page's scheme order)."""
    return [s for s in views_ratios[0] if all(s in r and holds(r[s]) for r in views_ratios)]


def _same_order(tables: Sequence[Mapping[str, float]]) -> bool:
    """Whether every seed ranks its schemes the same way, smallest value first."""
    orders = [sorted(table, key=table.get) for table in tables]
    return all(order == orders[0] for order in orders)


def ours(views: Sequence[Mapping[str, Any]], mode: str = "sliding") -> list[str]:
    """What the shipped numbers of every seed say, in the same terms, and where they differ from the papers'
    ordering: a scheme is listed, and a point of disagreement made, only where every seed agrees; the numbers
    shown are the seeds' means."""
    first = views[0]
    each = [growth(view, mode) for view in views]
    held = _every(each, lambda r: r is not None and r <= 1 + TOLERANCE)
    broke = _every(each, lambda r: r is not None and r > 1 + TOLERANCE)
    none = _every(each, lambda r: r is None)
    mixed = [s for s in each[0] if s not in (*held, *broke, *none)]
    names = lambda schemes: ", ".join(scheme_name(s) for s in schemes) or _("none")  # noqa: E731
    finite = [{s: r for s, r in ratios.items() if r is not None} for ratios in each]
    ratios = {s: sum(f[s] for f in finite) / len(finite) for s in finite[0] if all(s in f for f in finite)}
    ranked = sorted(ratios, key=ratios.get)
    order = ", ".join(f"{scheme_name(s)} (×{ratios[s]:.2f})" for s in ranked)
    lines = [
        _(
            "**Ours** (L = {L}, {m}L = {n} tokens): within 10% of their loss at L: {held}; more than 10% worse: "
            "{broke}."
        ).format(
            L=first["train_length"],
            m=MULTIPLE,
            n=MULTIPLE * first["train_length"],
            held=names(held),
            broke=names(broke),
        ),
    ]
    if mixed:
        lines.append(_("{names}: within 10% in some seeds, not in others.").format(names=names(mixed)))
    if _same_order([{s: f[s] for s in ranked} for f in finite]):
        lines.append(_("From flattest to steepest: {order}.").format(order=order))
    else:
        lines.append(
            _("From flattest to steepest on average (the seeds differ in the order): {order}.").format(order=order)
        )
    if none:
        lines.append(_("{names}: no loss at {m}L (no row past L).").format(names=names(none), m=MULTIPLE))
    disagree = []
    copies = [copy_accuracy(view) for view in views]
    if all(copies):
        copied = _mean_of(copies)
        ranked_copy = sorted(copied, key=lambda s: -copied[s])
        lines.append(
            _("Copy, trained on strings of up to {n} letters and asked for {m}: {order}.").format(
                n=first["copy_letters"],
                m=COPY_MULTIPLE * first["copy_letters"],
                order=", ".join(f"{scheme_name(s)} {copied[s]:.0%}" for s in ranked_copy),
            )
        )
        if all("nope" in c and c["nope"] < sorted(c.values())[-2] for c in copies):
            disagree.append(_("on our copy task NoPE is not among the best two, where Kazemnejad et al. found it best"))
    keyed = [passkey_accuracy(view) for view in views]
    if all(keyed):
        found = _mean_of(keyed)
        lines.append(
            _("Passkey, trained within L and asked at {m}L = {n} tokens: {order}.").format(
                m=MULTIPLE,
                n=MULTIPLE * first["train_length"],
                order=", ".join(f"{scheme_name(s)} {found[s]:.0%}" for s in sorted(found, key=lambda s: -found[s])),
            )
        )
    if "alibi" in broke:
        disagree.append(_("ALiBi does not stay flat here, as it does in Press et al."))
    if "sinusoidal" in held:
        disagree.append(_("sinusoidal holds up here, where both papers found it fails first"))
    if disagree:
        lines.append(_("Where our tiny models disagree: {points}.").format(points="; ".join(disagree)))
    if len(views) > 1:
        lines.append(
            _("Across {seeds}: a scheme is named only where every seed agrees; the numbers are their means.").format(
                seeds=seeds_words(len(views))
            )
        )
    return lines
