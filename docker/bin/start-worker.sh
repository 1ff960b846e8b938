#!/usr/bin/env bash
# A Spark standalone worker in the foreground, registering with SPARK_MASTER_URL.
#   SPARK_WORKER_HOST (127.0.0.1)  SPARK_WORKER_CORES (1)  SPARK_WORKER_MEMORY (1g)
#   SPARK_WORKER_DIR (./work): where its executors run; each worker needs its own.
#   SPARK_WORKER_WEBUI_PORT (8081; 0 = any)
set -euo pipefail
. "$(dirname "$0")/spark-env.sh"
work_dir="${SPARK_WORKER_DIR:-$PWD/work}"
mkdir -p "$work_dir"
exec "$SPARK_HOME/bin/spark-class" org.apache.spark.deploy.worker.Worker "$SPARK_MASTER_URL" \
  --host "${SPARK_WORKER_HOST:-127.0.0.1}" --cores "${SPARK_WORKER_CORES:-1}" \
  --memory "${SPARK_WORKER_MEMORY:-1g}" --work-dir "$work_dir" --webui-port "${SPARK_WORKER_WEBUI_PORT:-8081}"
