"""The tutorial of docs/python.md runs as written, block by block in one namespace, with a classic and with a
Spark Connect session (the block that builds a session contributes its imports; the fixture gives `spark`)."""

import re
from pathlib import Path

from sessions import mode, spark, warehouse  # noqa: F401 - the classic and Connect session fixtures

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "python.md"


def tutorial_blocks() -> list[str]:
    text = GUIDE.read_text()
    tutorial = text[text.index("## Tutorial"):text.index("## Reference")]
    return re.findall(r"```python\n(.*?)```", tutorial, flags=re.S)


def test_tutorial_runs_as_written(spark):
    blocks = tutorial_blocks()
    assert len(blocks) >= 6 and "getOrCreate()" in blocks[0]
    namespace = {"spark": spark}
    exec("\n".join(line for line in blocks[0].splitlines() if line.startswith(("import ", "from "))), namespace)
    for number, block in enumerate(blocks[1:], start=2):
        try:
            exec(compile(block, f"{GUIDE.name} block {number}", "exec"), namespace)
        except Exception as e:
            raise AssertionError(f"{GUIDE.name}, tutorial block {number} failed: {e}\n{block}") from e
