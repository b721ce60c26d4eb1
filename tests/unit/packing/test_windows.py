"""Packing in windows gives exactly the chunks of the whole layout.

``windows.build_layouts`` closes a window only where the planner never looks across: at
a boundary between top-level sections, or at a seam inside one that the planner proves
(``Planner.cut``; see the ``windows`` module). ``pack(window=1)`` closes one wherever it
may, ``window=None`` never. The two must agree on every generated document,
configuration and tokenizer, and on real documents cut into many windows.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fastrag.exceptions import ChunkingError
from fastrag.models import Document
from fastrag.normalization.formats.markdown import MarkdownNormalizer
from fastrag.normalization.model import Nodes
from fastrag.packing import PackingConfig, engine, pack
from fastrag.packing.leaves import _Builder, build_layout
from fastrag.packing.split._site import CutSite
from fastrag.packing.windows import build_layouts
from tests._paths import NODE_API_DOCS
from tests.property.test_packing_properties import STRATEGIES, configs
from tests.strategies import markdown
from tests.unit.packing._engine_support import TOKENIZER_NAMES, normalize, tokenizer_named


def _outcome(normalized: object, name: str, config: PackingConfig, window: int | None) -> object:
    try:
        return pack(normalized, tokenizer_named(name), config, window=window)  # type: ignore[arg-type]
    except ChunkingError as error:
        return ("error", str(error))


@pytest.mark.parametrize("content_format", sorted(STRATEGIES))
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_windows_change_no_chunk(content_format: str, data: st.DataObject) -> None:
    source = data.draw(STRATEGIES[content_format].documents(), label="document")
    name = data.draw(st.sampled_from(TOKENIZER_NAMES), label="tokenizer")
    config = data.draw(configs(), label="config")
    normalized = normalize(source, content_format)
    assert _outcome(normalized, name, config, 1) == _outcome(normalized, name, config, None)


def _markdown(text: str) -> object:
    return MarkdownNormalizer().normalize(Document("w", "w.md", text, {}))


def _windows(text: str, config: PackingConfig | None = None) -> list[list[str]]:
    """Each window's block kinds and first characters, for readable assertions."""
    layouts = build_layouts(_markdown(text), config or PackingConfig(), window=1)  # type: ignore[arg-type]
    return [[block.text[:3] for block in layout.blocks] for layout in layouts]


def test_a_window_closes_between_top_level_sections_with_a_body() -> None:
    text = "Intro.\n\n# A\n\nAlpha.\n\n## A1\n\nAlpha one.\n\n# B\n\nBeta.\n"
    assert _windows(text) == [["Int", "# A", "Alp", "## ", "Alp"], ["# B", "Bet"]]


def test_no_window_closes_beside_a_bare_section() -> None:
    # A heading-only section joins the chunk before or after it: its neighbours stay
    # in one window with it.
    text = "# A\n\nAlpha.\n\n# B\n\n# C\n\nGamma.\n\n# D\n\nDelta.\n"
    assert _windows(text) == [["# A", "Alp", "# B", "# C", "Gam"], ["# D", "Del"]]


EDGES = {
    "bare between": "# A\n\nAlpha.\n\n# B\n\n# C\n\nGamma.\n",
    "bare at the end": "# A\n\nAlpha.\n\n# B\n\nBeta.\n\n# C\n",
    "bare at the start": "# A\n\n# B\n\nBeta.\n\n# C\n\nGamma.\n",
    "empty heading": "# A\n\nAlpha.\n\n#\n\nBeta.\n\n# C\n\nGamma.\n",
    "preamble": "Intro:\n\n# A\n\nAlpha.\n\n# B\n\n- beta\n",
    "lead-in before a section": "# A\n\nThe following:\n\n# B\n\n```\ncode\n```\n",
    "sentences": "# A\n\nOne. Two. Three. Four. Five.\n\n# B\n\nSix. Seven. Eight. Nine.\n",
}


