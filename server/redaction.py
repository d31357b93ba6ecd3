"""Hiding secrets in call arguments before they are written down or shown to a person.

A value is hidden whole when its key looks secret (``token``, ``password``, ``api_key``,
``clientSecret``, ``Authorization``...: the key is split into words, so ``keyboard`` and
``author`` are left alone). Inside any string, what looks like a credential is hidden:
``Bearer ...``, JWTs, runs of 32+ hex digits, the password of a URL (``scheme://user:PASSWORD@``),
well-known token prefixes (``sk-``, ``sk_live_``, ``ghp_``, ``xoxb-``, ``npm_``, ``AKIA``,
``AIza``, Vault's ``hvs.``, ``hf_``, ``pypi-``, ``SG.``, Twilio's ``SK``, ``whsec_``, ``ya29.``, toolbay's own ``tb_``),
also glued to a name before them (``MY_ghp_...``), a PEM private key, and the value of
``password=``, ``api_key=``, ``token=``, ``AWS_SECRET_ACCESS_KEY=``, ``dbPassword=``,
``DB_PASS=``... (also in a query string after another setting, ``?user=a&password=``; and of
``"api_key": "..."`` written as JSON, of ``<password>...</password>`` and ``<add key="ApiKey"
value="..."/>`` as XML), HTTP's Basic and Token credentials, curl's ``-u user:password``, MySQL's
``-pPASSWORD``, and a value that looks like a credential said after such a name and ":" or given
to an option named so (``password: hunter2``, ``--api-key a1b2c3d4e5``), on its line or on the
next (YAML's indented value or list item), or after the word for a password in another language
(``Passwort:``, ``密码：``). A comparison in
code (``aliceSecret === bobSecret``) is left as it is.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from collections.abc import Callable, Collection, Mapping
from dataclasses import replace
from typing import Any

from toolbay.blotting import CREDENTIAL_HIDDEN, MAX_DEPTH, TOO_DEEP, map_strings
from toolbay.kept_patterns import compiled
from toolbay.reading import INVISIBLE, PLAIN_LATIN_LETTERS, looks_random, read_as_a_key
from toolbay.words import ToolDefinition

REDACTED = "[REDACTED]"

SECRET_WORDS = frozenset({
    "token", "password", "passwd", "pwd", "passphrase", "secret", "key", "apikey", "auth",
    "authorization", "credential", "credentials", "cookie", "private", "signature", "bearer",
    "jwt", "otp",
})

_WORDS = compiled(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
# A token's prefix may follow a name joined by "_" (``MY_ghp_...``), which ``\b`` would not
# see as a boundary: the prefixes are looked for after anything but a letter or digit.
_START = r"(?<![A-Za-z0-9])"
_SECRET_TEXT = compiled(
    r"(?i:\bbearer\s+[A-Za-z0-9._~+/=-]+)"
    r"|\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*"
    # A hex run joined to a name by "_" or "-" ("dop_v1_...", "key_..."), which "\b" took for one word.
    r"|(?<![0-9A-Za-z])[0-9a-fA-F]{32,}(?![0-9A-Za-z])"
    rf"|{_START}(?:sk|pk|rk)-[A-Za-z0-9_-]{{16,}}"
    rf"|{_START}(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{{10,}}"  # Stripe's keys
    rf"|{_START}(?:ghp|gho|ghu|ghs|ghr|github_pat|glpat|xox[abprs]|tb)[-_][A-Za-z0-9_-]{{16,}}"
    rf"|{_START}npm_[A-Za-z0-9]{{36}}(?![A-Za-z0-9])"  # npm's tokens (not "npm-check-updates")
    rf"|{_START}AKIA[0-9A-Z]{{16}}(?![A-Za-z0-9])"
    rf"|{_START}AIza[0-9A-Za-z_-]{{35}}"  # Google's API keys
    rf"|{_START}hv[sbr]\.[A-Za-z0-9_-]{{20,}}"  # HashiCorp Vault's tokens
    rf"|{_START}hf_[A-Za-z0-9]{{30,}}"  # Hugging Face's tokens
    rf"|{_START}pypi-AgE[A-Za-z0-9_-]{{50,}}"  # the Python package index's upload tokens (macaroons)
    rf"|{_START}whsec_[A-Za-z0-9+/=]{{20,}}"  # Stripe's webhook signing secrets
    rf"|{_START}ya29\.[0-9A-Za-z_-]{{20,}}"  # Google's OAuth access tokens
    rf"|{_START}SG\.[A-Za-z0-9_-]{{16,}}\.[A-Za-z0-9_-]{{16,}}"  # SendGrid's keys
    rf"|{_START}SK[0-9a-fA-F]{{32}}(?![0-9A-Za-z])"  # Twilio's API keys
    rf"|{_START}dapi[0-9a-f]{{32}}(?:-[0-9]+)?(?![0-9A-Za-z])"  # Databricks' access tokens
    # Telegram's bot tokens, alone or in the API's URLs (".../bot123456789:AAH.../sendMessage")
    rf"|(?:(?<=bot)|{_START})[0-9]{{8,10}}:[A-Za-z0-9_-]{{35}}(?![A-Za-z0-9_-])"
    r"|-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)"
)
# A name that holds a secret: "password", "api_key", "token", and names ending so after other
# words ("DB_PASSWORD", "STRIPE_SECRET_KEY", "aws_secret_access_key", "PRIVATE_KEY"). Asked of
# a whole name, once it is found: a pattern of words before the secret word, tried at each
# word of a long run of them, would take time growing with the square of the run.
# The secret word may also start a camelCase word ("dbPassword", "clientSecret", "githubAPIToken"),
# as JSON, JavaScript and Java name them; "password" (and "passwd", "passphrase") may be glued
# to the words before it ("PGPASSWORD", "dbpassword"). "pass" ends a secret's name only after
# what has one ("DB_PASS", "SSHPASS", "smtpPass"): "PASS: test-foo1" (a test's log),
# "two_pass=1", "render_pass", "bypass" and "compass" are no secrets. "accesskey" glued is an
# HTML attribute; "accessKey" and "access_key" are secrets.
_NAME_WORD_START = r"(?:^|[_-]|(?-i:(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])))"
_PASS_OWNERS = (r"(?:db|database|smtp|mysql|mariadb|redis|admin|user|root|ftp|sftp|mail|email|ldap|pg|postgres"
                r"|rabbitmq|amqp|mongo|ssh|vnc|login|keystore|truststore|key|wifi|bind|app|api|auth|sudo)")
_SECRET_NAME = compiled(rf"(?i)(?:{_NAME_WORD_START}(?:pwd|token|api[_-]?key|apikey"
                          r"|secret(?:[_-]?access)?(?:[_-]?key)?|(?:private|access|account)(?:[_-]key|(?-i:Key)))"
                          rf"|pass(?:word|wd|phrase)|{_PASS_OWNERS}[_-]?pass)$")
# ``password=...`` (a connection string, an environment line): the value after a name and "=",
# hidden when the name is a secret's, the name kept. Only "=": "password: the user's password"
# is a description.
# The name and "=" are looked for first, and the value only after a secret's name: the text
# after any other name is searched again, so that "x = f(password='...')" and a query string's
# "user=alice&password=..." are found, in one pass ("a=a=a=..." took time growing with the
# square of its length, and recursion past Python's limit at 2 KB).
# A quote may follow a string prefix (Python's r"...", b"...", f"..."): read as the value, the
# prefix alone was hidden and the secret shown after it ('password = [REDACTED]"Tr0ub4dor9x"').
_ASSIGNED_NAME = compiled(r"(?<![A-Za-z0-9_-])([A-Za-z0-9_-]+)(?:[=＝](?=\S)|\s+[=＝]\s*)"
                            r"(?:(?:[rRbBuUfF]{1,2}(?=[\"']))?\\?[\"'`])?")
_ASSIGNED_VALUE = compiled(
    # Not a placeholder: "--token=TOKEN" or "API_KEY=YOUR_KEY" in a help text (capitals without a
    # digit; "HUNTER2SECRET" is a password), "$PASSWORD", "{secret}".
    # A quote may be escaped (``PASSWORD=\"x\"`` in a JSON string), and ends the value then.
    r"(?![A-Z][A-Z_]*(?![^\s,;\"'<>]))(?![${%*])(?:[^\s,;\"'<>\\]|\\(?![\"']))+")
# ``password="correct horse battery"``, ``"password": "two words"``, ``password: 'a b'``: a quoted
# value with spaces in it, after a secret's name (a dotted one too: ``spring.datasource.password``)
# and "=" or ":", hidden whole, up to its closing quote on the same line; the rules below stop a
# value at its first space, and hid only its first word, or nothing. Not a placeholder in
# capitals ("YOUR API KEY"), "$...", "{...}", "<grant token here>" or "[Pagination token]".
# After "=>" too (PHP's and Ruby's "'password' => 'a b'").
_QUOTED_WITH_SPACES = compiled(
    # The name in quotes of its own ("password": ...), or in none: a quote before it would be
    # the one after the separator (`"passwd:" and "group:"`, `` `token=`, `api_key=` ``); or a
    # long option's, the value after a space ("--password 'a b'").
    r"""((?:(?:(["'])([A-Za-z0-9_.-]+)\2|(?<![A-Za-z0-9_.\-"'`])([A-Za-z0-9_.-]+))"""
    r"""[^\S\r\n]*(?:=>|[=＝:：])[^\S\r\n]*|(?<![A-Za-z0-9_.-])--([A-Za-z0-9_.-]+)[^\S\r\n]+)(["'`]))"""
    # Greedy, with the space looked for afterwards: a lazy scan for it backtracked over every
    # split of a long value that no quote closes (100 KB: 53 s). An escaped quote is part of
    # the value. Not a value: one that begins or ends with a space (the text between two quoted
    # prompts, `"Old password:" and "New password:"`), or a path ("/home/me/my docs" of PWD).
    r"""(?![A-Z][A-Z ]*\6)(?![${%*<\[\s/~])((?:[^"'`\r\n\\]|\\.)+)(?<=\S)(?=\6)""")
# ``"api_key": "..."`` (JSON written into a text): the value of a secret's name, the name kept.
# Its quotes may be escaped, as in JSON kept in a JSON string (kubectl's
# last-applied-configuration: "{\"password\":\"...\"}"); the name may be dotted
# ("spring.datasource.password"); "=>" is PHP's and Ruby's.
_QUOTED = compiled(r"""(\\?["']([A-Za-z0-9_.-]+)\\?["']\s*(?:=>|[:：])\s*\\?["'])(?![${%*])"""
                     r"""(?:[^"'\s\\]|\\(?!["']))+(?=\\?["'])""")
# A secret's name in quotes, then its value in quotes, in code: a subscript set
# (``os.environ["DB_PASSWORD"] = "..."``, ``config['token'] = '...'``) or a setter's first two
# arguments (``define('DB_PASSWORD', '...')``, ``setenv("API_KEY", "...")``,
# ``System.setProperty("db.password", "...")``). A value of one word, but a placeholder. Only
# setters: the first of any call's arguments may be a secret itself, not its name
# (``pbkdf2('secret', 'salt', ...)``, ``scrypt('password', 'salt', 64)``).
_QUOTED_PAIR = compiled(r"""((?:\[\s*(["'])([A-Za-z0-9_][A-Za-z0-9_.-]*)\2\s*\]\s*="""
                          r"""|(?<![\w$])(?:define|setenv|putenv|Setenv|setProperty|SetEnvironmentVariable|setItem"""
                          # configparser's set(section, option, value) takes the section first
                          r"""|setdefault|set_var|store|set|put)\(\s*(?:(["'])[^"'\r\n]*\4\s*,\s*)?(["'])"""
                          r"""([A-Za-z0-9_][A-Za-z0-9_.-]*)\5\s*,)\s*(?:[rRbBuUfF]{1,2}(?=["']))?(["']))(?![${%*<\[\s])"""
                          # The other quote and an escaped one are part of the value (a value "it's-x9").
                          r"""((?:[^"'\\\r\n]|\\.|(?!\7)["'])+)(?=\7)""")
# keyring.set_password(service, user, password): the third argument is the password, whatever is
# named before it.
_KEYRING_PASSWORD = compiled(r"""(set_password\(\s*(["'])[^"'\r\n]*\2\s*,\s*(["'])[^"'\r\n]*\3\s*,\s*(["']))"""
                               r"""(?![${%*<\[\s])((?:[^"'\\\r\n]|\\.|(?!\4)["'])+)(?=\4)""")
# Words a value in code may be instead of a secret: keyring's documentation writes
# set_password("system", "username", "password").
_STAND_IN_WORDS = frozenset({"password", "passwd", "secret", "token", "example", "changeme"})
# A password that stands for one in documentation: "your" or "my" and the name of what goes there
# ("your-password", "yourpassword", "mypassword", "your_password_here", "myDbPassword",
# "your-api-key"), not any word after them: "mysecretpass" and "yourdogsname" are passwords (an
# outside check: a URL's "admin:mysecretpass@" was shown as a placeholder).
_OWNED_STAND_IN = compiled(
    r"(?i:(?:your|my)[-_]?(?:(?:db|database|app|admin|user|root|redis|api|access|auth|account|github)[-_]?)?"
    r"(?:password|passwd|pass|pwd|pw|passphrase|secret|token|key|secret[-_]?key|credentials?)(?:[-_]?here)?)")
# A password's own "!" at its end ("Tr0ub4dor&3!"): hidden with it once it is hidden. Said after
# it, the mark told the secret's last character ("password: [REDACTED]!").
_OWN_MARKS = "!"
# What goes on after a value stopped at "," or ";", with no space between: the value's too
# ("token=a1b2c3;d4e5f6", "password=p@ss,word"), of which only the part before was hidden. Not
# another name given a value ("password=x,user=y", "Password=x;User Id=sa", "token: x,host: y"), nor code
# that follows ("token=get();run()"): the run taken whole (a shorter one would pass the checks after it).
_GOES_ON_PATTERN = (r"[,;][^\s,;\"'`<>=＝\\()\[\]{}、。，；）]+(?![^\s,;\"'`<>=＝\\()\[\]{}、。，；）])(?<![:：])"
                    r"(?![^\S\r\n]*[=＝:：(])(?![^\S\r\n]+[A-Za-z0-9_-]+[^\S\r\n]*[=＝:：])")
_GOES_ON = compiled(_GOES_ON_PATTERN)
# ``password: hunter2`` and ``--token a1b2c3d4`` (a secret said in words, or given to an option
# in a command line): the value after a secret's name (dotted or not) and ":", or after an
# option named so. Both forms also introduce descriptions ("password: the user's password",
# "--token TOKEN", "token: 32-byte hex"), so the value is hidden only when it looks like a
# credential (``_looks_like_credential``), the name kept.
# A name of one or two words ("API key"), the last dotted or not ("spring.datasource.password").
_SPOKEN_NAME = r"(?:[A-Za-z0-9_-]+ )?[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*"
_SPOKEN = compiled(
    r"(?<![A-Za-z0-9_./:-])(--?([A-Za-z0-9_-]+)[^\S\r\n]+"
    # A name of one or two words ("API key"), then ":" (or "=" then a space: "password= x9y8"),
    # spaces around it or not.
    rf"|({_SPOKEN_NAME})[^\S\r\n]*[:：=＝][^\S\r\n]*)"
    r"([\"'`]?)(?![${%*<\[(])([^\s,;\"'`<>、。，；）]+(?:" + _GOES_ON_PATTERN + ")*)")
# The value on the next line, indented under its name, as YAML writes one there
# ("password:\n    Xk29vQpL7m", or after a block scalar's "|" or ">-"), unless that line is a
# key of its own ("database:\n  password: x"). A pass of its own, after ``_SPOKEN``'s: in that
# one, a name ending its line ("Usage:") took the next line's first word as its value, and
# "--password" there was then never read as an option (a re-check: secrets reached the audit
# log). Its groups are numbered as ``_SPOKEN``'s (2, an option's name, never matches).
_SPOKEN_NEXT_LINE = compiled(
    rf"(?<![A-Za-z0-9_./:-])((?!)()|({_SPOKEN_NAME})[^\S\r\n]*[:：=＝][^\S\r\n]*"
    r"(?:[|>][-+]?[^\S\r\n]*)?\r?\n(?:[^\S\r\n]+(?:-[^\S\r\n]+)?|-[^\S\r\n]+)(?![^\s:：]*[:：](?:\s|$)))"
    r"([\"'`]?)(?![${%*<\[(])([^\s,;\"'`<>、。，；）]+)")
# A YAML list under a secret's name ("passwords:\n  - Xk29vQpL7m\n  - hunter2x9"): each item,
# where it looks like a credential; ``_SPOKEN_NEXT_LINE`` reads only the first.
_SPOKEN_LIST = compiled(
    rf"(?<![A-Za-z0-9_./:-])({_SPOKEN_NAME})[^\S\r\n]*[:：][^\S\r\n]*\r?\n"
    r"((?:[^\S\r\n]*-[^\S\r\n]+[^\r\n]*(?:\r?\n|$))+)")
# An item: a word, or quoted words; a comment may follow ("- a1b2c3  # prod").
_LIST_ITEM = compiled(r"(?m)^([^\S\r\n]*-[^\S\r\n]+)"
                        r"(?:([\"'`])(?![${%*<\[(\s])([^\"'`\r\n]+)\2|(?![${%*<\[(])([^\s\"'`]+))"
                        r"(?=[^\S\r\n]*(?:#[^\r\n]*)?\r?$)")
# An environment variable's name ("AWS_S3_TOKEN" in a list of a workflow's secrets): not a value.
_VARIABLE_NAME = compiled(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
# A Kubernetes container's or a workflow's variable: "- name: DB_PASSWORD" and, on the next
# line, "value: ...", the setting's value whatever it is, but a placeholder (as ``_KEYED``).
_NAMED_VALUE = compiled(r"""(?m)((?<![\w-])name:[^\S\r\n]*(["']?)([A-Za-z0-9_.-]+)\2[^\S\r\n]*\r?\n"""
                          r"""[^\S\r\n]*value:[^\S\r\n]*(["']?))(?![${%*<\[\s|>])([^\r\n"']*[^\s"'])(?=\4[^\S\r\n]*\r?$)""")
# ``<password>hunter2</password>`` (XML, a namespace's prefix or attributes allowed): the text
# of an element named as a secret, the tags kept. As ``_ASSIGNED_VALUE``: whatever it holds but a
# placeholder ("${DB_PASSWORD}", "PASSWORD").
_TAGGED = compiled(r"(<(?:[A-Za-z_][\w.-]*:)?([A-Za-z_][\w.-]*)(?:\s[^<>]*)?>\s*(?:<!\[CDATA\[)?)"
                     r"(?![A-Z][A-Z_]*\s*[<\]])(?![${%*])([^<>\s\]](?:[^<>\]]*[^<>\s\]])?)(?=\s*(?:\]\]>)?</)")
# "Passwort: Xk29vQpL7m", "密码：hunter2x": a password said after its name in another language
# (German, Dutch, French, Spanish, Portuguese, Polish, Turkish, Russian, Chinese, Japanese,
# Korean), hidden by the rule for one said in English after "password:".
_SPOKEN_ELSEWHERE = compiled(
    r"(?i)((?:(?<![^\W\d_])(?:passwort|kennwort|wachtwoord|mot de passe|contrase(?:ñ|n\u0303)a|senha|hasło|şifre"
    r"|ŞİFRE|пароль)"
    # Chinese, Japanese and Korean write words together: "用户密码" (the user's password).
    r"|密码|密碼|口令|パスワード|비밀번호)[^\S\r\n]*[:：=＝][^\S\r\n]*[\"'`]?)"
    r"(?![${%*<\[(])([^\s,;\"'`<>、。，；）]+)")
# Without each word's first letter, which a label writes in capitals ("Contraseña:", "Hasło:").
_ELSEWHERE_HINTS = ("wort", "WORT", "woord", "WOORD", "passe", "PASSE", "ontras", "ONTRAS", "enha", "ENHA", "asł",
                    "ASŁ", "ifre", "IFRE", "İFRE", "арол", "АРОЛ", "密", "口令", "パスワード", "비밀번호")
# A setting named in an attribute, as .NET's configuration (``<add key="ApiKey" value="..."/>``)
# and Java's XML properties (``<entry key="password">...</entry>``) write one: its value.
_KEYED = compiled(r"""(<[A-Za-z_][\w.:-]*\s[^<>]*?\bkey\s*=\s*(["'])([\w.:-]+)\2[^<>]*>\s*)(?![${%*])"""
                    r"(?![A-Z][A-Z_]*\s*<)([^<>\s](?:[^<>]*[^<>\s])?)(?=\s*</)")
# ... and in a tag's attributes, in either order (``<add value="..." key="DbPassword"/>``,
# Spring's and Ant's ``<property name="password" value="..."/>``).
_TAG_WITH_ATTRIBUTES = compiled(r"<[A-Za-z_][\w.:-]*\s[^<>]*>")
_ATTRIBUTE = compiled(r"""(?<![\w.:-])([A-Za-z_][\w.:-]*)(\s*=\s*)(["'])(.*?)\3""", re.DOTALL)
# An HTTP Authorization header's credentials other than a bearer token's (which ``_SECRET_TEXT``
# finds anywhere): "Authorization: Basic YWRtaW46cGFzcw==", "Authorization: Token abcdef123456".
_AUTHORIZATION = compiled(r"(?i)(\bauthorization[\"']?\s*[:=]\s*[\"']?(?:basic|token|digest)\s+)"
                            r"[A-Za-z0-9._~+/=-]{6,}")
# A command line's "user:password" ("curl -u admin:Tr0ub4dor", "--user=admin:x"): the password.
_USER_PASSWORD = compiled(r"((?<!\S)(?:-u|--user)(?:=|[^\S\r\n]+)[^\s:@/]+:)(?![${%*])([^\s\"']+)")
# MySQL's and MariaDB's clients take a password glued to "-p" ("mysql -uroot -pS3cret db",
# quoted or not; "-p" alone asks for it). Looked for within a command's next 20 words: looked
# for to the end of the line after each "mysql", the time grew with the square of a text that
# named it often (20 s for 108 KB of prose).
_MYSQL_PASSWORD = compiled(r"(\b(?:mysql|mariadb)(?:-?(?:dump|admin|import|check|show|slap))?"
                             r"(?:[^\S\r\n]+(?:[^\s-]|-[^p\s])\S*){0,20}?[^\S\r\n]+-p)"
                             # Not a placeholder: "-p$MYSQL_PWD", "-p<password>", "-pPASSWORD".
                             r"(?![${%*<]|[A-Z][A-Z_]*(?![^\s\"']))(?:(['\"])([^'\"\r\n]+)\2|([^\s\"']+))")
# Commands that take a password as an option's value, among the options before their own
# command or arguments begin: "sshpass -p S3cret ssh host" (or -pS3cret), "docker login
# registry.io -u me -p S3cret" (podman's and other registry logins too; --password S3cret),
# "redis-cli -h cache -p 6379 -a S3cret" (its -p is the port). Read option by option (each with
# at most one value), so "sshpass -e ssh -p 2222", "docker login x && docker run -p 80:80" and
# "redis-cli info | grep -a x" name no password.
# An option's value: quoted ("$DOCKER_USER", 'me') or a word of no shell separator.
_OPTION_VALUE = r"""(?:'[^'\r\n]*'|"[^"\r\n]*"|(?![-|&;<>'"`(])[^\s|&;]+)"""


def _command_password(command: str, flags: str, option: str | None = None,
                      arguments: bool = False) -> re.Pattern[str]:
    """``option``: one option before the password's, where the command's own are known;
    ``arguments``: the command takes its options after its arguments too (redis-cli's
    ``--cluster create HOST:PORT ... -a PASSWORD``)."""
    space = r"[^\S\r\n]+"
    option = option or rf"{space}-(?!(?:{flags})(?![\w-]))[^\s=|&;]+(?:=\S*)?(?:{space}{_OPTION_VALUE})?"
    if arguments:
        option = rf"(?:{option}|{space}{_OPTION_VALUE})"
    return compiled(rf"(\b{command}(?:{option}){{0,12}}?{space}(?:{flags})(?:=|{space}|(?<=-[a-z])(?=[^\s=-])))"
                      # Not a placeholder, nor punctuation ("`sshpass -p`, this takes"); see _hide_command_password.
                      r"(?![${%*<-]|[A-Z][A-Z_]*(?![^\s\"']))(?=['\"]?[^\s'\"]*\w)(?:(['\"])([^'\"\r\n]+)\2|([^\s\"'|&;]+))")


_COMMAND_PASSWORDS = (
    # sshpass's other options: -f FILE, -d FD, -P PROMPT take a value; -e, -v, -h none.
    ("sshpass", _command_password("sshpass", "-p", r"[^\S\r\n]+(?:-[fdP][^\S\r\n]*[^\s|&;]+|-[evh](?!\S))")),
    (" login", _command_password(r"(?:docker|podman|nerdctl|buildah|skopeo|oras|helm[^\S\r\n]+registry)[^\S\r\n]+login"
                                 r"(?:[^\S\r\n]+(?![-|&;'\"])[^\s|&;]+)?", "-p|--password")),
    ("redis-cli", _command_password("redis-cli", "-a|--pass", arguments=True)),
)
# An AWS secret access key (40 letters, digits, "/" and "+"), in a text that names AWS or
# holds an access key's id: alone it has no mark of its own.
_AWS_SECRET = compiled(r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")
# A cheap test before the pattern (substring searches in C): a text that names no secret has
# nothing for it to find.
_SPOKEN_HINTS = ("pass", "pwd", "token", "secret", "key", "PASS", "PWD", "TOKEN", "SECRET", "KEY", "Pass", "Token",
                 "Secret", "Key", "Pwd")

_WEAK_FORM = compiled(r"[A-Za-z]+[-_]?[0-9]+|[0-9]+[-_]?[A-Za-z]+")  # hunter2, base64, 32-byte
# Technical words written with a number, said after a secret's name to describe it ("token: utf-8",
# "secret: SHA-256", "token: OAuth2", "key: 32-byte").
_TECH_WORD = compiled(r"(?i)(?:utf|ucs|base|sha|md|crc|aes|rsa|ecdsa|ed|oauth|hmac|pbkdf|des|rc|tls|ssl|http|ipv"
                        r"|ldap|x|v)[-_]?\d+|\d+[-_]?(?:bits?|bytes?|chars?|characters?|digits?|letters?|kb|mb|gb)")
# Names whose value is the secret itself, whatever follows it ("password: hunter2 please");
# "token:" and "key:" also introduce what a token is ("token: base64 encoded").
_SAID_WHOLE = compiled(rf"(?i)(?:(?:^|[_ -]|(?-i:(?<=[a-z0-9])(?=[A-Z])))(?:pwd|secret)|pass(?:word|wd|phrase)"
                         rf"|{_PASS_OWNERS}[_-]?pass)$")
# A number and what it counts, in any language ("8-stellig", "12-character", "6-chiffres").
_COUNTED = compiled(r"\d+-[^\W\d_]{4,}")
_SYMBOL = compiled(r"[!@#$%^&*+=~?|\\]")
# What may end a value without being part of it ("password: hunter2." "(token: ab12cd34)").
_TRAILING = ".:)!?"
# What may follow a value that ends its clause.
_CLAUSE_ENDS = ("", "\r", "\n", ",", ";", ")", '"', "'", "`", "、", "。", "，", "；", "）")


def _names_a_secret(text: str) -> bool:
    return any(hint in text for hint in _SPOKEN_HINTS)


# What code writes where a value is not given ("Pass `token=False` to send none").
_NO_VALUES = frozenset({"True", "False", "None", "true", "false", "null", "nil", "undefined"})
# A placeholder in capitals ("PASSWORD", "API_KEY"), as the patterns' own lookaheads read one.
_PLACEHOLDER = compiled(r"[A-Z][A-Z_]*")


def _hide_every_assigned(text: str) -> str:
    """Every value of ``_ASSIGNED_NAME``'s secret names hidden (``_hidden_value``)."""
    pieces: list[str] = []
    kept = at = 0
    while (named := _ASSIGNED_NAME.search(text, at)) is not None:
        at = named.end()
        if not _SECRET_NAME.search(named.group(1)):
            continue
        value = _ASSIGNED_VALUE.match(text, at)
        if value is None:
            continue
        hidden = _hidden_value(text, named, value.group())
        end = value.end()
        if hidden == REDACTED:
            end = _closing_quote(text, named.group(), end)
            while (more := _GOES_ON.match(text, end)) is not None:
                end = more.end()
        pieces += [text[kept:named.start()], named.group(), hidden]
        kept = at = end
    return "".join(pieces) + text[kept:] if pieces else text


def _closing_quote(text: str, name_and_quote: str, value_end: int) -> int:
    """Where the quoted value that ``name_and_quote`` opens ends (its closing quote, on the same
    line), when its first word ended at ``value_end``; ``value_end`` if the value was not quoted.
    Words the quoted rule left (``password='a b c'``: "a" reads as a description's) were hidden
    but for the first, and the rest shown."""
    quote = name_and_quote[-1:]
    if quote not in ("'", '"', "`") or text[value_end:value_end + 1] not in (" ", "\t"):
        return value_end
    closing = ("\\" + quote) if name_and_quote.endswith("\\" + quote) else quote
    line_end = text.find("\n", value_end)
    found = text.find(closing, value_end, len(text) if line_end < 0 else line_end)
    return value_end if found < 0 else found


def _hidden_value(text: str, named: re.Match[str], value: str) -> str:
    """What ``value``, after a secret's name and "=" (``named``), is written as."""
    if value.startswith(("=", "＝")):
        return value  # a comparison ("aliceSecret === bobSecret"): code, not a value
    after_code_quote = text[named.start() - 1:named.start()] == "`"
    if after_code_quote and (named.group().endswith("`") or value[:1] == "`"):
        return value  # a name in code quotes ("`password=`", "`secret=`..."), its value not given
    bare = value.rstrip("`.,:;)")
    if value.endswith(("[", "(")):
        return value  # code that reads the value ("os.environ[" of 'password = os.environ["PASSWORD"]')
    if bare in _NO_VALUES or "`" in value and _PLACEHOLDER.fullmatch(bare):
        # "`token=False`": an argument's value in code, not a secret; "`--token=TOKEN`", a
        # placeholder as the pattern reads one, but for the code quote that closes it
        return value
    if value.endswith("`") and (named.group().endswith("`") or after_code_quote):
        return REDACTED + "`"  # "`password=x9`", "token=`[REDACTED]`": the quote closes it
    return REDACTED


# Words that say what a value is rather than being it: "Enter your password", "the session
# token", "str | None", "string (required)" (i18n files, schema examples, documentation; a
# re-check: all hidden whole). Such a value is left to the rules below, as before.
_DESCRIBING = compiled(r"(?i)\b(?:the|your|a|an|enter|choose|new|reset|forgot|for|of|to|is|be|must|will|here"
                         r"|str|string|int|integer|bool|none|null|optional|required)\b")


def _hide_quoted_with_spaces(found: re.Match[str]) -> str:
    name = found.group(3) or found.group(4) or found.group(5)
    value = found.group(7)
    if not value.strip() or not any(c.isspace() for c in value) or _DESCRIBING.search(value) \
            or not _SECRET_NAME.search(name.rsplit(".", 1)[-1]):
        return found.group(0)
    return found.group(1) + REDACTED


def _hide_quoted_pair(found: re.Match[str]) -> str:
    name, value = found.group(3) or found.group(6), found.group(8)
    # A value of several words in code is a label far more often than a passphrase: a table of
    # translations or messages ("Mot de passe", "Show password", "Passwords do not match").
    if not _SECRET_NAME.search(name.rsplit(".", 1)[-1]) or value in _NO_VALUES or value.lower() == name.lower() \
            or _PLACEHOLDER.fullmatch(value) or any(c.isspace() for c in value):
        return found.group(0)
    return found.group(1) + REDACTED


def _hide_keyring_password(found: re.Match[str]) -> str:
    value = found.group(5)
    if value.lower() in _STAND_IN_WORDS or any(c.isspace() for c in value) or _PLACEHOLDER.fullmatch(value):
        return found.group(0)
    return found.group(1) + REDACTED


def _hide_quoted(found: re.Match[str]) -> str:
    return found.group(1) + REDACTED if _SECRET_NAME.search(found.group(2).rsplit(".", 1)[-1]) else found.group(0)


def _hide_keyed(found: re.Match[str]) -> str:
    """As ``_hidden_value``: a setting's value, whatever it is, but a placeholder."""
    return found.group(1) + REDACTED if _SECRET_NAME.search(found.group(3).rsplit(".", 1)[-1]) else found.group(0)


def _hide_named_value(found: re.Match[str]) -> str:
    if not _SECRET_NAME.search(found.group(3).rsplit(".", 1)[-1]) or _PLACEHOLDER.fullmatch(found.group(5)):
        return found.group(0)
    return found.group(1) + REDACTED


def _hide_setting_attributes(found: re.Match[str]) -> str:
    """A tag naming a secret's setting in its ``key`` or ``name`` attribute, with its ``value``
    attribute hidden (but a placeholder); any other tag as it was."""
    tag = found.group(0)
    attributes = {match.group(1).lower(): match for match in _ATTRIBUTE.finditer(tag)}
    named, value = attributes.get("key") or attributes.get("name"), attributes.get("value")
    if named is None or value is None or not _SECRET_NAME.search(named.group(4).rsplit(".", 1)[-1]):
        return tag
    if not value.group(4) or value.group(4)[0] in "${%*" or _PLACEHOLDER.fullmatch(value.group(4)):
        return tag  # empty, or a placeholder ("${API_KEY}", "PASSWORD")
    return tag[:value.start(4)] + REDACTED + tag[value.end(4):]


def _hide_user_password(found: re.Match[str]) -> str:
    # "-u" is also docker's user:group ("-u 1000:1000") and ls's access time: a password only
    # when it looks like one.
    value = found.group(2)
    return found.group(1) + REDACTED if _looks_like_credential(value.rstrip(_TRAILING), True, True) else found.group(0)


def _hide_glued_password(found: re.Match[str]) -> str:
    # Whatever follows "-p" is the password (digits alone too): its quotes are kept.
    quote = found.group(2) or ""
    return f"{found.group(1)}{quote}{REDACTED}{quote}"


# Words of prose said after the option, not its value ("redis-cli -a is insecure", "docker login
# -p is deprecated", "podman login -p only ...").
_PROSE_AFTER_AN_OPTION = frozenset({"is", "was", "only", "and", "or", "to", "the", "a", "an", "in", "on", "for", "as",
                                    "with", "flag", "option", "argument", "deprecated", "instead", "then", "will",
                                    "can", "must", "should", "takes", "sets", "gives", "here"})


def _hide_command_password(found: re.Match[str]) -> str:
    value = found.group(3) or found.group(4)
    if value.lower() in _STAND_IN_WORDS or value.lower() in _PROSE_AFTER_AN_OPTION \
            or _OWNED_STAND_IN.fullmatch(value.replace(" ", "-")) \
            or (found.group(3) is not None and _URL_PLACEHOLDER.fullmatch(value)):
        return found.group(0)  # "sshpass -p password", "-a yourpassword", -p "$SSHPASS": words standing for one
    return _hide_glued_password(found)


def _hide_aws_secret(found: re.Match[str]) -> str:
    return REDACTED if looks_random(re.sub(r"[/+]", "", found.group(0))) else found.group(0)


def _hide_tagged(found: re.Match[str]) -> str:
    # As a value said after a name: "<token id="1">Hello</token>" (a corpus's markup) and
    # "<Token>Bearer</Token>" are words, "<password>hunter2x</password>" is a password.
    # A password's element holds a password whatever it looks like ("<password>hunter</password>").
    name, value = found.group(2), found.group(3)
    if not _SECRET_NAME.search(name):
        return found.group(0)
    if _SAID_WHOLE.search(name) is None and not _looks_like_credential(value, True, False):
        return found.group(0)
    return found.group(1) + REDACTED


def _looks_like_credential(value: str, at_clause_end: bool, said_whole: bool) -> bool:
    """Whether ``value`` (its trailing punctuation taken off), said after a secret's name, is the
    secret rather than words about it.

    A credential mixes letters with digits or symbols; words do not (``the``, ``TOKEN``, an
    all-capitals placeholder), nor technical words written with a number (``utf-8``,
    ``SHA-256``). Letters then digits or the reverse (``hunter2``, ``base64``) and words joined
    with digits (``min-8-chars``) are how descriptions write things too, so such a value counts
    after a name that is said whole (``said_whole``: "password: hunter2 please") where the value
    is that name's, or where it ends its clause ("token: ab12." but not "token: base64 encoded")."""
    if len(value) < 5 or value.isupper() and not any(c.isdigit() for c in value) or _TECH_WORD.fullmatch(value) \
            or _COUNTED.fullmatch(value):
        return False
    letters = any(c.isalpha() for c in value)
    digits = any(c.isdigit() for c in value)
    if _SYMBOL.search(value, 1):
        return letters or digits
    if not (letters and digits):
        return False
    parts = re.split(r"[-_.]", value)
    if len(parts) > 1 and all(part.isalpha() or part.isdigit() for part in parts if part):
        return said_whole and at_clause_end  # words and numbers joined: "min-8-chars", "32-byte-hex"
    return at_clause_end or said_whole or _WEAK_FORM.fullmatch(value) is None


def _kept_after(value: str, bare: str) -> str:
    """What is shown after ``value`` hidden (``bare``, the value less its trailing marks): the
    marks that end the sentence, not the password's own "!"."""
    return value[len(bare):].lstrip(_OWN_MARKS)


def _hide_spoken(found: re.Match[str]) -> str:
    value = found.group(5)
    bare = value.rstrip(_TRAILING)
    after = found.string[found.end():found.end() + 2]
    at_clause_end = after[:1] in _CLAUSE_ENDS or (after[0] in ".!?" and after[1:] in ("", " ", "\n"))
    # A dotted setting ("spring.datasource.password: ..."): its last name says what it is.
    name = (found.group(2) or found.group(3)).replace(" ", "_").rsplit(".", 1)[-1]
    if not _SECRET_NAME.search(name) or not _looks_like_credential(
            bare, at_clause_end or value[-1] in ".!?)", _SAID_WHOLE.search(name) is not None):
        return found.group(0)
    return found.group(1) + found.group(4) + REDACTED + _kept_after(value, bare)


def _hide_list_items(found: re.Match[str]) -> str:
    name = found.group(1).replace(" ", "_").rsplit(".", 1)[-1]
    said_whole = _SAID_WHOLE.search(name) is not None
    if not _SECRET_NAME.search(name):
        # A plural: "passwords" holds passwords; "tokens", "keys" and "secrets" as often name
        # them ("cl100k_base", "docker-hub-token-v2", "AWS_S3_TOKEN": a re-check).
        singular = name[:-1] if name[-1:] in ("s", "S") else ""
        if not singular or not re.search(r"(?i)pass(?:word|wd|phrase)$", singular):
            return found.group(0)
        said_whole = True

    def hide_item(item: re.Match[str]) -> str:
        quote, value = item.group(2) or "", item.group(3) or item.group(4)
        bare = value.rstrip(_TRAILING)
        if _VARIABLE_NAME.fullmatch(bare):
            return item.group(0)
        if quote and " " in value.strip():  # quoted words: a passphrase under a password's name
            hidden = said_whole and not _DESCRIBING.search(value)
        else:  # as the first item, under its name, is read (``_SPOKEN_NEXT_LINE``)
            hidden = _looks_like_credential(bare, True, said_whole)
        if not hidden:
            return item.group(0)
        return item.group(1) + quote + REDACTED + _kept_after(value, bare) + quote

    items = found.group(2)
    return found.group(0)[:len(found.group(0)) - len(items)] + _LIST_ITEM.sub(hide_item, items)


def _hide_spoken_elsewhere(found: re.Match[str]) -> str:
    value = found.group(2)
    if not value.isascii():  # "Contraseña: mín.8", "パスワード：半角英数字8文字以上": a description in its language
        return found.group(0)
    bare = value.rstrip(_TRAILING)
    after = found.string[found.end():found.end() + 1]
    at_clause_end = after in _CLAUSE_ENDS
    if not _looks_like_credential(bare, at_clause_end, said_whole=True):
        return found.group(0)
    return found.group(1) + REDACTED + _kept_after(value, bare)


# The password of a URL's user information: the user name is kept (it says which account).
# A URL's userinfo: "user:password@" (the user may be empty, "redis://:pass@host", and the
# password may hold "@" itself: the host follows the last one), or a token given as the user
# ("https://TOKEN@github.com"), hidden where it reads as a key (not "git@", "ann@").
_URL_USERINFO = compiled(r"(?<=://)(?:([^/\s:@?#]*):([^/\s?#]+)|([^/\s:@?#]{12,}))@(?=[^/\s@?#])")
# A password that stands for one: "redis://:PASSWORD@host", "gist://:TOKEN@id", "${DB_PASS}", "<password>".
_URL_STAND_IN_WORDS = _STAND_IN_WORDS | {"pass", "pw"}
_URL_PLACEHOLDER = compiled(
    r"[A-Z][A-Z_]*|<[^<>]*>|\[[^\[\]]*\]|\*+|%s|%\(\w+\)s"
    r"|\$?\{\{[^{}]*\}\}|\$\{\{[^{}]*\}\}|\$\{?[A-Za-z_][A-Za-z0-9_]*(?::?-[^{}]*)?\}?|\{[^{}]*\}"  # templates, shells
    rf"|{_OWNED_STAND_IN.pattern}")  # "your-password", "Your_Password", "mypassword"
# A URL's parts that are its secret, after what is kept: the path of a webhook anyone holding it
# may post to (Slack's, Discord's), and a query's value that keys or signs the request
# ("?key=...", "&X-Amz-Signature=...").
_URL_SECRET = compiled(
    r"((?i:hooks\.slack\.com)/(?:services|workflows|triggers)/)[A-Za-z0-9_/-]{16,}"
    r"|(/api/(?:v[0-9]+/)?webhooks/)[0-9]{5,}/[A-Za-z0-9_-]{20,}"
    r"|([?&](?i:key|sig|signature|x-amz-signature|x-amz-credential|x-amz-security-token|x-goog-signature"
    r"|x-goog-credential)=)(?![A-Z_]+(?:[&#\s\"'<>]|$))(?=[^&#\s\"'<>]*[0-9])(?=[^&#\s\"'<>]*[A-Za-z])"
    r"[^&#\s\"'<>]{8,}")  # letters and digits: not "?key=YOUR_KEY", nor "?key=getting-started" (a re-check)


def _hide_url_userinfo(found: re.Match[str]) -> str:
    user = found.group(3)
    if user is None:
        password = found.group(2)
        stands_for_one = _URL_PLACEHOLDER.fullmatch(password) or password.lower() in _URL_STAND_IN_WORDS
        return found.group(0) if stands_for_one else f"{found.group(1)}:{REDACTED}@"
    return f"{REDACTED}@" if looks_random(re.sub(r"[^A-Za-z0-9]", "", user)) else found.group(0)


def _hide_url_secret(found: re.Match[str]) -> str:
    kept = found.group(1) or found.group(2) or found.group(3)
    if found.group(3) is not None and not looks_random(re.sub(r"[^A-Za-z0-9]", "", found.group(0)[len(kept):])):
        return found.group(0)  # a page's words, "?key=thumbnail-200x200", "?key=page2section3" (a re-check)
    return kept + REDACTED


def is_secret_key(key: str) -> bool:
    words = [w.lower() for w in _WORDS.findall(key)]
    return any(w in SECRET_WORDS or w.endswith(("token", "password", "secret")) for w in words)


def _redact_as_written(text: str) -> str:
    # Each of the first two patterns needs its own mark in the text: most texts have neither,
    # and looking for the mark is one pass in C, where the pattern was a pass of the regex
    # engine (a catalog's 10,000 tools are redacted when it is indexed for search).
    if "://" in text:
        text = _URL_USERINFO.sub(_hide_url_userinfo, text)
    if "/" in text or "?" in text or "&" in text:  # a URL written without its scheme too (a re-check)
        text = _URL_SECRET.sub(_hide_url_secret, text)
    # Full-width "：" and "＝" are how CJK text writes them.
    equals = "=" in text or "＝" in text
    colon = ":" in text or "：" in text
    # Whether a secret's name may be there at all, asked once: the rules that ask act only after one,
    # and hiding a value keeps every name (nor has "[REDACTED]" a hint of one).
    named = _names_a_secret(text)
    if (equals or colon or "--" in text) and ('"' in text or "'" in text or "`" in text) and named:
        text = _QUOTED_WITH_SPACES.sub(_hide_quoted_with_spaces, text)
    if equals:
        text = _hide_every_assigned(text)
    if colon or equals:  # ":", or "=>"
        text = _QUOTED.sub(_hide_quoted, text)
    if ("[" in text or "(" in text) and ('"' in text or "'" in text) and named:
        text = _QUOTED_PAIR.sub(_hide_quoted_pair, text)
    if "set_password(" in text:
        text = _KEYRING_PASSWORD.sub(_hide_keyring_password, text)
    if "<" in text and named:
        if "</" in text:
            text = _TAGGED.sub(_hide_tagged, text)
        if "key" in text:
            text = _KEYED.sub(_hide_keyed, text)
        if "value" in text:
            text = _TAG_WITH_ATTRIBUTES.sub(_hide_setting_attributes, text)
    if (colon or equals or "-" in text) and named:
        text = _SPOKEN.sub(_hide_spoken, text)
        if "\n" in text and (colon or equals):
            text = _SPOKEN_NEXT_LINE.sub(_hide_spoken, text)
            if colon and "-" in text:
                text = _SPOKEN_LIST.sub(_hide_list_items, text)
            if colon and "value" in text:
                text = _NAMED_VALUE.sub(_hide_named_value, text)
    if (colon or equals) and ("uthorization" in text or "UTHORIZATION" in text):
        text = _AUTHORIZATION.sub(rf"\1{REDACTED}", text)
    if colon and ("-u" in text or "--user" in text):
        text = _USER_PASSWORD.sub(_hide_user_password, text)
    if ("mysql" in text or "mariadb" in text) and "-p" in text:
        text = _MYSQL_PASSWORD.sub(_hide_glued_password, text)
    if "-" in text:
        for command, pattern in _COMMAND_PASSWORDS:
            if command in text:
                text = pattern.sub(_hide_command_password, text)
    if "AKIA" in text or "ASIA" in text or "aws" in text or "AWS" in text:
        text = _AWS_SECRET.sub(_hide_aws_secret, text)
    if (colon or equals) and any(hint in text for hint in _ELSEWHERE_HINTS):
        text = _SPOKEN_ELSEWHERE.sub(_hide_spoken_elsewhere, text)
    return _SECRET_TEXT.sub(REDACTED, text)


_RUN = compiled(r"[A-Za-z0-9]{16,}")


def is_secret_name(name: str) -> bool:
    """Whether a name (a tool's, its file's) is a secret itself: the rules find one in it and it
    holds a run of 16 letters and digits with a digit in it, or in capitals alone, as a token's
    random part does (``ghp_A1b2...``, ``AKIAIOSFODNN7EXAMPLE``). Words joined by ``_`` or ``-``
    (``tb_database_migrate``, ``sk-learn-classifier``) are names, whatever prefix they start with."""
    if redact_text(name) == name:
        return False
    # Not a word: digits in it, or capitals alone (an AWS key id may have no digit:
    # AKIAJXQZRWPLMNBVCTYU); camelCase (tb_ConvertMarkdownToHtml) is words.
    return any(any(c.isdigit() for c in run) or run.isupper() for run in _RUN.findall(name))


# The parts of a schema that are about it, not its shape (what a call must match): where a
# credential's value is blotted out, every string in them. A value equal to a type ("string"),
# a property's name or an enum value made the schema one no call could satisfy.
_SCHEMA_TEXTS = frozenset({"description", "title", "$comment", "examples", "default"})


def shown_text(hidden: Collection[str]) -> Callable[[str], str]:
    """A text as clients are shown what describes a tool or a role: the audit log's rules, then
    ``hidden`` (the credentials' values) blotted out (``credential_blot``). Redacted first:
    "token=[credential redacted]" was taken for a token, "[credential"."""
    blot_text = credential_blot(hidden)
    return lambda text: blot_text(redact_text(text))


def _hidden_spans(view: str, redacted_view: str) -> list[tuple[int, int]] | None:
    """Where in ``view`` ``redact_text`` put each ``REDACTED`` of ``redacted_view``: the text between
    them is the view's own, in order, the first at its start and the last at its end. None where
    that could be read two ways (the text after a secret also inside it): placed as early and as
    late as it can be, each piece must stand at one place."""
    pieces = redacted_view.split(REDACTED)
    if len(pieces) < 2 or not view.startswith(pieces[0]) or not view.endswith(pieces[-1]):
        return None
    earliest, at = [0], len(pieces[0])
    for piece in pieces[1:-1]:
        found = view.find(piece, at)
        if found < 0:
            return None
        earliest.append(found)
        at = found + len(piece)
    last = len(view) - len(pieces[-1])
    if last < at:
        return None
    latest, at = [last], last
    for piece in reversed(pieces[1:-1]):
        at = view.rfind(piece, 0, at)
        latest.append(at)
    latest += [0]
    if earliest + [last] != latest[::-1]:
        return None
    starts = earliest + [last]
    return [(starts[k] + len(pieces[k]), starts[k + 1]) for k in range(len(pieces) - 1)]


def redact_text(text: str) -> str:
    """``text`` with what looks like a secret in it replaced by ``REDACTED``, as it is written and
    as it reads: a key written in full-width letters ("ＡＫＩＡ..."), or split by a character that
    shows nothing or by an accent apart ("ghp_abc\u0301def..."), reads to a model as the key, and
    search folds it to the key; it was shown whole, and found by searching for the key. The text
    is kept as written but for the secret (another script's words and punctuation, "：" in CJK)."""
    redacted = _redact_as_written(text)
    read = read_as_a_key(redacted)
    if read is None:
        return redacted
    view, origin = read
    redacted_view = _redact_as_written(view)
    if redacted_view == view:
        return redacted
    spans = _hidden_spans(view, redacted_view)
    if spans is None:
        return redacted_view  # cannot be put back in the text as written: shown as read, redacted
    pieces: list[str] = []
    kept = 0
    for start, end in spans:
        # A secret's span in the text as written: from the character its first one came from to
        # the last's (a full-width character is one; a mark taken out inside it is in it).
        written_start = origin[start] if start < len(origin) else len(redacted)
        written_end = origin[end - 1] + 1 if end > start else written_start
        pieces += [redacted[kept:written_start], REDACTED]
        kept = max(kept, written_end)
    return "".join(pieces) + redacted[kept:]


def credential_blot(values: Collection[str]) -> Callable[[str], str]:
    """Hides each of ``values`` where it stands as a word of its own as search reads words
    (``uses moonbeam42 as``, ``moonbeam42_prod``, ``MOONBEAM42``, ``moonbeam42Prod``; not the
    "json" of "jsonkit"), as ``CREDENTIAL_HIDDEN``; the text itself with none."""
    return _credential_blot(frozenset(values))


def _word_break(text: str, at: int) -> bool:
    """Whether search reads a break between words before ``text[at]`` (``toolbay.search.tokens``):
    at either end, at a character that is no letter or digit ("_" included), where letters meet
    digits, where camelCase starts a word ("moonbeam42Prod"), and after a run of capitals
    before a capitalised word ("MOONBEAMServer")."""
    if at <= 0 or at >= len(text):
        return True
    before, after = text[at - 1], text[at]
    if not (before.isalnum() and after.isalnum()) or before.isalpha() != after.isalpha():
        return True
    if after.isupper() and not before.isupper():
        return True
    return before.isupper() and after.isupper() and at + 1 < len(text) and text[at + 1].islower()


@functools.cache
def _folded_char(char: str) -> str:
    """``char`` as search reads it: without accents, width or case; nothing if it is invisible."""
    if INVISIBLE.fullmatch(char):  # taken out, as search takes them out
        return ""
    folded = "".join(c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c)).casefold()
    return folded.translate(PLAIN_LATIN_LETTERS)


def _folded(text: str) -> tuple[str, list[int]]:
    """``text`` folded as search reads it (``_folded_char``), and for each folded character the
    index of the character of ``text`` it came from."""
    chars: list[str] = []
    origin: list[int] = []
    for index, char in enumerate(text):
        for folded in _folded_char(char):
            chars.append(folded)
            origin.append(index)
    return "".join(chars), origin


@functools.lru_cache(maxsize=8)
def _credential_blot(values: frozenset[str]) -> Callable[[str], str]:
    words = {value.strip() for value in values} - {""}  # " moonbeam42" is said as moonbeam42
    if not words:
        return lambda text: text
    alternatives = "|".join(map(re.escape, sorted(words, key=len, reverse=True)))
    # In any case: search finds "MOONBEAM42" by "moonbeam42".
    pattern = re.compile(alternatives, re.IGNORECASE)
    firsts = tuple({case(word[0]) for word in words for case in (str.lower, str.upper)})
    # A value search reads as nothing (zero-width spaces alone) is looked for as written only:
    # an empty pattern matched at every place, past the folded text's end.
    folded_words = {_folded(word)[0] for word in words} - {""}
    folded_pattern = re.compile("|".join(map(re.escape, sorted(folded_words, key=len, reverse=True)))) \
        if folded_words else None

    def blot(found: re.Match[str]) -> str:
        text = found.string
        return CREDENTIAL_HIDDEN if _word_break(text, found.start()) and _word_break(text, found.end()) \
            else found.group(0)

    def blot_folded(text: str) -> str:
        if folded_pattern is None:
            return text
        # Written with an invisible character inside, in full-width letters or with its accents
        # apart ("moon\u200bbeam42", "ＭＯＯＮＢＥＡＭ４２"): search reads it as the value, so it
        # is blotted where the folded text has it, back in the text as written.
        folded, origin = _folded(text)
        pieces: list[str] = []
        kept_to = 0
        for found in folded_pattern.finditer(folded):
            if _word_break(folded, found.start()) and _word_break(folded, found.end()):
                start, end = origin[found.start()], origin[found.end() - 1] + 1
                pieces += [text[kept_to:start], CREDENTIAL_HIDDEN]  # one pass: a text of many was quadratic
                kept_to = end
        return "".join([*pieces, text[kept_to:]]) if pieces else text

    # A value beyond ASCII may be written in it as search reads it ("Straße99" as "STRASSE99").
    every_value_ascii = all(word.isascii() for word in words)

    def blot_text(text: str) -> str:
        # Both passes where the text or a value is beyond ASCII: the folded text has lost its
        # case, and with it the camelCase and capitals' word breaks ("MOONBEAMServer").
        if any(c in text for c in firsts):
            text = pattern.sub(blot, text)
        return text if text.isascii() and every_value_ascii else blot_folded(text)

    return blot_text


# Keywords whose object is keyed by names (of properties, of definitions), not keywords.
_NAMED_SCHEMAS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas",
                            "dependentRequired", "dependencies"})
# Values a call's arguments must equal: never prose, whatever they hold.
_VALUES = frozenset({"enum", "const"})
# What a string must look like (a blotted default may no longer).
_FORM_RULES = frozenset({"pattern", "format", "minLength", "maxLength"})


def _blot_schema_texts(value: Any, blot_text: Callable[[str], str], depth: int = 0) -> Any:
    """``value`` (a schema) with ``blot_text`` applied to every string of its prose
    (``_SCHEMA_TEXTS``, ``x-`` keywords) alone: a property named "description" is a schema,
    walked as one."""
    if depth >= MAX_DEPTH:
        return value
    if isinstance(value, list):
        return [_blot_schema_texts(item, blot_text, depth + 1) for item in value]
    if not isinstance(value, dict):
        return value
    walked: dict[Any, Any] = {}
    for key, item in value.items():
        if key in _VALUES:
            walked[key] = item
        elif key in _NAMED_SCHEMAS and isinstance(item, dict):
            walked[key] = {name: _blot_schema_texts(schema, blot_text, depth + 2) for name, schema in item.items()}
        elif isinstance(key, str) and (key in _SCHEMA_TEXTS or key.startswith("x-")):
            walked[key] = map_strings(item, blot_text)
        else:
            walked[key] = _blot_schema_texts(item, blot_text, depth + 1)
    if "default" in value and walked["default"] != value["default"]:
        # A default is a value a client may send as it is: blotted, it no longer fitted its own
        # enum or pattern, and the call was refused. Beside an enum or const that shows the
        # value anyway it is kept; beside a rule of the form a value must take, left out.
        if any(key in value for key in _VALUES):
            walked["default"] = value["default"]
        elif any(key in value for key in _FORM_RULES):
            del walked["default"]
    return walked


def redact(value: Any, depth: int = 0) -> Any:
    """A copy of ``value`` (JSON-like) with secret-looking parts replaced by ``[REDACTED]``; an
    array or object deeper than ``MAX_DEPTH`` levels is ``TOO_DEEP`` (``toolbay.blotting``)."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, Mapping | list | tuple) and depth >= MAX_DEPTH:
        return TOO_DEEP
    if isinstance(value, Mapping):
        # Keys too: an argument named by a pasted token would otherwise be logged as it is.
        return {redact_text(k) if isinstance(k, str) else k: REDACTED if isinstance(k, str) and is_secret_key(k)
                else redact(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact(v, depth + 1) for v in value]
    return value


def _redact_property_names(schema: Any, depth: int = 0) -> Any:
    """``schema`` with a property named with a secret itself (``sk-live-...``) renamed
    ``[REDACTED]``, or ``schema`` itself when none is: no tool toolbay serves has one (a Python
    tool's is refused), but a catalog file's definitions (``toolbay search --catalog``) may."""
    if depth >= MAX_DEPTH:
        return schema
    if isinstance(schema, list):
        items = [_redact_property_names(value, depth + 1) for value in schema]
        return items if any(new is not old for new, old in zip(items, schema, strict=True)) else schema
    if not isinstance(schema, dict):
        return schema
    copy = {key: _redact_property_names(value, depth + 1) for key, value in schema.items()}
    changed = any(copy[key] is not value for key, value in schema.items())
    properties = copy.get("properties")
    if isinstance(properties, dict):
        renamed = {redact_text(key) if isinstance(key, str) else key: value for key, value in properties.items()}
        if list(renamed) != list(properties):
            copy["properties"], changed = renamed, True
    return copy if changed else schema


def may_hold(definition: ToolDefinition, values: Collection[str]) -> bool:
    """Whether any of ``values`` may stand in a text of ``definition`` as ``credential_blot``
    finds one: written there in any case, width or accents, word breaks aside (every string of
    its schemas looked at, not only those blotted). A definition that holds none is shown alike
    whether or not they are among the values hidden (``redacted``): only the others are made
    again when a credential's value is first handed to a tool."""
    looked_for = _folded_forms(frozenset(values))
    if looked_for is None:
        return True  # a value of quotes, backslashes or invisible marks alone: it may be anywhere
    forms, ascii_forms = looked_for
    if not forms:
        return False
    # The texts as one, all as JSON writes them (in C: walking the schemas string by string
    # cost more than the rest), without JSON's quotes and backslashes, as the values are looked
    # for: a quote or backslash written full-width reads as the value's own but JSON leaves it
    # as it is, so a value holding a quote and a backslash, written so in a schema, was neither
    # the value nor the value as JSON writes it there, and kept the copy that showed it.
    text = json.dumps([definition.description, definition.title or "", *definition.keywords,
                       definition.input_schema, definition.output_schema], ensure_ascii=False, default=str)
    if text.isascii():  # folded as search reads it, ASCII is its own lower case
        lower = _unquoted(text.casefold())
        return any(form in lower for form in ascii_forms)
    folded = _unquoted(_folded(text)[0])
    return any(form in folded for form in forms)


def _unquoted(text: str) -> str:
    """``text`` without quotes or backslashes (``may_hold``)."""
    return text.replace("\\", "").replace('"', "")


@functools.lru_cache(maxsize=8)
def _folded_forms(values: frozenset[str]) -> tuple[frozenset[str], frozenset[str]] | None:
    """``values`` folded as search reads them, then as JSON writes them, without quotes or
    backslashes (``may_hold``); and those of them in ASCII. None if one is no more than quotes
    and backslashes, or than what search takes out (zero-width spaces, accents apart), which the
    value as written is still blotted as."""
    words = {_folded(value)[0] for value in {value.strip() for value in values} - {""}}
    forms = {_unquoted(json.dumps(word, ensure_ascii=False)[1:-1]) for word in words}
    if "" in forms:
        return None
    return frozenset(forms), frozenset(form for form in forms if form.isascii())


def redacted(definition: ToolDefinition, hidden: Collection[str] = ()) -> ToolDefinition:
    """``definition`` with secret-looking text hidden in its description, title, keywords and
    every text of its schemas, property names included (the audit log's rules), and each of
    ``hidden`` (the credentials' values) blotted out of its prose: description, title, keywords
    and the schemas' descriptions, titles and examples, never their shape (``credential_blot``);
    the same object when there is none."""
    blot_text, clean = credential_blot(hidden), shown_text(hidden)
    changes: dict[str, Any] = {}
    description = clean(definition.description)
    if description != definition.description:
        changes["description"] = description
    if definition.title is not None and (title := clean(definition.title)) != definition.title:
        changes["title"] = title
    if (keywords := tuple(clean(keyword) for keyword in definition.keywords)) != definition.keywords:
        changes["keywords"] = keywords
    for field in ("input_schema", "output_schema"):
        schema = getattr(definition, field)
        if schema is None:
            continue
        cleaned = map_strings(schema, redact_text)
        cleaned = _redact_property_names(_blot_schema_texts(cleaned, blot_text) if hidden else cleaned)
        if cleaned != schema:
            changes[field] = cleaned
    return replace(definition, **changes) if changes else definition
