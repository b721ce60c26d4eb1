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

.PHONY: install test lint typecheck unit demo bench clean

$(STAMP):
	@command -v $(PYTHON) >/dev/null || { echo "error: $(PYTHON) not found; install Python 3.11 or run 'make PYTHON=python3 ...'"; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet "$(TORCH)"
	$(BIN)/python -m pip install --quiet -e ".[$(EXTRAS)]"
	rm -f $(VENV)/.installed-*
	touch $@

install: $(STAMP)

lint: install
	$(BIN)/ruff check src tests bench

typecheck: install
	$(BIN)/mypy --strict src

unit: install
	$(BIN)/python -m pytest --cov=fastrag --cov-branch --cov-report=term -q

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
