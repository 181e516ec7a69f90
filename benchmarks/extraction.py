"""Extraction quality of HTML documents, two versions side by side.

    python benchmarks/extraction.py                          # this code: searched vs declared
    python benchmarks/extraction.py --baseline-src OLD/src   # another checkout's code first

On a fixed sample of pages (seed 20261130; `--per-package` pages of each package of the
Debian docs corpus of benchmarks/index.py, and of the Chinese one of
benchmarks/docs_eval_zh), each version turns every page into a Document
(`retrieval.documents.html_document`), each in a fresh process of its own. For each it
prints, beside the other:

- text recall: the share of the words of the page's visible text (the lxml text of its
  <body> without script, style, template and what is marked hidden; CJK counted by
  character) that the document's text holds, as multisets;
- headings kept: the <h1>-<h6> and <dt> texts of the page found in a markdown heading
  line of the text;
- tables: the page's <table>s and the markdown tables of the text;
- titles and dates: how many pages got a date, how many titles differ (listed);
- CPU seconds per page of `html_document` (process time, the file already read).

By default the two versions are this code's two ways of reading a page's metadata
(`search_metadata=True`, trafilatura's search with htmldate's dates, which the local
corpus used until index 13; then the default, what the page declares); the text is the
same by construction, and the script says whether it is. It is a benchmark: it prints
and exits 0.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SEED = 20261130
CORPORA = ("corpus", "corpus-zh")
_TOKEN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]|[^\W_]+")
_HIDING_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)
_TABLE_ROW = re.compile(r"^\|.*\|\s*$")


def sample(data: Path, per_package: int) -> list[Path]:
    """`per_package` pages of each package folder of each corpus, drawn with SEED."""
    rng = random.Random(SEED)
    files: list[Path] = []
    for name in CORPORA:
        root = data / name
        if not root.is_dir():
            print(f"no {root}: left out (see benchmarks/index.py, docs_eval_zh/corpus.py)")
            continue
        for package in sorted(p for p in root.iterdir() if p.is_dir()):
            pages = sorted(f for f in package.rglob("*") if f.suffix in {".html", ".htm"})
            files += rng.sample(pages, min(per_package, len(pages)))
    return files


# -- one version, in a process of its own ---------------------------------------------


def extract(paths: list[str], search_metadata: bool | None) -> list[dict[str, Any]]:
    """Each page as its Document's fields and the CPU seconds of `html_document`;
    `search_metadata` None: the version's own default call (an older signature)."""
    from grounded_research.retrieval.documents import UnreadableDocument, html_document

    kwargs = {} if search_metadata is None else {"search_metadata": search_metadata}
    results = []
    for path in paths:
        html = Path(path).read_bytes().decode("utf-8", errors="replace")
        start = time.process_time()
        try:
            document = html_document(html, path, Path(path).stem, **kwargs)
        except UnreadableDocument as problem:
            results.append({"path": path, "error": problem.reason, "cpu": 0.0})
            continue
        cpu = time.process_time() - start
        results.append(
            {
                "path": path,
                "title": document.title,
                "published": document.published,
                "text": document.text,
                "cpu": cpu,
            }
        )
    return results


