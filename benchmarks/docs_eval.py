"""A documentation evaluation set run through `grounded-research eval`.

    python benchmarks/docs_eval.py --split dev                  # tune on this half
    python benchmarks/docs_eval.py --split test                 # report only: never tune on it
    python benchmarks/docs_eval.py --split all --out r.json -- --max-rounds 0 --selection keyword
    python benchmarks/docs_eval.py --set manuals --split dev    # the second set (below)
    python benchmarks/docs_eval.py --set admin-zh --split test  # the fourth (Chinese)
    python benchmarks/docs_eval.py --set tools --split dev      # the seventh
    python benchmarks/docs_eval.py --set libs --split dev       # the eighth
    python benchmarks/docs_eval.py --set servers --split dev    # the ninth

Eight sets, each with its own corpus, fetched once by benchmarks/debian_docs.py into
`--data` (default benchmarks/.data/, git-ignored):

- `--set docs` (default), benchmarks/docs_eval/: the Debian documentation of
  benchmarks/index.py (Python 3.11, PostgreSQL 15, Django 3.2, SQLite 3.40, git 2.39:
  3,398 HTML files), in `<data>/corpus`;
- `--set manuals`, benchmarks/manuals_eval/: manuals the project was never tuned on, to
  see whether the rules generalise (Bash 5.2, Apache HTTP Server 2.4 in English only,
  Sphinx 5.3), in `<data>/corpus-manuals`;
- `--set runtimes`, benchmarks/runtimes_eval/: the Node.js 18 API documentation (without
  its all-in-one page) and the Go 1.19 documentation (specification, the Go 1.17
  specification, memory model, assembler guide), in `<data>/corpus-runtimes`;
- `--set tools`, benchmarks/tools_eval/: three tools' documentation the project was never
  tuned on (Postfix 3.7, OpenSSL 3.0's libssl manual pages rendered to HTML by mandoc,
  CMake 3.25: 2,681 HTML files), in `<data>/corpus-tools`;
- `--set libs`, benchmarks/libs_eval/: five Python libraries' Sphinx documentation the
  project was never tuned on (Flask 2.2, Jinja 3.1, Click 8.1, pytest 7.2, Requests
  2.28), in `<data>/corpus-libs`;
- `--set servers`, benchmarks/servers_eval/: five packages' documentation the project was
  never run on before its questions were written (Exim 4.96, HAProxy 2.6, the Z shell
  5.9, Werkzeug 2.2, aiohttp 3.8), in `<data>/corpus-servers`;
- `--set admin` and `--set admin-zh`, benchmarks/admin_eval/ and admin_eval_zh/: the
  Debian Administrator's Handbook and the Debian 12 installation guide, in English and
  in Simplified Chinese (`<data>/corpus-admin`, `<data>/corpus-admin-zh`), written after
  the rules were tuned, to measure them on material no rule was written against. (The
  Chinese set over Debian's own Chinese manuals, benchmarks/docs_eval_zh/, has its own
  fetch script.)

Options after `--` go to `grounded-research eval` unchanged (see `grounded-research eval
--help`). The index lives in `<data>/cache` (`<data>/cache-<set>` for the others)
unless `--cache-dir` is passed there: the first run builds it (about two minutes on 2
cores for the first set), later runs reuse it.

`grounded-research eval` prints its tables (recall per stage, figures, recall per tag:
kind, package, trap); then the figures issue 11 sets targets on are printed in one block.
The exit code is eval's (0 done, 1 a `--min` threshold missed, 64 bad input).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import debian_docs  # noqa: E402
from index import PACKAGES  # noqa: E402  (one corpus for both benchmarks)

SPLIT_FILES = {"dev": "dev.jsonl", "test": "test.jsonl", "all": "questions.jsonl"}

# The second set: Debian 12 manuals the project has not been tuned on. apache2-doc ships
# the manual in 11 languages (other languages' pages are mostly symlinks to English);
# only manual/en/ is kept.
MANUALS = ("bash-doc", "apache2-doc", "sphinx-doc")


def manuals_keep(package: str, path: str) -> bool:
    """The files of MANUALS that go into the corpus (besides the .html/.htm suffix)."""
    return package != "apache2-doc" or path.startswith("usr/share/doc/apache2-doc/manual/en/")


# The third and fourth sets: two manuals in English and in Chinese, one language each.
ADMIN = ("debian-handbook", "installation-guide-amd64")
_ADMIN_FOLDERS = {
    "en": (
        "usr/share/doc/debian-handbook/html/en-US/",
        "usr/share/doc/installation-guide-amd64/en/",
    ),
    "zh": (
        "usr/share/doc/debian-handbook/html/zh-CN/",
        "usr/share/doc/installation-guide-amd64/zh_CN/",
    ),
}


def admin_keep(language: str) -> Callable[[str, str], bool]:
    """The files of ADMIN in one language: each package ships many translations."""
    handbook, guide = _ADMIN_FOLDERS[language]

    def keep(package: str, path: str) -> bool:
        return path.startswith(handbook if package == "debian-handbook" else guide)

    return keep


# The sixth set: two runtimes' documentation the project has not been tuned on (Node.js 18
# API docs, the Go 1.19 specification and guides). nodejs-doc's api/all.html is every
# other page concatenated (5.8 MB): it is left out, so that each fact has its own page.
RUNTIMES = ("nodejs-doc", "golang-1.19-doc")


def runtimes_keep(package: str, path: str) -> bool:
    """The files of RUNTIMES that go into the corpus (besides the .html/.htm suffix)."""
    return package != "nodejs-doc" or path != "usr/share/doc/nodejs/api/all.html"


# The seventh set: three tools' documentation the project has not been tuned on (Postfix
# 3.7, OpenSSL 3.0, CMake 3.25). cmake-doc's genindex.html (2.7 MB: every index entry of
# the manual, one line each) and search.html (a form that JavaScript fills) are left out.
# libssl-doc ships OpenSSL's manual as man pages only (usr/share/man/man3/*.3ssl.gz, no
# HTML): `tools_prepare` renders each page to HTML beside it before the corpus is built.
TOOLS = ("postfix-doc", "libssl-doc", "cmake-doc")
_CMAKE_LEFT_OUT = frozenset(
    f"usr/share/doc/cmake-data/html/{name}" for name in ("genindex.html", "search.html")
)


def tools_keep(package: str, path: str) -> bool:
    """The files of TOOLS that go into the corpus (besides the .html/.htm suffix)."""
    return package != "cmake-doc" or path not in _CMAKE_LEFT_OUT


def render_man_pages(tree: Path, mandoc: Path) -> None:
    """Each man page of `tree` (usr/share/man/**/*.gz; the aliases, symlinks, are skipped
    as ensure_corpus skips them) rendered to HTML beside it by `mandoc -Thtml`, the
    renderer of manpages.debian.org: man3/EVP_EncryptInit.3ssl.gz gives
    man3/EVP_EncryptInit.3ssl.html, titled `EVP_ENCRYPTINIT(3SSL)`, with a heading per
    section (NAME, SYNOPSIS, DESCRIPTION, ..., HISTORY)."""
    man = tree / "usr" / "share" / "man"
    pages = [p for p in sorted(man.rglob("*.gz")) if p.is_file() and not p.is_symlink()]
    print(f"rendering {len(pages)} man pages with mandoc", flush=True)
    for page in pages:
        result = subprocess.run([str(mandoc), "-Thtml", str(page)], capture_output=True)
        if result.returncode != 0:
            sys.exit(f"mandoc -Thtml {page} failed:\n{result.stderr.decode(errors='replace')}")
        page.with_suffix(".html").write_bytes(result.stdout)


def tools_prepare(data: Path) -> None:
    """libssl-doc unpacked with its man pages rendered to HTML, by the mandoc of Debian's
    `mandoc` package, itself only downloaded and unpacked into <data> (it needs no more
    than libc and zlib), so that nothing is installed and every machine renders alike."""
    mandoc = debian_docs.unpack(data, "mandoc") / "usr" / "bin" / "mandoc"
    debian_docs.unpack(data, "libssl-doc", lambda tree: render_man_pages(tree, mandoc))


# The eighth set: five Python libraries' Sphinx documentation the project has not been
# tuned on (Flask 2.2, Jinja 3.1, Click 8.1, pytest 7.2, Requests 2.28). Only the HTML
# manual of each (usr/share/doc/<package>/html/) is kept, without the Sphinx index pages
# genindex.html (every index entry, one line each) and search.html (a form that JavaScript
# fills); python-jinja2-doc's examples/ holds two Jinja template fragments named *.html,
# which are not pages and are left out. python-pytest-doc ships its changelog compressed
# (html/changelog.html.gz, by dh_compress): `libs_prepare` uncompresses it beside itself.
LIBS = (
    "python-flask-doc",
    "python-jinja2-doc",
    "python-click-doc",
    "python-pytest-doc",
    "python-requests-doc",
)
_SPHINX_LEFT_OUT = frozenset({"genindex.html", "search.html"})


def libs_keep(package: str, path: str) -> bool:
    """The files of LIBS that go into the corpus (besides the .html/.htm suffix)."""
    folder = f"usr/share/doc/{package}/html/"
    return path.startswith(folder) and path[len(folder) :] not in _SPHINX_LEFT_OUT


def uncompress_pages(tree: Path) -> None:
    """Each compressed page of `tree` (usr/share/doc/**/*.html.gz) uncompressed beside it:
    html/changelog.html.gz gives html/changelog.html."""
    for page in sorted((tree / "usr" / "share" / "doc").rglob("*.html.gz")):
        if page.is_file() and not page.is_symlink():
            page.with_suffix("").write_bytes(gzip.decompress(page.read_bytes()))


def libs_prepare(data: Path) -> None:
    """python-pytest-doc unpacked with its compressed changelog page uncompressed."""
    debian_docs.unpack(data, "python-pytest-doc", uncompress_pages)


# The ninth set: five packages' documentation written after forty-four sessions of tuning
# on the others, to see what a corpus no rule was written against gives (Exim 4.96,
# HAProxy 2.6, the Z shell 5.9, Werkzeug 2.2, aiohttp 3.8). Only the manuals' HTML is
# kept: python-werkzeug-doc's examples/ holds Jinja templates named *.html, which are not
# pages; the Sphinx index pages (genindex.html, search.html, and HAProxy's Lua manual's)
# are left out as in LIBS, and so are aiohttp's _snippets/ fragments.
SERVERS = (
    "exim4-doc-html",
    "haproxy-doc",
    "zsh-doc",
    "python-werkzeug-doc",
    "python-aiohttp-doc",
)


def servers_keep(package: str, path: str) -> bool:
    """The files of SERVERS that go into the corpus (besides the .html/.htm suffix)."""
    if package in ("python-werkzeug-doc", "python-aiohttp-doc"):
        folder = f"usr/share/doc/{package}/html/"
        rest = path[len(folder) :]
        return path.startswith(folder) and not rest.startswith("_") and rest not in _SPHINX_LEFT_OUT
    return path.rsplit("/", 1)[-1] not in _SPHINX_LEFT_OUT


class QuestionSet(NamedTuple):
    folder: Path  # questions.jsonl, dev.jsonl, test.jsonl
    packages: tuple[str, ...]
    corpus: str  # folder name under --data
    cache: str  # index folder name under --data
    keep: Callable[[str, str], bool] | None = None  # ensure_corpus filter
    prepare: Callable[[Path], None] | None = None  # run on --data before ensure_corpus

    def fetch(self, data: Path) -> tuple[Path, dict[str, Any]]:
        if self.prepare is not None and not (data / self.corpus / ".corpus.json").exists():
            self.prepare(data)
        return debian_docs.ensure_corpus(data, self.packages, name=self.corpus, keep=self.keep)


SETS = {
    "docs": QuestionSet(HERE / "docs_eval", PACKAGES, "corpus", "cache"),
    "manuals": QuestionSet(
        HERE / "manuals_eval", MANUALS, "corpus-manuals", "cache-manuals", manuals_keep
    ),
    "admin": QuestionSet(
        HERE / "admin_eval", ADMIN, "corpus-admin", "cache-admin", admin_keep("en")
    ),
    "admin-zh": QuestionSet(
        HERE / "admin_eval_zh", ADMIN, "corpus-admin-zh", "cache-admin-zh", admin_keep("zh")
    ),
    "runtimes": QuestionSet(
        HERE / "runtimes_eval", RUNTIMES, "corpus-runtimes", "cache-runtimes", runtimes_keep
    ),
    "tools": QuestionSet(
        HERE / "tools_eval", TOOLS, "corpus-tools", "cache-tools", tools_keep, tools_prepare
    ),
    "libs": QuestionSet(
        HERE / "libs_eval", LIBS, "corpus-libs", "cache-libs", libs_keep, libs_prepare
    ),
    "servers": QuestionSet(
        HERE / "servers_eval", SERVERS, "corpus-servers", "cache-servers", servers_keep
    ),
}


def eval_command() -> list[str]:
    """`grounded-research` of this Python's environment, or the one on PATH."""
    beside = Path(sys.executable).with_name("grounded-research")
    if beside.exists():
        return [str(beside)]
    found = shutil.which("grounded-research")
    if found is None:
        sys.exit("grounded-research not found: install the package (pip install -e .)")
    return [found]


