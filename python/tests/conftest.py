"""Shared fixtures of the imghist Python tests.

- `backends`: the names of the backends to test: every backend imghist.backends() reports
  available, plus every name in IMGHIST_REQUIRE_BACKENDS (comma-separated, as for the C++ tests).
- `backend`: a test that takes it runs once per name in `backends`; a required backend that is
  not available FAILS there (it is never skipped), so CI cannot pass without PoCL and lavapipe.
- `make_image`: images.make_image (seeded generators: random, natural, constant, constant_top,
  bank, specials).
- `photos`: real photos shipped with scikit-image (astronaut, chelsea, coffee), uint8 RGB.
Image sizes per backend: images.size_for (GPU backends, software ones in CI, get smaller images).
"""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import images  # noqa: E402

import imghist  # noqa: E402

def _field(entry, name):
    return entry[name] if isinstance(entry, dict) else getattr(entry, name)


def available_backends() -> list:
    """Names of the backends this build has and this machine can run."""
    return [_field(b, "name") for b in imghist.backends() if _field(b, "available")]


def required_backends() -> list:
    """IMGHIST_REQUIRE_BACKENDS, e.g. "cpu,opencl,vulkan" in CI."""
    text = os.environ.get("IMGHIST_REQUIRE_BACKENDS", "")
    return [name.strip() for name in text.split(",") if name.strip()]


def backends_to_test() -> list:
    names = available_backends()
    return names + [name for name in required_backends() if name not in names]


def pytest_generate_tests(metafunc):
    if "backend" in metafunc.fixturenames:
        metafunc.parametrize("backend", backends_to_test(), indirect=True)


@pytest.fixture(scope="session")
def backends() -> list:
    """Every available backend; fails when a required one (IMGHIST_REQUIRE_BACKENDS) is missing."""
    names = available_backends()
    missing = [name for name in required_backends() if name not in names]
    if missing:
        pytest.fail(f"IMGHIST_REQUIRE_BACKENDS lists {missing}, which this build or machine does not have "
                    f"(available: {names})")
    return names


@pytest.fixture
def backend(request) -> str:
    """One backend name; a required backend that is unavailable fails the test."""
    name = request.param
    if name not in available_backends():
        pytest.fail(f"backend {name!r} is required (IMGHIST_REQUIRE_BACKENDS) but not available")
    return name


@pytest.fixture
def make_image():
    return images.make_image


@pytest.fixture(scope="session")
def photos() -> dict:
    """name -> uint8 RGB photo shipped with scikit-image (no download)."""
    import skimage.data

    out = {name: getattr(skimage.data, name)() for name in ("astronaut", "chelsea", "coffee")}
    for name, img in out.items():
        assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3, name
    return out


def pytest_sessionfinish(session, exitstatus):
    """Closes the engines kept for the whole run (kept_engines.py) before the interpreter exits."""
    import kept_engines

    kept_engines.close_all()


@pytest.fixture
def file_reader():
    """Skips a test of image files where this imghist has no file reader (built without
    OpenImageIO), unless IMGHIST_REQUIRE_IO=1 (set by scripts/python-test.sh wherever the command
    line, which needs the reader, is built): then it fails."""
    if imghist.has_file_reader:
        return
    if os.environ.get("IMGHIST_REQUIRE_IO") == "1":
        pytest.fail("IMGHIST_REQUIRE_IO=1 but this imghist has no file reader (built without OpenImageIO)")
    pytest.skip("this imghist has no file reader (built without OpenImageIO)")


@pytest.fixture(scope="session")
def command_line() -> str:
    """The imghist command (IMGHIST_CLI) whose JSON a test compares with; the test is skipped
    where it is not set (scripts/python-test.sh sets it wherever the command is built)."""
    cli = os.environ.get("IMGHIST_CLI")
    if not cli:
        pytest.skip("IMGHIST_CLI is not set (scripts/python-test.sh sets it when the command is built)")
    assert os.access(cli, os.X_OK), f"IMGHIST_CLI={cli} is not an executable"
    return cli
