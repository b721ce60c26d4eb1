"""Hardened docutils parsing for the reStructuredText adapter: block structure plus lines.

docutils builds the block tree; this module makes it safe and cheap and records what the
tree alone does not say reliably — where each block starts. Everything is confined to one
parse: nothing here reads or changes docutils' global role or directive registries (the
state machine is driven directly, without ``Parser.parse``, whose epilogue deletes any
default role from the global table).

* **Hardened settings**: file insertion and ``raw`` disabled, nothing reported or raised
  (report and halt level 5, above every message level; errors are collected through a
  per-document observer instead), a line-length limit no real document reaches, no
  syntax highlighting.
* **No inline parsing.** Leaves keep their exact source slice, so docutils' inline nodes
  would be thrown away; skipping them halves the parse time and removes the only place
  where roles run. Unknown Sphinx roles (``:func:``, ``:ref:``) therefore need no
  registration: nothing ever looks them up.
* **A private directive table** (``_rst_directives``): ``raw``/``include`` refused,
  code directives as literal blocks, Sphinx's directives as generic containers. Only
  docutils' static table of built-ins is read; its ``_directives`` cache, which
  applications extend, is neither consulted nor changed.
* **Line records.** Subclasses of docutils' state classes (built once, used only by this
  parser) note the absolute 0-based start line of explicit constructs (and their end),
  section titles, option list items and table rows as ``fr_start`` on the nodes they
  create, because docutils' own ``line`` is the underline for titles, the line *after*
  the block for comments and directives, and missing for rows and option items.
* **Depth limit.** Each nesting level costs docutils about ten Python frames, so blocks
  nested deeper than ``max_depth`` are not parsed: their lines become one ``fr_flat`` node
  (flattened into its container as text) with a diagnostic, never a ``RecursionError``.
* **Table limit.** docutils parses every table cell as a nested document; tables that
  would take the document past ``max_table_cells`` are kept as one flattened block.
"""

from __future__ import annotations

import copy
import functools
import io
import re
import threading
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Final

from fastrag._optional import require
from fastrag.normalization.formats._rst_directives import AdapterNodes, DirectiveTable

__all__ = ["ParseResult", "RstParser", "release_doctree"]

_FEATURE = "reStructuredText normalization"
_SIMPLE_COLUMNS = re.compile(r"=+")


@dataclass(slots=True)
class ParseContext:
    """Mutable per-document state shared by the state subclasses during one parse."""

    max_depth: int
    max_table_cells: int
    depth: int = 0
    table_cells: int = 0
    table_work: int = 0
    """Cells times line width of the tables parsed so far (see ``_MAX_TABLE_WORK``)."""
    # (0-based line, message) pairs, in the order they were found.
    notes: list[tuple[int, str]] = field(default_factory=list)


# What a run leaves on a state machine and on its states that names the document (each
# run sets all of it again): cleared when a machine goes back to the pool, so an idle
# machine keeps no doctree alive.
_MACHINE_RUN_STATE = (
    "document",
    "language",
    "memo",
    "node",
    "reporter",
    "input_lines",
    "parent_state_machine",
)
_STATE_RUN_STATE = ("document", "inliner", "memo", "reporter", "parent")


class MachinePools(threading.local):
    """Idle docutils state machines, reused by every parse of this thread.

    docutils builds a machine for the document and one for every list, definition list,
    field list and explicit-markup run (fifteen states, each compiling its transitions:
    about 0.2 ms a machine), and throws each away. A machine is reusable once its run
    ends — ``run`` starts again from ``initial_state`` and sets everything it reads;
    docutils pools its own nested machines the same way — so parses take machines from
    these pools and give them back: document machines (``top``), nested ones for
    ``nested_parse`` (initial state "Body") and for ``nested_list_parse`` (any state).
    The pools are per thread, so a parse can scrub every idle machine of the document
    it parsed when it ends (``scrub``) without touching another thread's machines.
    """

    def __init__(self) -> None:
        self.top: list[Any] = []
        self.nested: list[Any] = []
        self.listed: list[Any] = []

    def scrub(self) -> None:
        """Let idle machines forget the document they parsed (no doctree kept alive)."""
        for pool in (self.top, self.nested, self.listed):
            for machine in pool:
                _scrub(machine)


def _scrub(machine: Any) -> None:
    for name in _MACHINE_RUN_STATE:
        if name in machine.__dict__:
            setattr(machine, name, None)
    for state in machine.states.values():
        for name in _STATE_RUN_STATE:
            if name in state.__dict__:
                setattr(state, name, None)


