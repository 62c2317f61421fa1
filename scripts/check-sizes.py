#!/usr/bin/env python3
"""The size rules of the code: no source file over 500 lines, no function over 80 (lizard's
length, first line to last). CUDA, OpenCL and GLSL sources (.cu, .cuh, .cl, .comp), which
lizard's own command skips, are read as C++ too.

  scripts/check-sizes.py [PATH...]   files and folders (default: src include); exit 1 naming each
                                     breach that ALLOWED does not list, or an ALLOWED entry that fits
  scripts/check-sizes.py --self-test the check on fixtures it writes names exactly the file and
                                     the function one line over the limits, passes the ones at
                                     them, and fails on an allowed breach that is none
"""
import pathlib
import sys
import tempfile

try:
    import lizard
except ImportError:
    sys.exit("check-sizes: needs lizard (pip install lizard; scripts/check-sizes.sh installs it)")

ROOT = pathlib.Path(__file__).resolve().parent.parent
MAX_FILE_LINES = 500
MAX_FUNCTION_LINES = 80
SOURCE_SUFFIXES = {".c", ".h", ".cpp", ".hpp", ".cu", ".cuh", ".cl", ".comp"}

# Breaches known and waiting for their split: "path" for a file, "path:function" for a function.
# An entry that fits again is reported too, so the list only shrinks.
ALLOWED = {
    # GPU kernels' bodies: splitting them into calls is a change of generated code, to be
    # measured before and after on the GPU.
    "src/backends/cuda/kernel_tiles.cuh:imghist::cuda_detail::kernels::count_tile",
    "src/backends/cuda/packed_kernel.cuh:imghist::cuda_detail::kernels::packed_kernel",
    "src/backends/vulkan/histogram.comp:main",
}


def line_count(text):
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def sources(paths):
    for path in paths:
        if path.is_dir():
            yield from sorted(p for p in path.rglob("*") if p.suffix in SOURCE_SUFFIXES and p.is_file())
        elif path.suffix in SOURCE_SUFFIXES:
            yield path


def breaches(paths, root, scanned=None):
    """Each file over MAX_FILE_LINES as (name, lines), each function over MAX_FUNCTION_LINES as
    ("name:function", lines); names relative to `root`, and added to `scanned`."""
    analyzer = lizard.FileAnalyzer(lizard.get_extensions([]))
    found = {}
    for path in sources(paths):
        name = path.resolve().relative_to(root).as_posix()
        if scanned is not None:
            scanned.add(name)
        text = path.read_text(encoding="utf-8", errors="replace")
        if line_count(text) > MAX_FILE_LINES:
            found[name] = line_count(text)
        # Named .cpp so lizard reads every kind of source with its C++ reader.
        for function in analyzer.analyze_source_code(path.stem + ".cpp", text).function_list:
            if function.length > MAX_FUNCTION_LINES:
                found[f"{name}:{function.name}"] = function.length
    return found


def check(paths, allowed, root=ROOT):
    scanned = set()
    found = breaches(paths, root, scanned)
    failures = [f"{name}: {lines} lines (at most {MAX_FUNCTION_LINES if ':' in name else MAX_FILE_LINES})"
                for name, lines in sorted(found.items()) if name not in allowed]
    failures += [f"{name}: within the limits now, so it leaves ALLOWED in scripts/check-sizes.py"
                 for name in sorted(allowed) if name not in found and name.split(":")[0] in scanned]
    for line in failures:
        print(f"check-sizes: {line}")
    return not failures


def kernel_lines(name, lines):
    """A CUDA kernel of exactly `lines` lines, first to last."""
    body = [f"    total += {i};" for i in range(lines - 4)]
    return [f"__global__ void {name}(int* out) {{", "    int total = 0;", *body, "    *out = total;", "}"]


def write_fixtures(folder):
    """kernels.cuh (a kind of file lizard's own command skips) holds a kernel one line over the
    limit and one at it; oversized.hpp is one line over the file limit, full.hpp at it."""
    kernels = kernel_lines("long_kernel", MAX_FUNCTION_LINES + 1) + [""]
    kernels += kernel_lines("fitting_kernel", MAX_FUNCTION_LINES)
    (folder / "kernels.cuh").write_text("\n".join(kernels) + "\n")
    for name, lines in (("oversized.hpp", MAX_FILE_LINES + 1), ("full.hpp", MAX_FILE_LINES)):
        (folder / name).write_text("".join(f"constexpr int value_{i} = {i};\n" for i in range(lines)))


def self_test():
    with tempfile.TemporaryDirectory() as temp:
        fixtures = pathlib.Path(temp).resolve()
        write_fixtures(fixtures)
        expected = {"oversized.hpp": MAX_FILE_LINES + 1, "kernels.cuh:long_kernel": MAX_FUNCTION_LINES + 1}
        found = breaches([fixtures], fixtures)
        if found != expected:
            print(f"check-sizes --self-test: found {found}, expected {expected}")
            return False
        # The check fails on them, naming both, and on an allowed breach that is none.
        return (not check([fixtures], set(), fixtures) and check([fixtures], set(expected), fixtures)
                and not check([fixtures], set(expected) | {"full.hpp"}, fixtures))


def main(argv):
    if argv == ["--self-test"]:
        return 0 if self_test() else 1
    paths = [pathlib.Path(a) for a in argv] or [ROOT / "src", ROOT / "include"]
    if check(paths, ALLOWED):
        print(f"check-sizes: every file within {MAX_FILE_LINES} lines, every function within {MAX_FUNCTION_LINES}, "
              f"but the {len(ALLOWED)} known breaches ALLOWED lists")
        return 0
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
