"""The lab's data, generated here (nothing downloaded), the same bytes on every machine.

Three tasks:

- ``lm``, language modelling on a generated text of "records": a record names a few variables with short
  lower-case names and three-digit values (``let kuvo = 482.``), then talks about them in sentences drawn from a
  small grammar, repeating a variable's value wherever it names it (``so kuvo is 482 again.``). The words and
  grammar give local structure; a value repeated hundreds of bytes after its definition gives structure beyond
  any short trained length (a model that can look that far back predicts those digits).
- ``copy``, an exact task (Kazemnejad et al. 2023 style): ``<letters>|<the same letters>\\n`` over 52 letters (a
  and A differ: fewer repeated letters in a string, so fewer places where the next letter is ambiguous from the
  last one alone). Trained on strings up to one length and asked for longer ones, a model's accuracy on the
  copied half shows whether it generalises.
- ``passkey``, retrieval (after Mohtashami and Jaggi 2023): ``key 48213.`` set inside filler text, asked for at
  the end (``key? 48213``). Filler is the grammar's sentences, which hold no digit, so the digits after ``key?`` can
  come only from the one place they were set: a model that answers right at a distance d used what lay d bytes back.

Randomness is SplitMix64 (Steele et al. 2014), written out here, so that the bytes depend on nothing that can
change between Python or PyTorch versions; :data:`EVAL_SHA256` pins the held-out evaluation text.
"""

from __future__ import annotations

import hashlib

MASK = (1 << 64) - 1
LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"  # the copy task's alphabet
CONSONANTS, VOWELS = "bdfgklmnprstvz", "aeiou"
SUBJECTS = ("the river", "a small cat", "my neighbour", "the old clock", "every student", "the garden")
VERBS = ("watches", "follows", "counts", "remembers", "paints", "carries")
OBJECTS = ("the lanterns", "two letters", "a green box", "the morning bells", "some apples", "the last train")
LINKS = ("and then", "because", "while", "although", "so")

EVAL_SEED = 20261127  # the held-out text: the same seed on every machine
EVAL_BYTES = 1 << 16
EVAL_SHA256 = (
    "51280d3d62c411d9b15bf0ddeba4df47da33512b66388ec041a26091df577110"  # of generated_text(EVAL_BYTES, EVAL_SEED)
)


class SplitMix64:
    """A 64-bit generator with a fixed, documented output: z = (state += 0x9E3779B97F4A7C15), then two
    xor-shift-multiply rounds and a final xor-shift (Steele, Lea and Flood 2014; Vigna's reference code)."""

    def __init__(self, seed: int):
        self.state = seed & MASK

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """An integer in [0, n) (the top bits, by multiplication: no modulo bias worth a byte here)."""
        return (self.next() * n) >> 64

    def pick(self, options):
        return options[self.below(len(options))]


def _name(rng: SplitMix64) -> str:
    return "".join(rng.pick(CONSONANTS) + rng.pick(VOWELS) for _ in range(2))


def _record(rng: SplitMix64) -> str:
    """One record: its variables defined, then sentences that mention them again and again."""
    values = {_name(rng): 100 + rng.below(900) for _ in range(2 + rng.below(3))}
    lines = [f"let {name} = {value}." for name, value in values.items()]
    names = list(values)
    for _ in range(4 + rng.below(6)):
        sentence = f"{rng.pick(SUBJECTS)} {rng.pick(VERBS)} {rng.pick(OBJECTS)}"
        if rng.below(2):
            sentence += f" {rng.pick(LINKS)} {rng.pick(SUBJECTS)} {rng.pick(VERBS)} {rng.pick(OBJECTS)}"
        lines.append(sentence + ".")
        if rng.below(3) == 0:
            name = rng.pick(names)
            lines.append(f"so {name} is {values[name]} again.")
    return " ".join(lines) + "\n"


