"""RstNormalizer under hostile input: limits, isolation, no file or network access."""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from fastrag.exceptions import NormalizationError
from fastrag.models import Document
from fastrag.normalization import NormalizedDocument
from fastrag.normalization.dump import dump_tree
from fastrag.normalization.formats.rst import RstNormalizer

NORMALIZER = RstNormalizer()

# The audit runs in a child process: an audit hook cannot be removed, and a Python hook
# runs inside CPython 3.11's guard against concurrent sys.settrace calls, so under coverage
# a thread started anywhere later in the session could die installing its trace function
# ("Cannot install a trace function while another ...", python/cpython#98257).
_AUDITED_RUN = """
import json, sys
from fastrag.models import Document
from fastrag.normalization.dump import dump_tree
from fastrag.normalization.formats.rst import RstNormalizer

WATCHED = {
    "open", "urllib.Request", "socket.connect", "socket.getaddrinfo",
    "subprocess.Popen", "os.system", "os.listdir", "os.scandir",
}
events, armed = [], [False]


def audit(event, args):
    if armed[0] and event in WATCHED:
        events.append(event)


sys.addaudithook(audit)
secret, source = sys.argv[1], sys.stdin.read()
normalizer = RstNormalizer()
document = Document("doc", "test", source, {"content_format": "rst"})
normalizer.normalize(document)  # warm up: lazy imports open files, not the document's doing
armed[0] = True
open(secret, encoding="utf-8").read()  # the hook does see file access
probe = list(events)
events.clear()
tree = normalizer.normalize(document)
armed[0] = False
print(json.dumps({
    "probe": probe,
    "events": events,
    "leaked": "SENTINEL-CONTENT" in dump_tree(tree),
    "directives": [e.reason for e in tree.exclusions].count("directive"),
}))
"""


def normalize(source: str, normalizer: RstNormalizer = NORMALIZER) -> NormalizedDocument:
    return normalizer.normalize(Document("doc", "test", source, {"content_format": "rst"}))


def assert_exact(tree: NormalizedDocument) -> None:
    """Leaves are their source slice; every exclusion is what it says."""
    for unit in tree.units:
        node = tree.node(unit.node_id)
        if not node.children and node.kind != "heading":
            assert node.text == unit.span.slice(tree.content)
    for exclusion in tree.exclusions:
        if exclusion.reason == "whitespace":
            assert exclusion.span.slice(tree.content).isspace()


@pytest.mark.parametrize("marker", ["- ", "1. ", "* ", ":a: ", ".. note:: ", ".. [1] "])
def test_hundred_thousand_nested_levels_on_one_line_are_flattened(marker: str) -> None:
    source = marker * 100_000 + "x\n"
    tree = normalize(source)
    assert any("max_depth=32" in d for d in tree.diagnostics)
    (flat,) = [n for n in tree.nodes if n.attributes.get("flattened")]
    assert flat.text.endswith("x") and flat.text.startswith(marker.strip())
    assert_exact(tree)


def test_deeply_indented_block_quotes_and_definitions_are_flattened() -> None:
    quotes = "\n\n".join(" " * depth + f"q{depth}" for depth in range(1_500)) + "\n"
    definitions = "\n".join(" " * depth + f"t{depth}" for depth in range(1_500)) + "\n"
    for source, last in ((quotes, "q1499"), (definitions, "t1499")):
        tree = normalize(source)
        assert any("max_depth" in d for d in tree.diagnostics)
        (flat,) = [n for n in tree.nodes if n.attributes.get("flattened")]
        assert flat.text.endswith(last)
        assert_exact(tree)


def test_max_depth_is_an_option() -> None:
    source = "- a\n\n  - b\n\n    - c\n"
    shallow = normalize(source, RstNormalizer(max_depth=1))
    assert [n.text for n in shallow.nodes if n.attributes.get("flattened")] == ["b\n\n    - c"]
    assert not [n for n in normalize(source).nodes if n.attributes.get("flattened")]


def test_too_deep_for_the_callers_stack_is_a_normalization_error() -> None:
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(150)
    try:
        with pytest.raises(NormalizationError, match="max_depth=32"):
            normalize("- " * 40 + "x\n")
    finally:
        sys.setrecursionlimit(limit)


def test_long_single_line_is_one_paragraph() -> None:
    line = ("word *em* ``lit`` `ref`_ :func:`x` " * 60_000)[:2_000_000]
    for source in (line, line + "\n"):
        tree = normalize(source)
        (paragraph,) = tree.nodes[1:]
        assert paragraph.kind == "paragraph" and paragraph.text == line.rstrip()


def test_million_cell_table_is_kept_as_one_flattened_leaf() -> None:
    border = "  ".join(["==="] * 1_000)
    row = "  ".join(["abc"] * 1_000)
    source = "\n".join([border, row, border, *([row] * 999), border]) + "\n"
    tree = normalize(source)
    (table,) = tree.nodes[1:]
    assert (table.kind, dict(table.attributes)) == ("table", {"flattened": True})
    assert table.text == source.rstrip("\n")
    assert any("max_table_cells=100000" in d for d in tree.diagnostics)


