"""What a program printed reaches the model as text, and says so when it was not text."""

from __future__ import annotations

from toolbay.handlers.wasm import tool_result_from_run
from toolbay.wasm.types import RunResult, SandboxLimits


def _run(stdout: bytes, *, truncated: bool = False, exit_code: int = 0, stderr: bytes = b"") -> RunResult:
    return RunResult(exit_code=exit_code, stdout=stdout, stderr=stderr, stdout_truncated=truncated,
                     stderr_truncated=False, trap=None, duration_s=0.01)


def test_output_that_is_not_utf8_is_said_to_be_so() -> None:
    """A program printing Latin-1 or binary reached the model as replacement characters with
    nothing to tell them from what it printed."""
    result = tool_result_from_run("legacy", _run(b"caf\xe9 cr\xe8me\n"), SandboxLimits())
    assert "caf\ufffd" in result.text and "[stdout is not UTF-8 text" in result.text
    assert result.meta["stdout_not_utf8"] is True
    failed = tool_result_from_run("legacy", _run(b"", exit_code=1, stderr=b"bad \xff byte"), SandboxLimits())
    assert "[stderr is not UTF-8 text" in failed.text and failed.meta["stderr_not_utf8"] is True


def test_utf8_output_and_a_character_cut_by_the_limit_are_plain_text() -> None:
    whole = tool_result_from_run("greet", _run("café crème\n".encode()), SandboxLimits())
    cut = tool_result_from_run("greet", _run("café".encode()[:-1], truncated=True), SandboxLimits())
    assert whole.text == "café crème\n" and "stdout_not_utf8" not in whole.meta
    assert cut.text.startswith("caf") and "\ufffd" not in cut.text and "stdout_not_utf8" not in cut.meta


def test_notes_on_stderr_go_with_stderr_and_leave_the_output_exact() -> None:
    # A JSON tool whose stderr passed its limit answered '{"ok": true}' followed by the note on
    # stderr: no longer JSON, for the model and for `toolbay call ... | jq`.
    run = RunResult(exit_code=0, stdout=b'{"ok": true}\n', stderr=b"warn \xff" + b"y" * 100, stdout_truncated=False,
                    stderr_truncated=True, trap=None, duration_s=0.01)
    result = tool_result_from_run("probe", run, SandboxLimits())
    assert result.text == '{"ok": true}\n' and result.structured == {"ok": True}
    assert result.meta["stderr"].startswith("warn \ufffdyyy")
    assert result.meta["stderr"].endswith("[stderr is not UTF-8 text: the bytes that are not show as \ufffd]\n"
                                          f"[stderr truncated: only the first {SandboxLimits().stderr_limit_bytes} "
                                          "bytes are shown]")
