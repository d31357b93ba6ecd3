"""What runs inside a Python tool worker process: the worker loop, its confinement and the
``toolbay_tools`` helper that tool modules import. Standard library only, and nothing of
toolbay: these files are run by path in a fresh interpreter, never imported by the server."""
