"""Date arithmetic: add to a date, count the days between two, and describe a date.

A toolbay Python tool module, and an example to copy: ``get_tool_schemas()`` lists the tools,
each served by the function of its name; results are JSON values (sent as text and as
structured content); a ``ValueError`` becomes an error the model reads. Standard library only.
"""

from __future__ import annotations

import calendar
import datetime as dt

TOOL_TIER = "read"  # needs no files at all; "read" is the least a tool can declare

_DATE = {"type": "string", "description": "A date as YYYY-MM-DD, or 'today'"}


def get_tool_schemas() -> list[dict]:
    return [
        {
            "name": "dates_add",
            "description": "Add (or with negative numbers subtract) years, months, weeks and days to a date. "
                           "Month arithmetic keeps the day, clamped to the month's end (Jan 31 + 1 month = Feb 28/29).",
            "input_schema": {"type": "object", "properties": {
                "date": _DATE,
                "years": {"type": "integer", "default": 0},
                "months": {"type": "integer", "default": 0},
                "weeks": {"type": "integer", "default": 0},
                "days": {"type": "integer", "default": 0},
            }, "required": ["date"]},
        },
        {
            "name": "dates_between",
            "description": "Days, whole weeks and weekdays (Monday to Friday) from one date to another; "
                           "negative when 'end' is before 'start'.",
            "input_schema": {"type": "object", "properties": {"start": _DATE, "end": _DATE},
                             "required": ["start", "end"]},
        },
        {
            "name": "dates_info",
            "description": "Weekday, ISO week, day of the year, quarter and whether the year is a leap year.",
            "input_schema": {"type": "object", "properties": {"date": _DATE}, "required": ["date"]},
        },
    ]


def _parse(text: str) -> dt.date:
    if text.strip().lower() == "today":
        return dt.date.today()
    try:
        return dt.date.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"{text!r} is not a date: write it as YYYY-MM-DD, e.g. 2024-02-29") from None


def dates_add(date: str, years: int = 0, months: int = 0, weeks: int = 0, days: int = 0) -> dict:
    start = _parse(date)
    month_index = start.year * 12 + (start.month - 1) + years * 12 + months
    year, month = divmod(month_index, 12)
    if not dt.MINYEAR <= year <= dt.MAXYEAR:
        raise ValueError(f"the result falls outside the years {dt.MINYEAR} to {dt.MAXYEAR}")
    day = min(start.day, calendar.monthrange(year, month + 1)[1])
    try:
        result = dt.date(year, month + 1, day) + dt.timedelta(weeks=weeks, days=days)
    except OverflowError:
        raise ValueError(f"the result falls outside the years {dt.MINYEAR} to {dt.MAXYEAR}") from None
    return {"date": result.isoformat(), "weekday": calendar.day_name[result.weekday()]}


def dates_between(start: str, end: str) -> dict:
    first, last = _parse(start), _parse(end)
    sign = -1 if last < first else 1
    low, high = min(first, last), max(first, last)
    days = (high - low).days
    full_weeks, rest = divmod(days, 7)
    weekdays = full_weeks * 5 + sum(1 for n in range(rest) if (low + dt.timedelta(days=n)).weekday() < 5)
    return {"days": sign * days, "weeks": sign * full_weeks, "weekdays": sign * weekdays}


def dates_info(date: str) -> dict:
    day = _parse(date)
    iso = day.isocalendar()
    return {
        "date": day.isoformat(),
        "weekday": calendar.day_name[day.weekday()],
        "iso_week": f"{iso.year}-W{iso.week:02d}",
        "day_of_year": day.timetuple().tm_yday,
        "quarter": (day.month - 1) // 3 + 1,
        "leap_year": calendar.isleap(day.year),
        "days_in_month": calendar.monthrange(day.year, day.month)[1],
    }
