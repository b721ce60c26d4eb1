"""The reStructuredText adapter's own directive table and node classes.

docutils looks directives up in a process-global cache that applications (Sphinx)
extend; this table is private to the adapter instead, built once per process from
docutils' static table of built-ins plus the adapter's own classes:

* ``raw``, ``include`` and ``literalinclude`` are refused without running, and so is
  ``csv-table`` with ``:file:`` or ``:url:``: they would read files or fetch URLs. Their
  source is excluded.
* ``role``, ``default-role``, ``highlight``, ``index``, ``contents``, ``toctree``,
  and autodoc's ``automodule`` … without a body render no text of their own: markup.
  (Not running ``role``/``default-role`` also keeps docutils' global role table
  untouched.) An ``auto*`` directive with a body is a generic container, below.
* ``code``, ``code-block``, ``sourcecode``, ``doctest``, ``testcode``, ``productionlist``
  … become literal blocks with a language; any option is accepted.
* every other name docutils does not ship — Sphinx's ``function``, ``versionadded``,
  ``c:function`` … — is a generic container: any option, one optional argument, and a
  body parsed as reST. One with neither body nor options whose argument is a file's
  path (CMake's ``.. cmake-module:: ../../Modules/FindBZip2.cmake``, the kernel's
  ``.. kernel-doc:: include/linux/x.h``) pulls its text from that file, which is never
  read: markup, like autodoc's.

Nodes made here carry their facts as ``fr_*`` attributes for the tree mapping.
"""

from __future__ import annotations

import importlib
import re
from types import ModuleType
from typing import Any

__all__ = ["AdapterNodes", "DirectiveTable"]

# Directives whose content is program text, with the language Sphinx would highlight.
_CODE_DIRECTIVES: dict[str, str | None] = {
    "code": None,
    "code-block": None,
    "sourcecode": None,
    "doctest": "pycon",
    "testcode": "python",
    "testsetup": "python",
    "testcleanup": "python",
    "testoutput": None,
    "productionlist": None,
    "graphviz": "dot",
    "digraph": "dot",
    "graph": "dot",
    "mermaid": "mermaid",
    "plantuml": "plantuml",
}
_LANGUAGE_ARGUMENT = frozenset({"code", "code-block", "sourcecode"})
# Directives that render no readable text of their own (their source is excluded as markup).
# ``contents``, ``sectnum``, ``target-notes`` and Sphinx's ``toctree`` generate navigation
# from the rest of the document: their source names files and options, not content.
_MARKUP_DIRECTIVES = frozenset(
    {
        "role",
        "default-role",
        "highlight",
        "index",
        "currentmodule",
        "default-domain",
        "tabularcolumns",
        "moduleauthor",
        "sectionauthor",
        "codeauthor",
        "contents",
        "sectnum",
        "section-numbering",
        "target-notes",
        "toctree",
    }
)
# autodoc's ``auto*`` pull documentation from code, which is never imported: alone, their
# source names objects and options, not content (markup). A body of their own is text the
# author wrote to go with it (Sphinx inserts it after the docstring): such a directive is
# a generic container, its first line naming the object the body is about.
_AUTODOC_DIRECTIVES = frozenset(
    {
        "automodule",
        "autoclass",
        "autoexception",
        "autofunction",
        "automethod",
        "autoattribute",
        "autoproperty",
        "autodata",
        "autodecorator",
        "autosummary",
    }
)
# A directive argument that is a file's path: a "/" in it, or a source file's extension.
_FILE_ARGUMENT = re.compile(
    r"[^\s/]*+/\S*+|\S+\.(?:cmake|py|pyi|rst|txt|md|h|hh|hpp|c|cc|cpp|cxx|rs|go|java|js|ts|"
    r"json|ya?ml|toml|xml|inc|sh|ps1|bat)",
    re.IGNORECASE,
)
# Run, these would read files or fetch URLs: refused without running (Sphinx's
# ``literalinclude`` reads a source file, as ``include`` does).
_REFUSED_DIRECTIVES = frozenset({"raw", "include", "literalinclude"})
# Sphinx directives whose body starts right after the marker (no argument to take).
_CONTENT_ONLY = frozenset({"seealso", "glossary", "hlist", "todo", "acks"})
_ADMONITION_LIKE = frozenset({"seealso", "todo"})
# docutils built-ins replaced by the generic container (they would move or reclass content).
_GENERIC_OVERRIDES = frozenset({"header", "footer", "class", "rst-class"})


class AdapterNodes:
    """docutils node classes of this adapter (tag names ``fr_directive`` …)."""

    def __init__(self, nodes: ModuleType) -> None:
        class fr_directive(nodes.General, nodes.Element):  # type: ignore[misc,name-defined]  # noqa: N801 - docutils tag name
            """A directive docutils does not ship (Sphinx's and others'): a container."""

        class fr_marker(nodes.General, nodes.Element):  # type: ignore[misc,name-defined]  # noqa: N801
            """A directive that left no node in place (refused, markup, failed, empty)."""

        class fr_flat(nodes.General, nodes.Element):  # type: ignore[misc,name-defined]  # noqa: N801
            """Source past a limit, kept as one block of text."""

        class fr_inline_marker(nodes.Inline, nodes.Element):  # type: ignore[misc,name-defined]  # noqa: N801
            """The marker of a directive in a substitution definition (``.. |br| raw::
            html``): docutils keeps only inline content there, and without it drops the
            definition, whose source then ran into the paragraph before it."""

        self.nodes = nodes
        self.directive: Any = fr_directive
        self.flat: Any = fr_flat
        self._marker: Any = fr_marker
        self._inline_marker: Any = fr_inline_marker

    def marker(self, name: str, role: str, argument: str = "", *, inline: bool = False) -> Any:
        node = self._inline_marker() if inline else self._marker()
        node.fr_name, node.fr_role, node.fr_argument = name, role, argument
        return node


