"""The handlers that turn a stop into Ctrl-C while a server starts, asked directly: the moments they
guard (a signal inside the import system, asyncio half imported) are a few microseconds wide."""

from __future__ import annotations

import signal
import sys
import types
from collections.abc import Iterator
from types import FrameType

import pytest

from toolbay import start_interrupts
from toolbay.serve_command import stop_as_ctrl_c


def _frame_in(filename: str) -> FrameType:
    """A frame of code that says it is in ``filename``."""
    namespace: dict[str, object] = {}
    exec(compile("import sys\nframe = sys._getframe()", filename, "exec"), namespace)
    frame = namespace["frame"]
    assert isinstance(frame, FrameType)
    return frame


@pytest.fixture
def signals_kept() -> Iterator[None]:
    kept = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM, signal.SIGALRM)}
    yield
    signal.setitimer(signal.ITIMER_REAL, 0)
    for number, handler in kept.items():
        signal.signal(number, handler)


def test_a_stop_raised_at_once_drops_the_one_put_off_before_it(signals_kept: None,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    # SIGTERM inside the import system is put off; Ctrl-C just after, elsewhere, is raised at once and
    # begins the shutdown: the first one, raised again a moment later, broke into that shutdown.
    monkeypatch.setattr(start_interrupts, "_AGAIN_AFTER_S", 60.0)  # never fires during the test
    start_interrupts.interrupt_when_safe(signal.SIGTERM, _frame_in("<frozen importlib._bootstrap>"))
    assert signal.getitimer(signal.ITIMER_REAL)[0] > 0  # put off
    with pytest.raises(KeyboardInterrupt):
        start_interrupts.interrupt_when_safe(signal.SIGINT, _frame_in("server_module.py"))
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_sigterm_while_asyncio_is_half_imported_stops_as_ctrl_c(signals_kept: None,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # A server started with Ctrl-C ignored (`serve &`) and stopped as a first start imports asyncio:
    # "partially initialized module 'asyncio' has no attribute 'get_running_loop'", a traceback, exit 1.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    monkeypatch.setitem(sys.modules, "asyncio", types.ModuleType("asyncio"))  # as a half import leaves it
    with pytest.raises(KeyboardInterrupt):
        stop_as_ctrl_c(signal.SIGTERM, _frame_in("server_module.py"))
    monkeypatch.delitem(sys.modules, "asyncio")  # none imported yet: no loop yet, the same
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with pytest.raises(KeyboardInterrupt):
        stop_as_ctrl_c(signal.SIGTERM, _frame_in("server_module.py"))
