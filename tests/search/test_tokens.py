"""Search terms: names split into words, CJK runs into character pairs, plurals made singular."""

from __future__ import annotations

import pytest

from toolbay.search.tokens import split_identifier, tokenize


@pytest.mark.parametrize(("identifier", "words"), [
    ("jsonkit_fmt", ["jsonkit", "fmt"]),
    ("blockSize", ["block", "size"]),
    ("getHTTPResponse2", ["get", "http", "response", "2"]),
    ("sha256", ["sha256"]),  # a short word and its number are one name
    ("h264Encoder", ["h264", "encoder"]),
    ("XMLHttpRequest", ["xml", "http", "request"]),
])
def test_identifiers_are_split_where_programs_join_words(identifier: str, words: list[str]) -> None:
    assert split_identifier(identifier) == words
    assert tokenize(identifier) == words


def test_a_time_a_format_or_a_digest_is_one_term_not_a_word_and_a_number() -> None:
    assert tokenize("cancel my 2pm meeting") == ["cancel", "2pm", "meeting"]
    assert tokenize("to MP3 or md5") == ["mp3", "md5"]
    assert tokenize("PM2.5 and ipv6") == ["pm2", "5", "ipv6"]
    # a longer word and a number stay apart: "server 2" meets "Server2"
    assert tokenize("HTTPServer2") == ["http", "server", "2"] == tokenize("http server 2")


def test_a_short_word_and_its_number_are_one_term_in_mixed_case_too() -> None:
    # "IPv6" was "pv6": camelCase cut "I" off, and "i" is a stop word.
    assert tokenize("IPv6") == tokenize("ipv6") == tokenize("IPV6") == ["ipv6"]
    assert tokenize("Mp3 or IPv4") == ["mp3", "ipv4"]


def test_a_short_word_and_its_number_in_mixed_case_are_one_term_inside_a_name_too() -> None:
    # "getIPv6Address" was "get", "pv6", "address": only "IPv6" written alone was "ipv6".
    assert tokenize("getIPv6Address") == ["get", "ipv6", "address"]
    assert tokenize("validateIPv4") == tokenize("validate_ipv4") == ["validate", "ipv4"]
    assert tokenize("getMp3Tags") == ["get", "mp3", "tag"]  # as before


def test_kebab_and_snake_names_give_the_same_terms_as_the_words_written_apart() -> None:
    assert tokenize("jsonkit_fmt") == tokenize("jsonkit-fmt") == tokenize("JsonkitFmt") == tokenize("jsonkit fmt")


def test_stop_words_go_and_plurals_meet_their_singular() -> None:
    assert tokenize("the number of nurses in the cities") == ["number", "nurse", "city"]
    assert tokenize("queries") == tokenize("query")
    assert tokenize("status") == ["status"]  # not "statu"


def test_japanese_and_chinese_runs_become_overlapping_character_pairs() -> None:
    assert tokenize("画像を変換") == ["画像", "像を", "を変", "変換"]
    assert tokenize("压缩文件") == ["压缩", "缩文", "文件"]
    # a lone character stays itself; latin words in between are still words
    assert tokenize("JSONを整形") == ["json", "を整", "整形"]


def test_korean_words_keep_their_spaces_and_pair_within_each_word() -> None:
    assert tokenize("파일 압축") == ["파일", "압축"]


def test_accented_latin_words_are_kept_whole_and_read_without_accents() -> None:
    assert tokenize("Größe Café naïve") == ["grosse", "cafe", "naive"]


def test_other_scripts_keep_their_marks() -> None:
    # Russian й is its own letter, not и with a mark.
    assert tokenize("мой файл") == ["мой", "файл"]


def test_an_accent_written_as_a_mark_after_its_letter_is_read_as_the_letter_with_it() -> None:
    # macOS writes "é" as "e" and a combining acute: a regex saw three words in "météo".
    import unicodedata

    assert tokenize(unicodedata.normalize("NFD", "Prévisions météo")) == tokenize("Prévisions météo")
    assert tokenize(unicodedata.normalize("NFD", "météo")) == ["meteo"]


def test_latin_letters_with_a_stroke_or_a_ligature_are_read_plainly_too() -> None:
    # One such letter kept the whole word, its other accents included, as it was.
    assert tokenize("Łódź Smørrebrød œuvre") == ["lodz", "smorrebrod", "oeuvre"]


def test_each_pictograph_is_a_term_of_its_own_and_a_skin_tone_leaves_the_one_it_changes() -> None:
    # Emoji are no word characters: "🎉" alone was no term at all, and found nothing.
    assert tokenize("Party 🎉planner 🎂🎉 👍🏽 ☀️ sunny") == ["party", "🎉", "planner", "🎂", "🎉", "👍", "☀", "sunny"]
    assert tokenize("👨‍👩‍👧") == ["👨", "👩", "👧"]  # a family joined by zero-width joiners