def generated_text(n_bytes: int, seed: int) -> bytes:
    """``n_bytes`` of records from ``seed`` (ASCII), cut at exactly ``n_bytes``."""
    if not isinstance(n_bytes, int) or isinstance(n_bytes, bool) or n_bytes < 1:
        raise ValueError(f"n_bytes must be a whole number of at least 1 (got {n_bytes!r})")
    rng, parts, size = SplitMix64(seed), [], 0
    while size < n_bytes:
        part = _record(rng)
        parts.append(part)
        size += len(part)
    return "".join(parts).encode("ascii")[:n_bytes]


def evaluation_text() -> bytes:
    """The held-out text every machine evaluates on, checked against :data:`EVAL_SHA256`."""
    text = generated_text(EVAL_BYTES, EVAL_SEED)
    digest = hashlib.sha256(text).hexdigest()
    if digest != EVAL_SHA256:
        raise RuntimeError(f"the evaluation text is not the pinned one (sha256 {digest}, expected {EVAL_SHA256})")
    return text


PASSKEY_DIGITS = 5
PASSKEY_SET, PASSKEY_ASK = "key ", "key? "  # "key 48213. " sets the passkey; "key? 48213\n" asks for it
PASSKEY_FIXED = len(PASSKEY_SET) + PASSKEY_DIGITS + 2 + len(PASSKEY_ASK) + PASSKEY_DIGITS + 1
"""The bytes of a passkey example that are not filler: ``key 48213. `` and ``key? 48213\n``."""


def filler(rng: SplitMix64, n_bytes: int) -> str:
    """``n_bytes`` of the grammar's sentences (no digits), cut at exactly ``n_bytes``."""
    parts, size = [], 0
    while size < n_bytes:
        sentence = f"{rng.pick(SUBJECTS)} {rng.pick(VERBS)} {rng.pick(OBJECTS)}. "
        parts.append(sentence)
        size += len(sentence)
    return "".join(parts)[:n_bytes]


def passkey_example(rng: SplitMix64, length: int, before: int) -> tuple[bytes, int]:
    """A passkey example of ``length`` + 1 bytes (``length`` inputs and one more target): ``before`` bytes of
    filler, ``key DDDDD. ``, filler, ``key? DDDDD\n``; and where the asked digits start. The passkey's distance (from
    its set digits to its asked ones) is then ``length - before - 9`` (:func:`passkey_distance`);
    ``before`` is at most ``length + 1 -``
    :data:`PASSKEY_FIXED` (no filler between)."""
    if not isinstance(length, int) or isinstance(length, bool) or length + 1 < PASSKEY_FIXED:
        raise ValueError(f"length must be a whole number of at least {PASSKEY_FIXED - 1} (got {length!r})")
    room = length + 1 - PASSKEY_FIXED
    if not isinstance(before, int) or isinstance(before, bool) or not 0 <= before <= room:
        raise ValueError(f"before must be a whole number from 0 to {room} for length {length} (got {before!r})")
    digits = "".join(str(rng.below(10)) for _ in range(PASSKEY_DIGITS))
    head = f"{filler(rng, before)}{PASSKEY_SET}{digits}. {filler(rng, room - before)}{PASSKEY_ASK}"
    return f"{head}{digits}\n".encode("ascii"), len(head)


def passkey_distance(length: int, before: int) -> int:
    """Bytes from a passkey's set digits to its asked digits in :func:`passkey_example`."""
    return length - PASSKEY_DIGITS - before - len(PASSKEY_SET)


def copy_example(rng: SplitMix64, length: int) -> tuple[bytes, int]:
    """``<letters>|<letters>\\n`` with ``length`` random letters, and where the copy starts (after the bar)."""
    if not isinstance(length, int) or isinstance(length, bool) or length < 1:
        raise ValueError(f"length must be a whole number of at least 1 (got {length!r})")
    letters = "".join(rng.pick(LETTERS) for _ in range(length))
    return f"{letters}|{letters}\n".encode("ascii"), length + 1
