"""What a help text says about its program: the description other parts of toolbay trust.

These are plain immutable records so that a description can be cached on disk
(``to_dict``/``from_dict``) and compared in tests without any parser state. The records of the
help-text parser are named tuples rather than dataclasses: ``toolbay parse-help`` is a command
that should answer at once, and the dataclass decorator (with the ``inspect`` module it imports)
cost about a quarter of its run.
"""

from __future__ import annotations

from collections.abc import Mapping

from .records import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from typing import Any, Literal

    ValueType = Literal["boolean", "integer", "number", "string", "path", "enum"]

# Long options that print help or the version and end: the program's own, never a tool's
# parameter (``schema``), and one option with the short name the usage pairs them with (``engine``).
HELP_FLAGS = frozenset({"--help", "--version", "-help", "--help-all", "--usage",
                        # in the help's own language: German, French, Spanish, Portuguese, Italian, Dutch
                        "--hilfe", "--aide", "--ayuda", "--ajuda", "--aiuto", "--hulp"})


class OptionSpec(NamedTuple):
    long: str | None = None  # with its dashes as printed: "--length", or "-cpuprofile" for Go flag
    short: str | None = None  # "-n"
    takes_value: bool = False
    value_name: str | None = None
    type: ValueType = "boolean"
    default: str | None = None
    choices: tuple[str, ...] = ()
    required: bool = False
    repeatable: bool = False
    description: str = ""
    # The flag that turns a boolean off (click's "--x / --no-x"), so ``false`` can be said.
    negation: str | None = None
    # The value may be left out ("--color[=WHEN]"): the flag alone is meaningful.
    value_optional: bool = False
    # Several values after one flag (argparse's nargs: "--exclude PAT [PAT ...]"); given twice,
    # the flag would keep only its last values.
    values_at_once: bool = False
    # The help writes the value as a word of its own after the name ("--price <PRICE>", "-s
    # <socket>"), never after "=" or joined to it: some parsers (argh, many written by hand)
    # take it only so.
    value_spaced: bool = False
    # Values one flag takes, each a word of its own: 2 for "--size <W> <H>" (clap's num_args,
    # argparse's nargs=2); 1 for "<COMMIT HASH>", one value whose name has a space.
    values_per_flag: int = 1
    # An option of the program itself offered on a subcommand's tool: it goes before the
    # subcommand ("prog --config x sub"), as argparse, click, urfave and argh take it.
    before_command: bool = False
    # With ``before_command``, an option of a subcommand above the tool's own: it goes after
    # that many words of the subcommand path ("prog db --url x migrate": 1), where that
    # subcommand reads its options; 0 for the program's own.
    after_words: int = 0
    # The options the usage offers as its alternatives (by ``key``), in a group ("[-v | -q]");
    # ``one_required``: the usage asks for one option of the group ("(-a | -b)").
    exclusive_with: tuple[str, ...] = ()
    one_required: bool = False
    # The values go as one word: joined by commas ("," : "--skip [NAME,...]"), or a JSON list
    # ("json": jsonargparse's "--label [ITEM,...]", read as YAML); "" where they do not.
    one_word_list: str = ""

    @property
    def key(self) -> str:
        """The name that identifies the option across the short and long help."""
        return self.long or self.short or ""


class PositionalSpec(NamedTuple):
    name: str
    required: bool = True
    variadic: bool = False
    description: str = ""
    choices: tuple[str, ...] = ()
    type: ValueType = "string"  # from the value name ("FLOAT", "N") or a numeric default
    default: str | None = None  # "[default: .]" (clap), "[default: 8080]" (yargs)
    # Its choices are the usage's forms ("ship new <name>...", "ship <name> move <x> <y>"):
    # docopt's grammar, whose words and arguments go in the order the chosen form writes them.
    form: bool = False


class SubcommandSpec(NamedTuple):
    name: str
    description: str = ""
    # The command as listed where more plain words follow its name ("remote add"): the words
    # that run it when its name alone is no command (sade, an oclif topic of one command), where
    # they may as well be its operand (xdriinfo's "driver screen").
    spelled: str = ""


