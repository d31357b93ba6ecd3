"""Starts a toolbay Python tool worker: runs ``worker.py`` beside it from its kept bytecode.

Run by path (``python -I -S start.py``), never imported. A script run by path is compiled
from its text at every start, as Python keeps bytecode only for what is imported: for the
thousand lines of ``worker.py`` that was about 11 ms of processor time, a fifth of a worker's
start. This file is the few lines compiled so; the worker's code is read from ``__pycache__``
as an imported module's is (written there at the first start where the folder may be written,
and by the installer), and run as this script, in ``__main__`` under ``worker.py``'s name, as
when ``worker.py`` was the script.
"""

import os
from importlib.machinery import SourceFileLoader

__file__ = os.path.join(os.path.dirname(os.path.abspath(__file__)), "worker.py")
# A source file's loader gives code or raises (get_code is typed for loaders without code).
exec(SourceFileLoader("__main__", __file__).get_code("__main__"))  # type: ignore[arg-type]  # noqa: S102