@pytest.mark.parametrize("name", sorted(EDGES))
@pytest.mark.parametrize("budget", [8, 24, 400])
def test_edges_of_windows_change_no_chunk(name: str, budget: int) -> None:
    normalized = _markdown(EDGES[name])
    for config in (
        PackingConfig(max_tokens=budget, target_tokens=budget, min_preferred_tokens=0),
        PackingConfig(
            max_tokens=budget,
            target_tokens=budget // 2,
            min_preferred_tokens=budget // 4,
            overlap_tokens=2,
            oversized_block_policy="preserve_and_flag",
        ),
        PackingConfig(
            max_tokens=budget,
            target_tokens=budget,
            min_preferred_tokens=0,
            preserve_heading_hierarchy=False,
        ),
    ):
        for tokenizer in ("cl100k", "non-additive"):
            assert _outcome(normalized, tokenizer, config, 1) == _outcome(
                normalized, tokenizer, config, None
            )


def test_no_window_when_top_level_sections_may_merge() -> None:
    text = "# A\n\nAlpha.\n\n# B\n\nBeta.\n"
    crossing = PackingConfig(allow_cross_top_level_merge=True)
    assert len(_windows(text, crossing)) == 1


def test_windows_number_their_blocks_from_zero_and_share_the_sections() -> None:
    text = "".join(f"# Part {n}\n\nBody {n}.\n\n## Sub {n}\n\nMore {n}.\n\n" for n in range(5))
    normalized = _markdown(text)
    layouts = list(build_layouts(normalized, PackingConfig(), window=1))  # type: ignore[arg-type]
    whole = build_layout(normalized, PackingConfig())  # type: ignore[arg-type]
    assert len(layouts) == 5
    assert [b.number for b in layouts[3].blocks] == [0, 1, 2, 3]
    assert [b for layout in layouts for b in layout.blocks] == [
        b._replace(number=n % 4) for n, b in enumerate(whole.blocks)
    ]
    assert layouts[-1].sections == whole.sections
    assert layouts[2].ranges[layouts[2].blocks[2].section] == (2, 4)


def test_a_real_manual_in_many_windows_packs_as_a_whole() -> None:
    # Node.js's API docs, one title each, in one file: a manual of several top-level
    # sections, as a book or a concatenated export is.
    paths = [NODE_API_DOCS / name for name in ("path.md", "querystring.md", "url.md")]
    if not all(path.is_file() for path in paths):
        pytest.skip("Node.js's API docs are not installed (Debian package nodejs)")
    text = "\n".join(path.read_text(encoding="utf-8") for path in paths)
    normalized = _markdown(text)
    windows = list(build_layouts(normalized, PackingConfig(), window=1))  # type: ignore[arg-type]
    assert len(windows) == 3
    assert windows[1].blocks[0].text == "# Query string"
    for config in (
        PackingConfig(max_tokens=512, target_tokens=400),
        PackingConfig(max_tokens=200, target_tokens=150, overlap_tokens=30),
        PackingConfig(max_tokens=300, target_tokens=250, preserve_heading_hierarchy=False),
    ):
        for window in (1, 4096):
            assert _outcome(normalized, "cl100k", config, window) == _outcome(
                normalized, "cl100k", config, None
            )


def test_cut_sites_read_owner_positions_from_the_window_or_the_tree() -> None:
    # A window's layout lends its cut sites the positions of the ids it met (no id
    # parsed); a site without them, or asked once its window has closed (the builder
    # then forgets them), reads the tree: the same answer either way.
    text = "# A\n\n- one\n  - two\n- three\n\n| h |\n|---|\n| c |\n\n# B\n\n- four\n- five\n"
    normalized = _markdown(text)
    index = normalized.node_index  # type: ignore[attr-defined]
    seen: list[tuple[CutSite, set[str]]] = []
    layouts = build_layouts(normalized, PackingConfig(), window=1)  # type: ignore[arg-type]
    for number, layout in enumerate(layouts):
        for block in layout.blocks:
            owners = {owner for _, _, owner in block.slots} | {block.node_id}
            if number == 0:  # met while building the window (later ones may lack some)
                assert owners <= set(layout.positions)
            site = CutSite(block, normalized, lambda _: [0], layout.positions)  # type: ignore[arg-type]
            from_tree = CutSite(block, normalized, lambda _: [0])  # type: ignore[arg-type]
            for owner in owners:
                assert site.position(owner) == from_tree.position(owner) == index[owner]
            seen.append((site, owners))
    assert len({id(site._positions) for site, _ in seen}) == 1 and len(seen) == 5
    for site, owners in seen:  # the windows have closed: their positions are forgotten
        assert all(site.position(owner) == index[owner] for owner in owners)
    with pytest.raises(KeyError):
        seen[0][0].position("w:paragraph:999")


