#!/usr/bin/env python3
"""Run the examples of Markdown files and compare what they print with what the files show.

An example is marked by an HTML comment on the line before its fenced block (a comment is not
shown where the Markdown is rendered):

  <!-- doctest: console -->     lines "$ COMMAND" are run by bash, one after the other; the
                                lines under each, up to the next "$ ", are its expected output
  <!-- doctest: sh -->          the block is run by bash -e
  <!-- doctest: python -->      the block is run by --python (skipped, and said so, without it)
  <!-- doctest: output -->      the next block is the expected output of the last sh or python
                                block
  <!-- doctest: same-as PATH -->  every non-blank line of the block is in PATH (from the
                                repository root), in the same order, blanks aside: for excerpts
                                of a file the test suite builds and runs
  <!-- doctest: skip REASON -->  not run; REASON says why (it installs packages, needs a GPU...)

console and output markers take `vary="REGEX"` (any number): what varies between machines or
runs (thread counts, timings). Matches are replaced by <varies> in the expected and the actual
output alike before they are compared. Trailing blanks of each line and trailing blank lines
are ignored; everything else must be equal.

Commands run in a scratch folder holding links to the repository's examples/, tests/ and docs/,
with --bin-dir first on PATH (where the imghist command was built). Files named with
--every-block must mark every fenced block, so that no example there goes unchecked.

Usage: run_doc_examples.py [--root DIR] [--bin-dir DIR] [--python EXE] [--every-block FILE]...
                           FILE.md...
Exit status: 0 when every example printed what its file shows, 1 otherwise (each difference
is printed as a unified diff), 2 for a malformed marker.
"""
from __future__ import annotations

import argparse
import dataclasses
import difflib
import os
import pathlib
import re
import subprocess
import sys
import tempfile

MARKER = re.compile(r"^<!--\s*doctest:\s*(?P<kind>[a-z-]+)(?P<args>.*?)-->\s*$")
VARY = re.compile(r'vary="((?:[^"\\]|\\.)*)"')
KINDS = {"console", "sh", "python", "output", "same-as", "skip"}
VARIES = "<varies>"
TIMEOUT_S = 120


class MarkerError(Exception):
    pass


@dataclasses.dataclass
class Block:
    path: pathlib.Path
    line: int          # 1-based line of the opening fence
    kind: str | None   # the marker's kind, None for an unmarked block
    args: str
    text: str

    def where(self) -> str:
        return f"{self.path}:{self.line}"

    def varying(self) -> list[re.Pattern]:
        return [re.compile(v.replace('\\"', '"'), re.M) for v in VARY.findall(self.args)]


