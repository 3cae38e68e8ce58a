"""Extract the messages marked ``_()`` / ``N_()`` from the source and bring every catalogue up to date.

    python -m i18n.extract          # rewrite i18n/locales/templates/<area>.pot and <lang>/LC_MESSAGES/<area>.po
    python -m i18n.extract --check  # change nothing; exit 1 and list what is out of date
    python -m i18n.extract --area rope  # one area's files only

Babel reads the source (``babel.messages.extract``) and merges each area's template into its catalogues
(``Catalog.update``): a new message is added untranslated, a message no longer in the source is dropped, and a
translation whose English changed a little is kept but marked fuzzy (not shown until a translator checks it).
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_file
from babel.messages.pofile import read_po, write_po

from posenc.i18n.areas import AREAS, COMMON, SOURCE_ROOTS, area_of
from posenc.i18n.catalogues import LOCALE_DIRS, LOCALES

ROOT = Path(__file__).resolve().parents[2]  # the repository: extraction reads the source tree
KEYWORDS = {"_": None, "N_": None}
TEMPLATES = LOCALES / "templates"


def source_files(root: Path = ROOT) -> list[Path]:
    """Every Python file that can show text: app.py, pages/, ui/, figures/, i18n/."""
    files: list[Path] = []
    for name in SOURCE_ROOTS:
        path = root / name
        files += [path] if path.is_file() else sorted(path.rglob("*.py"))
    return [file for file in files if "__pycache__" not in file.parts]


def extract(root: Path = ROOT) -> dict[str, Catalog]:
    """Area -> a template catalogue of the messages its source marks, with their source lines."""
    templates = {area: Catalog(project="posenc", charset="utf-8") for area in [*AREAS, COMMON]}
    for file in source_files(root):
        relative = file.relative_to(root).as_posix()
        for line, message, _comments, _context in extract_from_file("python", str(file), KEYWORDS):
            templates[area_of(relative)].add(message, locations=[(relative, line)])
    return templates


def updated(template: Catalog, path: Path, locale: str) -> Catalog:
    """The catalogue at ``path`` (or a new one) merged with ``template``."""
    if path.exists():
        with path.open("rb") as handle:
            catalog = read_po(handle, locale=locale)
    else:
        catalog = Catalog(locale=locale, project="posenc", charset="utf-8")
    catalog.update(template, no_fuzzy_matching=False)
    catalog.obsolete.clear()
    return catalog


def rendered(catalog: Catalog) -> bytes:
    """The ``.po`` text: each message with the files that show it (no line numbers, so moving code is no change)."""
    buffer = io.BytesIO()
    write_po(
        buffer, catalog, width=120, omit_header=True, sort_output=False, ignore_obsolete=True, include_lineno=False
    )
    return buffer.getvalue()


def plan(root: Path = ROOT, areas: list[str] | None = None) -> dict[Path, bytes]:
    """Every template and catalogue file (of ``areas``, else all) with the contents it should have."""
    files: dict[Path, bytes] = {}
    for area, template in extract(root).items():
        if not len(template) or (areas and area not in areas):
            continue
        files[TEMPLATES / f"{area}.pot"] = rendered(template)
        for folder in LOCALE_DIRS.values():
            path = LOCALES / folder / "LC_MESSAGES" / f"{area}.po"
            files[path] = rendered(updated(template, path, folder))
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a file is out of date")
    parser.add_argument("--area", action="append", choices=[*AREAS, COMMON], help="only this area (repeatable)")
    args = parser.parse_args(argv)
    stale = []
    for path, contents in plan(areas=args.area).items():
        if not path.exists() or path.read_bytes() != contents:
            stale.append(path)
            if not args.check:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(contents)
    verb = "out of date" if args.check else "written"
    for path in stale:
        print(f"{verb}: {path.relative_to(ROOT)}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
