"""Tool search: a BM25F index over tool definitions that follows the catalog one tool at a time."""

from server.search.index import SearchHit, SearchIndex, SearchOutcome

__all__ = ["SearchHit", "SearchIndex", "SearchOutcome"]
