"""A guest's progress lines (``toolbay:progress DONE/TOTAL MESSAGE`` on stderr): parsed as the
guest writes them, taken out of the stderr the model reads, floods coalesced at no cost."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable

import pytest

from toolbay.wasm import RunResult, SandboxLimits
from toolbay.wasm.progress import GuestStderr, ProgressForwarder, ProgressReport, parse_report
from toolbay.wasm.streams import CappedOutput

LONG = SandboxLimits(timeout_s=60, stderr_limit_bytes=4096)


def feed(*chunks: bytes) -> tuple[bytes, list[ProgressReport], GuestStderr]:
    reports: list[ProgressReport] = []
    sink = GuestStderr(CappedOutput(1 << 20), reports.append)
    for chunk in chunks:
        sink.write(memoryview(chunk))
    sink.close()
    return bytes(sink.output.buffer), reports, sink


def test_a_report_line_is_read_and_taken_out_of_stderr() -> None:
    kept, reports, sink = feed(b"warming up\ntoolbay:progress 3/10 hashing part 3\nalmost\n")
    assert kept == b"warming up\nalmost\n"
    assert reports == [ProgressReport(3, 10, "hashing part 3")]
    assert sink.lines == 1


def test_a_line_split_across_writes_is_read_when_it_is_whole() -> None:
    kept, reports, _ = feed(b"a\ntool", b"bay:prog", b"ress 1.5", b"/4\nb\n")
    assert (kept, reports) == (b"a\nb\n", [ProgressReport(1.5, 4, None)])


def test_only_the_newest_report_of_a_chunk_is_handed_on() -> None:
    lines = b"".join(b"toolbay:progress %d/1000\n" % i for i in range(1, 1001))
    kept, reports, sink = feed(lines)
    assert (kept, reports, sink.lines) == (b"", [ProgressReport(1000, 1000, None)], 1000)


def test_lookalikes_pass_through_untouched() -> None:
    text = (b"see toolbay:progress 1/2 in the middle of a line\n"
            b"toolbay:progressive 1/2\n"
            b"toolbay-progress 1/2\n")
    kept, reports, _ = feed(text)
    assert (kept, reports) == (text, [])


def test_a_mark_after_a_partial_line_is_not_at_a_line_start() -> None:
    kept, reports, _ = feed(b"no newline yet ", b"toolbay:progress 1/2\n")
    assert (kept, reports) == (b"no newline yet toolbay:progress 1/2\n", [])


def test_a_malformed_report_is_taken_out_and_reports_nothing() -> None:
    kept, reports, sink = feed(b"toolbay:progress lots\nok\n")
    assert (kept, reports, sink.lines) == (b"ok\n", [], 1)


def test_a_last_line_without_newline_still_counts() -> None:
    assert feed(b"x\ntoolbay:progress 9/9 done")[:2] == (b"x\n", [ProgressReport(9, 9, "done")])
    assert feed(b"x\ntoolbay:pro")[:2] == (b"x\ntoolbay:pro", [])


def test_messages_are_cut_and_control_characters_blanked() -> None:
    report = parse_report(b"toolbay:progress 1 \x1b[31mred\x07" + b"x" * 500)
    assert report is not None and report.total is None
    assert report.message is not None and "\x1b" not in report.message and len(report.message) == 200


def test_a_run_reports_in_order_and_its_stderr_is_clean(run: Callable[..., RunResult]) -> None:
    reports: list[ProgressReport] = []
    result = run("progress", "--steps", "5", "--step-ms", "20", limits=LONG, on_progress=reports.append)
    assert result.exit_code == 0, result.stderr
    assert result.stderr == b"starting\nfinished\n"
    assert [r.done for r in reports] == sorted({r.done for r in reports})  # in order, no repeats
    assert reports[-1] == ProgressReport(5, 5, "step 5")


def test_a_failing_run_shows_its_own_lines_only(run: Callable[..., RunResult]) -> None:
    result = run("progress", "--steps", "3", "--step-ms", "0", "--exit", "3", limits=LONG)
    assert (result.exit_code, result.stderr) == (3, b"starting\nfinished\n")


@pytest.mark.slow
def test_a_flood_of_progress_lines_is_coalesced_and_kept_out_of_stderr(run: Callable[..., RunResult]) -> None:
    """A hundred thousand progress lines become a few reports, one per chunk read from the
    guest's pipe at most, and none of them reaches the stderr the model reads. (What a flood
    costs against the same bytes without the mark is a figure of bench/bench_progress.py.)"""
    reports: list[ProgressReport] = []
    flood = run("progress", "--steps", "100000", "--step-ms", "0", "--buffered", limits=LONG,
                on_progress=reports.append)
    assert flood.stderr == b"starting\nfinished\n"
    assert reports[-1] == ProgressReport(100_000, 100_000, "step 100000")
    assert len(reports) < 1_000  # 3.4 MB read in chunks of up to 64 KiB: not one report per line
    plain = run("progress", "--steps", "1000", "--step-ms", "0", "--buffered", "--plain-lines", limits=LONG)
    assert plain.stderr_truncated  # the same lines without the mark stay stderr, up to its limit


def test_a_report_being_sent_when_the_run_ends_is_sent_whole() -> None:
    """The end of a run does not cut short the report on its way (to a job store, say), and
    the newest report after it is still sent."""
    sent: list[str] = []

    async def main() -> None:
        arrived, go_on = asyncio.Event(), asyncio.Event()

        async def send(done: float, total: float | None, message: str | None) -> None:
            sent.append(f"{message} begun")
            arrived.set()
            await go_on.wait()
            sent.append(f"{message} sent")

        forwarder = ProgressForwarder(send)
        async with forwarder.forwarding():
            threading.Thread(target=forwarder.from_thread, args=(ProgressReport(1, 2, "step 1"),)).start()
            await arrived.wait()
            forwarder.from_thread(ProgressReport(2, 2, "step 2"))
            asyncio.get_running_loop().call_soon(go_on.set)  # while the block below ends
        await asyncio.sleep(0)

    asyncio.run(main())
    assert sent == ["step 1 begun", "step 1 sent", "step 2 begun", "step 2 sent"]


def test_a_report_that_never_gets_through_does_not_hold_the_end_of_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolbay.wasm import progress

    monkeypatch.setattr(progress, "FINISH_SENDING_S", 0.05)
    outcome: list[str] = []

    async def main() -> None:
        arrived = asyncio.Event()

        async def send(done: float, total: float | None, message: str | None) -> None:
            arrived.set()
            try:
                await asyncio.Event().wait()  # a client that never takes it
            except asyncio.CancelledError:
                outcome.append("cut short")
                raise

        forwarder = ProgressForwarder(send)
        async with forwarder.forwarding():
            forwarder.from_thread(ProgressReport(1, 2, "step 1"))
            await arrived.wait()
        outcome.append("run ended")

    asyncio.run(main())
    assert outcome == ["cut short", "run ended"]
