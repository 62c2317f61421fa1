#!/usr/bin/env python3
"""The doc-example runner passes a file whose examples print what it shows, and fails it, with
a diff, as soon as one example prints something else (ctest: Docs.RunnerFailsWhenOutputChanges).

With IMGHIST_BIN_DIR (where the imghist command was built), it also runs the README with one
figure of its sample output changed, which must fail, and the README as it is, which must pass.
"""
from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = pathlib.Path(__file__).resolve().parent
RUNNER = HERE / "run_doc_examples.py"
ROOT = HERE.parents[1]
FENCE = "```"


def run(markdown: str, *options: str, name: str = "doc.md", every_block: bool = False,
        extra: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """The runner over one Markdown text (FENCE stands for the three backticks)."""
    with tempfile.TemporaryDirectory() as folder:
        root = pathlib.Path(folder)
        for relative, text in (extra or {}).items():
            (root / relative).write_text(text, encoding="utf-8")
        doc = root / name
        doc.write_text(textwrap.dedent(markdown).replace("FENCE", FENCE), encoding="utf-8")
        argv = [sys.executable, str(RUNNER), "--root", folder, *options, str(doc)]
        if every_block:
            argv += ["--every-block", str(doc)]
        return subprocess.run(argv, text=True, capture_output=True, timeout=120)


CONSOLE = """\
    <!-- doctest: console -->
    FENCEconsole
    $ printf 'threads: 2\\nmean 96.33\\n'
    threads: 2
    mean 96.33
    FENCE
    """


class Runner(unittest.TestCase):
    def assert_passes(self, done: subprocess.CompletedProcess) -> None:
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)

    def assert_fails(self, done: subprocess.CompletedProcess, *shown: str) -> None:
        self.assertEqual(done.returncode, 1, done.stdout + done.stderr)
        for text in shown:
            self.assertIn(text, done.stdout)

    def test_console_output_as_shown_passes(self):
        self.assert_passes(run(CONSOLE))

    def test_console_output_changed_fails_with_a_diff(self):
        changed = CONSOLE.replace("    mean 96.33\n    FENCE", "    mean 96.34\n    FENCE")
        self.assert_fails(run(changed), "printed something else", "-mean 96.34", "+mean 96.33")

    def test_a_varying_part_is_ignored_only_where_marked(self):
        shown = CONSOLE.replace("    threads: 2\n    mean", "    threads: 16\n    mean")
        self.assert_fails(run(shown), "-threads: 16")
        marked = shown.replace("console -->", 'console vary="threads: \\d+" -->')
        self.assert_passes(run(marked))

    def test_failing_command_fails(self):
        self.assert_fails(run("<!-- doctest: console -->\nFENCE\n$ false\nFENCE\n"), "exited with status 1")

    def test_sh_block_and_its_output(self):
        doc = """\
            <!-- doctest: sh -->
            FENCEsh
            for i in 1 2 3; do echo "line $i"; done
            FENCE
            <!-- doctest: output -->
            FENCE
            line 1
            line 2
            line 3
            FENCE
            """
        self.assert_passes(run(doc))
        self.assert_fails(run(doc.replace("line 3\n", "line three\n")), "-line three", "+line 3")

    def test_python_block_needs_an_interpreter_and_is_compared(self):
        doc = "<!-- doctest: python -->\nFENCEpython\nprint(6 * 7)\nFENCE\n<!-- doctest: output -->\nFENCE\n42\nFENCE\n"
        skipped = run(doc)
        self.assert_passes(skipped)
        self.assertIn("python block skipped", skipped.stdout)
        self.assert_passes(run(doc, "--python", sys.executable))
        self.assert_fails(run(doc.replace("\n42\n", "\n41\n"), "--python", sys.executable), "-41", "+42")

    def test_same_as_checks_an_excerpt_in_order_across_wrapped_lines(self):
        source = {"example.cpp": "int main() {\n    call(first_argument, second_argument);\n    return 0;\n}\n"}
        excerpt = "<!-- doctest: same-as example.cpp -->\nFENCEcpp\ncall(first_argument,\n     second_argument);\nreturn 0;\nFENCE\n"
        self.assert_passes(run(excerpt, extra=source))
        self.assert_fails(run(excerpt.replace("return 0", "return 1"), extra=source), "return 1")
        swapped = "<!-- doctest: same-as example.cpp -->\nFENCE\nreturn 0;\nint main() {\nFENCE\n"
        self.assert_fails(run(swapped, extra=source), "int main() {")

    def test_every_block_must_be_marked_where_asked(self):
        doc = "Some text.\n\nFENCE\nunchecked example\nFENCE\n"
        self.assert_passes(run(doc))
        self.assert_fails(run(doc, every_block=True), "without a doctest marker")
        self.assert_fails(run("<!-- doctest: skip -->\n" + doc.split("\n\n")[1], every_block=True),
                          "needs a reason")
        self.assert_passes(run("<!-- doctest: skip it needs a GPU -->\n" + doc.split("\n\n")[1],
                               every_block=True))

    def test_malformed_marker_is_an_error(self):
        done = run("<!-- doctest: consol -->\nFENCE\n$ true\nFENCE\n")
        self.assertEqual(done.returncode, 2, done.stdout + done.stderr)
        self.assertIn("unknown doctest kind", done.stderr)


@unittest.skipUnless(os.environ.get("IMGHIST_BIN_DIR"), "IMGHIST_BIN_DIR (the imghist command) not given")
class ReadmeExample(unittest.TestCase):
    """The README's sample output, against the command as built."""

    def run_readme(self, text: str) -> subprocess.CompletedProcess:
        with tempfile.TemporaryDirectory() as folder:
            readme = pathlib.Path(folder) / "README.md"
            readme.write_text(text, encoding="utf-8")
            return subprocess.run([sys.executable, str(RUNNER), "--root", str(ROOT), "--bin-dir",
                                   os.environ["IMGHIST_BIN_DIR"], str(readme)],
                                  text=True, capture_output=True, timeout=120)

    def test_readme_as_it_is_passes(self):
        done = self.run_readme((ROOT / "README.md").read_text(encoding="utf-8"))
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)

    def test_readme_with_a_changed_figure_fails(self):
        text = (ROOT / "README.md").read_text(encoding="utf-8")
        shown = "  R          153,600    96.3323"
        self.assertIn(shown, text)
        done = self.run_readme(text.replace(shown, shown.replace("96.3323", "96.3324"), 1))
        self.assertEqual(done.returncode, 1, done.stdout + done.stderr)
        self.assertIn("+  R          153,600    96.3323", done.stdout)


if __name__ == "__main__":
    unittest.main()
