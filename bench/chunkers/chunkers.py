"""Adapters: one (library, format) cell -> how to build it, run it, and read its output.

Every adapter is configured for a 512-token cl100k_base budget with no overlap.
``make(name, fmt, enc)`` returns an object with
  setup()      called before every timed run, outside the timing: fresh chunker
               instances / cleared memo caches, so a run cannot reuse token counts
               memoized while chunking the same texts in an earlier run;
  run(texts)   the timed part: chunk every document, return native outputs;
  records(out, texts) -> list (per doc) of list of (text, start|None, end|None, heading|None)
  offsets      what the library itself returns as offsets ("char", "none", ...).
"""
from __future__ import annotations

from common import BUDGET
from fastrag_cell import Fastrag, FastragValidated

MD_HEADERS = [("#", "h1"), ("##", "h2"), ("###", "h3"), ("####", "h4"), ("#####", "h5"),
              ("######", "h6")]
HTML_HEADERS = [("h1", "h1"), ("h2", "h2"), ("h3", "h3"), ("h4", "h4"), ("h5", "h5"), ("h6", "h6")]

# Chonkie's "markdown" recipe (chonkie-ai/recipes recipes/markdown_en.json, v0.1.0) is only
# published on the Hugging Face hub, which is unreachable here; these are its levels, built
# in code so RecursiveChunker.from_recipe's behaviour is reproduced offline.
def chonkie_markdown_rules():
    from chonkie.types.recursive import RecursiveLevel, RecursiveRules

    return RecursiveRules(levels=[
        RecursiveLevel(delimiters=["######", "#####", "####", "###", "##", "#"],
                       include_delim="next"),
        RecursiveLevel(delimiters=["\n\n", "\n\r"], include_delim="prev"),
        RecursiveLevel(delimiters=["\n", "\r"], include_delim="prev"),
        RecursiveLevel(delimiters=[". ", "! ", "? "], include_delim="prev"),
        RecursiveLevel(),
    ])


class Cell:
    offsets = "none"
    headings = "no"
    note = ""

    def __init__(self, fmt, enc):
        self.fmt = fmt
        self.enc = enc

    def setup(self):
        pass


# ---------------------------------------------------------------- langchain
class LangChain(Cell):
    """md: MarkdownHeaderTextSplitter -> RecursiveCharacterTextSplitter.from_tiktoken_encoder
    html: HTMLHeaderTextSplitter -> same; rst: RST separators; txt: default separators."""

    def setup(self):
        from langchain_text_splitters import (
            HTMLHeaderTextSplitter,
            Language,
            MarkdownHeaderTextSplitter,
            RecursiveCharacterTextSplitter,
        )
        kw = {"encoding_name": "cl100k_base", "chunk_size": BUDGET, "chunk_overlap": 0}
        if self.fmt == "rst":
            seps = RecursiveCharacterTextSplitter.get_separators_for_language(Language.RST)
            kw.update(separators=seps, is_separator_regex=True)
        self.rc = RecursiveCharacterTextSplitter.from_tiktoken_encoder(**kw)
        self.pre = None
        if self.fmt == "md":
            self.pre = MarkdownHeaderTextSplitter(MD_HEADERS)
            self.headings = "yes (metadata)"
        elif self.fmt == "html":
            self.pre = HTMLHeaderTextSplitter(HTML_HEADERS)
            self.headings = "yes (metadata)"

    def run(self, texts):
        if self.pre is None:
            return [self.rc.split_text(t) for t in texts]
        return [self.rc.split_documents(self.pre.split_text(t)) for t in texts]

    def records(self, out, texts):
        res = []
        for docs in out:
            if self.pre is None:
                res.append([(s, None, None, None) for s in docs])
            else:
                res.append([(d.page_content, None, None, " > ".join(d.metadata.values()) or None)
                            for d in docs])
        return res


class LangChainHtmlSemantic(Cell):
    """HTMLSemanticPreservingSplitter has only a character budget (max_chunk_size);
    2000 chars is used as a ~512-token stand-in, then no token post-pass (violations show it)."""
    headings = "yes (metadata)"
    note = "char budget 2000"

    def setup(self):
        from langchain_text_splitters import HTMLSemanticPreservingSplitter
        self.sp = HTMLSemanticPreservingSplitter(HTML_HEADERS, max_chunk_size=2000, chunk_overlap=0)

    def run(self, texts):
        return [self.sp.split_text(t) for t in texts]

    def records(self, out, texts):
        return [[(d.page_content, None, None, " > ".join(d.metadata.values()) or None)
                 for d in docs] for docs in out]


# ---------------------------------------------------------------- chonkie
class ChonkieRecursive(Cell):
    offsets = "char"

    def setup(self):
        from chonkie import RecursiveChunker
        RecursiveChunker._estimate_token_count.cache_clear()
        if self.fmt == "md":
            self.ch = RecursiveChunker(tokenizer=self.enc, chunk_size=BUDGET,
                                       rules=chonkie_markdown_rules(), min_characters_per_chunk=24)
            self.note = "markdown recipe"
        else:
            self.ch = RecursiveChunker(tokenizer=self.enc, chunk_size=BUDGET)
            self.note = "default rules"

    def run(self, texts):
        return [self.ch.chunk(t) for t in texts]

    def records(self, out, texts):
        return [[(c.text, c.start_index, c.end_index, None) for c in cs] for cs in out]


