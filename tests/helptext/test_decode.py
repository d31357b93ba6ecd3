"""Bytes become the text a terminal would have shown, with the encoding named."""

from __future__ import annotations

import codecs

from toolbay.helptext import describe_help
from toolbay.helptext.decode import decode_help

HELP = "Usage: prog [OPTIONS]\n\nOptions:\n  -n, --name <NAME>  Le nom à utiliser\n"


def test_utf8_is_read_strictly_first():
    decoded = decode_help(HELP.encode())
    assert (decoded.encoding, decoded.had_errors) == ("utf-8", False)


def test_a_byte_order_mark_decides_the_encoding_and_is_dropped():
    for bom, codec in ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le")):
        decoded = decode_help(bom + HELP.encode(codec))
        assert decoded.text.startswith("Usage: prog")


def test_shift_jis_gbk_and_euc_kr_help_is_decoded():
    for text, codec in (("ファイルを表示します。行数を指定します。", "shift_jis"),
                        ("显示文件内容并退出。显示帮助信息。", "gbk"),
                        ("파일 내용을 표시합니다. 도움말을 표시합니다.", "euc-kr")):
        data = f"Usage: x [OPTIONS]\n\n{text}\n\nOptions:\n  -q, --quiet  {text}\n".encode(codec)
        desc = describe_help(data)
        assert desc.options[0].description == text
        assert not desc.decode_errors


def test_ansi_colours_hyperlinks_and_overstrike_are_removed():
    data = b"\x1b[1;32mUsage:\x1b[0m p\n\n  \x1b]8;;http://x\x07-a\x1b]8;;\x07, --all  s_\bh_\bo_\bw\n"
    assert decode_help(data).text == "Usage: p\n\n  -a, --all  show\n"


def test_line_endings_and_tabs_are_normalised():
    assert decode_help(b"Usage: p\r\n  -a\tall\rnext").text == "Usage: p\n  -a    all\nnext"


def test_iso_2022_jp_is_detected_before_utf_8_accepts_its_seven_bit_bytes():
    text = "使い方: ツール [オプション]\n\nOptions:\n  -n, --lines <数>  表示する行数\n"
    decoded = decode_help(text.encode("iso2022_jp"))
    assert decoded.text.strip() == text.strip()
    assert decoded.encoding.startswith("iso2022_jp") and not decoded.had_errors


def test_plain_ascii_with_colour_escapes_stays_utf_8():
    decoded = decode_help(b"\x1b[1mUsage:\x1b[0m tool [OPTIONS]\n")
    assert decoded.encoding == "utf-8" and decoded.text.startswith("Usage: tool")


def test_utf16_and_utf32_without_a_byte_order_mark_are_named_as_what_they_are():
    """Latin text in UTF-16 LE is valid UTF-8 byte for byte, its NULs included: it was read
    (the NULs dropped later) and named UTF-8. Windows programs write UTF-16 without a BOM."""
    ascii_help = HELP.replace("Le nom à utiliser", "The name to use")
    for text in (ascii_help, HELP):
        for codec in ("utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"):
            decoded = decode_help(text.encode(codec))
            assert (decoded.encoding, decoded.had_errors, decoded.text) == (codec, False, text), codec
            assert describe_help(text.encode(codec)).options[0].description in text
    # A few NULs in UTF-8 output are not UTF-16.
    assert decode_help(ascii_help.encode() + b"\0\0").encoding == "utf-8"


def test_terminal_codes_in_their_one_character_c1_forms_are_removed_from_unicode_text():
    """A title set with U+009D (OSC) or a string in U+0090 (DCS), U+009E (PM) or U+009F (APC),
    ended by U+009C (ST) or BEL, reached the JSON raw (found by an outside check); their
    ESC forms were removed already."""
    text = ("Usage: p [OPTIONS]\n\nShows \x9d0;a title\x07what\x9b1m it\x9b0m is.\n\nOptions:\n"
            + "".join(f"  --option-{n} <VALUE>  Sets option {n} to the value given.\n" for n in range(6))
            + "  -a, --all  Show\x900;data\x9c all\x9epm\x9c of\x9fapc\x1b\\ it\x1b]2;x\x9c\x8d.\n")
    for codec in ("utf-8", "utf-16-le"):
        desc = describe_help(text.encode(codec))
        assert (desc.about, desc.options[-1].description) == ("Shows what it is.", "Show all of it."), codec
    # Decoded from a code page, bytes 0x80-0x9F are letters, kept: cp1252's "œ" is 0x9C, "’" 0x92.
    letters = ("Usage: p [OPTIONS]\n\nAffiche les œuvres complètes de l’auteur, « entre guillemets » et “citées”.\n\n"
               "Options:\n  -a, --all  Affiche toutes les œuvres, même les brouillons déjà supprimés.\n")
    decoded = decode_help(letters.encode("cp1252"))
    assert decoded.encoding == "cp1252" and decoded.text == letters
