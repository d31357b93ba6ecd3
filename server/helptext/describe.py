"""``describe_help``: raw ``--help`` (and ``-h``) bytes to one trusted description."""

from __future__ import annotations

from toolbay.errors import NotHelpError

from .conventions import take_conventions
from .decode import decode_help
from .dialects import pick_dialect
from .gate import check_description, check_text
from .model import HelpDescription, OptionSpec, PositionalSpec
from .usage import positional_key


def describe_text(data: bytes) -> HelpDescription:
    """One help output, decoded, checked and parsed. Raises only ``NotHelpError``."""
    try:
        decoded = decode_help(data)
        check_text(decoded.text, decoded.had_errors)
        text, conventions = take_conventions(decoded.text)
        desc = pick_dialect(text).parse(text)
        check_description(text, desc)
    except NotHelpError:
        raise
    except Exception as exc:  # noqa: BLE001 - the contract: nothing but NotHelpError escapes
        raise NotHelpError(f"the text could not be read as help ({type(exc).__name__})") from exc
    return desc.with_changes(
        encoding=decoded.encoding,
        decode_errors=decoded.had_errors,
        keywords=conventions.keywords,
        permission_level=conventions.permission_level,
        background=conventions.background,
    )


def describe_help(long: bytes, short: bytes | None = None) -> HelpDescription:
    """The description of a program from its ``--help`` and, if given, its ``-h`` output.

    Name and version come from the short form, the long description and toolbay's
    convention lines from the long form, options and requirements from both.
    Raises ``NotHelpError`` when ``long`` is not help; a short form that is not
    help (click rejects ``-h``) is ignored.
    """
    long_desc = describe_text(long)
    if short is None or short == long:
        return long_desc
    try:
        short_desc = describe_text(short)
    except NotHelpError:
        return long_desc
    return merge(long_desc, short_desc)


def merge(long: HelpDescription, short: HelpDescription) -> HelpDescription:
    return long.with_changes(
        name=short.name or long.name,
        version=short.version or long.version,
        about=short.about or long.about,
        description=long.description or short.description,
        keywords=long.keywords or short.keywords,
        permission_level=long.permission_level or short.permission_level,
        background=long.background or short.background,
        options=_merge_options(long.options, short.options),
        # A short form read alone cannot tell a COMMAND of listed subcommands from a program
        # to run: when the long help lists subcommands, its own positionals stand.
        positionals=_merge_positionals(long.positionals, () if long.subcommands else short.positionals),
        subcommands=long.subcommands + tuple(
            s for s in short.subcommands if s.name not in {x.name for x in long.subcommands}),
    )


def _merge_options(long: tuple[OptionSpec, ...], short: tuple[OptionSpec, ...]) -> tuple[OptionSpec, ...]:
    by_name: dict[str, OptionSpec] = {}
    for opt in short:
        for name in (opt.long, opt.short):
            if name:
                by_name[name] = opt
    out: list[OptionSpec] = []
    used: set[int] = set()
    for opt in long:
        twin = by_name.get(opt.long or "") or by_name.get(opt.short or "")
        if twin is not None:
            used.add(id(twin))
            opt = _combine(opt, twin)
        out.append(opt)
    out.extend(o for o in short if id(o) not in used)
    return tuple(out)


def _merge_positionals(long: tuple[PositionalSpec, ...],
                       short: tuple[PositionalSpec, ...]) -> tuple[PositionalSpec, ...]:
    """Positionals as the long help lists them, completed by what the short help says of each."""
    if not long:
        return short
    by_key = {positional_key(p.name): p for p in short}
    out = []
    for pos in long:
        twin = by_key.get(positional_key(pos.name))
        if twin is not None:
            pos = pos._replace(description=pos.description or twin.description, choices=pos.choices or twin.choices,
                             type=pos.type if pos.type != "string" else twin.type)
        out.append(pos)
    return tuple(out)


def _combine(long: OptionSpec, short: OptionSpec) -> OptionSpec:
    return long._replace(
        long=long.long or short.long,
        short=long.short or short.short,
        takes_value=long.takes_value or short.takes_value,
        value_name=long.value_name or short.value_name,
        type=long.type if long.type != "boolean" or not short.takes_value else short.type,
        default=long.default if long.default is not None else short.default,
        choices=long.choices or short.choices,
        required=long.required or short.required,
        repeatable=long.repeatable or short.repeatable,
        description=long.description or short.description,
        negation=long.negation or short.negation,
    )