class ChonkieToken(ChonkieRecursive):
    def setup(self):
        from chonkie import TokenChunker
        self.ch = TokenChunker(tokenizer=self.enc, chunk_size=BUDGET, chunk_overlap=0)


# ---------------------------------------------------------------- semchunk
class Semchunk(Cell):
    offsets = "char"

    def setup(self):
        import semchunk
        import semchunk.semchunk as impl
        impl._memoized_token_counters.clear()  # its default memo cache is global and unbounded
        self.ch = semchunk.chunkerify(self.enc, BUDGET)

    def run(self, texts):
        return [self.ch(t, offsets=True) for t in texts]

    def records(self, out, texts):
        return [[(c, a, b, None) for c, (a, b) in zip(cs, offs, strict=True)] for cs, offs in out]


class SemchunkNoMemo(Semchunk):
    """semchunk with memoize=False: for the scaling runs, whose big documents repeat the
    corpus, so the default memo cache would hit on the repeated copies."""
    note = "memoize=False"

    def setup(self):
        import semchunk
        self.ch = semchunk.chunkerify(self.enc, BUDGET, memoize=False)


# ---------------------------------------------------------------- semantic-text-splitter
class SemanticTextSplitter(Cell):
    """Rust; MarkdownSplitter for md, TextSplitter otherwise; tiktoken-rs cl100k via 'gpt-4'.
    Splitters are stateless, so they are built once (construction loads the BPE)."""
    offsets = "char (start)"

    def __init__(self, fmt, enc):
        super().__init__(fmt, enc)
        import semantic_text_splitter as sts
        cls = sts.MarkdownSplitter if fmt == "md" else sts.TextSplitter
        self.sp = cls.from_tiktoken_model("gpt-4", BUDGET)
        self.note = cls.__name__

    def run(self, texts):
        return [self.sp.chunk_indices(t) for t in texts]

    def records(self, out, texts):
        return [[(c, a, a + len(c), None) for a, c in cs] for cs in out]


class SemanticTextSplitterAll(SemanticTextSplitter):
    """Same, through chunk_all_indices (the library's own multi-threaded batch call)."""

    def run(self, texts):
        return self.sp.chunk_all_indices(texts)


# ---------------------------------------------------------------- llama-index
class LlamaIndex(Cell):
    """md: MarkdownNodeParser -> SentenceSplitter; html: HTMLNodeParser -> SentenceSplitter;
    rst/txt: SentenceSplitter.  Node text excludes metadata when re-counted."""
    offsets = "char"

    def setup(self):
        from llama_index.core.node_parser import (
            HTMLNodeParser,
            MarkdownNodeParser,
            SentenceSplitter,
        )
        self.ss = SentenceSplitter(chunk_size=BUDGET, chunk_overlap=0, tokenizer=self.enc.encode)
        self.pre = None
        if self.fmt == "md":
            self.pre = MarkdownNodeParser()
            self.headings = "yes (header_path)"
        elif self.fmt == "html":
            self.pre = HTMLNodeParser()
            self.headings = "tag only"

    def run(self, texts):
        from llama_index.core import Document
        out = []
        for t in texts:
            nodes = [Document(text=t)]
            if self.pre is not None:
                nodes = self.pre(nodes)
            out.append(self.ss(nodes))
        return out

    def records(self, out, texts):
        from llama_index.core.schema import MetadataMode
        return [[(n.get_content(metadata_mode=MetadataMode.NONE), n.start_char_idx, n.end_char_idx,
                  n.metadata.get("header_path") or n.metadata.get("tag")) for n in ns]
                for ns in out]


class TiktokenFloor(Cell):
    """Not a chunker: one encode_ordinary pass (the floor), for whole-process comparisons."""
    offsets = "-"

    def run(self, texts):
        return [len(self.enc.encode_ordinary(t)) for t in texts]

    def records(self, out, texts):
        return [[] for _ in texts]


LIBS = {
    "tiktoken-floor": (TiktokenFloor, ("md", "html", "rst", "txt")),
    "langchain": (LangChain, ("md", "html", "rst", "txt")),
    "langchain-htmlsem": (LangChainHtmlSemantic, ("html",)),
    "chonkie-recursive": (ChonkieRecursive, ("md", "html", "rst", "txt")),
    "chonkie-token": (ChonkieToken, ("md", "html", "rst", "txt")),
    "semchunk": (Semchunk, ("md", "html", "rst", "txt")),
    "semchunk-nomemo": (SemchunkNoMemo, ("md",)),
    "sts": (SemanticTextSplitter, ("md", "html", "rst", "txt")),
    "sts-batch": (SemanticTextSplitterAll, ("md",)),
    "llamaindex": (LlamaIndex, ("md", "html", "rst", "txt")),
    "fastrag": (Fastrag, ("md", "html", "rst", "txt")),
    "fastrag-validated": (FastragValidated, ("md", "html", "rst", "txt")),
}


def make(name, fmt, enc):
    cls, fmts = LIBS[name]
    if fmt not in fmts:
        raise SystemExit(f"{name} has no {fmt} cell")
    return cls(fmt, enc)
