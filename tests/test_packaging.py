"""pyproject.toml: the package's metadata says what the project installs, tests and ships.

The dependency lists equal the requirements files `make` installs; every pinned version in constraints.txt (the
versions CI runs) satisfies them; the Python range is the one this suite runs on; every package folder is in the
wheel's package list.
"""

import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
with (ROOT / "pyproject.toml").open("rb") as handle:
    PYPROJECT = tomllib.load(handle)
PROJECT = PYPROJECT["project"]


def _requirements(name: str) -> set[str]:
    """The requirement lines of a requirements file (comments and ``-r`` includes left out), normalised."""
    lines = (line.split("#")[0].strip() for line in (ROOT / name).read_text().splitlines())
    return {str(Requirement(line)) for line in lines if line and not line.startswith("-")}


def _normalised(requirements: list[str]) -> set[str]:
    return {str(Requirement(text)) for text in requirements}


def test_the_runtime_dependencies_and_the_export_extra_are_requirements_txt():
    declared = _normalised(PROJECT["dependencies"]) | _normalised(PROJECT["optional-dependencies"]["export"])
    assert declared == _requirements("requirements.txt")


def test_the_dev_extra_is_requirements_dev_txt():
    assert _normalised(PROJECT["optional-dependencies"]["dev"]) == _requirements("requirements-dev.txt")
    assert "-r requirements.txt" in (ROOT / "requirements-dev.txt").read_text()


def test_every_requirement_is_pinned_in_the_constraints_to_a_version_it_allows():
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            pins[canonicalize_name(name)] = Version(version)
    for text in _requirements("requirements.txt") | _requirements("requirements-dev.txt"):
        requirement = Requirement(text)
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{requirement.name} has no pinned version in constraints.txt"
        assert requirement.specifier.contains(pins[name], prereleases=True), f"{name}=={pins[name]} vs {text}"


def test_the_python_range_claimed_is_the_one_this_suite_runs_on():
    running = Version(f"{sys.version_info.major}.{sys.version_info.minor}")
    assert SpecifierSet(PROJECT["requires-python"]).contains(running)
    listed = {
        Version(c.rsplit("::", 1)[1].strip())
        for c in PROJECT["classifiers"]
        if c.startswith("Programming Language :: Python :: 3.")
    }
    assert running in listed
    assert PROJECT["requires-python"] == f">={min(listed)}"  # no release below the lowest one listed
    assert PYPROJECT["tool"]["ruff"]["target-version"] == f"py{str(min(listed)).replace('.', '')}"


def test_every_package_folder_is_in_the_wheel():
    setuptools = PYPROJECT["tool"]["setuptools"]
    mapped = {package: ROOT / folder for package, folder in setuptools["package-dir"].items()}
    listed = {package: mapped.get(package, ROOT.joinpath(*package.split("."))) for package in setuptools["packages"]}
    for package, folder in listed.items():
        assert folder.is_dir(), f"{package}: no folder {folder}"
    folders_with_code = {
        path.parent for top in ("posenc", "posenc_core", "posenc_lab") for path in (ROOT / top).rglob("*.py")
    }
    missing = folders_with_code - set(listed.values())
    assert not missing, f"folders with Python files left out of [tool.setuptools] packages: {sorted(missing)}"


def test_the_console_script_and_the_licence():
    assert PROJECT["scripts"] == {"posenc": "posenc.commands.router:main"}
    assert PROJECT["license"] == "Apache-2.0"
    assert "Apache License" in (ROOT / "LICENSE").read_text()
    assert {"Homepage", "Source", "Changelog"} <= set(PROJECT["urls"])
