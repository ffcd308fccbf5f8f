"""The pages' reference parts, written into them by pages/readme.py (committed, so they read on the forge and
off-line as in the built site) from their sources:

- ``params reference`` (docs/configuration.md): every key of params.yaml, with what its schema
  (workflow/schemas/params.schema.yaml) allows, its value in params.yaml and the comment written beside it there;
- ``cli reference`` (docs/api.md): ``paraphrastic --help`` and each command's ``--help``;
- ``stage graph`` (docs/pipeline.md): the stages and what each reads from which, one node a stage, from Snakemake's
  rule graph of params.yaml (``snakemake --rulegraph mermaid-js``), with the edges another path already implies left
  out: as an image, docs/stage_graph.svg, which Graphviz's ``dot`` draws from the edges (no script, so the page
  reads off-line), and as the list of edges the image was drawn from, whose sha256 the image holds.

Nothing here is typed twice: a key, a constraint or an option changes in its one place and the page follows.
"""

from __future__ import annotations

import functools
import os
import re
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
KEY = re.compile(r"^(?P<indent> *)(?P<key>[A-Za-z_][\w-]*):(?P<rest>.*)$")


def _comment(rest: str) -> str:
    """The comment of a YAML line's remainder (a ``#`` after whitespace, outside quotes)."""
    quote = None
    for i, char in enumerate(rest):
        if char in "'\"" and quote in (None, char):
            quote = None if quote else char
        elif char == "#" and quote is None and (i == 0 or rest[i - 1].isspace()):
            return rest[i + 1:].strip()
    return ""


def params_comments(text: str) -> dict[str, str]:
    """Each key path of a YAML file (``a.b.c``) and the comment written on its line and the comment lines that
    continue it (indented deeper than the key)."""
    comments: dict[str, str] = {}
    stack: list[tuple[int, str]] = []
    last, last_indent = None, 0
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            if last is not None and len(line) - len(line.lstrip()) > last_indent and comments.get(last):
                comments[last] += " " + stripped.lstrip("#").strip()
            continue
        match = KEY.match(line)
        if not match:
            last = None
            continue
        indent = len(match["indent"])
        while stack and stack[-1][0] >= indent:
            stack.pop()
        stack.append((indent, match["key"]))
        last, last_indent = ".".join(k for _, k in stack), indent
        comments[last] = _comment(match["rest"])
    return comments


def _resolve(schema: dict, node: dict) -> dict:
    while "$ref" in node:
        node = schema["$defs"][node["$ref"].split("/")[-1]] | {k: v for k, v in node.items() if k != "$ref"}
    for part in node.get("allOf", []):  # a node made of parts: their properties together
        part = _resolve(schema, part)
        node = part | node | {"properties": part.get("properties", {}) | node.get("properties", {})}
    return node


def allowed(schema: dict, node: dict) -> str:
    """A short account of what a schema node accepts."""
    node = _resolve(schema, node)
    if "enum" in node:
        return "one of " + ", ".join(f"`{v}`" for v in node["enum"])
    if "const" in node:
        return f"`{node['const']}`"
    for combinator in ("oneOf", "anyOf"):
        if combinator in node:
            return " or ".join(allowed(schema, option) for option in node[combinator])
    kind = node.get("type", "object" if "properties" in node else "any")
    text = " or ".join(kind) if isinstance(kind, list) else kind
    bounds = [f"≥ {node['minimum']}" if "minimum" in node else "", f"> {node['exclusiveMinimum']}"
              if "exclusiveMinimum" in node else "", f"≤ {node['maximum']}" if "maximum" in node else ""]
    return " ".join([text, *filter(None, bounds)])


def _child(schema: dict, node: dict | None, key: str) -> dict | None:
    if node is None:
        return None
    node = _resolve(schema, node)
    properties = node.get("properties", {})
    if key in properties:
        return properties[key]
    extra = node.get("additionalProperties")
    return extra if isinstance(extra, dict) else None


class _NoAliases(yaml.SafeDumper):
    def ignore_aliases(self, data) -> bool:
        return True


def _value(value) -> str:
    text = yaml.dump(value, Dumper=_NoAliases, default_flow_style=True, width=10_000).strip()
    text = text.removesuffix("...").strip()
    return "`" + (text if len(text) <= 60 else text[:57] + "...") + "`"


