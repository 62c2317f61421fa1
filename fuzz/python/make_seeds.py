"""Writes the seed corpus of fuzz_python.py (its input layout is in its docstring): for every
action, one input whose choice bytes ask for nothing rare (none: a counted dtype, no keyword)
and some of random choices; the documents of real histograms as JSON; and each image file
given, for histogram_file() (under its own extension) and histogram_files().

Usage: python make_seeds.py OUT_DIR [IMAGE_FILE...]   (scripts/fuzz-python.sh runs it)
"""
from __future__ import annotations

import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzz_python  # noqa: E402 - after the path

CHOICES = 200  # choice bytes of each random seed


def seed(action: int, choices: bytes, payload: bytes) -> bytes:
    return bytes([action, len(choices)]) + choices + payload


def write(out: str, name: str, data: bytes) -> None:
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


def main() -> None:
    out, images = sys.argv[1], sys.argv[2:]
    os.makedirs(out, exist_ok=True)
    rng = random.Random(1)
    pixels = bytes(rng.randrange(256) for _ in range(4096))
    for action, act in enumerate(fuzz_python.ACTIONS):
        write(out, f"{act.__name__}-plain", seed(action, b"", pixels))
        for k in range(8):
            write(out, f"{act.__name__}-{k}", seed(action, rng.randbytes(CHOICES), pixels[k * 97:]))
    json_action = fuzz_python.ACTIONS.index(fuzz_python.fuzz_json)
    for k, h in enumerate(fuzz_python.made_histograms()):
        document = json.dumps(h.to_dict()).encode()
        write(out, f"json-{k}", seed(json_action, b"", document))
    file_action = fuzz_python.ACTIONS.index(fuzz_python.fuzz_file)
    files_action = fuzz_python.ACTIONS.index(fuzz_python.fuzz_files)
    extensions = [e.lower() for e in fuzz_python.FILE_EXTENSIONS]
    for path in images:
        name = os.path.basename(path)
        extension = name.rsplit(".", 1)[-1].lower()
        with open(path, "rb") as f:
            content = f.read()
        index = extensions.index(extension) if extension in extensions else 0
        write(out, f"file-{name}", seed(file_action, b"", bytes([index]) + content))
        write(out, f"files-{name}", seed(files_action, rng.randbytes(CHOICES), content))


if __name__ == "__main__":
    main()