def test_the_builder_names_nodes_as_the_tree_does() -> None:
    # The layout builder formats ``Nodes`` ids itself (compiled, not a call per node into
    # the tree): every id it makes must be the tree's own.
    text = "# A\n\n- one\n  - two\n\n| h |\n|---|\n| c |\n\n<div><p>x</p></div>\n\n# B\n\nBeta.\n"
    normalized = _markdown(text)
    lineage = normalized.lineage  # type: ignore[attr-defined]
    assert isinstance(lineage, Nodes)
    builder = _Builder(normalized)  # type: ignore[arg-type]
    assert builder._id_prefix is not None
    assert [builder.node_id(p) for p in range(len(lineage))] == [
        lineage.node_id(p) for p in range(len(lineage))
    ]


# -- seams: windows inside one top-level section ---------------------------------------

_TITLES = st.text(st.sampled_from("abcxyz 12"), min_size=1, max_size=8).map(str.strip)


@st.composite
def _one_title(draw: st.DrawFn, content_format: str) -> str:
    """A document under one title: sections two to five deep, bodies from the Markdown
    strategy's blocks (or plain paragraphs), so windows must close at seams."""
    sections = draw(st.lists(st.tuples(st.integers(2, 5), _TITLES), min_size=4, max_size=24))
    words = st.lists(st.sampled_from(["alpha", "beta", "gamma.", "delta:", "Note"]), max_size=40)
    if content_format == "markdown":
        paragraphs = words.map(lambda chosen: [" ".join(chosen)])
        lines = ["# Title", ""]
        for level, title in sections:
            lines += ["#" * level + " " + (title or "t"), ""]
            body = st.one_of(markdown.blocks(), paragraphs, paragraphs)
            for block in draw(st.lists(body, min_size=1, max_size=5)):
                lines += [*block, ""]
        return "\n".join(lines)
    bodies = [
        [" ".join(w) for w in draw(st.lists(words, min_size=1, max_size=3))]
        for _ in range(len(sections))
    ]
    if content_format == "html":
        parts = ["<html><body><h1>Title</h1>"]
        for (level, title), body in zip(sections, bodies, strict=True):
            parts.append(f"<h{level}>{title or 't'}</h{level}>")
            parts += [f"<p>{text}</p>" for text in body]
        return "".join(parts) + "</body></html>"
    marks = "=-~^\"'"
    lines = ["=====", "Title", "=====", ""]
    for (level, title), body in zip(sections, bodies, strict=True):
        title = title or "t"
        lines += [title, marks[level - 1] * max(len(title), 1), ""]
        for text in body:
            lines += [text, ""]
    return "\n".join(lines)


