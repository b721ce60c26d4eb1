"""``render_html``: one self-contained page showing where a document's chunks fall.

The page is safe to open whatever the document holds:

- every document-derived string (text, section paths, the file name, chunk text) goes
  through ``_esc`` — ``html.escape(..., quote=True)`` — whether it lands in a text node
  or an attribute; numbers are formatted from ints, never copied;
- there is no script at all: hover details are ``title`` attributes and click details
  are ``:target`` cards (each text run links to its chunk's card, each card back to its
  boundary marker), so nothing a document holds can become code;
- a Content-Security-Policy meta tag forbids every fetch (``default-src 'none'``) and
  allows only the page's own inline styles; the histogram is inline SVG, the fonts are the
  system's, so the page works offline and cannot call home.

The output is a pure function of the inspection (no dates, no absolute paths), so the
same file and configuration give the same bytes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any, Final

from fastrag.inspection._segments import Segment, chunk_spans, segments
from fastrag.inspection._svg import histogram_svg
from fastrag.inspection.load import Inspection
from fastrag.inspection.summary import InspectionSummary, summarize, token_counts

__all__ = ["CONTENT_SECURITY_POLICY", "PALETTE_SIZE", "render_html"]

CONTENT_SECURITY_POLICY: Final = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; base-uri 'none'; "
    "form-action 'none'"
)
PALETTE_SIZE: Final = 6
"""Chunk colours cycle through this many classes (``c0`` …), so neighbours always differ."""

_STYLE: Final = """
:root{font-family:system-ui,sans-serif;color:#111;background:#f6f6f4}
body{margin:0;padding:12px 16px}
h1{font-size:18px;margin:0 0 8px}h1 .name{font-family:ui-monospace,monospace}
.overview{display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start;margin-bottom:10px}
table.summary{border-collapse:collapse;font-size:13px;background:#fff}
table.summary th,table.summary td{border:1px solid #ccc;padding:2px 8px;text-align:left}
table.summary th{background:#eee;font-weight:600}
figure{margin:0;background:#fff;border:1px solid #ccc;padding:4px}
figure text{font:11px system-ui,sans-serif;fill:#333}
.legend{font-size:12px;margin:4px 0 0}.legend span{padding:0 4px;margin-right:6px}
.panes{display:grid;grid-template-columns:minmax(0,1fr) 400px;gap:12px}
.document,.chunks{max-height:94vh;overflow:auto;background:#fff;border:1px solid #ccc}
.text{white-space:pre-wrap;overflow-wrap:anywhere;font:13px/1.55 ui-monospace,monospace;
padding:10px;margin:0}
.c0{--c:#ffe08a}.c1{--c:#a8d8ff}.c2{--c:#bfeebf}.c3{--c:#ffc4d6}.c4{--c:#dcc8ff}
.c5{--c:#ffcf9e}
a.s{background:var(--c);color:inherit;text-decoration:none}
a.s:hover{outline:2px solid #222}
.ov,a.s.ov{background-image:repeating-linear-gradient(135deg,transparent 0 4px,
rgba(0,0,0,.25) 4px 6px);text-decoration:underline dashed #000}
.gap{background:color-mix(in srgb,var(--c) 28%,#fff);color:#666}
.out{color:#9a9a9a}
a.mark{display:inline-block;width:0;height:1.2em;border-left:2px solid #222;
vertical-align:text-bottom;text-decoration:none;position:relative}
a.mark::before{content:attr(data-n);position:absolute;left:0;top:-0.9em;white-space:nowrap;
font:bold 9px system-ui,sans-serif;background:#222;color:#fff;padding:0 2px;
border-radius:2px}
ol.cards{list-style:none;margin:0;padding:6px}
.card{border:1px solid #ddd;border-left:8px solid var(--c);margin:0 0 6px;padding:4px 8px;
font-size:12px;scroll-margin-top:6px}
.card:target{outline:3px solid #222;background:#fffbe6}
.card h2{font-size:13px;margin:0 0 2px}.card h2 a{color:#06c}
.card dl{display:grid;grid-template-columns:max-content 1fr;gap:0 8px;margin:0}
.card dt{color:#555}.card dd{margin:0;overflow-wrap:anywhere}
.flag{background:#c0392b;color:#fff;border-radius:3px;padding:0 4px;margin-right:4px}
.card pre{white-space:pre-wrap;overflow-wrap:anywhere;max-height:240px;overflow:auto;
background:#f8f8f8;margin:4px 0 0;padding:4px}
.empty{padding:10px;font-style:italic}
"""


def _esc(value: object) -> str:
    """Escape ``value`` for any HTML context we use (text and double-quoted attributes).

    A carriage return becomes a character reference too: the HTML parser turns a literal
    CR (or CRLF) into LF, so the DOM's text would otherwise differ from the document's.
    """
    return escape(str(value), quote=True).replace("\r", "&#13;")


def _number(value: object) -> str:
    """An int as digits; anything else as ``-`` (never copied into the page)."""
    return str(value) if type(value) is int else "-"


def _metadata(record: Mapping[str, Any]) -> Mapping[str, Any]:
    metadata = record.get("metadata")
    return metadata if isinstance(metadata, Mapping) else {}


def _flags(record: Mapping[str, Any]) -> tuple[str, ...]:
    metadata = _metadata(record)
    return tuple(name for name in ("overflow", "atomic_structure_loss") if metadata.get(name))


def _page_text(record: Mapping[str, Any]) -> str:
    page = _number(record.get("page"))
    pages = _metadata(record).get("page_range")
    if isinstance(pages, list | tuple) and len(pages) == 2 and pages[0] != pages[1]:
        page += f" (pages {_number(pages[0])}-{_number(pages[1])})"
    return page


def _offsets_text(record: Mapping[str, Any]) -> str:
    mode = str(_metadata(record).get("offset_mode", "none"))
    start, end = record.get("char_start"), record.get("char_end")
    if start is None:
        return f"not located ({mode})"
    return f"{_number(start)}-{_number(end)} ({mode})"


def _tokens_text(record: Mapping[str, Any], budget: int | None) -> str:
    tokens = _number(record.get("token_estimate"))
    return tokens if budget is None else f"{tokens} / {budget}"


def _hover(position: int, record: Mapping[str, Any], budget: int | None) -> str:
    """The ``title`` of a chunk's text runs: everything its card says, on one line."""
    parts = [
        f"chunk #{position}",
        f"section: {record.get('section') or '(before the first heading)'}",
        f"page: {_page_text(record)}",
        f"chars: {_offsets_text(record)}",
        f"tokens: {_tokens_text(record, budget)}",
        f"flags: {', '.join(_flags(record)) or 'none'}",
    ]
    return " | ".join(parts)


def _run(segment: Segment, text: str, titles: Sequence[str]) -> str:
    """One text run: a link to its owner's card, a gap inside a chunk, or uncovered text."""
    body = _esc(text)
    owners = segment.owners or segment.overlaps
    if owners:
        owner = owners[0]
        classes = f"s c{owner % PALETTE_SIZE}"
        extra = ""
        if segment.overlaps:
            classes += " ov"
            shared = " ".join(str(other) for other in segment.overlaps)
            extra = f' data-overlap="{_esc(shared)}"'
        return (
            f'<a class="{classes}" href="#chunk-{owner}" data-chunk="{owner}"{extra} '
            f'title="{_esc(titles[owner])}">{body}</a>'
        )
    if segment.inside:
        inside = segment.inside[0]
        return f'<span class="gap c{inside % PALETTE_SIZE}" data-gap="{inside}">{body}</span>'
    return f'<span class="out">{body}</span>'


def _document(inspection: Inspection, titles: Sequence[str]) -> str:
    content = inspection.content
    spans = [chunk_spans(record) for record in inspection.records]
    parts = ['<pre class="text">']
    for segment in segments(len(content), spans):
        parts.extend(
            f'<a class="mark" id="at-{start}" href="#chunk-{start}" data-n="{start}"></a>'
            for start in segment.starts
        )
        parts.append(_run(segment, content[segment.start : segment.end], titles))
    parts.append("</pre>")
    if not inspection.records:
        parts.append(
            '<p class="empty">No chunks: the parsed text is empty or has nothing to chunk.</p>'
        )
    return "".join(parts)


def _card(position: int, record: Mapping[str, Any], budget: int | None) -> str:
    metadata = _metadata(record)
    located = record.get("char_start") is not None
    back = f'<a href="#at-{position}">#{position}</a>' if located else f"#{position}"
    flags = "".join(f'<span class="flag">{_esc(flag)}</span>' for flag in _flags(record))
    overlap = sum(max(0, high - low) for low, high in chunk_spans(record).overlap)
    rows = (
        ("section", _esc(record.get("section") or "(before the first heading)")),
        ("page", _esc(_page_text(record))),
        ("chars", _esc(_offsets_text(record))),
        ("tokens", _esc(_tokens_text(record, budget))),
        ("kind", _esc(metadata.get("chunk_kind", "-"))),
        ("overlap", f"{overlap} chars"),
        ("flags", flags or "none"),
        ("chunk id", _esc(record.get("chunk_id", ""))),
    )
    text = str(record.get("text", ""))
    # The HTML parser drops a newline right after <pre>: the added one keeps the text's own.
    return (
        f'<li class="card c{position % PALETTE_SIZE}" id="chunk-{position}" '
        f'data-chunk-id="{_esc(record.get("chunk_id", ""))}" data-index="{position}">'
        f"<h2>{back}</h2><dl>"
        + "".join(f"<dt>{label}</dt><dd>{value}</dd>" for label, value in rows)
        + f"</dl><details><summary>chunk text ({len(text)} chars)</summary>"
        f"<pre>\n{_esc(text)}</pre></details></li>"
    )


def _summary_table(summary: InspectionSummary) -> str:
    rows = "".join(
        f'<tr><th scope="row">{_esc(label)}</th><td>{_esc(value)}</td></tr>'
        for label, value in summary.rows()
    )
    return f'<table class="summary">{rows}</table>'


_LEGEND: Final = (
    '<p class="legend"><span class="c0" style="background:var(--c)">chunk</span>'
    '<span class="c1" style="background:var(--c)">next chunk</span>'
    '<span class="c2 ov" style="background-color:var(--c)">overlap</span>'
    '<span class="gap c3">inside a chunk, not retained (markup, whitespace)</span>'
    '<span class="out">in no chunk</span>'
    "| hover a run for its chunk; click for the chunk's card"
)


def _legend(records: Sequence[Mapping[str, Any]]) -> str:
    """The colour key, and a link to the first located chunk (HTML often opens with a
    long uncovered ``<head>``)."""
    first = next(
        (
            position
            for position, record in enumerate(records)
            if record.get("char_start") is not None
        ),
        None,
    )
    jump = "" if first is None else f' | <a href="#at-{first}">jump to chunk #{first}</a>'
    return f"{_LEGEND}{jump}</p>"


def render_html(inspection: Inspection) -> str:
    """The page for ``inspection`` (see the module docstring)."""
    summary = summarize(inspection)
    budget = inspection.settings.max_tokens
    titles = [
        _hover(position, record, budget) for position, record in enumerate(inspection.records)
    ]
    cards = "".join(
        _card(position, record, budget) for position, record in enumerate(inspection.records)
    )
    name = _esc(inspection.source)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_esc(CONTENT_SECURITY_POLICY)}">'
        '<meta name="referrer" content="no-referrer">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>fastrag inspect: {name}</title><style>{_STYLE}</style></head>\n<body>"
        f'<h1>fastrag inspect <span class="name">{name}</span></h1>'
        f'<section class="overview">{_summary_table(summary)}'
        f"<figure>{histogram_svg(token_counts(inspection.records), budget)}"
        f"{_legend(inspection.records)}</figure>"
        '</section><main class="panes">'
        f'<section class="document" aria-label="parsed text">{_document(inspection, titles)}'
        f'</section><aside class="chunks" aria-label="chunks"><ol class="cards">{cards}'
        "</ol></aside></main></body></html>\n"
    )
