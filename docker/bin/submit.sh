#!/usr/bin/env bash
# spark-submit to SPARK_MASTER_URL with the engine and the `paimon` catalog over PAIMON_WAREHOUSE:
#   submit.sh job.py [job arguments]
# The engine comes from PAIMON_SPARK_PACKAGES (Maven coordinates, resolved with --packages) when set,
# else from the jar inside the installed paimon_spark wheel. Extra spark-submit flags go in
# SPARK_SUBMIT_ARGS (split on spaces).
set -euo pipefail
. "$(dirname "$0")/spark-env.sh"
warehouse="${PAIMON_WAREHOUSE:?set PAIMON_WAREHOUSE to the warehouse path every node sees}"
if [ -n "${PAIMON_SPARK_PACKAGES:-}" ]; then
  engine=(--packages "$PAIMON_SPARK_PACKAGES")
else
  engine=(--jars "$("$PYTHON" -c 'import paimon_spark; print(paimon_spark.engine_jar())')")
fi
# shellcheck disable=SC2086 # SPARK_SUBMIT_ARGS is a list of flags
exec "$SPARK_HOME/bin/spark-submit" --master "$SPARK_MASTER_URL" "${engine[@]}" \
  --conf spark.sql.catalog.paimon=paimonspark.spark.PaimonCatalog \
  --conf "spark.sql.catalog.paimon.warehouse=$warehouse" \
  --conf spark.sql.catalog.spark_catalog=paimonspark.spark.PaimonSessionCatalog \
  --conf "spark.sql.catalog.spark_catalog.warehouse=$warehouse" \
  --conf spark.sql.extensions=paimonspark.spark.extensions.PaimonSparkSessionExtensions \
  ${SPARK_SUBMIT_ARGS:-} "$@"
