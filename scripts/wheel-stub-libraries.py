#!/usr/bin/env python3
"""Builds stand-ins for libraries that a library of the wheel links but the package never calls.

Debian's OpenImageIO links the libraries of its readers of video (FFmpeg), DICOM (DCMTK) and
volumes (OpenVDB), and OpenCV for camera capture: with everything they pull in, about 95 MiB of
the wheel's 112. The package opens files only with its trusted readers (src/io/reader_policy.cpp;
Python refuses the others), so no code path reaches those libraries, yet the dynamic loader must
find every symbol OpenImageIO names. Each stand-in has the real library's soname and defines
exactly the symbols (with their versions) that the importing library takes from it: functions
that print which library the wheel left out and abort (constructors and destructors, which the
importer's static objects call at load and exit, do nothing), and zeroed data of the real sizes.
auditwheel then finds the stand-ins first (LD_LIBRARY_PATH) and copies them instead.

Usage: wheel-stub-libraries.py OUT_DIR IMPORTER SONAME...
  IMPORTER  the library whose undefined symbols the stand-ins define (libOpenImageIO's path)
  SONAME    each library to stand in for, resolved as the dynamic loader resolves it
Prints the stand-ins' paths.
"""
from __future__ import annotations

import pathlib
import re
import subprocess
import sys
from collections import defaultdict

# A C++ constructor or destructor's mangled name: C1/C2/C3 or D0/D1/D2 closing the nested name.
STRUCTOR = re.compile(r"(C[123]|D[012])E")
# readelf --dyn-syms -W: "Num: Value Size Type Bind Vis Ndx Name[@[@]VERSION] [(n)]"
SYMBOL_LINE = re.compile(r"^\s*\d+:\s+[0-9a-f]+\s+(\d+|0x[0-9a-f]+)\s+(\w+)\s+(\w+)\s+\w+\s+(\w+)\s+(\S+)")


def dynamic_symbols(library: str) -> list[tuple[str, str | None, str, int, bool]]:
    """(name, version, type, size, defined) of each dynamic symbol."""
    text = subprocess.run(["readelf", "--dyn-syms", "-W", library], check=True, capture_output=True,
                          text=True).stdout
    symbols = []
    for line in text.splitlines():
        m = SYMBOL_LINE.match(line)
        if not m or not m.group(5) or m.group(3) == "LOCAL":
            continue
        size, kind, _, section, full = m.groups()
        name, _, version = full.replace("@@", "@").partition("@")
        symbols.append((name, version or None, kind, int(size, 0), section != "UND"))
    return symbols


def loaded_libraries(importer: str) -> dict[str, str]:
    """soname -> path of every library the dynamic loader loads with `importer`."""
    text = subprocess.run(["ldd", importer], check=True, capture_output=True, text=True).stdout
    return {p[0]: p[2] for p in (line.split() for line in text.splitlines())
            if len(p) >= 3 and p[1] == "=>" and p[2].startswith("/")}


def needed(library: str) -> list[str]:
    text = subprocess.run(["readelf", "-d", library], check=True, capture_output=True, text=True).stdout
    return re.findall(r"\(NEEDED\).*\[(.*)\]", text)


def kept_exports(importer: str, loaded: dict[str, str], left_out: set[str]) -> set[str]:
    """The symbols that the libraries still loaded without the left-out ones export: a stand-in
    must not define them, or the loader could bind the importer's call to a trap."""
    seen: set[str] = set()
    todo = [n for n in needed(importer) if n not in left_out]
    exports: set[str] = set()
    while todo:
        soname = todo.pop()
        if soname in seen or soname not in loaded:
            continue
        seen.add(soname)
        exports |= {s[0] for s in dynamic_symbols(loaded[soname]) if s[4]}
        todo += [n for n in needed(loaded[soname]) if n not in left_out]
    return exports


