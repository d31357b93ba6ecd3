"""``describe_tree``: one description per leaf subcommand, found by running help.

The runner is the caller's (wasmtime in the server, captured texts in tests); this
module only decides what to run and bounds it by depth and time. With ``workers`` above one,
the runs that do not depend on each other (the root's ``-h`` and ``--help``; the ``--help``
of a command's subcommands) run at once on that many threads: a Go program's runtime takes
tens of milliseconds to start, and a program of five subcommands needs eight runs. The
description is the same either way; only the order of the runs differs.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

from toolbay.ascii_names import name_safe
from toolbay.errors import HelpDidNotEnd, NotHelpError

from .describe import describe_help, describe_text
from .kept import compiled
from .model import HelpDescription, OptionSpec
from .records import NamedTuple
from .schema import Argv
from .version import version_flag, version_in

_ECHO = "prints the same command list as its parent"
# Why a subcommand was not read: the file's time for reading help ([discovery] file_budget_s) was over.
OUT_OF_TIME = "time budget for reading help used up"
SKIPPED_SUBCOMMANDS = {"help", "completion", "completions", "help-all"}


class HelpRun(NamedTuple):
    """What running the program with a help argv produced."""

    stdout: bytes
    stderr: bytes
    exit_code: int | None
    # Why the run did not end by itself ("it ran past its 3 s limit"), or None: what it
    # printed then is not a whole help text, even when it looks like one.
    stopped: str | None = None

    @property
    def help_bytes(self) -> bytes:
        """Go's flag package and many getopt tools print help on stderr (and exit 2); nothing
        from a run that was stopped."""
        if self.stopped is not None:
            return b""
        return self.stdout if self.stdout.strip() else self.stderr

    @property
    def help_beside_output(self) -> bytes:
        """What went to stderr when stdout had something else: an old-style program prints its
        banner on stdout and its usage on stderr. Empty when stderr was the help already."""
        if self.stopped is not None or not self.stdout.strip():
            return b""
        return self.stderr if self.stderr.strip() else b""


class DescribedCommand(NamedTuple):
    tool_name: str
    path: tuple[str, ...]
    description: HelpDescription


class SkippedCommand(NamedTuple):
    path: tuple[str, ...]
    reason: str


class DescribedTree(list[DescribedCommand]):
    """The leaves, in order; ``skipped`` says which subcommands were left out and why."""

    def __init__(self) -> None:
        super().__init__()
        self.skipped: list[SkippedCommand] = []


# A tool's name at most: what MCP clients and model APIs take (the file's stem is cut to it).
MAX_TOOL_NAME = 64
# Of a program's name cut for its command's words, at least this much is kept.
_KEPT_OF_A_PROGRAMS_NAME = 8


def tool_name_for(tool_name: str, path: tuple[str, ...]) -> str:
    """The tool of the command at ``path``: the program's name and the path's words. Past
    ``MAX_TOOL_NAME`` characters the program's name is cut, the command's words kept; where
    they alone are too long, the name keeps its start and ends with a digest of the whole, so
    that two long commands stay two tools. A 60-character file's subcommands were served as
    tools of 64 to 69 characters, which model APIs refuse (an outside check)."""
    name = name_safe("_".join((tool_name, *path)))
    if len(name) <= MAX_TOOL_NAME:
        return name
    words = name_safe("_".join(path))
    room = MAX_TOOL_NAME - len(words) - 1
    if path and room >= _KEPT_OF_A_PROGRAMS_NAME:
        return f"{name_safe(tool_name)[:room].rstrip('_')}_{words}"
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return f"{name[:MAX_TOOL_NAME - len(digest) - 1].rstrip('_')}_{digest}"


def _child_path(path: tuple[str, ...], child: str) -> tuple[str, ...]:
    """The words that run ``child`` of the command at ``path``: a command of several words is
    run by all of them, and oclif names a topic's commands from the program's top ("app create"
    in "cloudx app --help"), the topic's own words first."""
    words = tuple(child.split())
    if len(words) > 1 and words[:len(path)] == path:
        words = words[len(path):]
    return (*path, *words)


