"""The type stub (imghist/__init__.pyi) writes the request's keywords once, in TypedDicts
taken with Unpack, and every function's stub accepts exactly the keywords the function does."""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from pathlib import Path

import pytest

import imghist

STUB = Path(imghist.__file__).with_name("__init__.pyi")


def _tree() -> ast.Module:
    return ast.parse(STUB.read_text())


def _typed_dicts(tree: ast.Module) -> dict:
    """name -> its keys (those of its bases included), for each TypedDict: the classes *Keywords."""
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    keys: dict = {}

    def keys_of(name: str) -> set:
        if name not in keys:
            node = classes[name]
            own = {s.target.id for s in node.body if isinstance(s, ast.AnnAssign)}
            bases = [b.id for b in node.bases if isinstance(b, ast.Name) and b.id in classes]
            keys[name] = own.union(*(keys_of(b) for b in bases))
        return keys[name]

    for name in classes:
        if name.endswith("Keywords"):
            keys_of(name)
    return keys


def _functions(tree: ast.Module) -> dict:
    """'name' or 'Class.name' -> its FunctionDef."""
    found = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    for cls in (node for node in tree.body if isinstance(node, ast.ClassDef)):
        found.update({f"{cls.name}.{f.name}": f for f in cls.body if isinstance(f, ast.FunctionDef)})
    return found


def _stub_keywords(function: ast.FunctionDef, typed_dicts: dict) -> set:
    args = function.args
    names = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs} - {"self"}
    if args.kwarg is not None:
        unpacked = ast.unparse(args.kwarg.annotation)
        names |= typed_dicts[re.fullmatch(r"Unpack\[(\w+)\]", unpacked).group(1)]
    return names


def _runtime_keywords(function) -> set:
    """The parameters a function takes: its signature, or nanobind's (the docstring's first line)."""
    try:
        names = set(inspect.signature(function).parameters) - {"self"}
        if names != {"args", "kwargs"}:  # some Pythons see a nanobind function as (*args, **kwargs)
            return names
    except (TypeError, ValueError):
        pass
    first = function.__doc__.splitlines()[0]
    return set(re.findall(r"(?:\(|, )\*?(\w+)(?=[:,)=])", first)) - {"self"}


def test_the_request_keywords_are_written_once():
    tree = _tree()
    request = _typed_dicts(tree)["RequestKeywords"]
    assert {"mode", "bins", "range", "ev", "clamp", "weights", "alpha", "roi", "tiles", "mask",
            "alpha_threshold", "extremes"} <= request
    for name, function in _functions(tree).items():
        args = function.args
        spelled = {a.arg for a in args.args + args.kwonlyargs}
        assert not spelled & request, f"{name} spells out {sorted(spelled & request)}: take **request: Unpack[...]"


@pytest.mark.parametrize("name", ["histogram", "histogram_batch", "histogram_file", "histogram_files",
                                  "Engine.histogram", "Engine.histogram_batch", "Engine.histogram_file"])
def test_each_function_s_stub_takes_its_keywords(name):
    tree = _tree()
    stub = _stub_keywords(_functions(tree)[name], _typed_dicts(tree))
    owner, _, attribute = name.rpartition(".")
    function = getattr(getattr(imghist, owner) if owner else imghist, attribute)
    assert stub == _runtime_keywords(function)


def test_a_type_checker_reads_the_keywords_from_the_typed_dicts(tmp_path):
    """mypy, on calls through the stub: the TypedDicts' keywords and types are checked."""
    api = pytest.importorskip("mypy.api")
    (tmp_path / "use.py").write_text(textwrap.dedent("""
        import numpy as np
        import imghist
        image = np.zeros((4, 4, 3), np.uint8)
        h = imghist.histogram(image, mode="rgb", bins=16, range=(0, 256), backend="cpu")
        imghist.Engine("cpu").histogram(image, extremes=True, stream=None)
        imghist.histogram_files(["a.png"], progress=True, max_pixels=10, mode="luma")
        imghist.histogram(image, mode=3)
        imghist.histogram_file("a.png", modes="rgb")
        """))
    out, _, status = api.run([str(tmp_path / "use.py"), "--no-incremental", "--cache-dir", str(tmp_path / "cache")])
    errors = [line.split(": error: ")[1] for line in out.splitlines() if ": error: " in line]
    assert status == 1 and len(errors) == 2, out
    assert 'Argument "mode" to "histogram" has incompatible type "int"' in errors[0]
    assert 'Unexpected keyword argument "modes" for "histogram_file"' in errors[1]