def assembly(symbols: list[tuple[str, str, int]]) -> str:
    """Functions jumping to the trap, zeroed objects of their real sizes."""
    lines = ['.section .note.GNU-stack, "", @progbits']  # no executable stack
    for name, kind, size in symbols:
        quoted = f'"{name}"'
        if kind == "FUNC":
            # Constructors and destructors do nothing: the importer builds its static objects of
            # these types when it loads (DCMTK's DiRegister) and destroys them at exit.
            body = "  ret" if STRUCTOR.search(name) else "  jmp imghist_left_out_library"
            lines += [".text", f".globl {quoted}", f".type {quoted}, @function", f"{quoted}:", body]
        else:
            lines += [".data", ".balign 16", f".globl {quoted}", f".type {quoted}, @object",
                      f".size {quoted}, {max(size, 1)}", f"{quoted}:", f"  .zero {max(size, 1)}"]
    return "\n".join(lines) + "\n"


TRAP = """#include <stdlib.h>
#include <unistd.h>
/* Never reached: the package opens no file with the readers that need this library. */
__attribute__((visibility("hidden"), noreturn)) void imghist_left_out_library(void) {
    static const char text[] = "imghist: this wheel leaves out SONAME (a reader imghist does not use)\\n";
    (void)!write(2, text, sizeof text - 1);
    abort();
}
"""


def build_stub(out: pathlib.Path, soname: str, real: str, wanted: dict[str, set[str | None]]) -> pathlib.Path:
    """The stand-in for `real`, defining the `wanted` symbols it exports."""
    kinds: dict[str, tuple[str, int]] = {}
    versions: dict[str, set[str]] = defaultdict(set)
    for name, version, kind, size, defined in dynamic_symbols(real):
        if not defined or name not in wanted or not (version in wanted[name] or None in wanted[name]):
            continue
        if kind not in ("FUNC", "OBJECT"):
            sys.exit(f"wheel-stub-libraries: {soname} defines {name} as {kind}, which a stand-in cannot")
        kinds[name] = (kind, size)
        if version:
            versions[version].add(name)
    missing = sorted(set(wanted) - set(kinds))
    if missing:
        sys.exit(f"wheel-stub-libraries: {real} does not define {missing[:5]}, which the importer needs")
    stem = out / soname
    stem.with_suffix(".c").write_text(TRAP.replace("SONAME", soname), encoding="utf-8")
    stem.with_suffix(".s").write_text(assembly([(n, k, s) for n, (k, s) in sorted(kinds.items())]), encoding="utf-8")
    command = ["cc", "-shared", "-fPIC", "-O1", f"-Wl,-soname,{soname}", "-o", str(stem),
               str(stem.with_suffix(".c")), str(stem.with_suffix(".s"))]
    if versions:  # the importer asks for these versions by name; the loader checks them
        script = stem.with_suffix(".map")
        script.write_text("".join(f"{v} {{ global: {'; '.join(sorted(ns))}; }};\n" for v, ns in sorted(versions.items())),
                          encoding="utf-8")
        command.append(f"-Wl,--version-script={script}")
    subprocess.run(command, check=True)
    return stem


def main() -> None:
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    out, importer, sonames = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3:]
    out.mkdir(parents=True, exist_ok=True)
    undefined: dict[str, set[str | None]] = defaultdict(set)
    for name, version, _, _, defined in dynamic_symbols(importer):
        if not defined:
            undefined[name].add(version)
    loaded = loaded_libraries(importer)
    kept = kept_exports(importer, loaded, set(sonames))
    for soname in sonames:
        if soname not in loaded:
            sys.exit(f"wheel-stub-libraries: {importer} does not load {soname}")
        exported = {s[0] for s in dynamic_symbols(loaded[soname]) if s[4]}
        wanted = {n: v for n, v in undefined.items() if n in exported and n not in kept}
        print(build_stub(out, soname, loaded[soname], wanted))

if __name__ == "__main__":
    main()
