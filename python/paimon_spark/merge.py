"""MERGE INTO a Paimon table from a DataFrame, clause by clause, over Spark's own MERGE."""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, Mapping, Optional

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from paimon_spark._sql import Condition as Expression

if TYPE_CHECKING:
    from paimon_spark.table import PaimonTable

__all__ = ["PaimonMergeBuilder"]


def _column(value: Expression) -> Column:
    return F.expr(value) if isinstance(value, str) else value


def _optional(value: Optional[Expression]) -> Optional[Column]:
    return None if value is None else _column(value)


def _assignments(values: Mapping[str, Expression]) -> Dict[str, Column]:
    return {k: _column(v) for k, v in values.items()}


class PaimonMergeBuilder:
    """The clauses of one ``MERGE INTO``, run by :meth:`execute` as one commit. Conditions and values
    are SQL strings or Columns; the target's columns are named by the table's name (``orders.id``),
    the source's by an alias given to it. Clauses of a kind apply in the order they are added.

    >>> t.merge(updates.alias("s"), "orders.id = s.id") \\
    ...     .when_matched_delete("s.status = 'cancelled'") \\
    ...     .when_matched_update_all() \\
    ...     .when_not_matched_insert_all() \\
    ...     .execute()
    """

    def __init__(self, table: "PaimonTable", source: DataFrame, condition: Expression) -> None:
        self._writer = source.mergeInto(table.name, _column(condition))

    def when_matched_update(self, set: Mapping[str, Expression],
                            condition: Optional[Expression] = None) -> "PaimonMergeBuilder":
        """Sets columns of matched target rows (where ``condition`` holds, when given).

        >>> builder.when_matched_update({"status": "s.status"}, condition="s.status <> 'new'")
        """
        self._writer.whenMatched(_optional(condition)).update(_assignments(set))
        return self

    def when_matched_update_all(self, condition: Optional[Expression] = None) -> "PaimonMergeBuilder":
        """Replaces matched target rows by their source rows, column by column name.

        >>> builder.when_matched_update_all("s.day = orders.day")
        """
        self._writer.whenMatched(_optional(condition)).updateAll()
        return self

    def when_matched_delete(self, condition: Optional[Expression] = None) -> "PaimonMergeBuilder":
        """Deletes matched target rows.

        >>> builder.when_matched_delete("s.status = 'cancelled'")
        """
        self._writer.whenMatched(_optional(condition)).delete()
        return self

    def when_not_matched_insert(self, values: Mapping[str, Expression],
                                condition: Optional[Expression] = None) -> "PaimonMergeBuilder":
        """Inserts a row built from ``values`` for each unmatched source row.

        >>> builder.when_not_matched_insert({"id": "s.id", "status": "'new'", "day": "s.day"})
        """
        self._writer.whenNotMatched(_optional(condition)).insert(_assignments(values))
        return self

    def when_not_matched_insert_all(self, condition: Optional[Expression] = None) -> "PaimonMergeBuilder":
        """Inserts unmatched source rows as they are.

        >>> builder.when_not_matched_insert_all(F.col("s.status") != "skip")
        """
        self._writer.whenNotMatched(_optional(condition)).insertAll()
        return self

    def when_not_matched_by_source_update(self, set: Mapping[str, Expression],
                                          condition: Optional[Expression] = None) -> "PaimonMergeBuilder":
        """Sets columns of target rows that no source row matches.

        >>> builder.when_not_matched_by_source_update({"status": "'stale'"})
        """
        self._writer.whenNotMatchedBySource(_optional(condition)).update(_assignments(set))
        return self

    def when_not_matched_by_source_delete(self, condition: Optional[Expression] = None) -> "PaimonMergeBuilder":
        """Deletes target rows that no source row matches.

        >>> builder.when_not_matched_by_source_delete("orders.status = 'stale'")
        """
        self._writer.whenNotMatchedBySource(_optional(condition)).delete()
        return self

    def execute(self) -> None:
        """Runs the MERGE: one commit.

        >>> t.merge(updates.alias("s"), "orders.id = s.id").when_not_matched_insert_all().execute()
        """
        self._writer.merge()
