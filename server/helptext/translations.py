"""The words of a usage line in the languages programs are translated to.

GNU programs translate their help with gettext, usage line included: "Aufruf: ls [OPTION]...
[DATEI]...", "Utilisation : cp [OPTION]... SOURCE DEST" then "         ou : cp ...",
"Использование: mkdir [ПАРАМЕТР]… КАТАЛОГ…". The words are the translations found in the
gettext catalogues of Debian bookworm (``/usr/share/locale/*/LC_MESSAGES/*.mo``: coreutils,
grep, sed, tar, diffutils, findutils, wget, gettext and others): each msgstr of a msgid
starting "Usage: %s", its "  or:  %s" lines, and what "[OPTION]" became in it. A few that name
something else as well ("Syntaxe", "Sintaxi": the syntax of patterns is a common heading) are
left out, as are translations written right to left.
"""

from __future__ import annotations

import re

# "Usage", and the man pages' "SYNOPSIS".
USAGE_WORDS = (
    "usage", "synopsis", "syntax",  # "syntax": GnuPG's programs
    "aufruf", "verwendung", "benutzung", "nutzung",  # de
    "utilisation",  # fr
    "uso", "utilizzo",  # it, es, pt, gl
    "modo de empleo", "modo de uso", "empleo", "emprego", "utilização",  # es, gl, pt
    "usu", "emplegu",  # ast
    "forma d’ús", "forma d'ús", "format d'ús", "ús",  # ca
    "ûs",  # fur
    "gebruik", "gebruik so",  # nl, af
    "användning", "brug", "anvendelse", "bruk",  # sv, da, nb/nn
    "käyttö", "kasutamine", "naudojimas", "lietošana", "izmantošana",  # fi, et, lt, lv
    "składnia", "użycie", "použití", "užití", "použitie",  # pl, cs, sk
    "használat", "utilizare", "folosire",  # hu, ro
    "uporaba", "uporava", "upotreba",  # sl, hr
    "использование", "вызов", "використання", "користування",  # ru, uk
    "выкарыстаньне", "выкарыстанне", "употреба", "коришћење", "қолданылуы",  # be, bg/sr, kk
    "χρήση", "kullanım", "kullanımı", "გამოყენება",  # el, tr, ka
    "úsáid", "erabilera", "uzmaniero", "uzado",  # ga, eu, eo
    "penggunaan", "pemakaian", "cara pakai", "pag-gamit",  # id, ms, tl
    "cách dùng", "วิธีใช้", "enkozesa entuufu eri",  # vi, th, lg
    "用法", "使用法", "使い方", "利用法", "使用方法", "사용법",  # zh, ja, ko
    "उपयोग", "ਵਰਤੋਂ", "பயன்பாடு",  # ne, pa, ta
)

# "or" at the start of a further usage form: "  or:  cp ...", "  oder: cp ...", "         ou : cp ...".
OR_WORDS = (
    "or", "oder", "ou", "o", "o bien", "o bé", "oppure", "of", "eller", "albo", "lub", "nebo",
    "alebo", "vagy", "sau", "ili", "ali", "veya", "ya da", "või", "tai", "arba", "aŭ", "edo", "nó",
    "oba", "atau", "hoặc", "hay", "ή", "или", "або", "чи", "ці", "альбо", "或", "或者", "または",
    "또는", "혹은",
)

# What "[OPTION]" became in the usage line, in lower case ("ΕΠΙΛΟΓΗ" lowers to "επιλογη"): a
# placeholder for the options, not a positional.
OPTION_WORDS = frozenset({
    "opção", "opções", "opción", "opció", "opzione", "opzioni", "opzion", "optie", "opsie", "opcja",
    "opcje", "opcija", "opcijas", "opțiune", "opţiune", "opcio", "opsyen", "opsi", "pilihan",
    "flagga", "valg", "tilvalg", "valitsin", "võti", "parametras", "parametrai", "parinktis",
    "přepínač", "přepínače", "prepínač", "voľba", "kapcsoló", "izbira", "seçenek", "aukera",
    "rogha", "modifilo", "elekto", "kawayiro", "tùy_chọn", "tùy-chọn", "параметр", "параметры",
    "парамэтар", "опция", "опција", "опцыя", "выбар", "могућност", "επιλογη", "επιλογες",
    "პარამეტრი", "オプション", "选项", "選項", "옵션",
})


def alternation(words: tuple[str, ...]) -> str:
    """A regular expression matching any of ``words``, the longest first, spaces as any space."""
    ordered = sorted(set(words), key=lambda word: (-len(word), word))
    return "|".join(re.escape(word).replace(r"\ ", r"\s+") for word in ordered)
