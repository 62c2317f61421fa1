#!/usr/bin/env python3
"""Print the test files of a pytest folder that this interpreter cannot import, one absolute
path a line, for scripts/gpu/python.sh to pass as --ignore=PATH.

The GPU machine has no package registry: what is not installed there (dask and distributed,
matplotlib, ...) cannot be added, and one test file that fails to import stops pytest's whole
collection, whatever -k or paths the run was given. A file is left out when one of its
module-level imports (outside try/if) names a top-level module that cannot be found. Helpers
beside the tests (images.py, conftest.py) count as found. imghist itself never leaves a file
out (nor do numpy and pytest): a package that does not import is a failure to report, not a
test to skip.

Usage: unimportable_tests.py [FOLDER...]   (default: python/tests)
"""
from __future__ import annotations

import ast
import importlib.util
import pathlib
import sys

# The package under test, its own requirement and the runner: missing, they are failures to report.
ALWAYS_PRESENT = {"imghist", "numpy", "pytest", "__future__"}


def module_level_imports(source: str) -> set[str]:
    """Top-level module names imported unconditionally at a module's top level."""
    names: set[str] = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def missing_modules(path: pathlib.Path) -> list[str]:
    local = {p.stem for p in path.parent.glob("*.py")}
    wanted = module_level_imports(path.read_text(encoding="utf-8")) - ALWAYS_PRESENT - local
    return sorted(name for name in wanted if importlib.util.find_spec(name) is None)


def unimportable(folder: pathlib.Path) -> list[tuple[pathlib.Path, list[str]]]:
    found = []
    for path in sorted(folder.glob("test_*.py")):
        missing = missing_modules(path)
        if missing:
            found.append((path.resolve(), missing))
    return found


def main(argv: list[str]) -> int:
    folders = [pathlib.Path(a) for a in argv] or [pathlib.Path("python/tests")]
    for folder in folders:
        for path, missing in unimportable(folder):
            print(path)
            print(f"{path.name}: left out, this machine lacks {', '.join(missing)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
