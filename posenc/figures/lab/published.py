"""What the papers found, in words, beside what our tiny models show, computed from the results (not written in).

- Press, Smith and Lewis 2022 (ALiBi, ICLR), Fig. 1: language models trained at L = 512 and 1024 tokens on
  WikiText-103, evaluated on longer inputs. Sinusoidal perplexity climbs within tens of tokens past L, rotary
  within a hundred or two, the T5 bias later, and ALiBi stays flat far past L.
- Kazemnejad et al. 2023 (NeurIPS), "The Impact of Positional Encoding on Length Generalization in
  Transformers": on synthetic tasks (copy, addition, ...) NoPE and the T5 bias generalised best, ALiBi and RoPE
  less, and absolute encodings (sinusoidal, learned) worst.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from posenc.figures.lab.common import scheme_name
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


def ours(results: Mapping[str, Any], mode: str = "sliding") -> list[str]:
    """What the shipped numbers say, in the same terms, and where they differ from the papers' ordering."""
    ratios = growth(results, mode)
    held = [s for s, r in ratios.items() if r is not None and r <= 1 + TOLERANCE]
    broke = [s for s, r in ratios.items() if r is not None and r > 1 + TOLERANCE]
    none = [s for s, r in ratios.items() if r is None]
    names = lambda schemes: ", ".join(scheme_name(s) for s in schemes) or _("none")  # noqa: E731
    ranked = sorted((s for s in ratios if ratios[s] is not None), key=lambda s: ratios[s])
    lines = [
        _(
            "**Ours** (L = {L}, {m}L = {n} tokens): within 10% of their loss at L: {held}; more than 10% worse: "
            "{broke}."
        ).format(
            L=results["train_length"],
            m=MULTIPLE,
            n=MULTIPLE * results["train_length"],
            held=names(held),
            broke=names(broke),
        ),
        _("From flattest to steepest: {order}.").format(
            order=", ".join(f"{scheme_name(s)} (×{ratios[s]:.2f})" for s in ranked)
        ),
    ]
    if none:
        lines.append(_("{names}: no loss at {m}L (no row past L).").format(names=names(none), m=MULTIPLE))
    disagree = []
    copied = copy_accuracy(results)
    if copied:
        ranked_copy = sorted(copied, key=lambda s: -copied[s])
        lines.append(
            _("Copy, trained on strings of up to {n} letters and asked for {m}: {order}.").format(
                n=results["copy_letters"],
                m=COPY_MULTIPLE * results["copy_letters"],
                order=", ".join(f"{scheme_name(s)} {copied[s]:.0%}" for s in ranked_copy),
            )
        )
        if "nope" in copied and copied["nope"] < sorted(copied.values())[-2]:
            disagree.append(_("on our copy task NoPE is not among the best two, where Kazemnejad et al. found it best"))
    if "alibi" in broke:
        disagree.append(_("ALiBi does not stay flat here, as it does in Press et al."))
    if "sinusoidal" in held:
        disagree.append(_("sinusoidal holds up here, where both papers found it fails first"))
    if disagree:
        lines.append(_("Where our tiny models disagree: {points}.").format(points="; ".join(disagree)))
    return lines
