"""One version everywhere: CMakeLists.txt's project version is the package's __version__, its
installed metadata, the newest CHANGELOG.md entry and (where it is built) `imghist --version`."""

from __future__ import annotations

import importlib.metadata
import os
import re
import subprocess
from pathlib import Path

import pytest

import imghist

ROOT = Path(__file__).resolve().parents[2]


def project_version() -> str:
    text = (ROOT / "CMakeLists.txt").read_text()
    return re.search(r"project\(imghist VERSION ([0-9][0-9.]*)", text).group(1)


def test_the_package_reports_the_project_version():
    assert imghist.__version__ == project_version()
    assert importlib.metadata.version("imghist") == project_version()


def test_the_changelog_s_newest_entry_is_the_project_version():
    headings = re.findall(r"^## (\S+)", (ROOT / "CHANGELOG.md").read_text(), re.MULTILINE)
    assert headings and headings[0] == project_version()


def test_the_command_reports_the_project_version():
    command = os.environ.get("IMGHIST_CLI")
    if not command:
        pytest.skip("no imghist command built (IMGHIST_CLI)")
    done = subprocess.run([command, "--version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    version = project_version()
    assert done.stdout.splitlines()[0] == f"imghist {version} (library {version})"