class _Walk:
    __slots__ = ("run_help", "tool_name", "max_depth", "deadline", "result", "pool", "help_command")

    def __init__(self, run_help: Callable[[list[str]], HelpRun], tool_name: str, max_depth: int,
                 deadline: float, pool: ThreadPoolExecutor | None) -> None:
        self.run_help = run_help
        self.tool_name = tool_name
        self.max_depth = max_depth
        self.deadline = deadline
        self.result = DescribedTree()
        self.pool = pool
        # Whether the root lists a "help" command: "prog help sub" is then a way to a
        # subcommand's help that does not take --help itself.
        self.help_command = False

    def visit(self, path: tuple[str, ...], desc: HelpDescription, parents: list[frozenset[str]]) -> None:
        if not path:
            self.help_command = any(s.name.lower() == "help" for s in desc.subcommands)
        children = [s.name for s in desc.subcommands if s.name.lower() not in SKIPPED_SUBCOMMANDS]
        listed = len(children)
        # argparse names a subparser added without help= only in its usage's braces: a group so
        # added (defopt adds every nested group so) is offered if its help lists commands; a
        # command so added is one its author left out of the list ("not intended for users to
        # call": pre-commit's hook-impl), and stays out.
        unlisted = [name for name in _named_only_in_braces(desc, [s.name for s in desc.subcommands])
                    if name.lower() not in SKIPPED_SUBCOMMANDS] if children else []
        children += unlisted
        # As listed: an oclif topic lists its one command by all its words ("remote add"), under
        # a program that lists the topic ("remote"), which is no help said again.
        names = frozenset(s.spelled or s.name for s in desc.subcommands if s.name.lower() not in SKIPPED_SUBCOMMANDS)
        if not children or len(path) >= self.max_depth:
            self.result.append(DescribedCommand(tool_name_for(self.tool_name, path), path, desc))
            return
        if names in parents:
            # A program that answers "sub --help" with its parent's help would recurse forever.
            self.result.skipped.append(SkippedCommand(path, _ECHO))
            return
        leaves_before = len(self.result)
        # The children's help, read at once when there is a pool; each begun before the deadline
        # is read to its end, as it would have been one at a time.
        paths = {child: _child_path(path, child) for child in children}
        reading: dict[str, Future[HelpDescription | None]] = {}
        if self.pool is not None:
            reading = {child: self.pool.submit(self.describe_in_time, paths[child]) for child in children}
        spelled = {s.name: s.spelled for s in desc.subcommands}
        for child in children:
            child_path = paths[child]
            try:
                child_desc = reading[child].result() if reading else self.describe_in_time(child_path)
            except NotHelpError as exc:
                # "remote add" listed alone: "remote" is no command of its own (sade), or the topic
                # itself again (an oclif topic of one command, "remote remote --help").
                whole = _child_path(path, spelled[child]) if spelled.get(child) else None
                try:
                    child_desc = None if whole is None else self.describe_in_time(whole)
                except NotHelpError:
                    child_desc = None
                if child_desc is None and (given := with_required_options(desc, path, child_path)) is not None:
                    # click reads a group's required options before a command's --help, and
                    # answers "Missing option '--url'" without them: asked again with stand-ins.
                    try:
                        child_desc = self.describe_in_time(child_path, given)
                    except NotHelpError:
                        child_desc = None
                    whole = child_path if child_desc is not None else None
                if whole is None or child_desc is None:
                    if child not in unlisted:
                        self.result.skipped.append(SkippedCommand(child_path, exc.reason))
                    continue
                child_path = whole
            if child_desc is None:
                if child not in unlisted:
                    self.result.skipped.append(SkippedCommand(child_path, OUT_OF_TIME))
                continue
            if child in unlisted and (not child_desc.subcommands or child not in child_desc.usage.split()):
                continue  # a command left out of the list, or an alias (its usage names its command)
            if desc.usage and child_desc.usage == desc.usage and _option_names(child_desc) <= _option_names(desc):
                # "ship --help" answered with the program's own usage and nothing of its own (a
                # docopt program that finds "--help" after a command word in no form of its:
                # "Invalid arguments.").
                self.result.skipped.append(SkippedCommand(child_path, _ECHO))
                continue
            child_desc = about_from_the_list(desc, child, inherit_conventions(desc, child_desc))
            child_desc = written_before_its_word(child_desc, child_path, len(path))
            self.visit(child_path, with_program_options(desc, child_desc, depth=len(path)), [*parents, names])
        latest = self.result.skipped[-listed:]
        if len(self.result) == leaves_before and (
                all(s.reason == _ECHO for s in latest) or any(p.form for p in desc.positionals)):
            # Every subcommand echoed this help (docopt programs do), or none has a help of its
            # own and this one's usage forms take the command words: the commands are words of
            # this one program, which is then the tool.
            del self.result.skipped[-listed:]
            self.result.append(DescribedCommand(tool_name_for(self.tool_name, path), path, desc))

    def describe_in_time(self, path: tuple[str, ...], words: list[str] | None = None) -> HelpDescription | None:
        """The command's help, or None when the time budget was used up before it began.
        ``words``: what to run it by, where that is not its path."""
        return None if time.monotonic() > self.deadline else self.describe(path, words)

    def describe(self, path: tuple[str, ...], words: list[str] | None = None) -> HelpDescription:
        try:
            return self._describe_asking_it(path if words is None else tuple(words))
        except HelpDidNotEnd:
            raise
        except NotHelpError as not_help:
            if not self.help_command:
                raise
            asked = self.run_help(["help", *path]).help_bytes
            if not asked.strip():
                raise
            try:
                return describe_text(asked)
            except NotHelpError:
                raise not_help from None

    def _describe_asking_it(self, path: tuple[str, ...]) -> HelpDescription:
        long_run = self.run_help([*path, "--help"])
        try:
            return describe_text(long_run.help_bytes)
        except NotHelpError as not_help:
            short_run = self.run_help([*path, "-h"])
            short = short_run.help_bytes
            if not short.strip():
                if long_run.stopped is not None:
                    raise HelpDidNotEnd(_help_stopped(long_run.stopped)) from None
                return _help_on_stderr((long_run, short_run), not_help, describe_text)
            try:
                return describe_text(short)
            except NotHelpError:
                return _help_on_stderr((long_run, short_run), not_help, describe_text)


