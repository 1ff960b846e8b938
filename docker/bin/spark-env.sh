# Sourced by the start scripts: where Spark is, and loopback-only defaults outside containers.
# SPARK_HOME defaults to the pyspark installation of $PYTHON (python3), which ships bin/spark-class
# and bin/spark-submit: no separate Spark download is needed.
PYTHON="${PYTHON:-python3}"
if [ -z "${SPARK_HOME:-}" ]; then
  SPARK_HOME="$("$PYTHON" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')"
fi
export SPARK_HOME
export PYSPARK_PYTHON="${PYSPARK_PYTHON:-$PYTHON}"
export SPARK_MASTER_HOST="${SPARK_MASTER_HOST:-127.0.0.1}"
export SPARK_MASTER_PORT="${SPARK_MASTER_PORT:-7077}"
export SPARK_MASTER_URL="${SPARK_MASTER_URL:-spark://$SPARK_MASTER_HOST:$SPARK_MASTER_PORT}"
