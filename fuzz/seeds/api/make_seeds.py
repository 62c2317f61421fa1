#!/usr/bin/env python3
"""Encodes requests as inputs of the API fuzz target (fuzz/fuzz_api.cpp; layout in README.md).

    python3 fuzz/seeds/api/make_seeds.py            # rewrites the named seeds beside this script
    python3 fuzz/seeds/api/make_seeds.py --formats DIR   # one seed per format and request field, into DIR

scripts/fuzz.sh runs the second form for every run; the first is run by hand after a change of
the byte layout, so that every committed seed keeps its request.
"""
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
FORMATS = ["gray8", "rgb8", "rgba8", "bgra8", "gray16", "rgb16", "rgba16", "gray_f16", "rgb_f16",
           "rgba_f16", "gray_f32", "rgb_f32", "rgba_f32", "bgr8"]
MODES = ["rgb", "luma", "all"]
# Flags byte: clamp, count_alpha, edges, sorted edges, bins and range kept with edges, EV edges,
# value extremes, stepped edges.
FLAG_BITS = {"clamp": 1, "alpha": 2, "edges": 4, "sorted": 8, "keep_bins": 16, "ev": 32, "extremes": 64,
             "stepped": 128}
MASKS = {None: 0, "valid": 4, "sparse": 5, "broken": 6}
ALPHA_KINDS = {None: 0, "byte": 4, "int16": 5, "double": 6, "special": 7}
EXPOSURE_KINDS = {None: 0, "default": 1, "small": 2, "double": 3}


def encode(fmt, width, height, pixels, mode="all", padding=0, fault=0, bins=None, range_=None, flags=(),
           edges=None, roi=None, tiles=None, mask=None, mask_detail=0, alpha=None, exposure=None):
    """The fuzz input of one request. bins: an int (encoded through the `b >> 30` branch when above
    4096); range_: ("int16" | "double" | "float", lo, hi); edges: a list of floats, ("ev", lo, span
    in halves, per_stop) or ("stepped", n, start, step); roi and tiles: raw bytes per coordinate
    (see extent_value in fuzz_api.cpp); alpha: (kind, value); exposure: (kind, values)."""
    out = bytes([FORMATS.index(fmt), fault, width - 1, height - 1, padding, MODES.index(mode), 0])
    bins_byte = 0 if bins is None else 128
    range_byte = {None: 0, "int16": 128, "double": 192, "float": 224}[range_[0] if range_ else None]
    flag_byte = sum(FLAG_BITS[f] for f in flags)
    out += bytes([bins_byte, range_byte, flag_byte])
    if bins is not None:
        # Above 4096: the smallest b with b >> 30 == 1 and b % (2^20 + 2) == bins.
        out += struct.pack("<I", bins if bins <= 4096 else ((1 << 20) + 2) * 1024 + bins)
    if range_:
        out += struct.pack({"int16": "<hh", "double": "<dd", "float": "<ff"}[range_[0]], range_[1], range_[2])
    if "edges" in flags:
        if "ev" in flags:
            out += struct.pack("<bBB", *edges[1:])
        elif "stepped" in flags:
            out += struct.pack("<Hff", *edges[1:])
        else:
            out += bytes([len(edges)]) + b"".join(struct.pack("<f", e) for e in edges)
    regions = (192 if roi else 0) | (0x30 if tiles else 0)
    out += bytes([regions]) + bytes(roi or ()) + bytes(tiles or ())
    alpha_kind, alpha_value = alpha or (None, None)
    exposure_kind, exposure_values = exposure or (None, ())
    out += bytes([MASKS[mask] << 5 | ALPHA_KINDS[alpha_kind] << 2 | EXPOSURE_KINDS[exposure_kind]])
    if mask:
        out += bytes([mask_detail])
    if alpha_kind:
        out += {"byte": lambda v: bytes([v]), "int16": lambda v: struct.pack("<hB", *v),
                "double": lambda v: struct.pack("<d", v), "special": lambda v: bytes([v])}[alpha_kind](alpha_value)
    if exposure_kind == "small":
        out += struct.pack("<bbb", *exposure_values)
    elif exposure_kind == "double":
        out += struct.pack("<ddd", *exposure_values)
    return out + pixels


def named_seeds():
    """The seeds committed beside this script (README.md tells where each comes from)."""
    with open(os.path.join(ROOT, "tests/data/repro/cpu_float_many_bins_slow_64x64.rgba_f32"), "rb") as f:
        slow_pixels = f.read()
    return {
        "range_scale_overflow": encode("gray_f32", 7, 3, struct.pack("<f", 5e-37), mode="rgb", bins=1024,
                                       range_=("double", 0.0, 1e-36)),
        "range_offset_overflow": encode("rgba_f32", 7, 3, struct.pack("<f", 1e38), mode="rgb",
                                        range_=("double", -3.4e38, 3.4e38)),
        "cpu_float_many_bins_slow": encode("rgba_f32", 64, 64, slow_pixels, mode="rgb", bins=62720,
                                           range_=("int16", 191, 26991)),
    }


def field_seeds(pixels):
    """One seed per format, then one per request field the fuzzer varies, on `pixels`."""
    seeds = {f"format-{i}": encode(fmt, 16, 12, pixels, mode="rgb", padding=3) for i, fmt in enumerate(FORMATS)}
    seeds.update({
        "ev-edges-exposure": encode("rgb_f32", 16, 12, pixels, flags=("edges", "ev", "extremes"),
                                    edges=("ev", -16, 64, 8), exposure=("default", ())),
        "edges-listed": encode("rgba16", 9, 7, pixels, flags=("edges", "sorted"), edges=[0, 300.5, 9000, 65535]),
        "edges-stepped": encode("rgb_f16", 9, 7, pixels, flags=("edges", "stepped"), edges=("stepped", 4097, -1, 1)),
        "roi-tiles": encode("rgb8", 20, 10, pixels, roi=(2, 1, 15, 8), tiles=(4, 3)),
        "roi-past-edge": encode("rgb8", 20, 10, pixels, roi=(5, 0, 16, 10)),
        "tiles-per-pixel": encode("gray8", 20, 10, pixels, tiles=(20, 10)),
        "mask-tiles": encode("rgba8", 20, 10, pixels, mask="sparse", mask_detail=0x11, tiles=(3, 2), roi=(1, 1, 18, 8)),
        "mask-broken": encode("rgb16", 20, 10, pixels, mask="broken", mask_detail=0),
        "alpha-threshold-byte": encode("rgba8", 20, 10, pixels, alpha=("byte", 127)),
        "alpha-threshold-half": encode("rgba_f16", 20, 10, pixels, alpha=("int16", (0, 2)), flags=("extremes",)),
        "alpha-threshold-special": encode("rgba_f32", 20, 10, pixels, alpha=("special", 3), mask="valid"),
        "exposure-settings": encode("gray_f32", 20, 10, pixels, flags=("edges", "ev"), edges=("ev", -8, 20, 4),
                                    exposure=("small", (10, 90, 12))),
        "clamp-extremes": encode("rgba_f32", 20, 10, pixels, bins=100, range_=("float", -2.0, 2.0),
                                 flags=("clamp", "alpha", "extremes")),
    })
    return seeds


def write(directory, seeds):
    os.makedirs(directory, exist_ok=True)
    for name, data in seeds.items():
        with open(os.path.join(directory, name), "wb") as f:
            f.write(data)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--formats":
        with open(os.path.join(ROOT, "examples/sample.png"), "rb") as f:
            write(sys.argv[2], field_seeds(f.read(2048)))
    elif len(sys.argv) == 1:
        write(HERE, named_seeds())
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
