# Every target installs what it needs, idempotently: a fresh clone only needs Java 17, Maven and Python 3.11.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
SBT := build/sbt
JAR := python/paimon_spark/jars/paimon-spark.jar
SOURCES := $(shell find engine-scala/src/main -type f 2>/dev/null) build.sbt
# Spark binds the machine's outer address unless told otherwise: the demo, the bench and the tests
# (and every Spark process they start) stay on loopback.
export SPARK_LOCAL_IP ?= 127.0.0.1
# Maven jars that sessions load beside the engine (the S3A, GCS and ABFS sets) are resolved once, by `make jars`, into this
# folder of the checkout, never by a session's own Ivy: two JVMs resolving into one cold Ivy cache at once
# break each other (python/paimon_spark/jar_sets.py). sbt resolves the Scala suites' oracles (Paimon's Java
# core, Hadoop's minicluster) into .cache/coursier, in its one process, before any test starts.
export PAIMON_SPARK_JARS_DIR ?= $(CURDIR)/.cache/jars

.PHONY: venv jars emulators jar wheel publish-local test test-scala test-python differential demo bench profile clean

venv: $(VENV)/.installed

# uv installs what pip would, in a third of the time (it downloads and unpacks in parallel).
$(VENV)/.installed: requirements-dev.txt python/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q uv==0.13.9
	$(PY) -m uv pip install -q --python $(PY) -r requirements-dev.txt
	$(PY) -m uv pip install -q --python $(PY) --no-deps -e python
	touch $@

# Idempotent: a set already resolved is not looked at again.
jars: $(VENV)/.installed
	$(PY) -m paimon_spark fetch-jars s3 > /dev/null
	$(PY) -m paimon_spark fetch-jars jdbc > /dev/null
	$(PY) -m paimon_spark fetch-jars gcs > /dev/null
	$(PY) -m paimon_spark fetch-jars azure > /dev/null

# Azurite, Azure's Blob storage emulator, for the Azure suites: from the npm registry into the checkout.
AZURITE := .cache/node/node_modules/.bin/azurite-blob
emulators: $(AZURITE)

$(AZURITE):
	npm install --prefix .cache/node --cache .cache/npm --no-audit --no-fund --no-save --silent azurite@3.37.0

jar: $(JAR)

$(JAR): $(VENV)/.installed $(SOURCES)
	$(SBT) engine/package
	mkdir -p $(dir $(JAR))
	cp target/paimon-spark.jar $(JAR)

# The wheel (engine jar inside) in dist/: pip install dist/paimon_spark-*.whl
wheel: $(JAR)
	rm -rf dist/paimon_spark-*.whl python/build
	$(PY) -m pip wheel --no-deps --no-build-isolation -q -w dist ./python

# The jar, its sources and POM in the local Maven repository (~/.m2/repository), for
# spark-submit --packages io.github.paimonspark:paimon-spark_2.13:<version>
publish-local: $(VENV)/.installed
	$(SBT) engine/publishM2

# Scala unit tests and pytest suites; ends with one line "N passed, N failed".
# The jar sets are resolved first. One sbt packages the jar, publishes it to the checkout's own Maven
# repository, target/maven-repository (the --packages tests resolve it there, not in ~/.m2), resolves
# Flink with Paimon's Flink connector for the Flink tests (target/flink-oracle.classpath) and Paimon's REST
# catalog server for the REST tests (target/rest-oracle.classpath) and Hadoop's minicluster for the HDFS tests
# (target/hdfs-oracle.classpath), says so
# (`announceJar`, a file) and goes on to compile and run the Scala suites, beside two
# pytest workers that start at that signal: each worker alone leaves a core idle a quarter of the time
# (its JVMs start and wait), and a second sbt would load the build again. The Scala log is in
# test-reports/scala.log (printed whole if the jar was not built); its failures are printed after pytest's.
PYTEST := $(PY) -m pytest tests -q -n 2
test: jars emulators
	rm -rf test-reports .scala-status .pytest-status .jar-ready && mkdir -p test-reports
	($(SBT) engine/package engine/publish flinkOracle/writeClasspath restOracle/writeClasspath hdfsOracle/writeClasspath announceJar engine/test > test-reports/scala.log 2>&1; \
	  echo $$? > .scala-status) & \
	until [ -e .jar-ready ] || [ -e .scala-status ]; do sleep 1; done; \
	if [ ! -e .jar-ready ]; then cat test-reports/scala.log; exit 1; fi; \
	mkdir -p $(dir $(JAR)) && cp target/paimon-spark.jar $(JAR) && \
	$(PYTEST) --junitxml=test-reports/pytest.xml; echo $$? > .pytest-status; wait
	@grep -E '\*\*\* FAILED|Tests: succeeded|^\[error\]' test-reports/scala.log || true
	$(PY) tests/support/summarize.py test-reports .scala-status .pytest-status

# The randomized differential test (interop.DifferentialSuite) over more seeds and steps than make test
# runs: each seed a table of its own layout, written, compacted and altered by us and Paimon's Java core.
SEEDS ?= 1-200
STEPS ?= 24
differential: $(VENV)/.installed
	PAIMON_DIFFERENTIAL_SEEDS=$(SEEDS) PAIMON_DIFFERENTIAL_STEPS=$(STEPS) \
	  $(SBT) "engine/testOnly paimonspark.interop.DifferentialSuite"

test-scala: $(VENV)/.installed emulators
	$(SBT) engine/test

test-python: $(JAR) jars emulators
	$(SBT) engine/publish flinkOracle/writeClasspath restOracle/writeClasspath hdfsOracle/writeClasspath
	$(PYTEST)

demo: $(JAR)
	$(PY) python/examples/demo.py

bench: $(JAR) jars
	$(PY) bench/run.py

# CPU profiles (async-profiler, bench/cpu_profile.py) of the upsert ingest (bench/write_profile.py), ours and Paimon's Java writer's on the
# bench's 10 M-row workload, and of the merge-on-read scan against the compacted one (bench/read_profile.py),
# summarized in bench/results/profile_*.md.
profile: $(JAR)
	$(PY) bench/write_profile.py --rows 10000000 --mode default
	$(PY) bench/write_profile.py --rows 10000000 --mode write-only
	$(PY) bench/write_profile.py --rows 10000000 --java
	$(PY) bench/read_profile.py --rows 10000000

clean:
	rm -rf target engine-scala/target project/target project/project test-reports dist $(JAR) .scala-status .pytest-status .jar-ready
