"""Check line coverage per package against its own floor, after pytest has written the coverage data.

pytest-cov's --cov-fail-under only looks at the total over every measured package, so a well-covered core
could hide an untested UI. This prints one line per package and exits non-zero naming each package under
its floor.

Usage (the Makefile's test target): python scripts/coverage_floors.py posenc_core=95 figures=90 ui=80
"""

from __future__ import annotations

import io
import sys

import coverage
from coverage.exceptions import NoDataError


def parse_floors(args: list[str]) -> dict[str, float]:
    """``["posenc_core=95", ...]`` -> ``{"posenc_core": 95.0, ...}``."""
    floors = {}
    for arg in args:
        package, sep, floor = arg.partition("=")
        if not sep or not package:
            raise SystemExit(f"coverage_floors: expected PACKAGE=PERCENT, got {arg!r}")
        try:
            floors[package] = float(floor)
        except ValueError:
            raise SystemExit(f"coverage_floors: floor for {package!r} is not a number: {floor!r}") from None
    return floors


def package_percent(cov: coverage.Coverage, package: str) -> float | None:
    """Line coverage of the files under ``package/`` in percent; None if none of them was measured."""
    try:
        return cov.report(include=[f"{package}/*"], file=io.StringIO(), ignore_errors=True)
    except NoDataError:
        return None


def main(args: list[str]) -> int:
    floors = parse_floors(args)
    if not floors:
        raise SystemExit(__doc__)
    cov = coverage.Coverage()  # reads [tool.coverage] in pyproject.toml and $COVERAGE_FILE like pytest-cov
    try:
        cov.load()
    except NoDataError:
        print("coverage_floors: no coverage data; run pytest with coverage first", file=sys.stderr)
        return 1
    under = []
    print("coverage per package (line coverage, floor):")
    for package, floor in floors.items():
        percent = package_percent(cov, package)
        if percent is None:
            print(f"  {package:<12} no data    (floor {floor:g}%)  FAIL: nothing under {package}/ was measured")
            under.append(package)
        elif percent < floor:
            print(f"  {package:<12} {percent:5.1f}%    (floor {floor:g}%)  FAIL")
            under.append(package)
        else:
            print(f"  {package:<12} {percent:5.1f}%    (floor {floor:g}%)  ok")
    if under:
        print(f"coverage_floors: under their floor: {', '.join(under)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