def parse_blocks(path: pathlib.Path) -> list[Block]:
    """Every fenced block of a Markdown file, with the marker on the line before it."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks, i = [], 0
    while i < len(lines):
        if not lines[i].startswith("```"):
            i += 1
            continue
        end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith("```")), None)
        if end is None:
            raise MarkerError(f"{path}:{i + 1}: a fenced block that never closes")
        marker = MARKER.match(lines[i - 1]) if i > 0 else None
        if i > 0 and lines[i - 1].lstrip().startswith("<!-- doctest") and not marker:
            raise MarkerError(f"{path}:{i}: malformed doctest marker: {lines[i - 1]}")
        kind = marker["kind"] if marker else None
        if kind is not None and kind not in KINDS:
            raise MarkerError(f"{path}:{i}: unknown doctest kind {kind!r} (known: {', '.join(sorted(KINDS))})")
        blocks.append(Block(path, i + 1, kind, marker["args"].strip() if marker else "",
                            "\n".join(lines[i + 1:end])))
        i = end + 1
    return blocks


def normalise(text: str, varying: list[re.Pattern]) -> list[str]:
    for pattern in varying:
        text = pattern.sub(VARIES, text)
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def compare(block: Block, expected: str, actual: str, what: str) -> list[str]:
    """A difference report, empty when the outputs agree."""
    want, got = normalise(expected, block.varying()), normalise(actual, block.varying())
    if want == got:
        return []
    diff = difflib.unified_diff(want, got, "shown in the file", "printed now", lineterm="")
    return ["\n".join([f"{block.where()}: {what} printed something else than the file shows:", *diff])]


@dataclasses.dataclass
class Runner:
    root: pathlib.Path
    bin_dir: pathlib.Path | None
    python: str | None
    scratch: pathlib.Path

    def environment(self) -> dict[str, str]:
        env = dict(os.environ)
        if self.bin_dir:
            env["PATH"] = f"{self.bin_dir}{os.pathsep}{env.get('PATH', '')}"
        env.setdefault("PYTHONHASHSEED", "0")
        return env

    def run(self, argv: list[str], stdin: str | None = None) -> tuple[int, str]:
        done = subprocess.run(argv, input=stdin, cwd=self.scratch, env=self.environment(), text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=TIMEOUT_S)
        return done.returncode, done.stdout


def split_console(text: str) -> list[tuple[str, str]]:
    """(command, expected output) pairs of a console block."""
    pairs: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("$ "):
            pairs.append((line[2:], []))
        elif pairs:
            pairs[-1][1].append(line)
        elif line.strip():
            raise MarkerError(f"output before the first '$ ' command: {line}")
    return [(command, "\n".join(output)) for command, output in pairs]


def check_console(runner: Runner, block: Block) -> list[str]:
    problems = []
    for command, expected in split_console(block.text):
        rc, out = runner.run(["bash", "-c", command])
        if rc != 0:
            problems.append(f"{block.where()}: `{command}` exited with status {rc}:\n{out}")
        problems += compare(block, expected, out, f"`{command}`")
    return problems


def check_same_as(runner: Runner, block: Block) -> list[str]:
    """Every non-blank line of the excerpt is in the file, in order; runs of blanks (line breaks
    and indentation included) count as one space, so an excerpt may wrap a long line."""
    source = runner.root / block.args
    if not source.is_file():
        return [f"{block.where()}: same-as names {block.args}, which does not exist"]
    text, at = " ".join(source.read_text(encoding="utf-8").split()), 0
    for line in (" ".join(l.split()) for l in block.text.splitlines() if l.strip()):
        found = text.find(line, at)
        if found < 0:
            return [f"{block.where()}: this line is not in {block.args} (in this order): {line}"]
        at = found + len(line)
    return []


def run_file(runner: Runner, path: pathlib.Path, every_block: bool) -> tuple[list[str], int, list[str]]:
    """(problems, examples run, skipped notes) of one Markdown file."""
    problems, skipped, ran = [], [], 0
    last_output: tuple[Block, str] | None = None
    for block in parse_blocks(path):
        if block.kind is None:
            if every_block:
                problems.append(f"{block.where()}: a block without a doctest marker (every block of "
                                f"{path.name} must say how it is checked, or `skip REASON`)")
            continue
        if block.kind == "skip":
            if not block.args:
                problems.append(f"{block.where()}: `doctest: skip` needs a reason")
            continue
        if block.kind == "output":
            if last_output is None:
                problems.append(f"{block.where()}: an output block with no sh or python block before it")
            elif last_output[1] is not None:
                problems += compare(block, block.text, last_output[1], f"the block at line {last_output[0].line}")
            last_output = None
            continue
        ran += 1
        if block.kind == "console":
            problems += check_console(runner, block)
        elif block.kind == "same-as":
            problems += check_same_as(runner, block)
        elif block.kind == "python" and runner.python is None:
            skipped.append(f"{block.where()}: python block skipped (no --python)")
            last_output, ran = (block, None), ran - 1
        else:
            argv = ["bash", "-e"] if block.kind == "sh" else [runner.python, "-"]
            rc, out = runner.run(argv, stdin=block.text + "\n")
            if rc != 0:
                problems.append(f"{block.where()}: the {block.kind} block exited with status {rc}:\n{out}")
            last_output = (block, out)
    return problems, ran, skipped


def make_scratch(root: pathlib.Path, scratch: pathlib.Path) -> None:
    for name in ("examples", "tests", "docs"):
        if (root / name).exists():
            (scratch / name).symlink_to(root / name)


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("files", nargs="+", type=pathlib.Path)
    p.add_argument("--root", type=pathlib.Path, default=pathlib.Path(__file__).resolve().parents[2])
    p.add_argument("--bin-dir", type=pathlib.Path, help="put first on PATH (where imghist was built)")
    p.add_argument("--python", help="the interpreter of python blocks (with imghist importable)")
    p.add_argument("--every-block", action="append", default=[], type=pathlib.Path,
                   help="a file whose every fenced block must carry a marker")
    args = p.parse_args(argv)
    every = {f.resolve() for f in args.every_block}
    problems, ran = [], 0
    with tempfile.TemporaryDirectory(prefix="imghist-doctest-") as scratch:
        make_scratch(args.root.resolve(), pathlib.Path(scratch))
        runner = Runner(args.root.resolve(), args.bin_dir.resolve() if args.bin_dir else None,
                        args.python, pathlib.Path(scratch))
        for path in args.files:
            try:
                found, count, skipped = run_file(runner, path, path.resolve() in every)
            except MarkerError as e:
                print(f"error: {e}", file=sys.stderr)
                return 2
            problems += found
            ran += count
            for note in skipped:
                print(note)
    for problem in problems:
        print(problem)
    print(f"{ran} examples run in {len(args.files)} files: "
          + ("every one printed what its file shows" if not problems else f"{len(problems)} problems"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