def test_a_words_combining_marks_stay_in_it() -> None:
    # Devanagari's, Bengali's and Tamil's vowel signs are no word characters to a regular
    # expression: each ended a word, and "मौसम" (weather) was "म" and "सम", matching any
    # tool with a "म" in it.
    assert tokenize("मौसम का हाल") == ["मौसम", "का", "हाल"]
    assert tokenize("বাংলা ভাষা தமிழ்") == ["বাংলা", "ভাষা", "தமிழ்"]


def test_arabic_and_hebrew_words_are_read_without_their_vowel_signs() -> None:
    # Written or left out as the writer likes: "تَرْجَمَة" is "ترجمة" (translation).
    assert tokenize("تَرْجَمَة النص") == tokenize("ترجمة النص") == ["ترجمة", "النص"]
    assert tokenize("שָׁלוֹם") == tokenize("שלום")


def test_a_terminals_colour_codes_are_no_words() -> None:
    """A request copied from a terminal, "\x1b[31mweather\x1b[0m", was "31", "mweather" and
    found nothing (an outside check); a hyperlink's code (OSC 8) is no words either."""
    assert tokenize("\x1b[31mweather\x1b[0m \x1b[1;4mforecast\x1b[m") == ["weather", "forecast"]
    assert tokenize("\x1b]8;;https://x.example/docs\x1b\\docs\x1b]8;;\x1b\\ here", request=True) == ["doc", "here"]
    # tput sgr0's "\x1b(B" after the reset, C1's one-byte CSI, and the escape lost in copying (a re-check)
    assert tokenize("\x1b[31mweekday\x1b(B\x1b[m \x9b1mdate\x9b0m") == ["weekday", "date"]
    assert tokenize("[31mweekday[0m ^[[1mdate^[[0m", request=True) == ["weekday", "date"]
    assert tokenize("set a timer of [5m] for tea", request=True) == ["set", "timer", "5m", "tea"]
    # units in brackets are no colour reset (a second re-check: "[mm]" found nothing)
    assert tokenize("[mm]", request=True) == ["mm"]
    assert tokenize("lengths in [mm] rounded to [5m]", request=True) == ["length", "mm", "rounded", "5m"]
    assert tokenize("speed in [m/s] [31mfast[0m", request=True) == ["speed", "m", "s", "fast"]


def test_invisible_characters_inside_a_word_leave_it_one_word() -> None:
    """A zero-width space, a soft hyphen, a word joiner or a byte order mark inside a word, as
    copied text and models' output carry, split it and the search found nothing (an outside
    check: "we\u200bather")."""
    assert tokenize("we\u200bather fore\u00adcast \ufeffjson\u2060kit") == ["weather", "forecast", "jsonkit"]
    assert tokenize("\u202eweather\u200e") == tokenize("weather")
    # The grapheme joiner, a variation selector, a tag, Hangul's filler and Khmer's silent vowel show nothing either.
    assert tokenize("wea\u034fther fore\ufe0fcast json\U000e0041kit date\u3164time time\u17b4zone") == [
        "weather", "forecast", "jsonkit", "datetime", "timezone"]
    # The zero-width non-joiner parts a Persian word from its suffix, as it did: "files" is "file" + "s".
    assert tokenize("فایل\u200cها") == [*tokenize("فایل"), *tokenize("ها")]


@pytest.mark.parametrize("token", ["A1bC2dE3fG4hI5jK6lM7nO8pQ9rS0tU1vW2x", "Ll3fZJZ207qc18Re", "jWarjtT1zdp7dc",
                                   "9f86d081884c7d659a2feaa0c55ad015"])
def test_a_key_or_an_id_in_a_request_is_one_term_not_letters_and_pairs(token: str) -> None:
    """Split where its case and digits change, a random token was letters and pairs, each of
    them some tool's: a request of such a token alone was answered with unrelated tools (an
    outside check), where no tool has it."""
    assert tokenize(f"find {token}", request=True) == ["find", token.lower()]


@pytest.mark.parametrize("token", ["IjOZcLcQymV+4cN9LsqhIhXXBIPzgLfA", "q8Z/3kT+7wPx/9mR2vL0yB4nH6cJ1sF5",
                                   "7d444840-9dc0-11d1-b245-5ffdce74fad2", "o2g2akm_s_4dAj55V34dLZUd7uM4FaoQ"])
def test_a_key_with_separators_in_a_request_is_one_term(token: str) -> None:
    """base64's "+" and "/", a UUID's dashes: split at them, each piece was a word of its own,
    and a request of such a key alone found tools (a second re-check)."""
    assert tokenize(f"look up {token} now", request=True) == ["look", "up", token.lower(), "now"]
    assert tokenize("report_2024_final.pdf in example.com/path/to/file", request=True) == tokenize(
        "report_2024_final.pdf in example.com/path/to/file")


@pytest.mark.parametrize("name", ["k8sGetPod", "getK8sPodIP", "xAiGrok3", "getUserAccountSettingsById"])
def test_a_name_is_split_into_its_words_in_a_tool_and_in_a_request(name: str) -> None:
    """The first form of the rule above made these one term, in tools too: "pod ip" no longer
    found getK8sPodIP (a re-check)."""
    assert tokenize(name, request=True) == tokenize(name)
    assert len(tokenize(name)) >= 3
