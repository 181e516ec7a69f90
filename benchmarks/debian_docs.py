"""Real documentation corpora from Debian's package archive, shared by the benchmarks.

`apt-get download` + `dpkg -x` of documentation packages (no install), done once into a
data folder (default benchmarks/.data/, git-ignored). Only files with the wanted suffixes
are copied into `<data>/<name>/<package>/...`, the tree that gets indexed; the folder is
renamed into place when complete, so an interrupted fetch never leaves half a corpus.
A `keep` filter narrows the files further (for example one language of a manual that
ships several).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

HTML_SUFFIXES = (".html", ".htm")


def _run(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, text=True, capture_output=True, **kwargs)


def _download(packages: list[str], debs: Path) -> None:
    if shutil.which("apt-get") is None or shutil.which("dpkg") is None:
        sys.exit("apt-get and dpkg are needed to fetch the corpus (a Debian-like system)")
    result = _run(["apt-get", "download", *packages], cwd=debs)
    if result.returncode != 0:  # package lists missing or stale: update once, retry
        print("apt-get download failed; running apt-get update once", flush=True)
        _run(["apt-get", "update"])
        result = _run(["apt-get", "download", *packages], cwd=debs)
    if result.returncode != 0:
        sys.exit(f"apt-get download {' '.join(packages)} failed:\n{result.stderr}")


def unpack(data: Path, package: str, finish: Callable[[Path], None] | None = None) -> Path:
    """<data>/extract/<package>: the package's deb (downloaded into <data>/debs once)
    unpacked by dpkg -x, and `finish` run on the tree before it is renamed into place;
    done once."""
    extracted = data / "extract" / package
    if extracted.exists():
        return extracted
    debs = data / "debs"
    debs.mkdir(parents=True, exist_ok=True)
    if not list(debs.glob(f"{package}_*.deb")):
        print(f"downloading {package} into {debs}", flush=True)
        _download([package], debs)
    deb = sorted(debs.glob(f"{package}_*.deb"))[-1]
    partial = extracted.with_name(package + ".part")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    result = _run(["dpkg", "-x", str(deb), str(partial)])
    if result.returncode != 0:
        sys.exit(f"dpkg -x {deb} failed:\n{result.stderr}")
    if finish is not None:
        finish(partial)
    partial.rename(extracted)
    return extracted


def ensure_corpus(
    data: Path,
    packages: tuple[str, ...],
    name: str = "corpus",
    suffixes: tuple[str, ...] = HTML_SUFFIXES,
    keep: Callable[[str, str], bool] | None = None,
) -> tuple[Path, dict[str, Any]]:
    """<data>/<name> with the files of `packages` ending in `suffixes` (and, given `keep`,
    for which keep(package, path inside the package) is true, the path in POSIX form:
    `usr/share/doc/...`); downloaded and extracted only once."""
    corpus = data / name
    info_path = corpus / ".corpus.json"  # hidden: the indexer skips dot files
    if info_path.exists():
        return corpus, json.loads(info_path.read_text())
    debs = data / "debs"
    debs.mkdir(parents=True, exist_ok=True)
    missing = [p for p in packages if not list(debs.glob(f"{p}_*.deb"))]
    if missing:
        print(f"downloading {', '.join(missing)} into {debs}", flush=True)
        _download(missing, debs)
    staging = data / f"{name}.part"
    shutil.rmtree(staging, ignore_errors=True)
    listed: list[dict[str, Any]] = []
    for package in packages:
        deb = sorted(debs.glob(f"{package}_*.deb"))[-1]
        version = _run(["dpkg-deb", "-f", str(deb), "Version"]).stdout.strip()
        extracted = unpack(data, package)
        files = size = 0
        for folder, _, names in os.walk(extracted):
            for file_name in names:
                source = Path(folder) / file_name
                if not file_name.lower().endswith(suffixes) or source.is_symlink():
                    continue
                inside = source.relative_to(extracted)
                if keep is not None and not keep(package, inside.as_posix()):
                    continue
                target = staging / package / inside
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target)
                files += 1
                size += source.stat().st_size
        listed.append(
            {"package": package, "version": version, "deb": deb.name, "files": files, "bytes": size}
        )
    info = {
        "packages": listed,
        "files": sum(p["files"] for p in listed),
        "bytes": sum(p["bytes"] for p in listed),
    }
    (staging / ".corpus.json").write_text(json.dumps(info, indent=2))
    shutil.rmtree(corpus, ignore_errors=True)
    staging.rename(corpus)
    return corpus, info
