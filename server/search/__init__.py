"""Tool search: a BM25F index over tool definitions that follows the catalog one tool at a time."""

from toolbay.search.index import SearchHit, SearchIndex, SearchOutcome

__all__ = ["SearchHit", "SearchIndex", "SearchOutcome"]
