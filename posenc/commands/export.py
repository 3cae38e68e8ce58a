"""Export any figure of the app, with a preset and parameter overrides, to PNG / SVG / PDF / HTML / CSV / NPY.

    posenc export list
    posenc export rope-angles --preset llama-3.1-8b --set seq_len=131072 --format png svg
    posenc export all --format pdf --size column --out figures-for-paper/
    posenc export alibi-bias --format png --style slides-dark --size slide
    posenc export rope-angles --lang ko --format png pdf     # titles and labels in Korean
    posenc export rope-wavelengths --sweep base=10000..1000000:12 --format gif mp4 html --size slide

A sweep (--sweep NAME=FROM..TO:FRAMES) steps one numeric parameter through a range, every frame built as the still
figure is: GIF and MP4 (size screen or slide) for slides, the animated HTML (offline), or the frames side by side in
one PNG / SVG / PDF for a paper. Frames are spaced geometrically for a parameter that spans decades (base, factor).

Images are drawn on the page of a size preset (--size): screen (1200 px wide, as in the app), slide (16:9,
13.33 x 7.5 in; PNG 1920 x 1080), column (3.5 in, 9 pt text) or two-columns (7 in); a PDF's page is that size.
The figures are built by the same registry as the app (:mod:`drawing.registry`), so a file equals what the
app shows for the same parameters. One browser is started for the whole call, not one per file.

A sweep written to a file keeps every frame asked for (at most 60) up to 64 MB of figure data (a page in the app
sends at most 3 MB, and shows fewer frames past it), and at most 2**32 units of work (a position × a rotary pair:
the plan figure's target 16M at 60 frames is over it, and keeps fewer frames, said). Bad input is one line on
stderr, exit status 2; Ctrl-C stops the export with one line, exit status 130.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from posenc import figures, i18n
from posenc.drawing import export, registry
from posenc.drawing.animate import MAX_FILE_SWEEP_BYTES, animate
from posenc.drawing.export_sweep import MOVIE_FORMATS, SWEEP_FORMATS, export_sweep
from posenc.drawing.params import PARAMS
from posenc.drawing.preset_params import params_from_preset
from posenc.drawing.sweep import check_sweep, parse_sweep
from posenc.drawing.theme import SIZES
from posenc_core.models import presets

BAD_INPUT = 2  # as argparse's own refusals, and posenc plan, lab and config
INTERRUPTED = 130  # the shell's status for a process stopped by Ctrl-C (128 + SIGINT)


class CliError(Exception):
    """A user error: printed as one line, exit status 2."""


def main(argv: list[str] | None = None) -> int:
    """Run ``posenc export`` on ``argv``: 0 on success, 2 on bad input, 130 when interrupted (Ctrl-C)."""
    figures.register_all()  # the command starts here: every figure family, before the parser lists them
    args = _parser().parse_args(argv)
    try:
        if args.figures == ["list"]:
            _list_figures()
            return 0
        return _export(args)
    except CliError as error:
        print(f"posenc export: error: {error}", file=sys.stderr)
        return BAD_INPUT
    except KeyboardInterrupt:  # the files written so far stay; the one being written may be cut short
        print("posenc export: interrupted", file=sys.stderr)
        return INTERRUPTED


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="posenc export", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("figures", nargs="+", help="figure ids (see 'list'), or 'all', or 'list'")
    parser.add_argument("--preset", help=f"a model preset: {', '.join(presets.PRESETS)}")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="override a parameter")
    parser.add_argument("--format", nargs="+", default=["png"], choices=export.FORMATS + MOVIE_FORMATS, dest="formats")
    parser.add_argument(
        "--sweep", metavar="NAME=FROM..TO:FRAMES", help="animate one numeric parameter (e.g. base=10000..1000000:12)"
    )
    parser.add_argument("--out", default="exports", help="output folder (created if missing)")
    parser.add_argument("--style", default="screen", choices=PARAMS["theme"].choices, help="figure style")
    parser.add_argument("--size", default="screen", choices=list(SIZES), help="image size preset (the page)")
    parser.add_argument(
        "--lang", default=i18n.DEFAULT, choices=list(i18n.LANGUAGES), help="language of the text in the figures"
    )
    parser.add_argument(
        "--scale", type=float, help="PNG pixels per CSS pixel (default: the size's: 2 screen, 1.5 slide, 300 dpi paper)"
    )
    return parser


def _list_figures() -> None:
    for spec in registry.FIGURES.values():
        print(f"{spec.id:32s} {spec.title}  [page: {spec.page}; parameters: {', '.join(spec.params)}]")


def _export(args: argparse.Namespace) -> int:
    figure_ids = list(registry.FIGURES) if args.figures == ["all"] else args.figures
    for figure_id in figure_ids:
        if figure_id not in registry.FIGURES:
            raise CliError(f"unknown figure {figure_id!r}; run 'posenc export list' to see them")
    given = {**_preset_values(args.preset), **_overrides(args.set)}
    _check_sweep(args, figure_ids)
    out = _output_folder(args.out)
    needs_browser = any(fmt in export.IMAGE_FORMATS + MOVIE_FORMATS for fmt in args.formats)
    if needs_browser:
        try:
            export.image_browser()
        except ValueError as error:  # none, or one that does not start: the message says how to get one
            raise CliError(str(error)) from error
        export.start_browser_server()
    try:
        with i18n.language(args.lang):
            for figure_id in figure_ids:
                _export_one(figure_id, given, args, out)
    finally:
        if needs_browser:
            export.stop_browser_server()
    return 0


def _check_sweep(args: argparse.Namespace, figure_ids: list[str]) -> None:
    """Refuse a bad sweep or a format it cannot take before a browser is started (one line, status 2)."""
    if args.sweep is None:
        movies = [fmt for fmt in args.formats if fmt in MOVIE_FORMATS]
        if movies:
            raise CliError(
                f"--format {' '.join(movies)} needs --sweep NAME=FROM..TO:FRAMES (a still figure is no movie)"
            )
        return
    other = [fmt for fmt in args.formats if fmt not in SWEEP_FORMATS]
    if other:
        raise CliError(f"a sweep is written as {', '.join(SWEEP_FORMATS)}; not {', '.join(other)}")
    if any(fmt in MOVIE_FORMATS for fmt in args.formats) and args.size not in ("screen", "slide"):
        raise CliError(f"GIF and MP4 are drawn at --size screen or slide (got {args.size})")
    for figure_id in figure_ids:
        try:
            check_sweep(parse_sweep(args.sweep), figure_id)
        except ValueError as error:
            raise CliError(f"{figure_id}: {error}") from error


def _export_sweep(figure_id: str, params: dict[str, Any], args: argparse.Namespace, out: Path) -> None:
    try:
        sweep = check_sweep(parse_sweep(args.sweep), figure_id)
        swept = animate(figure_id, params, sweep, style=args.style, budget=MAX_FILE_SWEEP_BYTES)
    except ValueError as error:
        raise CliError(f"{figure_id}: {error}") from error
    for note in swept.notes:
        print(f"{figure_id}: {note}")
    stem = registry.file_stem(figure_id, params, args.preset) + f"_sweep-{sweep.param}-{len(swept.values)}"
    for fmt in args.formats:
        try:
            exported = export_sweep(swept, fmt, style=args.style, size=args.size)
        except ValueError as error:
            raise CliError(f"{figure_id}: {error}") from error
        named = export.file_stem(stem, "png" if fmt in MOVIE_FORMATS else fmt, args.style, args.size, args.lang)
        _write(out / f"{named}.{exported.extension}", exported)


def _write(path: Path, exported: export.ExportedFile) -> None:
    try:
        path.write_bytes(exported.content)
    except OSError as error:
        raise CliError(f"cannot write {path}: {error.strerror}") from error
    print(f"wrote {path} ({len(exported.content):,} bytes, {exported.renderer})", flush=True)  # each file, as written


def _export_one(figure_id: str, given: dict[str, Any], args: argparse.Namespace, out: Path) -> None:
    params, _ = registry.resolve_params(figure_id, given)
    if args.sweep is not None:
        _export_sweep(figure_id, params, args, out)
        return
    try:
        result = registry.build(figure_id, params, style=args.style)
    except ValueError as error:
        raise CliError(f"{figure_id}: {error}") from error
    stem = registry.file_stem(figure_id, params, args.preset)
    for fmt in args.formats:
        if fmt in ("csv", "npy") and not result.data:
            print(f"{figure_id}: no data behind this figure; skipping {fmt}")
            continue
        exported = export.export(result, fmt, style=args.style, size=args.size, scale=args.scale, language=args.lang)
        _write(out / f"{export.file_stem(stem, fmt, args.style, args.size, args.lang)}.{exported.extension}", exported)


def _preset_values(name: str | None) -> dict[str, Any]:
    if name is None:
        return {}
    try:
        return params_from_preset(presets.get_preset(name))
    except ValueError as error:
        raise CliError(str(error)) from error


def _overrides(pairs: list[str]) -> dict[str, Any]:
    values = {}
    for pair in pairs:
        name, sep, raw = pair.partition("=")
        if not sep:
            raise CliError(f"--set takes NAME=VALUE (got {pair!r})")
        if name not in PARAMS:
            raise CliError(f"unknown parameter {name!r}; known: {', '.join(sorted(PARAMS))}")
        try:
            values[name] = PARAMS[name].parse(raw)
        except ValueError as error:
            raise CliError(f"bad parameter: {error}") from error
    return values


def _output_folder(folder: str) -> Path:
    path = Path(folder)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise CliError(f"cannot create output folder {path}: {error.strerror}") from error
    if not path.is_dir():
        raise CliError(f"output path {path} is not a folder")
    return path


if __name__ == "__main__":  # python -m posenc.export (the old name), python -m posenc.commands.export
    sys.exit(main())