def run_version(src: Path | None, search_metadata: bool | None, paths: list[Path]) -> Any:
    """`extract` in a fresh process, with `src` first on its path."""
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(src), env.get("PYTHONPATH", "")])
    argument = {"paths": [str(p) for p in paths], "search_metadata": search_metadata}
    done = subprocess.run(
        [sys.executable, __file__, "--worker"],
        input=json.dumps(argument),
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return json.loads(done.stdout)


# -- what the page shows -----------------------------------------------------------------


def tokens(text: str) -> Counter[str]:
    return Counter(t.lower() for t in _TOKEN.findall(text))


def visible(html: str) -> tuple[str, list[str], int]:
    """The page's visible body text, its heading and term texts, its table count."""
    import lxml.html

    tree = lxml.html.fromstring(html.encode("utf-8"))
    body = tree.find(".//body")
    body = tree if body is None else body
    for element in list(body.iter()):
        if not isinstance(element.tag, str) or element.getparent() is None:
            continue
        hidden = element.get("hidden") is not None and element.get("hidden") != "until-found"
        if (
            element.tag in {"script", "style", "noscript", "template"}
            or hidden
            or element.get("aria-hidden", "").lower() == "true"
            or _HIDING_STYLE.search(element.get("style", ""))
        ):
            element.drop_tree()
    headings = [
        " ".join(h.text_content().split())
        for h in body.iter("h1", "h2", "h3", "h4", "h5", "h6", "dt")
    ]
    return body.text_content(), [h for h in headings if tokens(h)], len(body.findall(".//table"))


def heading_kept(heading: str, heading_lines: list[str]) -> bool:
    words = " ".join(_TOKEN.findall(heading.lower()))
    return any(words in line for line in heading_lines)


def measure(page: dict[str, Any], shown: tuple[str, list[str], int]) -> dict[str, float]:
    text = page.get("text") or ""
    body, headings, tables = shown
    want = tokens(body)
    got = tokens(text)
    lines = [
        " ".join(_TOKEN.findall(line.lower()))
        for line in text.splitlines()
        if line.lstrip().startswith("#")
    ]
    rows = [bool(_TABLE_ROW.match(line)) for line in text.splitlines()]
    markdown_tables = sum(1 for i, row in enumerate(rows) if row and (i == 0 or not rows[i - 1]))
    return {
        "words": sum(want.values()),
        "recalled": sum((want & got).values()),
        "headings": len(headings),
        "headings_kept": sum(heading_kept(h, lines) for h in headings),
        "tables": tables,
        "tables_kept": markdown_tables,
        "dated": 1.0 if page.get("published") else 0.0,
        "cpu": page["cpu"],
    }


# -- report ------------------------------------------------------------------------------


def group_of(path: str, data: Path) -> str:
    parts = Path(path).relative_to(data).parts
    return parts[1] if parts[0] == "corpus" else f"{parts[0]}"


def _common(values: Counter[Any], shown: int = 3) -> str:
    return ", ".join(f"{value} x{count}" for value, count in values.most_common(shown)) or "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=HERE / ".data", help="download folder")
    parser.add_argument("--per-package", type=int, default=60)
    parser.add_argument(
        "--baseline-src", type=Path, help="the src/ of the code to compare with (first)"
    )
    parser.add_argument("--json", type=Path, help="write the per-page figures here")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        argument = json.load(sys.stdin)
        print(json.dumps(extract(argument["paths"], argument["search_metadata"])))
        return

    paths = sample(args.data, args.per_package)
    here = HERE.parent / "src"
    if args.baseline_src:
        versions = {"baseline": (args.baseline_src, None), "this code": (here, None)}
    else:
        versions = {"searched": (here, True), "declared": (here, False)}
    results = {name: run_version(src, flag, paths) for name, (src, flag) in versions.items()}
    names = list(versions)
    shown = {str(p): visible(p.read_bytes().decode("utf-8", errors="replace")) for p in paths}
    figures = {
        name: {page["path"]: measure(page, shown[page["path"]]) for page in pages}
        for name, pages in results.items()
    }
    groups = sorted({group_of(str(p), args.data) for p in paths})
    print(f"{len(paths)} pages (seed {SEED}, {args.per_package} per package); {' | '.join(names)}")
    header = "| pages | text recall | headings kept | tables kept | dated | CPU ms/page |"
    print(f"| group {header}\n|---|---|---|---|---|---|---|")
    for group in [*groups, "all"]:
        keys = [str(p) for p in paths if group in ("all", group_of(str(p), args.data))]
        cells = []
        for measure_name in ("recall", "headings", "tables", "dated", "cpu"):
            values = []
            for name in names:
                total = {k: sum(figures[name][p][k] for p in keys) for k in figures[name][keys[0]]}
                if measure_name == "recall":
                    values.append(f"{100 * total['recalled'] / max(total['words'], 1):.1f}%")
                elif measure_name == "headings":
                    values.append(f"{total['headings_kept']:.0f}/{total['headings']:.0f}")
                elif measure_name == "tables":
                    values.append(f"{total['tables_kept']:.0f}/{total['tables']:.0f}")
                elif measure_name == "dated":
                    values.append(f"{total['dated']:.0f}")
                else:
                    values.append(f"{1000 * total['cpu'] / len(keys):.1f}")
            cells.append(" / ".join(values))
        print(f"| {group} | {len(keys)} | " + " | ".join(cells) + " |")

    first, second = ({page["path"]: page for page in results[name]} for name in names)
    texts_differ = [p for p in first if first[p].get("text") != second[p].get("text")]
    titles_differ = [p for p in first if first[p].get("title") != second[p].get("title")]
    dates_differ = [p for p in first if first[p].get("published") != second[p].get("published")]
    print(
        f"\ntext differs on {len(texts_differ)} pages; title on {len(titles_differ)}; "
        f"date on {len(dates_differ)}"
    )
    for path in titles_differ:
        print(
            f"  title {Path(path).relative_to(args.data)}: "
            f"{first[path].get('title')!r} | {second[path].get('title')!r}"
        )
    print(
        f"dates that differ, by group ({names[0]} -> {names[1]}): only {names[0]} dated | "
        f"only {names[1]} | both, differently; the most common values"
    )
    for group in groups:
        pairs = [
            (first[p].get("published"), second[p].get("published"))
            for p in dates_differ
            if group_of(p, args.data) == group
        ]
        if not pairs:
            continue
        only_first = Counter(a for a, b in pairs if not b)
        only_second = Counter(b for a, b in pairs if not a)
        changed = Counter(f"{a} -> {b}" for a, b in pairs if a and b)
        print(
            f"  {group}: {sum(only_first.values())} | {sum(only_second.values())} | "
            f"{sum(changed.values())};  {_common(only_first)} | {_common(only_second)} | "
            f"{_common(changed)}"
        )
    if args.json:
        args.json.write_text(json.dumps({"results": results, "figures": figures}, indent=1))


if __name__ == "__main__":
    main()
