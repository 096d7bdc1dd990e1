#!/usr/bin/env python3
"""Every `docs/<page>.md#<anchor>` the code cites, and every `<page>.md#<anchor>` link in the
docs and the README, names a page that exists and a heading on it (the anchor as the page's
viewer makes it: lower case, punctuation dropped, spaces as hyphens). Prints each broken one
and exits 1 when any is; 0 otherwise."""

import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SKIP_DIRS = {".git", "build", "node_modules", "__pycache__"}
SOURCE_EXT = (".cpp", ".hpp", ".h", ".py", ".sh", ".cmake", ".txt", ".json", ".in", ".mjs", ".js",
              ".md", ".toml")
# A cited page and anchor: `docs/hooks.md#the-recall-pipeline`, or `hooks.md#...` in a link.
CITE = re.compile(r"(?:docs/)?([A-Za-z0-9_.-]+)\.md#([A-Za-z0-9_-]+)")


def slug(heading):
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", lambda m: m.group(1) or "", heading)
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors_of(path):
    anchors, fenced = set(), False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("```"):
                fenced = not fenced
            elif not fenced and (m := re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)):
                base = slug(m.group(1))
                anchor, n = base, 1
                while anchor in anchors:  # a repeated heading gets -1, -2, ...
                    anchor, n = f"{base}-{n}", n + 1
                anchors.add(anchor)
    return anchors


def files():
    for top, dirs, names in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.startswith("build")]
        for name in names:
            if name.endswith(SOURCE_EXT) and name != os.path.basename(__file__):
                yield os.path.join(top, name)


def main():
    docs = os.path.join(ROOT, "docs")
    pages = {name[:-3]: anchors_of(os.path.join(docs, name))
             for name in os.listdir(docs) if name.endswith(".md")}
    broken = checked = 0
    for path in files():
        rel = os.path.relpath(path, ROOT)
        with open(path, encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                for m in CITE.finditer(line):
                    page, anchor = m.group(1), m.group(2)
                    in_docs = rel.startswith("docs" + os.sep) or rel == "README.md"
                    if not m.group(0).startswith("docs/") and not in_docs:
                        continue  # another project's page, not one of ours
                    checked += 1
                    if page not in pages:
                        print(f"{rel}:{number}: {m.group(0)}: no page docs/{page}.md")
                        broken += 1
                    elif anchor not in pages[page]:
                        print(f"{rel}:{number}: {m.group(0)}: no heading #{anchor} in docs/{page}.md")
                        broken += 1
    print(f"{checked} anchors cited, {broken} broken")
    return 1 if broken or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