def params_reference() -> str:
    schema = yaml.safe_load((REPO / "workflow/schemas/params.schema.yaml").read_text())
    text = (REPO / "params.yaml").read_text()
    params, comments = yaml.safe_load(text), params_comments(text)
    rows = []

    def walk(prefix: str, value, node) -> None:
        described = node is not None
        rows.append([f"`{prefix}`", allowed(schema, node) if described else "(free-form)",
                     "" if isinstance(value, dict) and value else _value(value), comments.get(prefix, "")])
        if isinstance(value, dict) and prefix.count(".") < 2:
            for key, inner in value.items():
                walk(f"{prefix}.{key}", inner, _child(schema, node, key))

    for key, value in params.items():
        walk(key, value, schema["properties"].get(key))
    escape = str.maketrans({"|": "\\|"})
    lines = ["| key | allowed (schema) | params.yaml | comment in params.yaml |", "|---|---|---|---|"]
    lines += ["| " + " | ".join(cell.translate(escape) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def cli_reference() -> str:
    sys.path.insert(0, str(REPO / "src"))
    from paraphrastic.cli.main import build_parser

    def relative_defaults(parser) -> None:
        # a default that is a file of this checkout (the schema, the sources manifest) is shown relative to it, so the
        # page holds no path of the machine it was written on, and wraps alike everywhere
        for action in parser._actions:
            if isinstance(action.default, str) and action.default.startswith(str(REPO) + os.sep):
                action.default = os.path.relpath(action.default, REPO)

    parser = build_parser()
    relative_defaults(parser)
    sections = [("paraphrastic --help", parser.format_help())]
    for action in parser._subparsers._group_actions:  # argparse keeps its subcommands here
        for name, sub in action.choices.items():
            relative_defaults(sub)
            sections.append((f"paraphrastic {name} --help", sub.format_help()))
    return "".join(f"### `{title}`\n\n```text\n{help_text.rstrip()}\n```\n\n" for title, help_text in sections)


@functools.cache
def stage_edges() -> list[tuple[str, str]]:
    """The stage graph's edges (reader after what it reads), one node a stage, less those another path implies."""
    import subprocess

    text = subprocess.run([sys.executable, "-m", "snakemake", "--rulegraph", "mermaid-js", "--quiet", "all"],
                          cwd=REPO, capture_output=True, text=True, check=True).stdout
    names = dict(re.findall(r"^\s*(id\d+)\[(\w+)\]", text, re.MULTILINE))
    edges = {(names[a], names[b]) for a, b in re.findall(r"^\s*(id\d+) --> (id\d+)", text, re.MULTILINE)
             if "all" not in (names[a], names[b])}
    after: dict[str, set[str]] = {}
    for a, b in edges:
        after.setdefault(a, set()).add(b)

    def reached(start: str, without: tuple[str, str]) -> set[str]:
        seen, todo = set(), [n for n in after.get(start, ()) if (start, n) != without]
        while todo:
            node = todo.pop()
            if node not in seen:
                seen.add(node)
                todo += after.get(node, ())
        return seen

    return sorted((a, b) for a, b in edges if b not in reached(a, (a, b)))  # a path through other stages: implied


STAGE_GRAPH_SVG = REPO / "docs" / "stage_graph.svg"
SOURCE_MARK = "<!-- drawn from the edge list whose sha256 is "


def edge_list(edges: list[tuple[str, str]]) -> str:
    return "".join(f"{a} --> {b}\n" for a, b in edges)


def stage_graph() -> str:
    """The block: the image and the edges it was drawn from (the image is written by :func:`draw_stage_graph`)."""
    edges = edge_list(stage_edges())
    return (f"![The stage graph: each stage after the stages whose outputs it reads]({STAGE_GRAPH_SVG.name})\n\n"
            "<details><summary>The same graph as text</summary>\n\n```text\n" + edges + "```\n\n</details>\n")


def digest_of_edges() -> str:
    import hashlib

    return hashlib.sha256(edge_list(stage_edges()).encode()).hexdigest()


def drawn_from(svg: Path = STAGE_GRAPH_SVG) -> str | None:
    """The sha256 of the edge list ``svg`` was drawn from (None: no such image, or not one this module drew)."""
    try:
        text = svg.read_text(encoding="utf-8")
    except OSError:
        return None
    return text.split(SOURCE_MARK, 1)[1].split(" ", 1)[0] if SOURCE_MARK in text else None


def draw_stage_graph(svg: Path = STAGE_GRAPH_SVG) -> bool:
    """docs/stage_graph.svg drawn by Graphviz's ``dot`` from the current edges, when the one there was drawn from
    others; True when it was (re)drawn."""
    import shutil
    import subprocess

    from paraphrastic.atomic import write_text

    edges, digest = stage_edges(), digest_of_edges()
    if drawn_from(svg) == digest:
        return False
    dot = shutil.which("dot")
    if dot is None:
        raise SystemExit("the stage graph changed and Graphviz's `dot` draws its image: apt-get install graphviz "
                         "(or brew install graphviz), then run pages/readme.py again")
    source = ("digraph stages {\n  rankdir=LR; node [shape=box, style=rounded, fontname=Helvetica, fontsize=11];\n"
              + "".join(f'  "{a}" -> "{b}";\n' for a, b in edges) + "}\n")
    drawn = subprocess.run([dot, "-Tsvg"], input=source, capture_output=True, text=True, check=True).stdout
    head, tail = drawn.split("<svg", 1)
    write_text(svg, f"{head}{SOURCE_MARK}{digest} (pages/reference_pages.py) -->\n<svg{tail}")
    return True
