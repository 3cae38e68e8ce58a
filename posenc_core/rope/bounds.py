"""Two analyses of RoPE as a function of the base: RoFormer's long-term decay bound (also for any inv_freq, so
for the scaled variants: ``decay_bound_for_frequencies``), and the Men et al. bound
B(m) = Σ_i cos(m·θ_i), θ_i = base^(-2i/d), whose sign must stay >= 0 over the context for attention to
favour similar tokens at every distance (so the base bounds the context length).

B is evaluated at every m < L with the angle-addition identity: m = q + r with r < R, so
B(q + r) = Σ_i cos(qθ_i)cos(rθ_i) - sin(qθ_i)sin(rθ_i) is two (L/R x d/2) @ (d/2 x R) products, all in float64
(at m = 1e6 a float32 angle is off by 0.06 rad, enough to flip the sign of B near 0).

Ref: Su et al. 2021, arXiv 2104.09864 §3.4.3 (long-term decay); Men et al. 2024, "Base of RoPE Bounds
Context Length", arXiv 2405.14591 (Theorem 1, Table 1); Su 2024, kexue.fm/archives/10122 (finer search).
"""

from __future__ import annotations

import functools
import math
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import torch

from posenc_core._checks import check_float, check_float_dtype, check_int, check_vector
from posenc_core.device import resolve_device, work_dtype
from posenc_core.sampling import MAX_CURVE_POINTS

MAX_DISTANCES = 2**20 + 1
"""Most distances one ``decay_bound`` call evaluates (0 .. 2^20); pass ``num_points`` for longer ranges."""
MAX_BOUND_CONTEXT = 2**22
"""Largest ``context_len`` for ``base_bound_curve`` / ``min_base_for_context`` (4M positions)."""
_DECAY_BLOCK_ELEMENTS = 2**20  # (distances x frequencies) per block of the decay bound (16 MiB of complex128)
_ROWS = 256  # R: positions m = q + r are evaluated as a (columns x R) grid
_BLOCK = 64  # q values per block while looking for a violation (64 x 256 positions: most bases fail in the first)
_BATCH = 128  # grid bases screened against the known violating positions at once
_MAX_WITNESSES = 64  # violating positions remembered (most recent first)
_FIRST_WITNESSES = 4  # witnesses every screened base is evaluated at (the rest only for the bases they leave)
_THREADS_LOCK = threading.Lock()
_THREADS_USERS = 0  # searches running with one intra-op thread (the first sets it, the last restores it)
_THREADS_BEFORE = 1


def decay_bound(
    max_distance: int,
    head_dim: int,
    base: float = 10000.0,
    *,
    num_points: int | None = None,
    device=None,
    dtype: torch.dtype = torch.float32,
) -> tuple[torch.Tensor, torch.Tensor]:
    """(r, (1/(d/2)) Σ_{j=1}^{d/2} |S_j(r)|), S_j(r) = Σ_{k<j} e^{i·r·θ_k}: RoFormer's long-term decay bound.

    |Σ_i h_i e^{i r θ_i}| <= max_i |h_{i+1} - h_i| · Σ_j |S_j(r)|. At r = 0, |S_j| = j, so the value is its
    maximum (d/2 + 1)/2 (|S_j| <= j). Distances: every integer 0..max_distance, or ``num_points`` evenly spaced
    exact distances in [0, max_distance]. Both (n,). Ref: Su et al. 2021, arXiv 2104.09864 §3.4.3, Fig. 2.
    """
    max_distance = check_int("max_distance", max_distance, minimum=0)
    exponents, base, device, work = _check_rope(head_dim, base, device)
    dtype = check_float_dtype(dtype)
    if num_points is None:
        if max_distance + 1 > MAX_DISTANCES:
            raise ValueError(
                f"max_distance must be <= {MAX_DISTANCES - 1} for every integer distance (got {max_distance}); "
                "pass num_points for a sampled curve"
            )
        distances = torch.arange(max_distance + 1, device=device, dtype=work)
    else:
        num_points = check_int("num_points", num_points, minimum=1, maximum=MAX_DISTANCES)
        distances = torch.linspace(0, max_distance, num_points, device=device, dtype=work)
    theta = (base**-exponents).to(device=device, dtype=work)
    return distances.to(dtype), decay_bound_for_frequencies(theta, distances, device=device, dtype=dtype)