@dataclass(frozen=True, slots=True)
class ParseResult:
    """A parsed doctree (``fr_*`` attributes on its nodes) and what the parse noticed."""

    document: Any
    notes: tuple[tuple[int, str], ...]


def _lines_of(text: str) -> int:
    return text.count("\n") + 1


class _Toolkit:
    """docutils classes specialised for this adapter, built once per process.

    Nothing is registered with docutils: the classes are used only by ``RstParser``.
    docutils is imported here, not at module import time, so ``import fastrag`` stays
    cheap and a missing ``normalization`` extra is reported when an adapter is built.
    """

    def __init__(self) -> None:
        docutils = require("docutils", extra="normalization", feature=_FEATURE)
        self.version: str = docutils.__version__
        nodes = require("docutils.nodes", extra="normalization", feature=_FEATURE)
        frontend = require("docutils.frontend", extra="normalization", feature=_FEATURE)
        rst = require("docutils.parsers.rst", extra="normalization", feature=_FEATURE)
        states = require("docutils.parsers.rst.states", extra="normalization", feature=_FEATURE)
        self.nodes: ModuleType = nodes
        self.utils: ModuleType = require("docutils.utils", extra="normalization", feature=_FEATURE)
        self.state_machine_class: Any = states.RSTStateMachine
        self.string2lines: Any = require(
            "docutils.statemachine", extra="normalization", feature=_FEATURE
        ).string2lines
        self.settings: Any = self._settings(frontend, rst.Parser)
        self.adapter_nodes = AdapterNodes(nodes)
        self.pools = MachinePools()
        self.directives = DirectiveTable(self.adapter_nodes)
        self.state_classes: tuple[Any, ...] = self._build_states(states, nodes)

    @staticmethod
    def _settings(frontend: ModuleType, parser_class: Any) -> Any:
        settings = frontend.get_default_settings(parser_class)
        settings.file_insertion_enabled = False
        settings.raw_enabled = False
        settings._disable_config = True
        settings.report_level = 5  # nothing is written: messages reach our observer
        settings.halt_level = 5  # nothing raises: a bad construct never stops the parse
        settings.warning_stream = io.StringIO()
        settings.line_length_limit = 1 << 62  # max_characters is the real limit
        settings.syntax_highlight = "none"
        settings.pep_references = False
        settings.rfc_references = False
        return settings

    def _build_states(self, states: ModuleType, nodes: ModuleType) -> tuple[Any, ...]:
        toolkit = self
        body = states.Body
        text_underline = states.Text.underline
        constructs: list[tuple[Any, Any]] = []

        def directive(state: Any, match: Any, **option_presets: Any) -> Any:
            type_name = match.group(1)
            directive_class = toolkit.directives.lookup(type_name, state.memo.language)
            return state.run_directive(directive_class, match, type_name, option_presets)

        for method, pattern in body.explicit.constructs:
            constructs.append((directive if method is body.directive else method, pattern))

        class Hooks:
            """Mixed into every docutils state class used by this parser (see module doc)."""

            # Provided by docutils' state classes (annotations only: nothing is shadowed).
            document: Any
            state_machine: Any
            parent: Any
            reporter: Any
            memo: Any
            comment: Any

            def __init__(self, state_machine: Any, debug: bool = False) -> None:
                super().__init__(state_machine, debug)  # type: ignore[call-arg]
                self.nested_sm_kwargs = {
                    "state_classes": toolkit.state_classes,
                    "initial_state": "Body",
                }

            def _context(self) -> ParseContext:
                context: ParseContext = self.document.fr_context
                return context

            @property
            def nested_sm_cache(self) -> list[Any]:
                """docutils pools nested state machines on a class attribute; this
                thread's pool (``MachinePools``) keeps them away from other docutils
                users and from other threads."""
                return toolkit.pools.nested

            def nested_list_parse(
                self,
                block: Any,
                input_offset: int,
                node: Any,
                initial_state: str,
                blank_finish: bool,
                blank_finish_state: str | None = None,
                extra_settings: Any = None,
                match_titles: bool = False,
                state_machine_class: Any = None,
                state_machine_kwargs: Any = None,
            ) -> tuple[int, bool]:
                """docutils' ``nested_list_parse`` with a pooled machine (``MachinePools``)
                instead of a new one per list: building them was a quarter of the RST
                parse. Every attribute this call sets is set again on each use."""
                if state_machine_class is not None or state_machine_kwargs is not None:
                    return super().nested_list_parse(  # type: ignore[misc,no-any-return]
                        block,
                        input_offset,
                        node,
                        initial_state,
                        blank_finish,
                        blank_finish_state,
                        extra_settings or {},
                        match_titles,
                        state_machine_class,
                        state_machine_kwargs,
                    )
                pool = toolkit.pools.listed
                try:
                    machine = pool.pop()
                    machine.parent_state_machine = self.state_machine
                except IndexError:
                    machine = self.nested_sm(  # type: ignore[attr-defined]
                        debug=self.debug,  # type: ignore[attr-defined]
                        parent_state_machine=self.state_machine,
                        **self.nested_sm_kwargs,
                    )
                machine.initial_state = initial_state
                if blank_finish_state is None:
                    blank_finish_state = initial_state
                machine.states[blank_finish_state].blank_finish = blank_finish
                for key, value in (extra_settings or {}).items():
                    setattr(machine.states[initial_state], key, value)
                machine.run(
                    block, input_offset, memo=self.memo, node=node, match_titles=match_titles
                )
                blank_finish = machine.states[blank_finish_state].blank_finish
                offset: int = machine.abs_line_offset()
                pool.append(machine)
                return offset, blank_finish

            def nested_parse(
                self,
                block: Any,
                input_offset: int,
                node: Any = None,
                match_titles: bool = False,
                state_machine_class: Any = None,
                state_machine_kwargs: Any = None,
            ) -> int:
                context = self._context()
                if context.depth >= context.max_depth:
                    flat = toolkit.adapter_nodes.flat()
                    flat.fr_start, flat.fr_kind = input_offset, "paragraph"
                    (self.state_machine.node if node is None else node).append(flat)
                    context.notes.append(
                        (
                            input_offset,
                            f"nesting deeper than max_depth={context.max_depth} kept as text",
                        )
                    )
                    return input_offset + len(block)
                context.depth += 1
                try:
                    offset: int = super().nested_parse(  # type: ignore[misc]
                        block,
                        input_offset,
                        node,
                        match_titles,
                        state_machine_class,
                        state_machine_kwargs,
                    )
                finally:
                    context.depth -= 1
                return offset

            def directive(self, match: Any, **option_presets: Any) -> Any:
                return directive(self, match, **option_presets)

            def run_directive(
                self, directive_class: Any, match: Any, type_name: str, option_presets: Any
            ) -> Any:
                result, blank_finish = super().run_directive(  # type: ignore[misc]
                    directive_class, match, type_name, option_presets
                )
                kept = [n for n in result if not isinstance(n, nodes.system_message)]
                if not kept:
                    role = "failed" if result else "empty"
                    result = [toolkit.adapter_nodes.marker(type_name, role), *result]
                elif getattr(kept[0], "fr_name", None) is None:
                    kept[0].fr_name = type_name
                    takes_argument = (
                        directive_class.required_arguments or directive_class.optional_arguments
                    )
                    if takes_argument and getattr(kept[0], "fr_argument", None) is None:
                        # The first line's argument (a topic's title, an image's URI).
                        kept[0].fr_argument = match.string[match.end() :].strip()
                return result, blank_finish

            def explicit_construct(self, match: Any) -> Any:
                start = self.state_machine.abs_line_offset()
                nodelist: list[Any] | None = None
                errors: list[Any] = []
                for method, pattern in constructs:
                    expmatch = pattern.match(match.string)
                    if expmatch:
                        try:
                            nodelist, blank_finish = method(self, expmatch)
                        except states.MarkupError as error:
                            errors.append(
                                self.reporter.warning(
                                    " ".join(error.args), line=self.state_machine.abs_line_number()
                                )
                            )
                        break
                if nodelist is None:
                    nodelist, blank_finish = self.comment(match)
                    nodelist = nodelist + errors
                _record(nodelist, start, self.state_machine.abs_line_offset() + 1)
                return nodelist, blank_finish

            def anonymous_target(self, match: Any) -> Any:
                start = self.state_machine.abs_line_offset()
                nodelist, blank_finish = super().anonymous_target(match)  # type: ignore[misc]
                _record(nodelist, start, self.state_machine.abs_line_offset() + 1)
                return nodelist, blank_finish

            def section(
                self, title: str, source: str, style: Any, lineno: int, messages: Any
            ) -> None:
                # lineno is the 1-based line of the title text; an overline adds one line.
                title_lines = _lines_of(source)
                start = lineno - 1 - (title_lines - 2)
                before = self.parent
                count = len(before.children)
                super().section(title, source, style, lineno, messages)  # type: ignore[misc]
                if self.parent is not before:
                    self.parent.fr_start, self.parent.fr_title_lines = start, title_lines
                else:  # refused by docutils (inconsistent levels): keep its text as a block
                    _record(before.children[count:], start, start + title_lines)

            def underline(self, match: Any, context: list[str], next_state: Any) -> Any:
                title = context[0].rstrip() if context else ""
                underline = match.string.rstrip()
                if (
                    self.state_machine.match_titles
                    # Only where docutils itself reads a title: the states of lists and
                    # the like end their block on an underline instead, so that the
                    # enclosing state reads it as a section's.
                    or getattr(super().underline, "__func__", None) is not text_underline  # type: ignore[misc]
                    or not title
                    or (toolkit.utils.column_width(title) > len(underline) and len(underline) < 4)
                ):
                    return super().underline(match, context, next_state)  # type: ignore[misc]
                # A title where docutils allows no section: inside a directive's body
                # (autodoc's ``.. automodule::`` holding "Functions" over "---------"), a
                # list item, a quote. docutils reports it and keeps its two lines as a
                # literal block of its message; it reads as an informal heading instead,
                # the way ``.. rubric::`` is one (title line and underline).
                rubric = nodes.rubric(title, title)
                rubric.fr_start = self.state_machine.abs_line_offset() - 1
                rubric.fr_end = rubric.fr_start + 2
                self.parent += rubric
                context[:] = []
                return [], next_state, []

            def table(self, isolate_function: Any, parser_class: Any) -> Any:
                first_line = self.state_machine.abs_line_offset()
                block, messages, blank_finish = isolate_function()
                if block:
                    context = self._context()
                    cells = _estimate_cells(block, parser_class.__name__)
                    start = self.state_machine.abs_line_offset() - len(block) + 1
                    # docutils numbers rows from where isolation left the state machine.
                    # After it cuts a grid table at an earlier border (a corrupt bottom
                    # border) it stands two lines short and re-reads those lines as the
                    # next block, so its rows would claim the wrong lines: keep such a
                    # table as text, at the line it really starts on.
                    misplaced = start != first_line
                    width = max(map(len, block))
                    work = cells * width
                    if (
                        misplaced
                        or context.table_cells + cells > context.max_table_cells
                        or context.table_work + work > _MAX_TABLE_WORK
                    ):
                        flat = toolkit.adapter_nodes.flat()
                        flat.fr_start, flat.fr_kind = first_line, "table"
                        if misplaced:
                            reason = "table cut at a corrupt border kept as text"
                        elif context.table_cells + cells > context.max_table_cells:
                            reason = (
                                f"table of about {cells} cells past "
                                f"max_table_cells={context.max_table_cells} kept as text"
                            )
                        else:
                            reason = (
                                f"table of about {cells} cells on lines of up to "
                                f"{width} characters too wide to parse in "
                                "reasonable time: kept as text"
                            )
                        context.notes.append((first_line, reason))
                        return [flat, *messages], blank_finish
                    context.table_cells += cells
                    context.table_work += work
                return super().table(  # type: ignore[misc]
                    lambda: (block, messages, blank_finish), parser_class
                )

            def option_list_item(self, match: Any) -> Any:
                # Its description may start on the next line: record the option's line.
                start = self.state_machine.abs_line_offset()
                item, blank_finish = super().option_list_item(match)  # type: ignore[misc]
                item.fr_start = start
                return item, blank_finish

            def build_table_row(self, rowdata: Any, tableline: int) -> Any:
                row = super().build_table_row(rowdata, tableline)  # type: ignore[misc]
                offsets = [cell[2] for cell in rowdata if cell is not None]
                if offsets:
                    row.fr_start = tableline + min(offsets) - 1
                return row

        def _record(nodelist: list[Any], start: int, end: int) -> None:
            """Give the construct's first real node its lines; later ones ride along."""
            first = True
            for node in nodelist:
                if isinstance(node, nodes.system_message) and not first:
                    continue
                if first:
                    if isinstance(node, nodes.system_message):
                        node.fr_kind = "paragraph"
                    node.fr_start, node.fr_end = start, end
                    first = False
                else:
                    node.fr_skip = True

        return tuple(type(cls.__name__, (Hooks, cls), {}) for cls in states.state_classes)