def issue_figures(report: dict[str, Any]) -> list[tuple[str, str]]:
    """The aggregate figures issue 11 sets targets on, from eval's --out JSON."""
    aggregate = report["aggregate"]

    def stage(name: str, at: str) -> str:
        recall = aggregate.get(name)
        return "-" if recall is None else f"{100 * recall[at]:.1f}%"

    def share(name: str) -> str:
        value = aggregate.get(name)
        return "-" if value is None else f"{100 * value:.1f}%"

    return [
        ("questions (failed)", f"{aggregate['questions']} ({aggregate['failed']})"),
        ("answer in report", stage("answer_recall", "report")),
        ("required facts in report", stage("fact_recall", "report")),
        ("gold page in the evidence (selected)", stage("gold_recall", "selected")),
        ("gold page retrieved", stage("gold_recall", "retrieved")),
        (
            f"unanswerable declared ({aggregate['unanswerable']} q)",
            share("unanswerable_handled"),
        ),
        ("answerable declared open", share("answerable_abstained")),
        ("citation validity", share("citation_validity")),
        ("seconds / question", f"{aggregate['cost']['seconds']:.2f}"),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Options after -- are passed to grounded-research eval.",
    )
    parser.add_argument("--set", choices=sorted(SETS), default="docs", help="question set")
    parser.add_argument("--split", choices=sorted(SPLIT_FILES), default="dev")
    parser.add_argument("--data", type=Path, default=HERE / ".data", help="download folder")
    parser.add_argument("--out", type=Path, help="eval's full results (JSON) here")
    parser.add_argument("extra", nargs="*", help="options for grounded-research eval (after --)")
    args = parser.parse_args()

    chosen = SETS[args.set]
    corpus, info = chosen.fetch(args.data)
    versions = ", ".join(f"{p['package']} {p['version']}" for p in info["packages"])
    print(f"corpus: {corpus} ({info['files']} files: {versions})", flush=True)

    dataset = chosen.folder / SPLIT_FILES[args.split]
    extra = list(args.extra)
    if not any(option.split("=")[0] == "--cache-dir" for option in extra):
        extra += ["--cache-dir", str(args.data / chosen.cache)]
    with tempfile.TemporaryDirectory() as scratch:
        out = args.out or Path(scratch) / "results.json"
        command = [
            *eval_command(),
            "eval",
            str(dataset),
            "--corpus",
            str(corpus),
            "--out",
            str(out),
            *extra,
        ]
        print("$ " + " ".join(command), flush=True)
        code = subprocess.call(command, env=os.environ.copy())
        if not out.exists():
            return code
        report: dict[str, Any] = json.loads(out.read_text())
    print(f"\nissue 11 figures, {args.set} set, {args.split} split ({dataset.name}):")
    rows = issue_figures(report)
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"  {name:<{width}}  {value}")
    return code


if __name__ == "__main__":
    sys.exit(main())
