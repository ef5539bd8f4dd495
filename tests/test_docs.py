"""The README and the pages under docs/: a short README for players, every link inside the
repository and resolving, the screenshot committed and shown, and the LICENSE."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

README_LINES_UNDER = 150
"""The README is a player's first screen and a map of docs/, not the whole manual."""
SCREENSHOT = "docs/screenshot.png"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
DOCS_PAGES = ("controls", "multiplayer", "modding", "telemetry", "benchmarks",
              "soak-and-replays", "architecture", "command-line", "building", "playing")
"""The pages the README links to (docs/NAME.md)."""

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
INLINE_CODE = re.compile(r"`[^`\n]*`")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)


def _documents(root: Path) -> list[Path]:
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


def _prose(text: str) -> str:
    """The text with code blocks and inline code taken out: links live in the prose."""
    return INLINE_CODE.sub("", FENCE.sub("", text))


def _links(path: Path) -> list[str]:
    return LINK.findall(_prose(path.read_text(encoding="utf-8")))


def _anchor(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces
    as hyphens."""
    words = re.sub(r"[^\w\- ]", "", INLINE_CODE.sub(lambda m: m.group(0)[1:-1], heading))
    return words.strip().lower().replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    return {_anchor(title) for title in HEADING.findall(FENCE.sub("", path.read_text(
        encoding="utf-8")))}


def test_the_readme_is_short(repo_root):
    lines = (repo_root / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) < README_LINES_UNDER, f"README.md has {len(lines)} lines"


@pytest.mark.parametrize("page", DOCS_PAGES)
def test_the_readme_links_every_docs_page(repo_root, page):
    assert f"docs/{page}.md" in _links(repo_root / "README.md")
    assert (repo_root / "docs" / f"{page}.md").is_file()


def test_every_relative_link_resolves(repo_root):
    broken = []
    for document in _documents(repo_root):
        for link in _links(document):
            target, _, anchor = link.partition("#")
            path = (document.parent / target).resolve() if target else document
            if not path.exists():
                broken.append(f"{document.name}: {link} (no such file)")
            elif anchor and path.suffix == ".md" and anchor not in _anchors(path):
                broken.append(f"{document.name}: {link} (no such heading)")
    assert broken == []


def test_no_link_points_outside_the_repository(repo_root):
    outside = []
    for document in _documents(repo_root):
        text = document.read_text(encoding="utf-8")
        outside += [f"{document.name}: {url}" for url in re.findall(r"\w+://\S+", text)]
        for link in _links(document):
            target = link.partition("#")[0]
            if target and repo_root.resolve() not in (document.parent / target).resolve().parents:
                outside.append(f"{document.name}: {link}")
    assert outside == []


def test_the_screenshot_is_committed_and_shown(repo_root):
    data = (repo_root / SCREENSHOT).read_bytes()
    assert data.startswith(PNG_SIGNATURE)
    assert SCREENSHOT in _links(repo_root / "README.md")


def test_git_keeps_the_screenshot(repo_root):
    if shutil.which("git") is None or not (repo_root / ".git").exists():
        pytest.skip("not a git checkout")
    ignored = subprocess.run(["git", "check-ignore", "--quiet", SCREENSHOT], cwd=repo_root)
    assert ignored.returncode == 1, f"{SCREENSHOT} is ignored by .gitignore"


def test_the_licence_is_mit(repo_root):
    text = (repo_root / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License")
    assert "Copyright (c) 2026 The Tank Battle developers" in text
    assert "[LICENSE](LICENSE)" in (repo_root / "README.md").read_text(encoding="utf-8")


def test_the_anchor_of_a_heading():
    assert _anchor("Without make, and on Windows") == "without-make-and-on-windows"
    assert _anchor("On screen: HUD, effects, debug overlay") == (
        "on-screen-hud-effects-debug-overlay")
    assert _anchor("Telemetry (JSON Lines, one line per fixed 1/60 s step)") == (
        "telemetry-json-lines-one-line-per-fixed-160-s-step")
