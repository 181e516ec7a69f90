#!/usr/bin/env bash
# One search round vs the gap loop on HotpotQA (and the example set), as recorded in
# benchmarks/README.md. Usage: benchmarks/eval_hotpotqa.sh [LIMIT] [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."

limit="${1:-100}"
out="${2:-/tmp}"
data="../shared/eval/hotpotqa"
if [[ ! -f "$data/questions.jsonl" ]]; then
    echo "error: $data/questions.jsonl not found" >&2
    exit 64
fi

for rounds in 2 0; do
    echo "== HotpotQA, first $limit questions, --max-rounds $rounds"
    grounded-research eval "$data/questions.jsonl" --corpus "$data/corpus.jsonl" \
        --limit "$limit" --max-rounds "$rounds" --out "$out/hotpotqa-rounds$rounds.json" -q
    echo "== example set, --max-rounds $rounds"
    grounded-research eval examples/questions.jsonl --corpus examples/solid-state \
        --max-rounds "$rounds" --out "$out/examples-rounds$rounds.json" -q
done
