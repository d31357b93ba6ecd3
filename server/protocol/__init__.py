"""MCP wiring: the SDK server around toolbay's catalog and call pipeline, and its transports."""
