"""The package's public surface: mypy in strict mode finds nothing in paimon_spark, and every public name
(function, class, method, property) has a docstring with an example."""

import inspect
import subprocess
import sys
from pathlib import Path

import paimon_spark
from paimon_spark.builder import PaimonTableBuilder
from paimon_spark.merge import PaimonMergeBuilder

PACKAGE = Path(__file__).resolve().parents[2] / "python" / "paimon_spark"


def test_package_is_mypy_strict_clean():
    # mypy's cache lives with the checkout's other caches: a run after the first checks only what changed.
    cache = PACKAGE.parents[1] / ".cache" / "mypy"
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(cache), str(PACKAGE)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (PACKAGE / "py.typed").is_file()


def public_names() -> dict[str, object]:
    names: dict[str, object] = {}
    for owner in [getattr(paimon_spark, n) for n in paimon_spark.__all__ if n != "__version__"] + [
            PaimonTableBuilder, PaimonMergeBuilder]:
        names[owner.__name__] = owner
        if inspect.isclass(owner) and not issubclass(owner, Exception):
            for name, member in vars(owner).items():
                if name.startswith("_") or not (callable(member) or isinstance(member, (property, classmethod))):
                    continue
                names[f"{owner.__name__}.{name}"] = member.fget if isinstance(member, property) else member
    return names


def test_every_public_name_has_a_docstring_example():
    names = public_names()
    assert {"PaimonTable.create", "PaimonTable.stream_changes", "PaimonTableBuilder.execute",
            "PaimonMergeBuilder.execute", "SnapshotNotFoundError", "configure_spark_with_paimon"} <= set(names)
    missing = sorted(n for n, o in names.items() if ">>>" not in (inspect.getdoc(o) or ""))
    assert missing == []
