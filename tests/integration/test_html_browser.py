"""The HTML report in a real browser: headless Chromium (Debian's `chromium` and
`chromium-driver`, which `.ci/run` installs) driven by Selenium. The example run is
made by the CLI as a user makes it (`--html`), then the page is opened from its file:
each citation opens its own snippet, the snapshot view highlights exactly
`snapshot[start:end]`, axe-core (vendored) finds no accessibility violation, nothing is
fetched and nothing is logged on the console; a screenshot is kept in
`tmp/artifacts/` (or `$GR_TEST_ARTIFACTS`). `grounded-research serve` lists the run.

Where no Chromium or driver can be had, the tests skip with one reason."""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from grounded_research.retrieval.snapshots import SnapshotStore
from tests.conftest import EXAMPLE_CORPUS, ROOT, write
from tests.integration.test_cli import EXAMPLE_QUESTION
from tests.unit.test_html_page import PAGES, QUESTION

pytestmark = pytest.mark.integration

CLI = [str(Path(sys.executable).with_name("grounded-research"))]
AXE = ROOT / "tests" / "integration" / "vendor" / "axe-core" / "axe.min.js"
WCAG = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
THREAD = "html-browser-test"


def chromium() -> tuple[str, str]:
    """The browser and its driver, or a skip that says what is missing."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        pytest.skip("no headless browser: selenium is not installed (pip install -e '.[dev]')")
    browser = next(
        (p for name in ("chromium", "chromium-browser") if (p := shutil.which(name))), None
    )
    driver = shutil.which("chromedriver")
    if browser is None or driver is None:
        pytest.skip("no headless browser: apt-get install chromium chromium-driver")
    return browser, driver


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    binary, driver_path = chromium()
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for argument in (
        "--headless=new",
        "--no-sandbox",  # root in CI
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1200,1600",
        "--no-first-run",
        "--disable-extensions",
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(driver_path))
    driver.set_script_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return html_run(tmp_path_factory.mktemp("html-example"), EXAMPLE_QUESTION, EXAMPLE_CORPUS)


def html_run(folder: Path, question: str, corpus: Path) -> dict[str, Any]:
    """The CLI's run with `--html`, its evidence table and where its cache is."""
    done = subprocess.run(
        [
            *CLI,
            question,
            "--corpus",
            str(corpus),
            "--html",
            str(folder / "report.html"),
            "--evidence",
            str(folder / "evidence.json"),
            "--out",
            str(folder / "report.md"),
            "--thread",
            THREAD,
            "--cache-dir",
            str(folder / "cache"),
            "--data-dir",
            str(folder / "data"),
            "-q",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    table = json.loads((folder / "evidence.json").read_text(encoding="utf-8"))
    return {"folder": folder, "table": table, "page": folder / "report.html"}


def artifacts() -> Path:
    folder = Path(os.environ.get("GR_TEST_ARTIFACTS") or ROOT / "tmp" / "artifacts")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def console_errors(driver: Any) -> list[dict[str, Any]]:
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def viewer_open(driver: Any) -> bool:
    return bool(driver.execute_script("return document.getElementById('viewer').open"))


def highlighted(driver: Any) -> str:
    """The highlighted span of the snapshot view, once it is shown: a snapshot link
    opens the view on the page's hashchange event, after the click returns."""
    from selenium.webdriver.support.ui import WebDriverWait

    mark = WebDriverWait(driver, 10).until(lambda d: d.find_elements("id", "highlight") or False)[0]
    return str(mark.get_property("textContent"))


def close_viewer(driver: Any) -> None:
    driver.find_element("id", "viewer-close").click()
    assert not viewer_open(driver)


def axe_violations(driver: Any) -> list[dict[str, Any]]:
    driver.execute_script(AXE.read_text(encoding="utf-8"))
    found: list[dict[str, Any]] | str = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {runOnly: {type: 'tag', values: arguments[0]}})"
        ".then(r => done(r.violations.map(v => ({id: v.id, help: v.help,"
        " nodes: v.nodes.map(n => n.target)}))))"
        ".catch(e => done(String(e)));",
        WCAG,
    )
    assert not isinstance(found, str), found
    return found


def test_each_citation_opens_its_snippet_and_its_exact_span(
    browser: Any, example: dict[str, Any]
) -> None:
    check_citations(browser, example)


def test_a_hostile_page_runs_nothing_and_its_spans_hold_past_emoji(
    browser: Any, tmp_path: Path
) -> None:
    """Pages with script tags, `</script>`, event handlers, `javascript:` links and a
    character outside the BMP before the cited span (JavaScript counts UTF-16 units)."""
    from selenium.common.exceptions import NoAlertPresentException

    for name, text in PAGES.items():
        write(tmp_path / "corpus", name, text)
    hostile = html_run(tmp_path, QUESTION, tmp_path / "corpus")
    assert any("🔋" in e["text"] or "alert" in e["text"] for e in hostile["table"]["evidence"])
    check_citations(browser, hostile)
    with pytest.raises(NoAlertPresentException):
        _ = browser.switch_to.alert.text