_MAX_TABLE_WORK: Final = 50_000_000
"""docutils reads each cell by scanning its table's whole line (``column_indices``), so a
table costs about its cells times its width in characters: 3,000 columns on one line
took seconds, 60,000 would take half an hour. Past this much in one document (a few
seconds), tables are kept as text. Real tables are far below: 5,000 rows of 20 columns
300 characters wide is 30,000,000."""


def _estimate_cells(block: Any, parser_name: str) -> int:
    """Cells a table block would make, from its borders alone (cheap, an upper bound)."""
    first = block[0]
    if parser_name.startswith("Grid"):
        columns = max(first.count("+") - 1, 1)
        rows = sum(1 for line in block if line[:1] == "+") - 1
    else:
        columns = max(len(_SIMPLE_COLUMNS.findall(first)), 1)
        rows = len(block)
    return int(columns) * max(int(rows), 1)


_QUOTED = re.compile(r'"([^"\n]{10})[^"\n]+"')


def _short(message: str) -> str:
    """A docutils message's first line with quoted document text cut to a few characters."""
    first = _QUOTED.sub(r'"\1…"', message.split("\n", 1)[0])
    return first if len(first) <= 80 else first[:79] + "…"


@functools.cache
def _toolkit() -> _Toolkit:
    """Built once per process: a pure function of the installed docutils version."""
    return _Toolkit()


