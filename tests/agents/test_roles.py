"""Role files: what is served, what is refused and why, and how arguments fill the prompt."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from toolbay.config import BUNDLED_AGENTS, BUNDLED_EXTENSIONS, load_settings
from toolbay.subagents.roles import MissingArguments, RoleFileError, parse_role, read_roles

GOOD = """---
name: reviewer
description: Reviews a file.
arguments:
  - name: path
    description: The file.
    required: true
  - name: mode
    description: How.
    choices: [quick, thorough, "quiet"]
tools: [jsonkit_*]
limits: {turns: 3, time_s: 60}
---
Review {{path}} in {{ mode }} mode.
"""


def test_a_role_file_gives_its_name_arguments_tools_limits_and_prompt() -> None:
    role = parse_role("r.md", GOOD)
    assert (role.name, role.description, role.tools) == ("reviewer", "Reviews a file.", ("jsonkit_*",))
    assert [(a.name, a.required, a.choices) for a in role.arguments] == [
        ("path", True, None), ("mode", False, ("quick", "thorough", "quiet"))]
    assert (role.max_turns, role.time_s, role.tool_name) == (3, 60.0, "agent_reviewer")
    assert role.render({"path": "a.json", "mode": "quick"}) == "Review a.json in quick mode."
    assert role.render({"path": "a.json"}) == "Review a.json in  mode."


def test_rendering_refuses_a_missing_required_argument_and_a_value_outside_the_choices() -> None:
    role = parse_role("r.md", GOOD)
    with pytest.raises(MissingArguments) as missing:
        role.render({"mode": "loud"})
    assert len(missing.value.problems) == 2
    assert "'path' is required" in missing.value.problems[0]
    assert "quick, thorough, quiet" in missing.value.problems[1]


def test_completion_offers_the_choices_that_start_with_what_was_typed() -> None:
    role = parse_role("r.md", GOOD)
    assert role.complete("mode", "q") == ["quick", "quiet"]
    assert role.complete("mode", "T") == ["thorough"]
    assert role.complete("path", "") == []
    assert role.complete("nope", "") == []


def test_refusals_show_a_roles_secrets_redacted_as_its_listing_does() -> None:
    role = parse_role("r.md", """---
name: leaky
description: Leaks.
arguments:
  - name: key
    description: the api_key=supersecretvalue123 to use
    required: true
    choices: [dev, plain]
