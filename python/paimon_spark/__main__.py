"""``python -m paimon_spark``: the ``paimon-spark`` command line."""

import sys

from paimon_spark.cli import main

sys.exit(main())