def check_citations(browser: Any, example: dict[str, Any]) -> None:
    """Every citation of the body opens its document's cited snippets, and each
    snippet's snapshot link highlights exactly its span; nothing is logged on the
    console meanwhile."""
    from selenium.webdriver.common.by import By

    table = example["table"]
    evidence = {e["id"]: e for e in table["evidence"]}
    sources = {s["id"]: s for s in table["sources"]}
    store = SnapshotStore.in_cache(example["folder"] / "cache")
    browser.get(example["page"].as_uri())
    console_errors(browser)  # what loading logged is checked below, with the rest
    cited = browser.find_elements(By.CSS_SELECTOR, "article.body a.cite")
    numbers = sorted({int(link.get_attribute("data-ref")) for link in cited})
    references: dict[int, list[dict[str, Any]]] = {}
    for reference in table["references"]:
        references.setdefault(reference["number"], []).append(reference)
    assert numbers and set(numbers) <= set(references)
    for number in numbers:
        for reference in references[number]:  # each span the report quotes of the document
            assert len({r["source_id"] for r in references[number]}) == 1
            link = browser.find_element(
                By.CSS_SELECTOR, f'article.body a.cite[data-ref="{number}"]'
            )
            link.click()
            assert viewer_open(browser)
            body = browser.find_element(By.ID, "viewer-body")
            shown = [
                s.get_property("textContent")
                for s in body.find_elements(By.CSS_SELECTOR, ".snippet")
            ]
            assert shown == [
                evidence[r["evidence_id"]]["text"]
                for r in sorted(references[number], key=lambda r: r["start"])
            ]
            assert reference["location"] in body.text
            span = body.find_element(
                By.CSS_SELECTOR, f'.span[data-evidence="{reference["evidence_id"]}"]'
            )
            span.find_element(By.CSS_SELECTOR, "a.snapshot-link").click()
            highlight = highlighted(browser)
            snapshot = store.get(sources[reference["source_id"]]["sha256"])
            assert highlight == snapshot[reference["start"] : reference["end"]]
            close_viewer(browser)
    assert console_errors(browser) == []


def test_the_page_is_accessible_loads_nothing_and_logs_no_error(
    browser: Any, example: dict[str, Any]
) -> None:
    from selenium.webdriver.common.by import By

    browser.get(example["page"].as_uri())
    assert axe_violations(browser) == []
    browser.save_screenshot(str(artifacts() / "report.png"))
    browser.find_element(By.CSS_SELECTOR, "article.body a.cite").click()
    assert axe_violations(browser) == []  # the citation viewer, open
    browser.save_screenshot(str(artifacts() / "citation.png"))
    browser.find_element(By.CSS_SELECTOR, "#viewer a.snapshot-link").click()
    highlighted(browser)
    assert axe_violations(browser) == []  # the snapshot view
    browser.save_screenshot(str(artifacts() / "snapshot.png"))
    close_viewer(browser)
    fetched = browser.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name)"
    )
    assert fetched == []  # nothing loaded from anywhere: no network at view time
    assert console_errors(browser) == []
    assert (artifacts() / "report.png").stat().st_size > 10_000


def test_the_sources_table_filters(browser: Any, example: dict[str, Any]) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.get(example["page"].as_uri())
    rows = browser.find_elements(By.CSS_SELECTOR, "#sources-table tbody tr")
    duplicates = [s for s in example["table"]["sources"] if s["status"] == "duplicate"]
    assert len(rows) == len(example["table"]["sources"]) and duplicates
    Select(browser.find_element(By.ID, "status-filter")).select_by_value("duplicate")
    shown = [row for row in rows if row.is_displayed()]
    assert len(shown) == len(duplicates)
    assert "reprint of" in shown[0].text
    count = browser.find_element(By.ID, "source-count").text
    assert count == f"{len(duplicates)} of {len(rows)} shown"
    assert console_errors(browser) == []


def test_serve_lists_the_run_and_shows_its_page(browser: Any, example: dict[str, Any]) -> None:
    from selenium.webdriver.common.by import By

    folder = example["folder"]
    server = subprocess.Popen(
        [
            *CLI,
            "serve",
            "--port",
            "0",
            "--data-dir",
            str(folder / "data"),
            "--cache-dir",
            str(folder / "cache"),
        ],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        lines: queue.Queue[str] = queue.Queue()
        assert server.stderr is not None
        threading.Thread(target=lambda: lines.put(server.stderr.readline()), daemon=True).start()
        line = lines.get(timeout=60)
        assert line.startswith("serving 1 run on http://127.0.0.1:"), line
        url = line.split(" on ")[1].split()[0]
        browser.get(url)
        link = browser.find_element(By.CSS_SELECTOR, "#runs a")
        assert link.text == EXAMPLE_QUESTION
        assert THREAD in browser.find_element(By.ID, "runs").text
        assert axe_violations(browser) == []
        link.click()
        assert browser.current_url == f"{url}runs/{THREAD}"
        assert browser.find_element(By.TAG_NAME, "h1").text == EXAMPLE_QUESTION
        first = browser.find_element(By.CSS_SELECTOR, "article.body a.cite")
        first.click()
        assert viewer_open(browser)
        browser.save_screenshot(str(artifacts() / "serve.png"))
        assert console_errors(browser) == []
    finally:
        server.terminate()
        server.wait(timeout=10)