def _help_on_stderr(runs: tuple[HelpRun, ...], not_help: NotHelpError,
                    describe: Callable[[bytes], HelpDescription]) -> HelpDescription:
    """The help a run wrote to stderr beside other output on stdout, or ``not_help`` again."""
    for run in runs:
        if run.help_beside_output:
            try:
                return describe(run.help_beside_output)
            except NotHelpError:
                continue
    raise not_help


def _help_stopped(why: str) -> str:
    """Why a help run gave no help: it ran on (a time or output limit) or it crashed (a trap)."""
    ran_on = why.startswith(("timed out", "it went on writing", "it printed more than"))
    return f"its --help {'did not end' if ran_on else 'crashed'}: {why}"


# argparse's subparsers in its usage: "{repo,build} ...".
_BRACED_SUBPARSERS = compiled(r"\{([A-Za-z0-9][\w.-]*(?:,[A-Za-z0-9][\w.-]*)+)\}\s*\.\.\.")


def _named_only_in_braces(desc: HelpDescription, listed: list[str]) -> list[str]:
    """The names in the usage's "{a,b} ..." that the list of commands leaves out (aliases too),
    where the list names some of them."""
    found = _BRACED_SUBPARSERS.search(desc.usage)
    if found is None:
        return []
    names = found.group(1).split(",")
    if not set(listed) & set(names):
        return []
    return [name for name in names if name not in listed]


