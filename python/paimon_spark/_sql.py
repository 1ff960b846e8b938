"""SQL text for the statements the Python API runs: every call is one statement, so it runs the same
over a classic and a Spark Connect session."""

from __future__ import annotations

import datetime
from typing import Union

from pyspark.sql import Column

Timestamp = Union[datetime.datetime, str]
Condition = Union[str, Column]


def string(value: str) -> str:
    """A SQL string literal."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def identifier(part: str) -> str:
    """One part of a multi-part name, quoted."""
    return "`" + part.replace("`", "``") + "`"


def timestamp(value: Timestamp) -> str:
    """A point in time as the engine and Spark parse it: a naive datetime (or a string) in the
    session time zone, an aware one as a UTC instant."""
    if isinstance(value, datetime.datetime):
        if value.tzinfo is not None:
            utc = value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
            return utc.isoformat(timespec="milliseconds") + "Z"
        return value.isoformat(sep=" ", timespec="milliseconds")
    return value