def decay_bound_for_frequencies(
    inv_freq, distances, *, device=None, dtype: torch.dtype = torch.float32
) -> torch.Tensor:
    """(1/n) Σ_{j=1}^{n} |S_j(r)|, S_j(r) = Σ_{i<j} e^{i·r·θ_i}, θ = inv_freq (n,), at each distance r. Shape (K,).

    RoFormer's long-term decay bound for any frequencies (default, linear, YaRN, Llama 3.1, ...); its value at
    r = 0 is its maximum (n + 1)/2. Summed in float64 (float32 on mps) over blocks of distances; ``distances``
    may be ints or floats >= 0. Ref: Su et al. 2021, arXiv 2104.09864 §3.4.3.
    """
    device, dtype = resolve_device(device), check_float_dtype(dtype)
    work = work_dtype(device)
    theta = check_vector("inv_freq", inv_freq, device=device, dtype=work)
    if theta.numel() == 0 or float(theta.min()) <= 0:
        got = "an empty sequence" if theta.numel() == 0 else f"a smallest value of {float(theta.min()):g}"
        raise ValueError(f"inv_freq must be a non-empty 1-D sequence of numbers > 0 (got {got})")
    r = check_vector("distances", distances, device=device, dtype=work, minimum=0)
    values = torch.empty_like(r)
    rows = max(1, _DECAY_BLOCK_ELEMENTS // theta.numel())
    for start in range(0, r.numel(), rows):
        angle = torch.outer(r[start : start + rows], theta)  # (rows, n)
        partial_sums = torch.complex(angle.cos(), angle.sin()).cumsum(dim=-1)  # S_1 .. S_n
        values[start : start + rows] = partial_sums.abs().mean(dim=-1)
    return values.to(dtype)


def base_bound(
    positions, head_dim: int, base: float = 10000.0, *, device=None, dtype: torch.dtype = torch.float32
) -> torch.Tensor:
    """B(m) = Σ_{i<d/2} cos(m · base^(-2i/d)) at the given positions (ints or floats). Shape (P,).

    (1/2σ²)·(E[q·R_m k*] - E[q·R_m k]) for k* = q + noise: > 0 when similar keys win at distance m.
    Ref: Men et al. 2024, arXiv 2405.14591, Theorem 1.
    """
    exponents, base, device, work = _check_rope(head_dim, base, device)
    dtype = check_float_dtype(dtype)
    try:
        m = torch.as_tensor(positions, dtype=torch.float64)
    except (TypeError, ValueError, RuntimeError) as error:
        raise ValueError(f"positions must be a 1-D sequence of numbers (got {type(positions).__name__})") from error
    if m.dim() != 1 or not bool(torch.isfinite(m).all()):
        raise ValueError(f"positions must be 1-D and finite (got shape {tuple(m.shape)})")
    m, theta = m.to(device=device, dtype=work), (base**-exponents).to(device=device, dtype=work)
    rows = 2**15
    parts = [torch.cos(torch.outer(m[s : s + rows], theta)).sum(-1) for s in range(0, m.numel(), rows)]
    return torch.cat(parts).to(dtype) if parts else torch.empty(0, device=device, dtype=dtype)


def base_bound_curve(
    context_len: int,
    head_dim: int,
    base: float = 10000.0,
    *,
    num_points: int = MAX_CURVE_POINTS,
    device=None,
    dtype: torch.dtype = torch.float32,
) -> tuple[torch.Tensor, torch.Tensor]:
    """(m, B(m)) for display: every m < context_len, or the argmin and argmax of B in each of num_points/2
    contiguous columns, so the global minimum and the true extent of the oscillation are kept.

    m is int64 and increasing; both (n,), n <= num_points. Ref: Men et al. 2024, arXiv 2405.14591, Fig. 3.
    """
    length = check_int("context_len", context_len, minimum=1, maximum=MAX_BOUND_CONTEXT)
    num_points = check_int("num_points", num_points, minimum=2)
    exponents, base, device, work = _check_rope(head_dim, base, device)
    dtype = check_float_dtype(dtype)
    values = _BoundGrid(length, exponents, device, work).values(base)
    if length <= num_points:
        return torch.arange(length, device=device), values.to(dtype)
    per_column = math.ceil(length / (num_points // 2))
    pad = per_column * math.ceil(length / per_column) - length
    low = torch.nn.functional.pad(values, (0, pad), value=math.inf).view(-1, per_column).argmin(dim=1)
    high = torch.nn.functional.pad(values, (0, pad), value=-math.inf).view(-1, per_column).argmax(dim=1)
    first = torch.arange(low.numel(), device=device) * per_column
    m = torch.unique(torch.cat((first + low, first + high)))  # sorted
    return m, values[m].to(dtype)


def min_base_for_context(
    context_len: int, head_dim: int, *, points_per_decade: int = 3000, rtol: float = 1e-6, max_base: float = 1e12
) -> float:
    """The smallest base found with B(m) = Σ_{i<d/2} cos(m·b^(-2i/d)) >= 0 for every integer m < context_len.

    Feasibility is not monotone in b (d = 128, 4k: 26953 passes, 27000 fails, 28629 passes), so bisection is
    wrong: the bases 10^(k/points_per_decade) are scanned upward, the first feasible one is refined by nested
    linear scans down to the last infeasible one until they are rtol apart, and it is checked at every m.
    Past ~100k the feasible bases begin as islands 1e-5 wide, so the result is the first island the grid
    hits (an upper bound; a finer grid can find a smaller base). d = 128: 4293 (1k), 1.159e4 (2k), 2.695e4 (4k),
    8.376e4 (8k), 2.341e5 (16k), 6.30e5 (32k), 2.09e6 (64k), 4.869e6 (128k), 2.64e7 (256k), 6.37e7 (512k),
    6.543e7 (1M): at or below the paper's Table 1, at or above Su's finer search (2.4e7 at 256k, 5.8e7 at 512k).
    context_len <= 2 works with any base (returns 1.0). The result depends on these five values only, so it is
    kept (:data:`SEARCHES_KEPT` of them): a figure swept over another parameter (the base, a scaling factor)
    searches once, not once a frame. Ref: Men et al. 2024, arXiv 2405.14591, Table 1.
    """
    length = check_int("context_len", context_len, minimum=1, maximum=MAX_BOUND_CONTEXT)
    points_per_decade = check_int("points_per_decade", points_per_decade, minimum=1, maximum=10**6)
    rtol = check_float("rtol", rtol, greater_than=0.0, maximum=0.1)
    max_base = check_float("max_base", max_base, greater_than=1.0)
    _check_rope(head_dim, 10000.0, "cpu")
    if length <= 2:  # B(0) = d/2 and B(1) >= (d/2)·cos(1) > 0 for every base > 1
        return 1.0
    return _smallest_base(length, int(head_dim), points_per_decade, rtol, max_base)


SEARCHES_KEPT = 64
"""Results of Men et al.'s search kept per process (a float each): a sweep's frames, a page's figures."""


@functools.lru_cache(maxsize=SEARCHES_KEPT)
def _smallest_base(length: int, head_dim: int, points_per_decade: int, rtol: float, max_base: float) -> float:
    """:func:`min_base_for_context` for checked arguments (a ValueError, none found, is not kept)."""
    exponents, _, _, _ = _check_rope(head_dim, 10000.0, "cpu")
    with _one_intra_op_thread():
        return _first_feasible_base(
            _BoundGrid(length, exponents, torch.device("cpu"), torch.float64), points_per_decade, rtol, max_base
        )


def _first_feasible_base(grid: _BoundGrid, points_per_decade: int, rtol: float, max_base: float) -> float:
    lo, k = 1.0, 1
    length = grid.length
    while True:
        bases = 10.0 ** (torch.arange(k, k + _BATCH, dtype=torch.float64) / points_per_decade)
        if float(bases[0]) > max_base:
            raise ValueError(
                f"no base up to max_base = {max_base:g} keeps B(m) >= 0 for every m < {length} "
                f"with head_dim {grid.exponents.numel() * 2}; raise max_base"
            )
        found = grid.first_feasible(bases)
        if found is not None:
            hi, lo = float(bases[found]), float(bases[found - 1]) if found else lo
            break
        lo, k = float(bases[-1]), k + _BATCH
    while hi - lo > rtol * hi:
        bases = torch.linspace(lo, hi, 17, dtype=torch.float64)[1:-1]
        found = grid.first_feasible(bases)
        if found is None:
            lo = float(bases[-1])
        else:
            lo, hi = float(bases[found - 1]) if found else lo, float(bases[found])
    if grid.violation(hi) is not None:  # pragma: no cover - first_feasible only returns checked bases
        raise RuntimeError(f"min_base_for_context: base {hi:g} failed its final check")
    return hi


@contextmanager
def _one_intra_op_thread() -> Iterator[None]:
    """The search runs thousands of small ops, and on a busy CPU OpenMP hand-offs cost more than the ops
    (d = 128, 1M: 1.2 s with one thread, 8-40 s with two on an oversubscribed 2-core machine). Searches in several
    threads run side by side: the lock only counts them (the first sets one thread, the last restores the count),
    so one reader's search never waits for another's."""
    global _THREADS_USERS, _THREADS_BEFORE
    with _THREADS_LOCK:  # held only to count the searches running, never while one runs
        if _THREADS_USERS == 0:
            _THREADS_BEFORE = torch.get_num_threads()
            torch.set_num_threads(1)
        _THREADS_USERS += 1
    try:
        yield
    finally:
        with _THREADS_LOCK:
            _THREADS_USERS -= 1
            if _THREADS_USERS == 0:
                torch.set_num_threads(_THREADS_BEFORE)


class _BoundGrid:
    """B(m; b) at every m < L as a (q, r) grid, m = q + r; remembers violating positions (witnesses)."""

    def __init__(self, length: int, exponents: torch.Tensor, device: torch.device, work: torch.dtype):
        self.length, self.exponents = length, exponents.to(device=device, dtype=work)
        rows = min(length, _ROWS)
        self.r = torch.arange(rows, device=device, dtype=work)
        self.q = torch.arange(0, length, rows, device=device, dtype=work)
        self.witnesses = torch.empty(0, device=device, dtype=work)

    def _theta(self, base: float) -> torch.Tensor:
        return torch.exp(-math.log(base) * self.exponents)

    def _block(self, theta: torch.Tensor, cos_r, sin_r, start: int, stop: int) -> torch.Tensor:
        """B at m = q[start:stop] + r, shape (stop - start, R); positions >= L set to +inf."""
        angle = torch.outer(self.q[start:stop], theta)
        block = angle.cos() @ cos_r.T - angle.sin() @ sin_r.T
        if stop == self.q.numel() and self.length % self.r.numel():
            block[-1, self.length % self.r.numel() :] = math.inf
        return block

    def values(self, base: float) -> torch.Tensor:
        """B(m) for every m < L. Shape (L,)."""
        theta = self._theta(base)
        angle = torch.outer(self.r, theta)
        block = self._block(theta, angle.cos(), angle.sin(), 0, self.q.numel())
        return block.reshape(-1)[: self.length]

    def violation(self, base: float) -> int | None:
        """An m < L with B(m) < 0 (searched from the end, where near-threshold bases fail), or None."""
        theta = self._theta(base)
        angle = torch.outer(self.r, theta)
        cos_r, sin_r = angle.cos(), angle.sin()
        for stop in range(self.q.numel(), 0, -_BLOCK):
            start = max(0, stop - _BLOCK)
            block = self._block(theta, cos_r, sin_r, start, stop)
            worst = int(block.argmin())
            if block.view(-1)[worst] < 0:
                m = self.q[start + worst // block.shape[1]] + self.r[worst % block.shape[1]]
                self.witnesses = torch.cat((m.view(1), self.witnesses))[:_MAX_WITNESSES]
                return int(m)
        return None

    def first_feasible(self, bases: torch.Tensor) -> int | None:
        """Index of the first base with B >= 0 at every m < L, or None; screens with the witnesses first."""
        theta = torch.exp(-bases.log().to(self.exponents)[:, None] * self.exponents)  # (G, d/2)
        alive = torch.ones(bases.numel(), dtype=torch.bool, device=theta.device)
        first, rest = self.witnesses[:_FIRST_WITNESSES], self.witnesses[_FIRST_WITNESSES:]
        if first.numel():  # most bases fail at a recent witness: the others are evaluated for the survivors only
            alive &= (torch.cos(first[None, :, None] * theta[:, None, :]).sum(-1) >= 0).all(dim=1)  # (G, W, d/2)
        if rest.numel() and bool(alive.any()):
            survivors = alive.nonzero().flatten()
            angle = rest[None, :, None] * theta[survivors, None, :]
            alive[survivors] = (angle.cos().sum(-1) >= 0).all(dim=1)
        while bool(alive.any()):
            j = int(alive.nonzero()[0])
            m = self.violation(float(bases[j]))
            if m is None:
                return j
            alive[j] = False
            alive &= torch.cos(m * theta).sum(-1) >= 0
        return None


def _check_rope(head_dim: int, base: float, device) -> tuple[torch.Tensor, float, torch.device, torch.dtype]:
    """(exponents 2i/d (d/2,) float64 on cpu, base, device, work dtype: float64, or float32 on mps)."""
    head_dim = check_int("head_dim", head_dim, minimum=2)
    if head_dim % 2:
        raise ValueError(f"head_dim (the rotary dimension) must be even (got {head_dim})")
    base = check_float("base", base, greater_than=1.0)
    device = resolve_device(device)
    exponents = torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim
    return exponents, base, device, torch.float32 if device.type == "mps" else torch.float64