def _option_names(desc: HelpDescription) -> set[str]:
    return {name for option in desc.options for name in (option.long, option.short) if name}


def with_program_options(parent: HelpDescription, child: HelpDescription, *, depth: int) -> HelpDescription:
    """The options of the program, and of the subcommands above, that a subcommand's help does
    not list, offered on its tool to be given where they are read: the program's before the
    subcommand ("prog --config x sub": argparse, click, urfave/cli and argh print them only in
    the program's help), a subcommand's after its own word ("prog db --url x migrate": clap,
    click and argparse read a group's options before the word of the command in it).
    ``depth``: the words of the subcommand path ``parent`` is at (0: the program). A
    subcommand's help that lists them (cobra's "Global Flags", clap's global args, kingpin)
    takes them as its own."""
    own = {name for option in child.options for name in (option.long, option.short) if name}
    # Required stays required: the program reads its own options before any subcommand's (go-arg's
    # "--store STORE", argparse's and click's required options on the program), and every call of
    # a subcommand without it was refused by the program, after the schema had let it through.
    # One whose short name the subcommand has for an option of its own ("-t") keeps its long one.
    # A group's required option below the program (clap's "c5 remote --url <URL> add") was lost,
    # and so was every call of the commands in it.
    below_the_program = depth > 0 and parent.dialect not in _GROUPS_READ_THEIR_OPTIONS
    taken = tuple(option._replace(before_command=True, short=None if option.short in own else option.short,
                                  after_words=option.after_words if option.before_command else depth)
                  for option in parent.options
                  if option.long not in own and (option.long is not None or option.short not in own)
                  and not (below_the_program and not option.before_command))
    return child.with_changes(options=(*child.options, *taken)) if taken else child


# Parsers where a group below the program reads options of its own before the word of a
# command in it ("prog db --url u migrate"; urfave/cli v2 too). Not cobra: a group's local flags are no command's,
# and "prog db --url u migrate" is refused ("unknown flag: --url"; its persistent flags are
# listed in the command's help as its own).
_GROUPS_READ_THEIR_OPTIONS = frozenset({"argparse", "click", "typer", "clap", "urfave"})


def with_required_options(parent: HelpDescription, path: tuple[str, ...],
                          child_path: tuple[str, ...]) -> list[str] | None:
    """``child_path`` with the values ``parent`` (at ``path``) requires of its own and of the
    program's options put where they are read, each a stand-in ("--url x"); None where it
    requires none."""
    placed: dict[int, list[str]] = {}
    for option in parent.options:
        flag = option.long or option.short
        if option.required and option.takes_value and flag:
            depth = option.after_words if option.before_command else len(path)
            placed.setdefault(depth, []).extend([flag, _stand_in(option)])
    if not placed:
        return None
    return Argv.of(placed).around(child_path)  # as a call's options are placed


def _stand_in(option: OptionSpec) -> str:
    """A value ``option`` takes, to read a help that asks for it first."""
    if option.choices:
        return option.choices[0]
    if option.default:
        return option.default
    return {"integer": "1", "number": "1", "path": "."}.get(option.type, "x")


def written_before_its_word(child: HelpDescription, path: tuple[str, ...], depth: int) -> HelpDescription:
    """``child`` (at ``path``, below a subcommand at ``depth``) with the options its usage writes
    before its own command word taken as those of the program or of a subcommand above, given
    where the usage writes them: clap writes a program's required options so in a subcommand's
    usage ("c4 --profile <PROFILE> remote <COMMAND>"). Read as the subcommand's own, they went
    after its word, where clap refuses them, and were lost a level further down."""
    word = path[depth]
    words = child.usage.split()
    if word not in words[1:]:
        return child
    ahead = words[1:words.index(word, 1)]
    before = {name.strip("[](){}<>|,.").partition("=")[0] for name in ahead}
    if not before & _option_names(child):
        return child

    def after_words(option: OptionSpec) -> int:
        # The subcommand path's words the usage writes before the option.
        at = next(i for i, name in enumerate(ahead) if name.strip("[](){}<>|,.").partition("=")[0]
                  in {option.long, option.short})
        return sum(1 for name in ahead[:at] if name in path[:depth])

    return child.with_changes(options=tuple(
        option._replace(before_command=True, after_words=after_words(option))
        if {option.long, option.short} & before else option
        for option in child.options))