def test_table_cell_budget_is_per_document() -> None:
    small = "+---+---+\n| a | b |\n+---+---+\n| c | d |\n+---+---+\n"
    tree = normalize(small + "\n" + small, RstNormalizer(max_table_cells=6))
    first, second = [n for n in tree.nodes if n.kind == "table"]
    assert len(first.children) == 2 and first.attributes == {"columns": 2}
    assert second.attributes == {"flattened": True} and not second.children


@pytest.mark.parametrize(
    "source",
    [
        "",
        " \n\t\n\x0c\n",
        "\ud800 lone \udfff surrogates\n\nTitle\n=====\n",
        "NUL\x00byte\x00\n\n- item\x00\n",
        "Title\r\n=====\r\rpara one\rcontinued\n\r\n- a\r- b\n",
        "form\x0cfeed\x0bvt\x85nel\u2028ls\u2029ps\x1cfs\n\nend",
        "\t\tTab\tindented\n\n\tquote\n",
    ],
)
def test_odd_characters_and_line_ends_give_exact_valid_trees(source: str) -> None:
    tree = normalize(source)
    assert_exact(tree)
    assert sum(len(u.span) for u in tree.units) + sum(len(e.span) for e in tree.exclusions) == len(
        source
    )


def test_mixed_line_ends_are_docutils_lines() -> None:
    tree = normalize("Title\r\n=====\r\rpara one\rcontinued\n\r\n- a\r- b\n")
    assert [(n.kind, n.text) for n in tree.nodes[1:]] == [
        ("section", "Title"),
        ("heading", "Title"),
        ("paragraph", "para one\rcontinued"),
        ("list", ""),
        ("list_item", ""),
        ("paragraph", "a"),
        ("list_item", ""),
        ("paragraph", "b"),
    ]


def test_nothing_reads_files_or_fetches_urls(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("SENTINEL-CONTENT\n", encoding="utf-8")
    url = "http://127.0.0.1:9/sentinel"
    source = (
        f".. include:: {secret}\n\n.. include:: {secret}\n   :literal:\n\n"
        f".. raw:: html\n   :file: {secret}\n\n.. raw:: html\n   :url: {url}\n\n"
        f".. csv-table::\n   :file: {secret}\n\n.. csv-table::\n   :url: {url}\n\n"
        f".. image:: {secret}\n   :scale: 50\n\n.. figure:: {secret}\n   :figwidth: image\n\n"
        f".. literalinclude:: {secret}\n\n.. role:: raw-html(raw)\n   :format: html\n\n"
        ":raw-html:`<script>SENTINEL</script>` text.\n"
    )
    child = subprocess.run(
        [sys.executable, "-c", _AUDITED_RUN, str(secret)],
        input=source,
        capture_output=True,
        text=True,
        check=True,
    )
    seen = json.loads(child.stdout)
    assert seen["probe"] == ["open"]
    assert seen["events"] == []
    assert seen["leaked"] is False
    assert seen["directives"] == 7


def test_docutils_global_registries_are_untouched() -> None:
    from docutils.parsers.rst import directives, roles

    def someone_elses_default_role(*args: object) -> tuple[list[object], list[object]]:
        return [], []

    roles._roles[""] = someone_elses_default_role  # e.g. set by Sphinx in this process
    try:
        before_roles, before_directives = dict(roles._roles), dict(directives._directives)
        source = ".. role:: custom\n\n.. default-role:: math\n\n:custom:`x` and `y`.\n"
        normalize(source)
        assert dict(roles._roles) == before_roles
        assert dict(directives._directives) == before_directives
    finally:
        roles._roles.pop("", None)


def test_directives_registered_globally_by_others_do_not_change_the_tree() -> None:
    from docutils.parsers.rst import Directive, directives

    class Exploding(Directive):  # type: ignore[misc]
        has_content = True

        def run(self) -> list[Any]:
            raise AssertionError("a globally registered directive was run")

    source = ".. function:: f(x)\n\n   Body.\n\n.. note:: n\n"
    expected = dump_tree(normalize(source))
    saved = dict(directives._directives)
    directives.register_directive("function", Exploding)
    directives.register_directive("note", Exploding)
    try:
        assert dump_tree(normalize(source)) == expected
    finally:
        directives._directives.clear()
        directives._directives.update(saved)


def test_nothing_is_printed(capfd: pytest.CaptureFixture[str]) -> None:
    normalize("Bad\n===\n\nX\n~~~\n\nY\n^\n\n.. image::\n\n:unknown:`x` `broken\n\n+--+\n| |\n")
    assert capfd.readouterr() == ("", "")


def test_threads_share_nothing() -> None:
    sources = [
        f"Title {n}\n========\n\n- a {n}\n\n  .. note:: {n}\n\n.. function:: f{n}()\n\n   Body.\n"
        for n in range(8)
    ]
    expected = [dump_tree(normalize(source)) for source in sources]
    with ThreadPoolExecutor(max_workers=4) as pool:
        for _ in range(5):
            assert list(pool.map(lambda s: dump_tree(normalize(s)), sources)) == expected


def test_importing_the_adapter_does_not_import_docutils() -> None:
    code = (
        "import sys\nfrom fastrag.normalization.formats.rst import RstNormalizer\n"
        "assert RstNormalizer.identity.startswith('rst:docutils-')\n"
        "assert 'docutils' not in sys.modules, 'docutils imported eagerly'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