def _no_fallback(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """Record ``(cut, finished)`` of each window that continues: the engine must never
    find its plans crossing a cut the planner proved (it would carry all and go on)."""
    seen: list[tuple[int, int]] = []
    before = engine._before

    def checked(plans: list[object], cut: int) -> tuple[int, list[object]]:
        finished, kept = before(plans, cut)  # type: ignore[arg-type]
        assert finished == cut, f"plans cross the proved cut at block {cut}"
        seen.append((cut, finished))
        return finished, kept

    monkeypatch.setattr(engine, "_before", checked)
    return seen


@pytest.mark.parametrize("content_format", ["markdown", "html", "rst"])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_seams_change_no_chunk(content_format: str, data: st.DataObject) -> None:
    source = data.draw(_one_title(content_format), label="document")
    name = data.draw(st.sampled_from(TOKENIZER_NAMES), label="tokenizer")
    config = data.draw(configs(), label="config")
    if data.draw(st.integers(0, 3), label="seams allowed") > 0:  # else no window ends at one
        config = replace(config, preserve_heading_hierarchy=True, allow_cross_top_level_merge=False)
    normalized = normalize(source, content_format)
    with pytest.MonkeyPatch.context() as monkeypatch:
        _no_fallback(monkeypatch)
        windowed = _outcome(normalized, name, config, 1)
    assert windowed == _outcome(normalized, name, config, None)


def _seam_windows(text: str, config: PackingConfig) -> list[tuple[list[str], bool, int]]:
    """Each window the engine packs: its blocks' first characters, whether it continues,
    and how many of its blocks were finished."""
    seen: list[tuple[list[str], bool, int]] = []
    pack_window = engine._pack_window

    def spy(layout: object, *args: object) -> int:
        finished = pack_window(layout, *args)  # type: ignore[arg-type]
        blocks = [block.text[:4] for block in layout.blocks]  # type: ignore[attr-defined]
        seen.append((blocks, layout.continues, finished))  # type: ignore[attr-defined]
        return finished

    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(engine, "_pack_window", spy)
        windowed = pack(_markdown(text), tokenizer_named("cl100k"), config, window=1)  # type: ignore[arg-type]
    assert windowed == pack(_markdown(text), tokenizer_named("cl100k"), config, window=None)  # type: ignore[arg-type]
    return seen


SMALL = PackingConfig(max_tokens=12, target_tokens=10, min_preferred_tokens=0)


def test_a_window_continues_at_a_seam_and_finishes_up_to_a_proved_one() -> None:
    text = "# T\n\nIntro one two three four five six seven eight nine ten.\n\n" + "".join(
        f"## S{n}\n\nBody {n} seven eight nine ten eleven twelve.\n\n" for n in range(4)
    )
    windows = _seam_windows(text, SMALL)
    # The first window ends at the first seam, with none inside to cut at: all carried.
    assert windows[0] == (["# T", "Intr"], True, 0)
    # So the next is twice as long; its plans up to its last seam are final (S1 ends in
    # it, and S1's first chunk does not fit with S0's), the rest is carried.
    assert windows[1] == (["# T", "Intr", "## S", "Body", "## S", "Body"], True, 4)
    assert [blocks[0] for blocks, _, _ in windows[2:]] == ["## S"] * len(windows[2:])
    assert windows[-1][1] is False


def _seam_texts(text: str) -> set[str]:
    """The headings ``build_layouts`` offers as seams, every window carried whole."""
    layouts = build_layouts(_markdown(text), SMALL, window=1, seams=True)  # type: ignore[arg-type]
    found: set[str] = set()
    layout = next(layouts)
    while layout.continues:
        found |= {layout.blocks[seam].text for seam in layout.seams}
        layout = layouts.send(0)
    return found


def test_no_seam_after_a_heading_or_before_a_bare_section() -> None:
    # "## P" holds nothing, "## A" follows a heading (it would be handed on), so do "## C"
    # (bare) and "## D": none is a seam; "## B" is.
    text = "# T\n\nIntro.\n\n## P\n\n## A\n\nAlpha.\n\n## B\n\nBeta.\n\n"
    text += "## C\n\n## D\n\nDelta.\n\n" + "".join(f"## E{n}\n\nMore.\n\n" for n in range(9))
    found = _seam_texts(text)
    assert "## B" in found
    assert found.isdisjoint({"## P", "## A", "## C", "## D"})


def test_a_window_that_continues_needs_an_answer() -> None:
    text = "# T\n\nIntro.\n\n## A\n\nAlpha.\n\n## B\n\nBeta.\n"
    layouts = build_layouts(_markdown(text), SMALL, window=1, seams=True)  # type: ignore[arg-type]
    assert next(layouts).continues
    with pytest.raises(TypeError, match="send"):
        next(layouts)


def test_seams_only_where_windows_may_close_at_all() -> None:
    # No seams without preserve_heading_hierarchy (a top-level section is one run of
    # blocks) or with allow_cross_top_level_merge (the document is one window).
    text = "# T\n\nIntro.\n\n## A\n\nAlpha.\n\n## B\n\nBeta.\n\n## C\n\nGamma.\n"
    for config in (
        PackingConfig(preserve_heading_hierarchy=False),
        PackingConfig(allow_cross_top_level_merge=True),
    ):
        layouts = list(build_layouts(_markdown(text), config, window=1, seams=True))  # type: ignore[arg-type]
        assert [layout.continues for layout in layouts] == [False]


def test_a_seam_whose_section_goes_on_past_the_window_does_not_hold() -> None:
    # "## T" goes on past a window's end: its first plan in that window need not be the
    # whole document's, which here joins the plan before it. A search found this
    # document; the seam at "## T" must not be taken as a cut.
    words = [40, 6, 3, 32, 33, 57, 32]
    headings = ["# Title", "## S", "## T", "### U", "### V", "### W", "## X"]
    text = "".join(
        f"{heading}\n\n{' '.join(['word'] * count)}.\n\n"
        for heading, count in zip(headings, words, strict=True)
    )
    config = PackingConfig(max_tokens=47, target_tokens=43, min_preferred_tokens=9)
    with pytest.MonkeyPatch.context() as monkeypatch:
        _no_fallback(monkeypatch)
        _seam_windows(text, config)


def test_no_seam_holds_in_a_section_that_fits_whole() -> None:
    # With a large budget the whole title section is one chunk: every seam is crossed,
    # so nothing is finished before the end.
    text = "# T\n\nIntro.\n\n## A\n\nAlpha.\n\n## B\n\nBeta.\n\n## C\n\nGamma.\n"
    windows = _seam_windows(text, PackingConfig())
    assert any(continues for _, continues, _ in windows)
    assert all(finished == 0 for _, continues, finished in windows if continues)
    assert windows[-1][0][0] == "# T"


def test_small_sections_that_merge_keep_their_seam_closed() -> None:
    # Tiny sections merge toward the target: a seam between two of them does not hold.
    text = "# T\n\nIntro text here.\n\n" + "".join(f"## S{n}\n\nx.\n\n" for n in range(6))
    config = PackingConfig(max_tokens=200, target_tokens=150, min_preferred_tokens=0)
    windows = _seam_windows(text, config)
    assert any(continues for _, continues, _ in windows)
    assert all(finished == 0 for _, continues, finished in windows if continues)


def test_a_manual_under_one_title_packs_in_many_windows_as_a_whole() -> None:
    # Node.js's API docs, their titles demoted under one: one top-level section, as a
    # changelog or a book export is. Without seams it was one window.
    paths = [NODE_API_DOCS / name for name in ("path.md", "querystring.md", "url.md")]
    if not all(path.is_file() for path in paths):
        pytest.skip("Node.js's API docs are not installed (Debian package nodejs)")
    text = "# Manual\n\n" + "\n".join(
        "#" + path.read_text(encoding="utf-8").replace("\n#", "\n##") for path in paths
    )
    normalized = _markdown(text)
    for config in (
        PackingConfig(max_tokens=512, target_tokens=400),
        PackingConfig(max_tokens=200, target_tokens=150, overlap_tokens=30),
    ):
        with pytest.MonkeyPatch.context() as monkeypatch:
            cuts = _no_fallback(monkeypatch)
            windowed = _outcome(normalized, "cl100k", config, 4096)
        assert sum(cut > 0 for cut, _ in cuts) >= 10
        assert windowed == _outcome(normalized, "cl100k", config, None)