class RstParser:
    """Parses one string into a docutils doctree with this adapter's hardening."""

    def __init__(self, *, max_depth: int, max_table_cells: int) -> None:
        self._toolkit = _toolkit()
        self.max_depth = max_depth
        self.max_table_cells = max_table_cells

    def parse(self, content: str) -> ParseResult:
        toolkit = self._toolkit
        settings = copy.copy(toolkit.settings)
        document = toolkit.utils.new_document("<fastrag>", settings)
        context = ParseContext(self.max_depth, self.max_table_cells)
        document.fr_context = context

        def observe(message: Any) -> None:
            if message["level"] >= 3:
                line = message.get("line") or message.line or 1
                text = message.children[0].astext() if message.children else ""
                context.notes.append((line - 1, "docutils: " + _short(text)))

        document.reporter.attach_observer(observe)
        # What docutils' Parser.parse does, minus its epilogue that deletes a default role
        # from docutils' global role table (another application's, in a shared process).
        pools = toolkit.pools
        try:
            machine = pools.top.pop()
        except IndexError:
            machine = toolkit.state_machine_class(
                state_classes=toolkit.state_classes, initial_state="Body"
            )
        lines = toolkit.string2lines(content, tab_width=settings.tab_width, convert_whitespace=True)
        machine.run(lines, document, inliner=_NoInliner(toolkit.nodes))
        pools.top.append(machine)  # a run that raised leaves its machines unpooled
        pools.scrub()
        return ParseResult(document, tuple(context.notes))


