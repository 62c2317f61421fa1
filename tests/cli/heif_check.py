"""HEIC and AVIF through the imghist command, read by default (ctest Cli.Heif.*).

Files are written here: HEIC with pillow-heif (8- and 10-bit, one with an ICC profile) and AVIF
with OpenImageIO's oiiotool. Each is counted without --untrusted-readers and compared bit for
bit with an independent decode: 8-bit files with OpenImageIO's HEIF reader (oiiotool to TIFF),
10-bit HEIC with pillow-heif, whose 16-bit samples are the 10-bit values shifted left by 6;
imghist must count the 10-bit values themselves (0 .. 1023) in rgb16. Then the size guard
refuses a HEIC from its header, beside a good file that is still counted.

Usage: heif_check.py IMGHIST SCRATCH_DIR. Missing numpy, tifffile, pillow-heif or oiiotool fails.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pillow_heif
import tifffile


def run(imghist, args):
    return subprocess.run([imghist, *args], capture_output=True, text=True, timeout=120)


def counted(imghist, path, bins):
    r = run(imghist, ["--format", "json", "--mode", "rgb", "--bins", str(bins), "--range", f"0:{bins}", path])
    assert r.returncode == 0, f"{path}: exit {r.returncode}\n{r.stdout}{r.stderr}"
    return json.loads(r.stdout)["results"][0]


def expect_counts(result, pixels, bins, where):
    for i, channel in enumerate("RGB"):
        expected = np.bincount(pixels[..., i].ravel().astype(np.int64), minlength=bins)
        got = np.asarray(result["histograms"][channel]["counts"], dtype=np.int64)
        assert np.array_equal(got, expected), f"{where}: channel {channel} differs from the independent decode"


def oiio_decode(path, scratch):
    tif = os.path.join(scratch, os.path.basename(path) + ".tif")
    subprocess.run(["oiiotool", path, "-d", "uint8", "-o", tif], check=True, capture_output=True)
    return tifffile.imread(tif)


def photo(rng, top, shape=(40, 56)):
    """A smooth gradient with noise, so the encoder keeps many distinct values."""
    y, x = np.mgrid[0 : shape[0], 0 : shape[1]]
    base = np.stack([x / shape[1], y / shape[0], (x + y) / (shape[0] + shape[1])], axis=-1)
    return np.clip(base * top + rng.normal(0, top / 40, base.shape), 0, top)


def main():
    imghist, scratch = sys.argv[1], sys.argv[2]
    os.makedirs(scratch, exist_ok=True)
    rng = np.random.default_rng(53)
    # 8-bit HEIC (with an ICC profile) and AVIF, against OpenImageIO's decode.
    heic8 = os.path.join(scratch, "phone_8bit.heic")
    icc = open("/usr/share/color/icc/colord/AdobeRGB1998.icc", "rb").read() if os.path.exists(
        "/usr/share/color/icc/colord/AdobeRGB1998.icc") else b"\0" * 128
    pixels = photo(rng, 255).astype(np.uint8)
    pillow_heif.from_bytes(mode="RGB", size=(56, 40), data=pixels.tobytes()).save(heic8, quality=90, icc_profile=icc)
    avif8 = os.path.join(scratch, "phone_8bit.avif")
    tifffile.imwrite(os.path.join(scratch, "source.tif"), pixels, photometric="rgb")
    subprocess.run(["oiiotool", os.path.join(scratch, "source.tif"), "-o", avif8], check=True, capture_output=True)
    for path in (heic8, avif8):
        result = counted(imghist, path, 256)
        assert result["format"] == "rgb8", (path, result["format"])
        expect_counts(result, oiio_decode(path, scratch), 256, os.path.basename(path))
    assert any("ICC colour profile" in n for n in counted(imghist, heic8, 256)["notes"]), "no ICC note"
    # 10-bit HEIC: the values 0 .. 1023, not scaled, against pillow-heif's decode.
    heic10 = os.path.join(scratch, "phone_10bit.heic")
    ten = photo(rng, 1023).astype(np.uint16)
    pillow_heif.from_bytes(mode="RGB;16", size=(56, 40), data=(ten << 6).tobytes()).save(heic10, quality=90)
    decoded = np.asarray(pillow_heif.open_heif(heic10, convert_hdr_to_8bit=False)) >> 6
    result = counted(imghist, heic10, 1024)
    assert result["format"] == "rgb16", result["format"]
    assert any("10-bit samples" in n for n in result["notes"]), result["notes"]
    expect_counts(result, decoded, 1024, "phone_10bit.heic")
    print("heif: 8-bit HEIC and AVIF as OpenImageIO decodes them, 10-bit HEIC as pillow-heif does, by default")
    # The size guard refuses from the header; the other file is still counted.
    small = os.path.join(scratch, "small.tif")
    tifffile.imwrite(small, pixels[:10, :10], photometric="rgb")
    r = run(imghist, ["--format", "json", "--max-pixels", "1000", heic10, small])
    assert r.returncode == 1, r.stdout + r.stderr
    report = json.loads(r.stdout)
    assert len(report["errors"]) == 1 and "exceeds" in report["errors"][0]["error"], report["errors"]
    assert [os.path.basename(x["file"]) for x in report["results"]] == ["small.tif"], report["results"]

if __name__ == "__main__":
    main()
