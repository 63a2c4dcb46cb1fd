#!/usr/bin/env python3
"""Counts test cases from a Bazel build-event JSON file and prints "N passed, M failed".

Each test target's test.xml (gtest writes one per binary, and Bazel one per shard) is read for its
<testcase> elements, so the count is of test cases, not of targets. Cached results count too: their
events point at the cached test.xml. A target whose run left no test.xml counts as one case, passed
or failed by its status. Only the last attempt of a flaky retry is counted.
"""
import json
import sys
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET


def xml_path(uri):
    if uri.startswith("file://"):
        return urllib.parse.unquote(uri[len("file://"):])
    return None


def count_cases(path):
    """(passed, failed, skipped, failed_names) of one test.xml."""
    passed = failed = skipped = 0
    names = []
    root = ET.parse(path).getroot()
    for case in root.iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            failed += 1
            names.append("%s.%s" % (case.get("classname", ""), case.get("name", "")))
        elif case.find("skipped") is not None or case.get("result") == "skipped" \
                or case.get("status") == "notrun":
            skipped += 1
        else:
            passed += 1
    return passed, failed, skipped, names


def main():
    last = {}
    with open(sys.argv[1]) as events:
        for line in events:
            event = json.loads(line)
            test_id = event.get("id", {}).get("testResult")
            if test_id is None:
                continue
            key = (test_id.get("label"), test_id.get("run", 1), test_id.get("shard", 1))
            attempt = test_id.get("attempt", 1)
            if key in last and last[key][0] > attempt:
                continue
            last[key] = (attempt, event.get("testResult", {}))
    passed = failed = skipped = 0
    failed_names = []
    for (label, _, _), (_, result) in sorted(last.items()):
        status = result.get("status", "")
        xml = None
        for output in result.get("testActionOutput", []):
            if output.get("name") == "test.xml":
                xml = xml_path(output.get("uri", ""))
        counted = False
        if xml:
            try:
                p, f, s, names = count_cases(xml)
                counted = p + f + s > 0
            except (OSError, ET.ParseError):
                counted = False
            if counted:
                # A binary that crashed after writing some passing cases still failed.
                if status not in ("PASSED", "FLAKY") and f == 0:
                    f, names = 1, [label + " (" + status.lower() + ")"]
                passed, failed, skipped = passed + p, failed + f, skipped + s
                failed_names += [label + ": " + n for n in names]
        if not counted:
            if status in ("PASSED", "FLAKY"):
                passed += 1
            else:
                failed += 1
                failed_names.append(label + " (" + status.lower() + ")")
    for name in failed_names:
        print("FAILED: " + name)
    line = "%d passed, %d failed" % (passed, failed)
    if skipped:
        line += ", %d skipped" % skipped
    print(line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