class _NoInliner:
    """Stands in for docutils' ``Inliner``: inline markup stays plain source text.

    Leaves keep their exact source slice, so inline nodes would be discarded anyway; not
    building them is the largest single saving, and no role function ever runs.
    """

    def __init__(self, nodes: ModuleType) -> None:
        self._text = nodes.Text

    def init_customizations(self, settings: Any) -> None:
        """Nothing to compile: no inline patterns are used."""

    def adjust_uri(self, uri: str) -> str:
        return uri

    def parse(self, text: str, lineno: int, memo: Any, parent: Any) -> tuple[list[Any], list[Any]]:
        return [self._text(text)], []


def release_doctree(document: Any) -> None:
    """Break the doctree's reference cycles once it has been read.

    Every docutils node points to its parent and to the document, and the document to
    its transformer and to named nodes: a parsed document is one large cycle that only
    the cyclic collector can free. Left to it, each doctree outlives its parse, gets
    promoted, and is walked by every full collection until one frees it (with the
    collector off, RST normalize of Python's docs fell from 8.7× to 6.8× the floor).
    Unlinked, it is freed by reference counting as soon as the adapter lets go of it.
    """
    stack = [document]
    pop, push = stack.pop, stack.extend
    while stack:
        node = pop()
        node.parent = None
        node.document = None
        children = getattr(node, "children", None)
        if children:
            push(children)
            children.clear()
    document.transformer = None
    # The reporter holds a method of the parse's state machine, which holds the memo.
    document.reporter.__dict__.pop("get_source_and_line", None)
    document.reporter = None
    document.ids.clear()
    document.nameids.clear()
