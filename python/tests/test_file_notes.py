"""A file's notes can hold the file's own bytes (a channel's name): they reach Python as text the
command line would print, never as a UnicodeDecodeError (tests/data/repro/README.md)."""

import pathlib

import imghist

REPRO = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data" / "repro" / "exr_channel_name_not_utf8.exr"


def test_a_channel_name_that_is_not_utf8_reads_escaped_in_the_notes():
    h = imghist.histogram_file(str(REPRO))
    assert any(note.endswith("\\xe9\\xff") for note in h.notes), h.notes
    assert imghist.Histogram.from_dict(h.to_dict()).notes == h.notes


def test_histogram_files_gives_the_same_notes():
    [got] = [f.histogram for f in imghist.histogram_files([str(REPRO)])]
    assert got.notes == imghist.histogram_file(str(REPRO)).notes
