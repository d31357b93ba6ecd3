"""The bundled example module, extensions/dates.py, served from the bundled folder as a core tool."""

from __future__ import annotations

import datetime as dt

import pytest

from tests.pytools.conftest import call
from toolbay.app import Toolbay

pytestmark = pytest.mark.anyio


async def test_the_example_module_is_served_as_core_tools(toolbay: Toolbay) -> None:
    definitions = {d.name: d for d in toolbay.catalog.current.definitions()}
    assert {"dates_add", "dates_between", "dates_info"} <= set(definitions)
    assert definitions["dates_add"].source == "python"


async def test_adding_a_month_clamps_to_the_end_of_a_leap_february(toolbay: Toolbay) -> None:
    result = await call(toolbay, "dates_add", {"date": "2024-01-31", "months": 1})
    assert result.structured == {"date": "2024-02-29", "weekday": "Thursday"}
    back = await call(toolbay, "dates_add", {"date": "2024-02-29", "years": 1, "days": -1})
    assert back.structured is not None and back.structured["date"] == "2025-02-27"


async def test_weekdays_between_match_a_day_by_day_count(toolbay: Toolbay) -> None:
    start, end = dt.date(2024, 3, 1), dt.date(2024, 7, 19)
    expected = sum(1 for n in range((end - start).days) if (start + dt.timedelta(days=n)).weekday() < 5)
    result = await call(toolbay, "dates_between", {"start": start.isoformat(), "end": end.isoformat()})
    assert result.structured == {"days": 140, "weeks": 20, "weekdays": expected}
    reverse = await call(toolbay, "dates_between", {"start": end.isoformat(), "end": start.isoformat()})
    assert reverse.structured == {"days": -140, "weeks": -20, "weekdays": -expected}


async def test_info_and_a_bad_date_says_how_to_write_one(toolbay: Toolbay) -> None:
    info = await call(toolbay, "dates_info", {"date": "2021-01-03"})
    assert info.structured is not None
    assert (info.structured["weekday"], info.structured["iso_week"]) == ("Sunday", "2020-W53")
    bad = await call(toolbay, "dates_info", {"date": "03/01/2021"})
    assert bad.is_error and "YYYY-MM-DD" in bad.text


async def test_a_whole_number_written_as_a_float_counts_as_that_integer(toolbay: Toolbay) -> None:
    """Python's json writes 1.0; JSON Schema calls it an integer, and the tool refused it with
    "'float' object cannot be interpreted as an integer"."""
    as_int = await call(toolbay, "dates_add", {"date": "2024-01-31", "months": 1, "years": 1})
    as_float = await call(toolbay, "dates_add", {"date": "2024-01-31", "months": 1.0, "years": 1.0})
    assert not as_float.is_error, as_float.text
    assert as_float.structured == as_int.structured


async def test_the_listed_schemas_say_that_unknown_arguments_are_refused(toolbay: Toolbay) -> None:
    definition = toolbay.catalog.current.get("dates_add").definition  # type: ignore[union-attr]
    assert definition.input_schema["additionalProperties"] is False
    refused = await call(toolbay, "dates_add", {"date": "2024-01-31", "hours": 3})
    assert refused.is_error and "hours" in refused.text
