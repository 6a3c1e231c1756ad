#!/usr/bin/env bash
# GPU benchmarks on the lent H100 (see ../shared/GPU.md).
#
#   here:  scripts/gpu-bench.sh prepare   # release build + bench binary + puzzle subsets -> .device/
#   there: one `run` call of the device tool with carry [".gl", ".device"] and the command
#          for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig; bash scripts/gpu-bench.sh run
#
# `run` writes every log under $OUT: devices, the criterion sweep bench,
# time-to-solution on Inkala over seeds and ladder counts, and the first
# 100 puzzles of forum_hardest_1905_11+.
set -euo pipefail
cd "$(dirname "$0")/.."

case "${1:-}" in
prepare)
    cargo build --release
    bench=$(cargo bench --bench sweep --no-run --message-format=json 2>/dev/null |
        python3 -c 'import sys,json; print([j["executable"] for j in map(json.loads, sys.stdin) if j.get("executable") and j["target"]["name"]=="sweep"][0])')
    mkdir -p .device
    strip -o .device/sudoku-anneal target/release/sudoku-anneal
    strip -o .device/sweep-bench "$bench"
    head -100 <(grep -v '^#' "../shared/puzzles/puzzles5_forum_hardest_1905_11+") > .device/hardest100.txt
    cp examples/hard.txt .device/
    du -sh .device
    ;;
run)
    export XDG_RUNTIME_DIR=/tmp/xdg
    mkdir -p -m 700 "$XDG_RUNTIME_DIR"
    out=${OUT:-/tmp/out}
    bin=.device/sudoku-anneal
    inkala=$(sed -n 's/^\(8\.\.\.\.\.\.\.\.\.\.36[^ ]*\).*/\1/p' .device/hard.txt)
    nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv | tee "$out/gpu.txt"
    $bin devices | tee -a "$out/gpu.txt"
    for replicas in ${REPLICAS:-4096 16384 65536 262144}; do
        GPU_BENCH_REPLICAS=$replicas .device/sweep-bench --bench gpu_sweep --warm-up-time 1 --measurement-time 4 2>&1 |
            grep -E '^gpu_sweep|thrpt:'
    done | tee "$out/sweep-bench.txt"
    for ladders in ${LADDERS:-64 256 1024}; do
        for seed in 0 1 2 3 4 5 6 7; do
            $bin solve --backend gpu --ladders "$ladders" --seed "$seed" --format jsonl "$inkala" 2>/dev/null |
                sed "s/^{/{\"ladders\":$ladders,/"
        done
    done | tee "$out/inkala.jsonl"
    $bin solve --backend gpu --format jsonl .device/hardest100.txt 2> "$out/hardest100.err" > "$out/hardest100.jsonl" || true
    cat "$out/hardest100.err"
    ;;
*)
    echo "usage: $0 prepare|run" >&2
    exit 2
    ;;
esac
