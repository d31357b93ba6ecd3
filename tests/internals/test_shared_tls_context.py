"""The test session's one TLS context (tests/conftest.py, ``_share_one_tls_context``): httpx
must still build a client's context through ``httpcore2.default_ssl_context``, or every client
the tests make reads the certificate bundle again (seconds of processor time a run)."""

from __future__ import annotations

import httpcore2
import httpx2
import pytest

pytestmark = pytest.mark.anyio


async def test_every_client_the_tests_make_shares_one_tls_context() -> None:
    made = httpcore2.default_ssl_context.cache_info()  # type: ignore[attr-defined]
    async with httpx2.AsyncClient() as first, httpx2.AsyncClient() as second:
        assert first is not second
    after = httpcore2.default_ssl_context.cache_info()  # type: ignore[attr-defined]
    assert after.hits + after.misses >= made.hits + made.misses + 2
    assert after.currsize == 1
