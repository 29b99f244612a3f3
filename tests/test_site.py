"""The documentation site builds from docs/ with `mkdocs build --strict` (mkdocs.yml at the root,
the Material theme): a broken link or anchor between pages, a page missing from the nav, or a nav
entry without its page fails the test. It builds into a temporary directory and leaves build/site
alone."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MKDOCS = Path(sys.executable).parent / "mkdocs"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    if not MKDOCS.is_file():
        pytest.skip(f"{MKDOCS} is missing: pip install -e '.[dev]' installs mkdocs-material")
    out = tmp_path_factory.mktemp("site")
    result = subprocess.run([str(MKDOCS), "build", "--strict", "--site-dir", str(out)], cwd=ROOT,
                            capture_output=True, text=True, timeout=300, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert result.returncode == 0, f"mkdocs build --strict exited {result.returncode}:\n{result.stdout}{result.stderr}"
    return out


def test_the_site_builds_strictly_with_every_page(site):
    nav = re.findall(r":\s*([\w-]+\.md)\s*$", (ROOT / "mkdocs.yml").read_text(), flags=re.MULTILINE)
    pages = sorted(p.name for p in (ROOT / "docs").glob("*.md"))
    assert sorted(set(nav)) == pages, "every page of docs/ is in mkdocs.yml's nav, and only those"
    for page in pages:
        built = site / ("index.html" if page == "index.md" else f"{page[:-3]}/index.html")
        assert built.is_file(), f"{page} was not built"


def test_the_readme_links_only_to_pages_that_exist():
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", (ROOT / "README.md").read_text())
    local = [link for link in links if not re.match(r"[a-z]+://", link)]
    assert local
    missing = [link for link in local if not (ROOT / link).exists()]
    assert not missing, f"README.md links to files that do not exist: {missing}"
