"""The documentation site builds in strict mode (a broken link, anchor, page or generated part fails it), and the
README, its front door, links only to pages and headings that exist."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_the_site_builds_in_strict_mode(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=REPO, env=dict(os.environ, NO_MKDOCS_2_WARNING="1"), capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    site = tmp_path / "site"
    # the generated parts are there: every params.yaml key, every command's help, the API from its docstrings
    configuration = (site / "configuration.html").read_text()  # page.html: the site browses from disk
    assert "supervised.train.lambda_w" in configuration and "gates.stanza.tagger_steps" in configuration
    api = (site / "api.html").read_text()
    assert 'href="configuration.html' in (site / "index.html").read_text()
    assert "stylesheets/extra.css" in (site / "index.html").read_text() and (site / "stylesheets/extra.css").exists()
    # the stage graph: an image drawn from Snakemake's rule graph and the edges as text, with no script from a CDN:
    # the site reads off-line, and every page's generated part is in the committed markdown the forge shows too
    pipeline = (site / "pipeline.html").read_text()
    assert 'src="stage_graph.svg"' in pipeline and (site / "stage_graph.svg").is_file()
    assert "fetch --&gt; prepare_eval" in pipeline and "[all]" not in pipeline and "mermaid" not in pipeline
    assert not re.findall(r'<script[^>]+src="https?://', "".join(p.read_text() for p in site.glob("*.html")))
    assert "paraphrastic embed --help" in api and "load_sentence_transformer" in api


def slug(title: str) -> str:
    """The anchor GitHub and MkDocs give a heading."""
    title = re.sub(r"[`*]", "", title).encode("ascii", "ignore").decode()
    return re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", title).strip().lower())


def test_the_readme_is_a_front_door_whose_links_resolve():
    text = (REPO / "README.md").read_text()
    assert len(text.splitlines()) <= 250
    for target, anchor in re.findall(r"\]\((docs/[\w-]+\.md)(?:#([\w-]+))?\)", text):
        page = REPO / target
        assert page.is_file(), target
        if anchor:
            headings = {slug(h) for h in re.findall(r"^#+ (.+)$", page.read_text(), re.M)}
            assert anchor in headings, f"{target}#{anchor}"
    for name in ("CITATION.cff", "LICENSE", "CHANGELOG.md"):
        assert f"]({name})" in text and (REPO / name).is_file()


def test_no_page_comment_or_docstring_cites_an_issue_number_a_reader_cannot_open():
    """What was decided and why is said where it applies; "issue <number>" names a tracker a reader of the repository
    does not have (an upstream project's issue, by its address, is fine)."""
    tracked = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout.split()
    cited = re.compile(r"(?<!/)\b[Ii]ssues? #?\d+")
    found = [f"{name}:{n}" for name in tracked if name.endswith((".py", ".md", ".yaml", ".smk", ".sh", ".toml"))
             or name in ("Snakefile",) for n, line in enumerate((REPO / name).read_text().splitlines(), 1)
             if cited.search(line)]
    assert not found, found
