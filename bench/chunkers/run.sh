#!/usr/bin/env bash
# fastrag's StructureAwareChunker beside the best existing chunkers (issue 4 benchmark).
# Adapted from the shared anchor harness's run_all.sh (/work/shared/bench-anchors/).
#
# Creates .bench-venv at the repository root (gitignored) with the harness's pinned
# libraries and this project (editable, [normalization]), then runs, each cell in its own
# process: the floors, every (library, format) cell, the scaling step, the summary.
#
#   CORPUS_DIR    corpus built by bench-anchors/build_corpus.sh (default /work/bench-corpus)
#   RESULTS_DIR   where the *.jsonl and summary.md go (default bench/results)
#   RUNS          timed (library, floor) pairs per cell (default 5; 3 on a busy machine)
#   LIBS          cells to run (default: fastrag and the five anchors)
#   FMTS          formats (default: md html rst txt)
#   SCALING_LIBS  libraries for the 1/10/50 MB step (default: floor fastrag chonkie-recursive;
#                 the anchors' own scaling figures are in the harness README)
#   STEPS         any of: floors cells scaling (default: all three)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="$root/.bench-venv"
export CORPUS_DIR="${CORPUS_DIR:-/work/bench-corpus}"
RD="${RESULTS_DIR:-$root/bench/results}"
RUNS="${RUNS:-5}"
LIBS="${LIBS:-fastrag chonkie-recursive semchunk sts langchain llamaindex}"
FMTS="${FMTS:-md html rst txt}"
SCALING_LIBS="${SCALING_LIBS:-floor,fastrag,chonkie-recursive}"
STEPS="${STEPS:-floors cells scaling}"

if [ ! -x "$venv/bin/python" ]; then
  "${PYTHON:-python3.11}" -m venv "$venv"
  "$venv/bin/pip" install --quiet -r "$here/requirements.txt"
  "$venv/bin/pip" install --quiet -e "$root[normalization]"
fi
PY="$venv/bin/python"
mkdir -p "$RD"
cd "$here"

case " $STEPS " in *" floors "*)
  "$PY" floors.py --runs 7 --out "$RD/floors.jsonl" $FMTS ;; esac
case " $STEPS " in *" cells "*)
  for fmt in $FMTS; do
    for lib in $LIBS; do
      "$PY" bench_cell.py "$lib" "$fmt" --runs "$RUNS" --out "$RD/cells.jsonl" \
        || echo "FAILED $lib $fmt" >&2
    done
  done ;; esac
case " $STEPS " in *" scaling "*)
  "$PY" scaling.py --sizes 1,10,50 --timeout 300 --libs "$SCALING_LIBS" \
    --out "$RD/scaling.jsonl" ;; esac
"$PY" summarize.py "$RD" > "$RD/summary.md"
cat "$RD/summary.md"
