"""histogram_files(..., progress=...): a tqdm bar (files/s and time left) where tqdm is installed,
else the command line's progress line on stderr (docs/cli.md, "Progress"), whose text the
extension module writes (src/cli/progress.cpp); or the caller's own callable."""

from __future__ import annotations

import os
import shutil
import sys
import time
from typing import Any, Callable, Optional, Union

from . import _imghist

# As the command line: a terminal's line redrawn at most 10 times a second, a log's lines at most one a second.
TERMINAL_REDRAW_S, LOG_LINE_S = 0.1, 1.0


class _Callback:
    """The caller's callable, called with 1 after each file (tqdm's update fits)."""

    def __init__(self, update: Callable[[int], Any]):
        self._update = update

    def file_done(self, outcome) -> None:
        self._update(1)

    def close(self) -> None:
        pass


class _Bar:
    """A tqdm bar of the files, with the errors so far."""

    def __init__(self, tqdm, total: int):
        self._bar = tqdm(total=total, unit="file", desc="imghist")
        self._errors = 0

    def file_done(self, outcome) -> None:
        if outcome.error is not None:
            self._errors += 1
            self._bar.set_postfix(errors=self._errors, refresh=False)
        self._bar.update(1)

    def close(self) -> None:
        self._bar.close()


class _Line:
    """The command line's progress on a stream: one line redrawn in place on a terminal, cleared
    at the end; plain lines to anything else (a log, a notebook), the first file's at once, then
    at most one a second, and a summary at the end."""

    def __init__(self, total: int, stream=None):
        self._stream = stream if stream is not None else sys.stderr
        isatty = getattr(self._stream, "isatty", None)
        self._terminal = bool(isatty and isatty())
        self._total = total
        self._start = time.monotonic()
        self._last_line: Optional[float] = None
        self._done = self._bytes = self._errors = 0
        self._closed = False

    def file_done(self, outcome) -> None:
        self._done += 1
        self._bytes += outcome.bytes
        self._errors += outcome.error is not None
        now = time.monotonic()
        every = TERMINAL_REDRAW_S if self._terminal else LOG_LINE_S
        last = self._done == self._total
        if self._last_line is not None and now - self._last_line < every and not (last and self._terminal):
            return
        self._last_line = now
        width = shutil.get_terminal_size().columns - 1 if self._terminal else 80  # a terminal's last column stays free
        line = _imghist._progress_line(self._done, self._total, self._bytes, self._errors,
                                       os.fsencode(outcome.path), now - self._start, width)
        self._write("\r\x1b[K" + line if self._terminal else line + "\n")

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._terminal:
            self._write("\r\x1b[K")
        elif self._done:
            self._write(_imghist._progress_summary(self._done, self._bytes, self._errors,
                                                   time.monotonic() - self._start) + "\n")

    def _write(self, text: str) -> None:
        self._stream.write(text)
        self._stream.flush()


def _tqdm():
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    return tqdm


def progress_of(progress: Union[None, bool, Callable[[int], Any]], total: int):
    """What shows the run's progress: None for None or False; for True a tqdm bar where tqdm is
    installed, else the progress line on stderr; a callable is called with 1 after each file."""
    if progress is None or progress is False:
        return None
    if progress is True:
        tqdm = _tqdm()
        return _Bar(tqdm, total) if tqdm is not None else _Line(total)
    if callable(progress):
        return _Callback(progress)
    raise TypeError(f"progress must be True, False, None or a callable; got {type(progress).__name__}")
