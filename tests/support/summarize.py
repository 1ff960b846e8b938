"""Prints one line 'N passed, N failed' over the Scala and pytest JUnit reports; exits non-zero on failure."""

import sys
import xml.etree.ElementTree as ET
from pathlib import Path


def count(report_dir: Path) -> tuple[int, int]:
    passed = failed = 0
    for xml in sorted(report_dir.rglob("*.xml")):
        root = ET.parse(xml).getroot()
        for case in root.iter("testcase"):
            if case.find("failure") is not None or case.find("error") is not None:
                failed += 1
            elif case.find("skipped") is None:
                passed += 1
    return passed, failed


def main() -> int:
    report_dir, *status_files = sys.argv[1:]
    passed, failed = count(Path(report_dir))
    statuses = [int(Path(f).read_text().strip() or 1) for f in status_files]
    # A runner that crashed before writing its report still fails the run.
    if failed == 0 and any(s not in (0,) for s in statuses):
        failed = 1
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