class DirectiveTable:
    """Which class runs a directive name in this adapter's parses (see module doc)."""

    def __init__(self, adapter_nodes: AdapterNodes) -> None:
        base = importlib.import_module("docutils.parsers.rst").Directive
        self._registry = importlib.import_module("docutils.parsers.rst.directives")
        self._english = importlib.import_module("docutils.parsers.rst.languages.en")
        tables = importlib.import_module("docutils.parsers.rst.directives.tables")
        self._cache: dict[tuple[str, str], Any] = {}
        self._overrides, self._generic = _build(base, self._registry, tables, adapter_nodes)

    def lookup(self, type_name: str, language: ModuleType) -> Any:
        """The class for ``type_name``: ours, docutils' built-in, or the generic one."""
        name = type_name.lower()
        override = self._overrides.get(name)
        if override is not None:
            return override
        key = (name, language.__name__)
        found = self._cache.get(key)
        if found is None:
            canonical = (
                getattr(language, "directives", {}).get(name)
                or self._english.directives.get(name)
                or name
            )
            entry = self._registry._directive_registry.get(canonical)
            if entry is None:
                found = self._generic
            else:
                module = importlib.import_module("docutils.parsers.rst.directives." + entry[0])
                found = self._overrides.get(canonical) or getattr(module, entry[1])
            self._cache[key] = found
        return found


def _build(
    base: Any, registry: ModuleType, tables: ModuleType, adapter_nodes: AdapterNodes
) -> tuple[dict[str, Any], Any]:
    class AnyOptions(dict[str, Any]):
        """Accept every option name, unchanged: unknown directives' options are text."""

        def __missing__(self, key: str) -> Any:
            return registry.unchanged

    any_options = AnyOptions(name=registry.unchanged)

    class Generic(base):  # type: ignore[misc]
        optional_arguments = 1
        final_argument_whitespace = True
        option_spec = any_options
        has_content = True

        def run(self) -> list[Any]:
            argument = " ".join(self.arguments)
            if not self.content and not self.options and _FILE_ARGUMENT.fullmatch(argument):
                return [adapter_nodes.marker(self.name, "markup", argument)]
            node = adapter_nodes.directive()
            node.fr_name = self.name
            node.fr_argument = argument
            if self.name.lower() in _ADMONITION_LIKE:
                node.fr_kind = "admonition"
            if self.content:
                self.state.nested_parse(self.content, self.content_offset, node)
            return [node]

    class ContentOnly(Generic):
        optional_arguments = 0

    class Autodoc(Generic):
        def run(self) -> list[Any]:
            if not self.content:
                return [adapter_nodes.marker(self.name, "markup", " ".join(self.arguments))]
            result: list[Any] = super().run()
            return result

    class Code(base):  # type: ignore[misc]
        # The whole argument block is taken (Sphinx's productionlist is all argument; a
        # code-block whose code starts without a blank line is no error here): the node's
        # text is its source anyway, only the language is read from it.
        optional_arguments = 1
        final_argument_whitespace = True
        option_spec = any_options
        has_content = True

        def run(self) -> list[Any]:
            text = "\n".join(self.content)
            node = adapter_nodes.nodes.literal_block(text, text)
            name = self.name.lower()
            language = _CODE_DIRECTIVES.get(name)
            if name in _LANGUAGE_ARGUMENT and self.arguments:
                language = self.arguments[0].split()[0]
            node.fr_language = language
            return [node]

    class Markup(base):  # type: ignore[misc]
        optional_arguments = 1
        final_argument_whitespace = True
        option_spec = any_options
        has_content = True
        role = "markup"

        def run(self) -> list[Any]:
            # Inside a substitution definition the marker must be inline (see
            # AdapterNodes): the state docutils parses its contents with says so.
            inline = type(self.state).__name__ == "SubstitutionDef"
            argument = " ".join(self.arguments)
            return [adapter_nodes.marker(self.name, self.role, argument, inline=inline)]

    class Refused(Markup):
        role = "refused"

    class CsvTable(tables.CSVTable):  # type: ignore[misc,name-defined]
        def run(self) -> list[Any]:
            if "file" in self.options or "url" in self.options:
                return [adapter_nodes.marker(self.name, "refused")]
            result: list[Any] = super().run()
            return result

    overrides: dict[str, Any] = {"csv-table": CsvTable}
    for names, directive_class in (
        (_CODE_DIRECTIVES, Code),
        (_MARKUP_DIRECTIVES, Markup),
        (_AUTODOC_DIRECTIVES, Autodoc),
        (_REFUSED_DIRECTIVES, Refused),
        (_CONTENT_ONLY, ContentOnly),
        (_GENERIC_OVERRIDES, Generic),
    ):
        for name in names:
            overrides[name] = directive_class
    return overrides, Generic
