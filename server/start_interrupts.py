"""Ctrl-C and SIGTERM while a server starts: KeyboardInterrupt raised where the main thread holds no import lock.

Python raises KeyboardInterrupt at the main thread's next instruction. While a server starts, the MCP SDK loads
on a thread of its own (``toolbay.background_import``) as the main thread loads the server's modules, so the
main thread often waits for Python's import lock (importlib's ``_imp.acquire_lock()``), and an interrupt comes
in just as it gets it, before importlib's ``try`` that would give it back. The lock was then held for ever: the
other thread's import never ended, nor did the compiles and descriptions that import, and the server never
served; raised in the weakref callback that drops a module's lock, the interrupt was even lost ("Exception
ignored in: <function _get_module_lock.<locals>.cb>"), so the server neither served nor stopped. An interrupt
that comes while the main thread runs the import system's own code is put off by a few milliseconds (an
interval timer), until it runs elsewhere: an import then under way is abandoned as any exception abandons it.

Once the event loop runs, asyncio's own Ctrl-C handler (it cancels the main task) takes over:
``before_the_event_loop`` puts Python's back, which asyncio replaces only when it finds it.
"""

from __future__ import annotations

import signal
from types import FrameType

# The import system runs as frozen modules; their frames carry these names.
_IMPORT_SYSTEM = ("<frozen importlib._bootstrap>", "<frozen importlib._bootstrap_external>")
# How long an interrupt is put off before it is tried again: the import system's own steps take microseconds.
_AGAIN_AFTER_S = 0.005


def interrupt_when_safe(signum: int, frame: FrameType | None) -> None:
    """Python's Ctrl-C (KeyboardInterrupt raised in the main thread), unless the main thread is in the
    import system's code: then the same a few milliseconds later, by what handles Ctrl-C by then."""
    # Windows has no interval timer: there it is raised at once, as before.
    if frame is not None and frame.f_code.co_filename in _IMPORT_SYSTEM and hasattr(signal, "setitimer"):
        signal.signal(signal.SIGALRM, _again)
        signal.setitimer(signal.ITIMER_REAL, _AGAIN_AFTER_S)
        return
    if hasattr(signal, "setitimer"):
        # A stop put off before this one (SIGTERM, then Ctrl-C) would be raised again a moment later,
        # into the shutdown this one begins.
        signal.setitimer(signal.ITIMER_REAL, 0)
    signal.default_int_handler(signal.SIGINT, frame)


def _again(signum: int, frame: FrameType | None) -> None:
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    handler = signal.getsignal(signal.SIGINT)
    # Ctrl-C ignored (a server started in the background with ``&``): this was a SIGTERM, stopped as Ctrl-C.
    (handler if callable(handler) else interrupt_when_safe)(signal.SIGINT, frame)


def while_starting() -> None:
    """Ctrl-C raises KeyboardInterrupt only where the main thread holds no import lock; unless it is
    ignored (a process started in the background, ``cmd &``), as Python leaves it then."""
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, interrupt_when_safe)


def before_the_event_loop() -> None:
    """Python's own Ctrl-C handler back, so that asyncio installs its own as the loop starts (it does only
    in place of Python's)."""
    if signal.getsignal(signal.SIGINT) is interrupt_when_safe:
        signal.signal(signal.SIGINT, signal.default_int_handler)