_LIST_FIELDS = {"choices", "exclusive_with"}


# Read while the subcommands are walked, and no part of what a description says.
_WALK_FIELDS = {"spelled"}


# Written only where they differ from their default: an option's place is most often its own.
_WRITTEN_WHEN_SET = {"after_words": 0, "one_word_list": ""}


def _spec_to_dict(spec: Any) -> dict[str, Any]:
    return {name: list(value) if name in _LIST_FIELDS else value for name, value in spec._asdict().items()
            if name not in _WALK_FIELDS and _WRITTEN_WHEN_SET.get(name, ...) != value}


def _spec_from_dict(cls: Any, data: Mapping[str, Any]) -> Any:
    names = set(cls._fields)
    kwargs = {k: (tuple(v) if k in _LIST_FIELDS else v) for k, v in data.items() if k in names}
    return cls(**kwargs)


class UsageForm(NamedTuple):
    """One usage form's positionals (``positional_key``, and whether the form requires it) in
    its order, and the flags it names outside any brackets, which it requires ("mv -t DIRECTORY
    SOURCE...": "-t")."""

    positionals: tuple[tuple[str, bool], ...]
    flags: tuple[str, ...] = ()


class HelpDescription(NamedTuple):
    name: str | None = None
    version: str | None = None
    about: str = ""
    description: str = ""
    encoding: str = "utf-8"
    decode_errors: bool = False
    keywords: tuple[str, ...] = ()
    permission_level: str | None = None
    options: tuple[OptionSpec, ...] = ()
    positionals: tuple[PositionalSpec, ...] = ()
    subcommands: tuple[SubcommandSpec, ...] = ()
    dialect: str = "generic"
    background: bool = False
    # Where the usage's forms take different positionals or orders (GNU's "seq LAST", "seq FIRST
    # LAST", "seq FIRST INCREMENT LAST"): each form. A call's positionals go in the order of the
    # first form that fits them. Empty where one order fits every form.
    positional_forms: tuple[UsageForm, ...] = ()
    # The usage line as printed, left out of comparisons (``__eq__`` and ``__hash__`` drop the
    # last field, so it stays last): the same program can print it wrapped differently.
    usage: str = ""

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HelpDescription):
            return NotImplemented
        return self[:-1] == other[:-1]

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(self[:-1])

    def with_changes(self, **changes: Any) -> HelpDescription:
        return self._replace(**changes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "version": self.version,
            "about": self.about,
            "description": self.description,
            "encoding": self.encoding,
            "decode_errors": self.decode_errors,
            "keywords": list(self.keywords),
            "permission_level": self.permission_level,
            "background": self.background,
            "dialect": self.dialect,
            "usage": self.usage,
            "options": [_spec_to_dict(o) for o in self.options],
            "positionals": [_spec_to_dict(p) for p in self.positionals],
            "subcommands": [_spec_to_dict(s) for s in self.subcommands],
            "positional_forms": [{"positionals": [[key, required] for key, required in form.positionals],
                                  "flags": list(form.flags)} for form in self.positional_forms],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> HelpDescription:
        return cls(
            name=data.get("name"),
            version=data.get("version"),
            about=data.get("about", ""),
            description=data.get("description", ""),
            encoding=data.get("encoding", "utf-8"),
            decode_errors=bool(data.get("decode_errors", False)),
            keywords=tuple(data.get("keywords", ())),
            permission_level=data.get("permission_level"),
            background=bool(data.get("background", False)),
            dialect=data.get("dialect", "generic"),
            usage=data.get("usage", ""),
            options=tuple(_spec_from_dict(OptionSpec, o) for o in data.get("options", ())),
            positionals=tuple(_spec_from_dict(PositionalSpec, p) for p in data.get("positionals", ())),
            subcommands=tuple(_spec_from_dict(SubcommandSpec, s) for s in data.get("subcommands", ())),
            positional_forms=tuple(UsageForm(tuple((str(key), bool(required)) for key, required in form["positionals"]),
                                             tuple(form.get("flags", ())))
                                   for form in data.get("positional_forms", ())),
        )
