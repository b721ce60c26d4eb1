# `make test` and `make demo` work on a fresh machine with only Python 3.11:
# each builds .venv from nothing (once) and installs what it needs.
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
EXTRAS := dev,normalization,hf,cli,pdf,pymupdf,office,docling,embeddings,eval,milvus,dask,langchain
# torch first and explicitly: the CPU build pip finds on local disk; left to a resolver,
# sentence-transformers would pull a multi-GB CUDA build.
TORCH  := torch==2.13.0
STAMP  := $(VENV)/.installed-$(shell cat pyproject.toml Makefile | sha256sum | cut -c1-12)
COMPILED := $(VENV)/.compiled-$(shell cat setup.py $$(sed -n 's/^    "\(src\/.*\.\(py\|c\)\)",$$/\1/p' setup.py) | sha256sum | cut -c1-12)

COMPILED_TESTS := tests/golden tests/property tests/unit/packing tests/unit/tokenization \
	tests/unit/normalization tests/unit/test_compiled.py

.PHONY: install test lint typecheck unit demo bench clean

$(STAMP):
	@command -v $(PYTHON) >/dev/null || { echo "error: $(PYTHON) not found; install Python 3.11 or run 'make PYTHON=python3 ...'"; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip "setuptools>=69" wheel
	$(BIN)/python -m pip install --quiet "$(TORCH)"
	FASTRAG_PURE_PYTHON_BUILD=1 $(BIN)/python -m pip install --quiet -e ".[$(EXTRAS)]"
	rm -f $(VENV)/.installed-*
	touch $@

# The engine's hot modules compiled with mypyc, and the hand-written C counter (setup.py
# lists both: COMPILED, NATIVE), rebuilt whenever one of them changes: an editable
# install keeps the compiled file beside its source and Python imports the compiled one,
# so a stale build would hide an edit.
$(COMPILED): $(STAMP)
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	rm -f $(VENV)/.compiled-*
	touch $@

install: $(COMPILED)

lint: install
	$(BIN)/ruff check src tests bench setup.py

typecheck: install
	$(BIN)/mypy --strict src

# The whole suite on the Python sources (coverage can only trace those), then the
# engine's tests again on the compiled build that users import.
unit: install
	FASTRAG_PURE_PYTHON=1 $(BIN)/python -m pytest --cov=fastrag --cov-branch --cov-report=term -q
	FASTRAG_REQUIRE_COMPILED=1 $(BIN)/python -m pytest -q -p no:cacheprovider $(COMPILED_TESTS)

test: lint typecheck unit

demo: install
	$(BIN)/fastrag ingest examples/documents -o out/chunks.jsonl --report out/report.json
	$(BIN)/fastrag validate out/chunks.jsonl --source-dir examples/documents
	$(BIN)/fastrag ingest examples/documents -o out/indexed.jsonl --store milvus:out/fastrag.db \
		--metadata tenant=demo
	$(BIN)/fastrag search "How do I define a class in Python?" --store milvus:out/fastrag.db \
		--tenant demo --k 3 --expand-sections --sections out/indexed.jsonl.sections.sqlite

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .coverage build dist src/*.egg-info
	find src -name '*.so' -delete
