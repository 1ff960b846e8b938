#!/usr/bin/env bash
# A Spark standalone master in the foreground (a container's main process, or a test's child).
#   SPARK_MASTER_HOST (127.0.0.1)  SPARK_MASTER_PORT (7077)  SPARK_MASTER_WEBUI_PORT (8080; 0 = any)
set -euo pipefail
. "$(dirname "$0")/spark-env.sh"
exec "$SPARK_HOME/bin/spark-class" org.apache.spark.deploy.master.Master \
  --host "$SPARK_MASTER_HOST" --port "$SPARK_MASTER_PORT" --webui-port "${SPARK_MASTER_WEBUI_PORT:-8080}"