def about_from_the_list(parent: HelpDescription, name: str, child: HelpDescription) -> HelpDescription:
    """``child`` said to do what its parent's list of commands says, where its own help says
    nothing of its own: go-arg's repeats the program's description ("ga is a key/value tool"
    for get and set alike), gumdrop's and Go's FlagSets' say nothing."""
    listed = next((command.description for command in parent.subcommands if command.name == name), "")
    if listed and (not child.about or child.about == parent.about):
        return child.with_changes(about=listed)
    return child


def inherit_conventions(parent: HelpDescription, child: HelpDescription) -> HelpDescription:
    """``Keywords:``, ``PermissionLevel:`` and ``Execution:`` written once in the root help hold
    for every subcommand that does not say its own, and so does the program's version."""
    return child.with_changes(
        version=child.version or parent.version,
        keywords=child.keywords or parent.keywords,
        permission_level=child.permission_level or parent.permission_level,
        background=child.background or parent.background,
    )


def describe_tree(
    run_help: Callable[[list[str]], HelpRun],
    tool_name: str,
    *,
    max_depth: int = 3,
    time_budget_s: float = 10.0,
    workers: int = 1,
) -> DescribedTree:
    """Describes ``tool_name`` and, recursively, its subcommands.

    Returns a ``DescribedTree``: a list of ``DescribedCommand`` (one per leaf, or one
    with path ``()`` for a tool without subcommands) whose ``skipped`` attribute lists
    ``SkippedCommand(path, reason)`` for subcommands whose help could not be read or
    that the time budget did not reach. Raises ``NotHelpError`` only when the root's
    ``--help`` and ``-h`` are both not help.
    """
    if workers <= 1:
        return _describe_tree(run_help, tool_name, max_depth, time_budget_s, None)
    with ThreadPoolExecutor(workers, thread_name_prefix="toolbay-help") as pool:
        return _describe_tree(run_help, tool_name, max_depth, time_budget_s, pool)


def _describe_tree(run_help: Callable[[list[str]], HelpRun], tool_name: str, max_depth: int, time_budget_s: float,
                   pool: ThreadPoolExecutor | None) -> DescribedTree:
    walk = _Walk(run_help, tool_name, max_depth, time.monotonic() + time_budget_s, pool)
    if pool is not None:
        short_asked = pool.submit(run_help, ["-h"])
        long_run = run_help(["--help"])
        short_run = short_asked.result()
    else:
        short_run, long_run = run_help(["-h"]), run_help(["--help"])
    short, long = short_run.help_bytes, long_run.help_bytes
    if long_run.stopped is not None and not short.strip():
        raise HelpDidNotEnd(_help_stopped(long_run.stopped))
    try:
        root = describe_help(long, short)
    except NotHelpError as not_help:
        try:
            if not short.strip():
                raise
            try:
                root = describe_help(short)
            except NotHelpError:
                root = describe_help(long)  # raises with the reason for the long form
        except NotHelpError:
            root = _help_on_stderr((long_run, short_run), not_help, describe_help)
    if root.version is None and (flag := version_flag(root)):
        # The help does not say it; the program's own answer to --version does.
        asked = run_help([flag])
        if asked.exit_code == 0 and asked.help_bytes.strip() not in (long.strip(), short.strip()):
            root = root.with_changes(version=version_in(asked.help_bytes.decode("utf-8", "replace")))
    walk.visit((), root, [])
    return walk.result
