"""Output that is not help is refused with one line; nothing else is ever raised."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolbay.errors import NotHelpError
from toolbay.helptext import describe_help


@pytest.mark.parametrize("data, words", [
    (b"", "empty"),
    (b"  \n\t\n", "empty"),
    (b"Welcome to FooServer v2.3.1\nListening on 0.0.0.0:8080\n", "no usage line"),
    (b'2024-05-01T12:00:03Z INFO server: started pid=4242\n', "no usage line"),
    (b"\x00\x01\x02\x03\xff\xfe\x80\x81" * 50, "binary"),
    (b"Usage: hello [OPTIONS]\nTry 'hello --help' for help.\n\nError: No such option: -h\n", "error"),
    (b"error: unexpected argument '-h' found\n\nUsage: x [OPTIONS]\n", "error"),
    # ls -l of a folder (a program that lists files whatever its arguments): each line opens like an
    # option and its value ("-rwxr-xr-x  1 root ..."), and was described as options named so.
    (b"total 12\n-rwxr-xr-x  1 root root 68496 Sep 20  2022 [\n-rw-r--r--. 1 ann ann 10 Jan  1 00:00 a.txt\n"
     b"drwxr-xr-x  2 root root  4096 Dec  5 12:00 lib\nlrwxrwxrwx  1 root root    28 Feb 17  2023 x -> y\n",
     "listing of files"),
    # A program that prints its arguments back (echo, built for WASI): "-h" was read as an option
    # list of one, and the program served as a tool of a boolean "h".
    (b"--help\n", "printed back the arguments"),
    (b"-h\n", "printed back the arguments"),
    (b"remote --help\n", "printed back the arguments"),
    (b"remote help\n", "printed back the arguments"),
    # prose that ends with the word: no arguments were printed back (an outside check)
    (b"not a help\n", "no usage line"),
])
def test_non_help_is_refused_with_a_one_line_reason(data, words):
    with pytest.raises(NotHelpError) as caught:
        describe_help(data)
    assert words in caught.value.reason
    assert "\n" not in caught.value.reason


def test_a_short_form_that_is_not_help_is_ignored():
    long = (b"Usage: t [OPTIONS]\n\nOptions:\n  --name TEXT  Who  [required]\n"
            b"  --help  Show this message and exit.\n")
    short = b"Usage: t [OPTIONS]\nTry 't --help' for help.\n\nError: No such option: -h\n"
    assert describe_help(long, short).options[0].required


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=600))
def test_arbitrary_bytes_raise_nothing_but_not_help(data):
    with contextlib.suppress(NotHelpError):
        describe_help(data, data[::-1])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(list("-–=[]<>{}(),.|/: \n\tabcXYZ019_*╭╰│─") + [
    "Usage: ", "Options:\n", "  -a, --all", "...", "[default: ", "  ", "\nCommands:\n  "]), max_size=120))
def test_help_like_text_raises_nothing_but_not_help(pieces):
    text = "".join(pieces)
    with contextlib.suppress(NotHelpError):
        describe_help(text.encode())