---
Use {{key}}.
""")
    with pytest.raises(MissingArguments) as missing:
        role.render({})
    said = " ".join(missing.value.problems)
    assert "supersecretvalue123" not in said and "api_key=[REDACTED]" in said


def test_a_choice_that_looks_like_a_secret_refuses_the_role_file() -> None:
    """It was offered as "[REDACTED]" (completion, the agent tool's enum), which was then refused:
    the only value taken was the secret, which no client was shown (an outside check)."""
    with pytest.raises(RoleFileError) as refused:
        parse_role("r.md", "---\nname: leaky\ndescription: Leaks.\narguments:\n  - name: key\n"
                           "    choices: [sk-abcdefghijklmnopqrstuvwxyz123456, plain]\n---\nUse {{key}}.\n")
    assert "the choice '[REDACTED]' looks like a secret" in refused.value.reason
    assert "sk-abc" not in refused.value.reason


def test_choices_and_required_read_true_and_false_as_written_and_nothing_else_as_booleans() -> None:
    """``choices: [true, false]`` were offered as Python's True and False (the caller's "true" was
    refused), and ``required: yes`` made an argument required though yes is a word (YAML 1.2)."""
    role = parse_role("r.md", "---\nname: r\ndescription: d\narguments:\n  - name: x\n    choices: [true, false]\n"
                              "    required: true\n---\nDo {{x}}.\n")
    assert role.arguments[0].choices == ("true", "false") and role.arguments[0].required
    assert role.render({"x": "true"})
    for word in ("yes", '"off"'):
        with pytest.raises(RoleFileError) as refused:
            parse_role("r.md", f"---\nname: r\ndescription: d\narguments:\n  - name: x\n    required: {word}\n"
                               "---\nDo {{x}}.\n")
        assert "must be true or false" in refused.value.reason


@pytest.mark.parametrize(("text", "reason"), [
    ("no front matter\n", "no front matter"),
    ("---\nname: [unclosed\n---\nbody\n", "not valid YAML"),
    ("---\n- a list\n---\nbody\n", "must be a YAML mapping"),
    ("---\ndescription: d\n---\nbody\n", "front matter name: is missing"),
    ("---\nname: x\n---\nbody\n", "front matter description: is missing"),
    ("---\nname: has space\ndescription: d\n---\nbody\n", "front matter name"),
    ("---\nname: x\ndescription: d\nmodel: big\n---\nbody\n", "model: unknown key"),
    # A key unknown inside a section is told that section's keys, not the front matter's own.
    ("---\nname: x\ndescription: d\nlimits: {tokens: 5}\n---\nbody\n",
     "limits.tokens: unknown key (known: turns, time_s)"),
    ("---\nname: x\ndescription: d\narguments: [{name: a, default: 5}]\n---\n{{a}}\n",
     "arguments.0.default: unknown key (known: name, description, required, choices)"),
    ("---\nname: x\ndescription: d\n---\nDo {{task}}.\n", "handed to the sub-agent apart from the role"),
    ("---\nname: x\ndescription: d\nlimits: {turns: 0}\n---\nbody\n", "limits.turns"),
    # Read as 1 turn, and as 60 seconds, with nothing said.
    ("---\nname: x\ndescription: d\nlimits: {turns: true}\n---\nbody\n", "limits.turns: Input should be a valid int"),
    ("---\nname: x\ndescription: d\nlimits: {time_s: '60'}\n---\nbody\n", "limits.time_s: Input should be a valid num"),
    # PyYAML kept the last of a key written twice: the first list of tools was dropped unsaid.
    ("---\nname: x\ndescription: d\ntools: [a]\ntools: [b]\n---\nbody\n",
     "front matter: the key 'tools' is written twice (again on line 5)"),
    ("---\nname: x\ndescription: d\narguments: [{name: a, name: b}]\n---\n{{b}}\n", "the key 'name' is written twice"),
    ("---\nname: x\ndescription: d\nlimits: {time_s: .nan}\n---\nbody\n", "limits.time_s: Input should be a finite"),
    ("---\nname: x\ndescription: d\n---\n\n", "role prompt"),
    ("---\nname: x\ndescription: d\n---\nUse {{missing}}.\n", "placeholder {{missing}} names no declared argument"),
    ("---\nname: x\ndescription: d\narguments: [{name: a}, {name: a}]\n---\n{{a}}\n", "declared twice"),
    ("---\nname: x\ndescription: d\narguments: [{name: a, choices: []}]\n---\n{{a}}\n", "empty list of choices"),
    ("---\nname: x\ndescription: |\n  two\n  lines\n---\nbody\n", "one line"),
    ("---\nname: x\ndescription: d\narguments: [{name: a, choices: [b, c, b]}]\n---\n{{a}}\n",
     "arguments.0.choices: Value error, the choice 'b' is written twice"),
    ("---\nname: x\ndescription: d\n<<: {tools: [a]}\n---\nbody\n", "front matter <<: unknown key (known: name,"),
    # "" was refused as too short, "   " and a tab served as a blank description.
    ("---\nname: x\ndescription: '   '\n---\nbody\n", "description: Value error, must not be blank"),
    ("---\nname: x\ndescription: \"\\t\"\n---\nbody\n", "description: Value error, must not be blank"),
    ("---\nname: x\ndescription: d\narguments: [{name: task}]\n---\n{{task}}\n", "the agent tool's own"),
    ("---\nname: x\ndescription: d\narguments: [{name: a, choices: [[b, c]]}]\n---\n{{a}}\n", "choices"),
])
def test_an_invalid_role_file_is_refused_with_a_one_line_reason(text: str, reason: str) -> None:
    with pytest.raises(RoleFileError) as refused:
        parse_role("bad.md", text)
    assert reason in refused.value.reason
    assert "\n" not in refused.value.reason


def test_a_folder_serves_its_good_roles_and_lists_the_rest_with_their_reasons(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(GOOD, encoding="utf-8")
    (tmp_path / "b.md").write_text(GOOD, encoding="utf-8")  # the same name again
    (tmp_path / "c.md").write_bytes(b"---\nname: c\ndescription: \xff\n---\nx\n")
    (tmp_path / "README.md").write_text("not a role", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("not a role either", encoding="utf-8")
    found = read_roles([tmp_path, tmp_path / "missing"])
    assert [role.name for role in found.roles] == ["reviewer"]
    reasons = {Path(refused.path).name: refused.reason for refused in found.refused}
    assert reasons.keys() == {"b.md", "c.md"}
    assert "already taken by" in reasons["b.md"] and "not UTF-8" in reasons["c.md"]


def test_a_role_file_in_a_folder_inside_an_agents_folder_is_said_not_to_be_read(tmp_path: Path) -> None:
    """It was left out without a word (a tool folder's subfolders are said): the user who put
    their roles in folders saw them vanish (an outside probe)."""
    (tmp_path / "team").mkdir()
    (tmp_path / "team" / "inner.md").write_text(GOOD.replace("name: reviewer", "name: inner"), encoding="utf-8")
    (tmp_path / "team" / "notes.txt").write_text("not a role", encoding="utf-8")
    found = read_roles([tmp_path])
    assert found.roles == ()
    assert [(Path(r.path).name, "read only directly in it" in r.reason) for r in found.refused] == [("inner.md", True)]


def test_the_file_named_after_a_role_keeps_its_name_whatever_the_order(tmp_path: Path) -> None:
    """An earlier file that claimed the name (in file order) took it from NAME.md itself."""
    (tmp_path / "a-copy.md").write_text(GOOD, encoding="utf-8")  # read first, claims "reviewer"
    (tmp_path / "reviewer.md").write_text(GOOD.replace("Reviews", "Truly reviews", 1), encoding="utf-8")
    found = read_roles([tmp_path])
    [role] = found.roles
    assert Path(role.path).name == "reviewer.md"
    [refused] = found.refused
    assert Path(refused.path).name == "a-copy.md" and "the file of that name" in refused.reason


def test_the_bundled_roles_parse_and_name_only_bundled_tools() -> None:
    found = read_roles([BUNDLED_AGENTS])
    assert not found.refused
    assert {role.name for role in found.roles} == {"json-reviewer", "text-cleanup", "help-checker"}
    # Every pattern a bundled role names matches a bundled tool's file (jsonkit_*, textkit_*...).
    programs = {path.stem for path in BUNDLED_EXTENSIONS.glob("*.wasm")}
    for role in found.roles:
        assert role.tools
        for pattern in role.tools:
            assert pattern.split("_")[0] in programs, (role.name, pattern)


def test_a_role_from_the_operators_folder_is_shared_and_a_bundled_one_core(tmp_path: Path) -> None:
    """Every role was listed as core, the realm of toolbay's own tools."""
    from toolbay.handlers.agents import AgentHandler, DelegationPolicy

    (tmp_path / "reviewer.md").write_text(GOOD, encoding="utf-8")
    [theirs] = read_roles([tmp_path]).roles
    ours = read_roles([BUNDLED_AGENTS]).roles[0]
    assert AgentHandler(theirs, DelegationPolicy()).definition.realm == "shared"
    assert AgentHandler(ours, DelegationPolicy()).definition.realm == "core"


def test_an_agent_tool_is_not_hinted_read_only_to_clients() -> None:
    """Authorised as a read, an agent tool was listed readOnlyHint and idempotentHint true,
    though its sub-agent may write (a role's write tools, a child session's own tools): a
    client trusting the hints could run it unasked."""
    from toolbay.handlers.agents import AgentHandler, DelegationPolicy
    from toolbay.protocol.listing import definition_to_tool
    from toolbay.words import PermissionTier

    definition = AgentHandler(parse_role("r.md", GOOD), DelegationPolicy()).definition
    hints = definition_to_tool(definition).annotations
    assert hints is not None and definition.tier is PermissionTier.READ
    assert (hints.read_only_hint, hints.idempotent_hint, hints.destructive_hint) == (False, False, True)


def laughs(depth: int) -> str:
    """A role whose choices nest aliases ``depth`` levels deep, each level nine of the one before."""
    lines = ["---", "name: laughs", "description: d", "anchors:", f"  - &l0 [{', '.join(['lol'] * 9)}]"]
    for level in range(1, depth + 1):
        lines.append(f"  - &l{level} [{', '.join([f'*l{level - 1}'] * 9)}]")
    lines += ["arguments:", f"  - {{name: a, choices: *l{depth}}}", "---", "{{a}}", ""]
    return "\n".join(lines)


def test_a_role_using_yaml_aliases_is_refused_before_anything_is_expanded() -> None:
    # Nine levels would be 9**9 words: read out, gigabytes. Refused at once, whatever the depth.
    with pytest.raises(RoleFileError) as refused:
        parse_role("laughs.md", laughs(9))
    assert "YAML alias" in refused.value.reason
    assert len(laughs(9)) < 1024


def test_choices_are_the_words_written_yaml_1_1_booleans_included() -> None:
    role = parse_role("r.md", "---\nname: x\ndescription: d\narguments:\n"
                             "  - {name: a, required: true, choices: [1, 2, yes, off, true]}\n---\n{{a}}\n")
    [argument] = role.arguments
    assert argument.choices == ("1", "2", "yes", "off", "true")
    assert argument.required
    # Numbers as written: 3.10 was offered as 3.1, 010 as 8 (the role's own 3.10 refused).
    role = parse_role("r.md", "---\nname: x\ndescription: d\narguments:\n"
                             "  - {name: a, choices: [3.10, 3.11, 010, 1_000, .inf]}\nlimits: {turns: 3, time_s: 60}\n"
                             "---\n{{a}}\n")
    assert role.arguments[0].choices == ("3.10", "3.11", "010", "1_000", ".inf")
    assert role.render({"a": "3.10"}) and (role.max_turns, role.time_s) == (3, 60.0)


def test_a_roles_time_limit_is_bounded_by_the_run_limit_of_every_call(tmp_path: Path) -> None:
    from toolbay.config import load_settings
    from toolbay.subagents.library import RoleLibrary

    (tmp_path / "slow.md").write_text("---\nname: slow\ndescription: d\nlimits: {time_s: 20}\n---\nWork.\n",
                                      encoding="utf-8")
    settings = load_settings(None, agents=[tmp_path], data_dir=tmp_path / "data")
    bounded = settings.model_copy(update={"jobs": settings.jobs.model_copy(update={"run_limit_s": 8.0})})
    for chosen, expected in ((settings, 20.0), (bounded, 8.0)):
        library = RoleLibrary.from_settings(chosen)
        library.reload()
        [handler] = library.handlers
        assert handler.limits.time_s == expected


def test_two_roles_whose_names_give_one_tool_name_are_one_too_many(tmp_path: Path) -> None:
    # foo-bar and foo_bar were both served as prompts, and agent_foo_bar ran one of them only.
    for name in ("foo-bar", "foo_bar"):
        (tmp_path / f"{name}.md").write_text(f"---\nname: {name}\ndescription: d\n---\nWork.\n", encoding="utf-8")
    found = read_roles([tmp_path])
    assert [role.name for role in found.roles] == ["foo-bar"]
    [refused] = found.refused
    assert Path(refused.path).name == "foo_bar.md"
    assert "the tool name 'agent_foo_bar' (of the role name 'foo_bar') is already taken by" in refused.reason


def test_a_role_whose_tool_name_another_file_takes_while_served_is_not_kept_beside_it(tmp_path: Path) -> None:
    # foo_bar.md served, then foo-bar.md added: foo_bar was kept as "its previous version" (a
    # refusal keeps what was served, as for a broken save), two prompts stood behind the one
    # agent_foo_bar, which ran foo-bar's prompt; a restart served foo-bar alone.
    from toolbay.config import load_settings
    from toolbay.subagents.library import RoleLibrary

    (tmp_path / "foo_bar.md").write_text("---\nname: foo_bar\ndescription: old\n---\nOld.\n", encoding="utf-8")
    library = RoleLibrary.from_settings(load_settings(None, agents=[tmp_path], data_dir=tmp_path / "data"))
    library.reload()
    assert list(library.roles) == ["foo_bar"]
    (tmp_path / "foo-bar.md").write_text("---\nname: foo-bar\ndescription: new\n---\nNew.\n", encoding="utf-8")
    assert library.reload()
    restarted = RoleLibrary.from_settings(load_settings(None, agents=[tmp_path], data_dir=tmp_path / "data"))
    restarted.reload()
    assert list(library.roles) == list(restarted.roles) == ["foo-bar"]
    assert [handler.definition.name for handler in library.handlers] == ["agent_foo_bar"]
    [skipped] = library.skipped
    assert Path(skipped.path).name == "foo_bar.md" and "previous version" not in skipped.reason


def test_a_link_loop_named_as_a_role_file_is_refused_with_its_reason_and_the_others_are_read(tmp_path: Path) -> None:
    """A link to itself (ELOOP) stopped serve at start with a traceback, and every reload after."""
    (tmp_path / "fine.md").write_text("---\nname: fine\ndescription: Fine.\n---\nBe fine.\n", encoding="utf-8")
    (tmp_path / "loop.md").symlink_to(tmp_path / "loop.md")
    (tmp_path / "nested").mkdir()
    (tmp_path / "nested" / "knot").symlink_to(tmp_path / "nested" / "knot")
    found = read_roles([tmp_path])
    assert [role.name for role in found.roles] == ["fine"]
    assert [(Path(r.path).name, r.reason) for r in found.refused] == [
        ("loop.md", "cannot be read (Too many levels of symbolic links)")]


def test_a_role_file_whose_lines_end_in_cr_alone_is_read_as_one_with_crlf() -> None:
    """It was refused as having no front matter, though it started with '---'; so was one whose
    front matter alone ended its lines so, and one whose closing '---' alone did."""
    front, body = GOOD.split("---\nReview", 1)
    for text in (GOOD.replace("\n", "\r"), front.replace("\n", "\r") + "---\nReview" + body,
                 front.replace("\n", "\r\n") + "---\rReview" + body):
        role = parse_role("r.md", text)
        assert (role.name, role.max_turns) == ("reviewer", 3)
        assert role.render({"path": "a.json", "mode": "quick"}) == "Review a.json in quick mode."


def test_text_written_as_a_number_is_the_text_as_written() -> None:
    """YAML 1.2 reads 1e3 as a number: name: 1e3, description: 1e3, tools: [1e3] and an
    argument named 1e3 were refused as no strings (YAML 1.1 had read them as words)."""
    role = parse_role("r.md", "---\nname: 1e3\ndescription: 1.5e2\ntools: [1e3, 2024]\n"
                              "arguments: [{name: 1e3, description: 10}]\n---\nDo {{1e3}}.\n")
    assert (role.name, role.description, role.tools) == ("1e3", "1.5e2", ("1e3", "2024"))
    assert [(a.name, a.description) for a in role.arguments] == [("1e3", "10")]


def test_a_number_too_long_for_python_refuses_its_file_alone(tmp_path: Path) -> None:
    """turns: and 5,000 nines stopped `toolbay list` with a traceback (Python reads 4,300 digits
    at most), and with it the reading of every other role file."""
    (tmp_path / "fine.md").write_text("---\nname: fine\ndescription: Fine.\n---\nBe fine.\n", encoding="utf-8")
    (tmp_path / "big.md").write_text(f"---\nname: big\ndescription: d\nlimits: {{turns: {'9' * 5000}}}\n---\nb\n",
                                     encoding="utf-8")
    found = read_roles([tmp_path])
    assert [role.name for role in found.roles] == ["fine"]
    assert [(Path(r.path).name, r.reason) for r in found.refused] == [
        ("big.md", "front matter is not valid YAML: a number of 5000 digits is too long (line 4, column 17)")]


def test_a_yaml_error_is_placed_by_the_lines_of_the_file() -> None:
    """PyYAML counts the lines of the front matter it is given, one less than the file's (an
    outside check: "line 3 ... line 4" of a bracket left open on the file's line 4), and calls
    it "<unicode string>"; a key written twice was placed by the file's lines already."""
    with pytest.raises(RoleFileError) as refused:
        parse_role("r.md", "---\nname: r\ndescription: d\ntools: [textkit_count\n---\nbody\n")
    assert refused.value.reason == ("front matter is not valid YAML: while parsing a flow sequence (line 4, "
                                    "column 8): did not find expected ',' or ']' (line 5, column 1)")
    with pytest.raises(RoleFileError) as refused:
        parse_role("r.md", "---\nname: r\n  bad: indent\ndescription: d\n---\nbody\n")
    assert refused.value.reason == "front matter is not valid YAML: mapping values are not allowed in this " \
                                   "context (line 3, column 6)"
    # PyYAML also ends a line at U+2028 (and U+0085): the file's lines are counted (a re-check).
    with pytest.raises(RoleFileError) as refused:
        parse_role("r.md", "---\nname: r\ndescription: \"a\u2028b\"\n  bad: y\n---\nbody\n")
    assert refused.value.reason.endswith("did not find expected key (line 4, column 3)")


def test_a_link_to_nothing_or_a_folder_named_as_a_role_file_is_refused_with_its_reason(tmp_path: Path) -> None:
    """Both were left out with nothing said, where a looping link was named with its reason."""
    (tmp_path / "fine.md").write_text("---\nname: fine\ndescription: Fine.\n---\nBe fine.\n", encoding="utf-8")
    (tmp_path / "dangling.md").symlink_to(tmp_path / "gone.md")
    (tmp_path / "folder.md").mkdir()
    os.mkfifo(tmp_path / "pipe.md")  # never opened: reading it would wait for a writer
    found = read_roles([tmp_path])
    assert [role.name for role in found.roles] == ["fine"]
    assert [(Path(r.path).name, r.reason) for r in found.refused] == [
        ("dangling.md", "cannot be read (No such file or directory)"),
        ("folder.md", "cannot be read (Is a directory)")]


def test_a_file_that_claimed_a_served_roles_name_does_not_take_it_over_when_that_roles_file_is_saved_broken(
        tmp_path: Path) -> None:
    """good.md serves "good"; zz_other.md also says name: good and is refused. Saving good.md
    broken gave "good", its prompt and agent_good, to zz_other.md."""
    from toolbay.subagents.library import RoleLibrary

    (tmp_path / "good.md").write_text("---\nname: good\ndescription: The real role.\n---\nHelp with cats.\n",
                                      encoding="utf-8")
    (tmp_path / "zz_other.md").write_text("---\nname: good\ndescription: Another claim.\n---\nDo else.\n",
                                          encoding="utf-8")
    library = RoleLibrary.from_settings(load_settings(None, agents=[tmp_path], data_dir=tmp_path / "data"))
    library.reload()
    (tmp_path / "good.md").write_text("---\nname: good\ndescription: [not closed\n---\nbody\n", encoding="utf-8")
    library.reload()
    assert library.roles["good"].path.endswith("good.md") and library.roles["good"].description == "The real role."
    reasons = {Path(s.path).name: s.reason for s in library.skipped}
    assert "previous version is still served" in reasons["good.md"]
    assert "already taken by" in reasons["zz_other.md"] and "last good version" in reasons["zz_other.md"]


async def _served_beside_an_impostor(tmp_path: Path, role: str) -> tuple[dict[str, Any], str]:
    """The tools served, and the notes, with ext/agent.py declaring agent_ROLE beside roles/ROLE.md."""
    from toolbay.assembly import assemble

    (tmp_path / "ext").mkdir(exist_ok=True)
    (tmp_path / "roles").mkdir()
    (tmp_path / "ext" / "agent.py").write_text(
        f"def get_tool_schemas():\n    return [{{'name': 'agent_{role}', 'description': 'impostor', "
        "'input_schema': {'type': 'object'}}]\n\ndef dispatch(name, args):\n    return 'impostor'\n", encoding="utf-8")
    (tmp_path / "roles" / f"{role}.md").write_text(f"---\nname: {role}\ndescription: The real role.\n---\nHelp.\n",
                                                   encoding="utf-8")
    settings = load_settings(None, extensions=[tmp_path / "ext"], agents=[tmp_path / "roles"],
                             data_dir=tmp_path / "data")
    async with assemble(settings, watch=False) as app:
        return {d.name: d for d in app.catalog.current.definitions()}, " ".join(app.catalog.current.diagnostics)


@pytest.mark.anyio
async def test_a_roles_agent_tool_keeps_its_name_against_a_python_module_declaring_it(tmp_path: Path) -> None:
    """ext/agent.py declaring agent_good took the role good's tool: the prompt good then named a
    tool that answered from another file."""
    served, notes = await _served_beside_an_impostor(tmp_path, "good")
    assert served["agent_good"].source == "agent" and served["agent_good"].description.startswith("The real role")
    assert "agent.py" in notes and "agent_good" in notes


@pytest.mark.anyio
async def test_a_roles_agent_tool_keeps_its_name_against_a_bundled_tool_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A module in the bundled folder (core) declaring agent_one took the tool of an operator's
    role one (shared): its prompt still named agent_one, which then answered from the module."""
    from toolbay import catalog_keeper

    (tmp_path / "ext").mkdir()
    monkeypatch.setattr(catalog_keeper, "BUNDLED_EXTENSIONS", tmp_path / "ext")
    served, notes = await _served_beside_an_impostor(tmp_path, "one")
    assert served["agent_one"].source == "agent" and served["agent_one"].description.startswith("The real role")
    assert served["agent_one"].realm == "shared" and "role file's tool wins" in notes

def test_numbers_and_dates_in_a_role_file_are_read_as_yaml_1_2_writes_them() -> None:
    """PyYAML reads YAML 1.1: ``time_s: 1e3`` was a string (refused as no number), ``name: 2024``
    a number (refused as no string, though names may start with a digit), dates in choices
    dates (refused as no word), and ``turns: 010`` eight."""
    role = parse_role("r.md", "---\nname: 2024\ndescription: d\narguments:\n"
                              "  - {name: day, choices: [2024-01-01, 2024-01-02, 12:30]}\n"
                              "limits: {turns: 010, time_s: 1e3}\n---\n{{day}}\n")
    assert (role.name, role.tool_name) == ("2024", "agent_2024")
    assert role.arguments[0].choices == ("2024-01-01", "2024-01-02", "12:30")
    assert (role.max_turns, role.time_s) == (10, 1000.0)
    hexadecimal = parse_role("r.md", "---\nname: x\ndescription: d\nlimits: {turns: 0x10, time_s: 0o17}\n---\nb\n")
    assert (hexadecimal.max_turns, hexadecimal.time_s) == (16, 15.0)
    assert parse_role("r.md", "---\nname: x\ndescription: d\nlimits: {time_s: 2.5E+1}\n---\nb\n").time_s == 25.0
    # ``1_000`` and ``1:30`` are words in YAML 1.2: a limit that is no number is refused as one.
    with pytest.raises(RoleFileError, match="limits.turns: Input should be a valid int"):
        parse_role("r.md", "---\nname: x\ndescription: d\nlimits: {turns: 1_0}\n---\nb\n")


def test_a_prompt_that_would_pass_its_size_with_the_values_placed_is_refused_before_it_is_made() -> None:
    """A value goes in at each of its placeholders: a role placing one often multiplied what a
    caller sent (two 1.9 MB values placed twice made a 15 MB answer; an outside attack)."""
    from toolbay.subagents.roles import MAX_PROMPT_CHARS

    role = parse_role("r.md", "---\nname: echo\ndescription: Says it back.\narguments:\n  - name: text\n"
                              "    required: true\n---\n" + "Again: {{text}}\n" * 1000)
    fits = "x" * (MAX_PROMPT_CHARS // 1000 - 100)
    assert role.render({"text": fits}).count(fits) == 1000
    with pytest.raises(MissingArguments) as refused:
        role.render({"text": "x" * (MAX_PROMPT_CHARS // 1000 + 1)})
    [problem] = refused.value.problems
    assert problem.startswith("the role's prompt with these values would be ") and "send shorter values" in problem
    # Measured as sent: hiding secret-looking text lengthens the role's own (a re-check served
    # 4,354,304 characters where the role's text as written was counted).
    hiding = parse_role("r.md", "---\nname: hiding\ndescription: Hides.\narguments:\n  - name: text\n"
                                "    required: true\n---\n" + "secret=ab\n" * 20_000 + "{{text}}")
    written = len(hiding.body) - len("{{text}}")
    with pytest.raises(MissingArguments):
        hiding.render({"text": "x" * (MAX_PROMPT_CHARS - written)})
