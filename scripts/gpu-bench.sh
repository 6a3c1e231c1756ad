#!/usr/bin/env bash
# GPU benchmarks on the lent H100 (see ../shared/GPU.md).
#
#   here:  scripts/gpu-bench.sh prepare [OLD]   # release build + bench binary + puzzle subsets -> .device/
#   there: one `run` call of the device tool with carry [".gl", ".device"] and the command
#          for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig; bash scripts/gpu-bench.sh run|compare|bits|variants
#
# What is waiting for a device (session 18): `prepare 3e55107`, then three
# calls, each well under the 600 s a call may take: `bits` (~5 min),
# `variants` (~3 min), `compare` (two banks against 3e55107, ~4 min).
#
# With OLD (a commit), `prepare` also builds that commit as
# .device/sudoku-anneal-old, and `compare` alternates old and new binaries
# in one call (machine instances differ by up to 1.5×: never compare
# figures from two calls).
#
# `run` writes every log under $OUT: devices, the criterion sweep bench at
# four replica counts, and the time-to-solution figures of BENCHMARKS.md
# (hardest-100 one at a time at the defaults and at the latency settings,
# the first 10,000 hardest and top1465 batched, Inkala after a warm-up
# puzzle over 16 seeds), and `bench` CPU vs GPU.
#
# `bits` measures the bit-sliced kernel (gpu-bits) beside the scalar one:
# the sweep bench (both kernels, and gpu-bits without uphill acceptances
# to see what the comparisons cost), the host's own ceiling, throughput on the
# first 10,000 hardest at 128-1,024 chains per puzzle with 65,536 and
# 262,144 chains in flight (a chain is an invocation, and the H100 holds
# ~150,000 resident: 132 SMs × 9 workgroups of 128 by workgroup memory),
# hardest-100 and Inkala one at a time, and `bench` with cpu-bits, gpu and
# gpu-bits.
#
# `variants` runs the sweep bench of each kernel variant in
# scripts/kernel-variants/ (a patch each, its header says what it tests
# and what was predicted) alternated with the committed kernel.
set -euo pipefail
cd "$(dirname "$0")/.."

case "${1:-}" in
prepare)
    # Variants are built by patching src/ and shaders/ and restoring them from git.
    git diff --quiet -- src shaders || { echo "prepare: commit src/ and shaders/ first" >&2; exit 2; }
    cargo build --release
    bench_binary() {
        cargo bench --bench "$1" --no-run --message-format=json 2>/dev/null | python3 -c 'import sys,json
print([j["executable"] for j in map(json.loads, sys.stdin) if j.get("executable") and j["target"]["name"]==sys.argv[1]][0])' "$1"
    }
    rm -rf .device /tmp/kernel-variants
    mkdir -p .device /tmp/kernel-variants
    strip -o .device/sudoku-anneal target/release/sudoku-anneal
    strip -o .device/sweep-bench "$(bench_binary sweep)"
    strip -o .device/pipeline-bench "$(bench_binary pipeline)"
    # The sweep bench with each kernel variant (scripts/kernel-variants/*.patch,
    # experiments and diagnostics, not products), in one archive: the
    # binaries differ in little more than their shader text, so xz stores
    # them at about the cost of one (the device tool carries 64 MiB at most).
    trap 'git checkout -- src shaders' EXIT
    for patch in scripts/kernel-variants/*.patch; do
        git apply "$patch"
        strip -o "/tmp/kernel-variants/sweep-bench-$(basename "$patch" .patch)" "$(bench_binary sweep)"
        git checkout -- src shaders
    done
    XZ_OPT=-9 tar -cJf .device/kernel-variants.tar.xz -C /tmp/kernel-variants .
    awk '!/^#/ && n < 10000 { print; n++ }' "../shared/puzzles/puzzles5_forum_hardest_1905_11+" > .device/hardest10000.txt
    head -100 .device/hardest10000.txt > .device/hardest100.txt
    grep -v '^#' ../shared/puzzles/puzzles3_magictour_top1465 | grep . > .device/top1465.txt
    cp examples/hard.txt .device/
    grep -e 'Golden Nugget' -e 'Inkala 2012' examples/hard.txt | sort | cut -c1-81 > .device/warm-inkala.txt
    if [ -n "${2:-}" ]; then
        rm -rf /tmp/gpu-bench-old && git worktree add -f --detach /tmp/gpu-bench-old "$2"
        (cd /tmp/gpu-bench-old && cargo build --release)
        strip -o .device/sudoku-anneal-old /tmp/gpu-bench-old/target/release/sudoku-anneal
        git worktree remove --force /tmp/gpu-bench-old
    fi
    du -sh .device
    ;;
run | compare | bits | variants)
    export XDG_RUNTIME_DIR=/tmp/xdg
    mkdir -p -m 700 "$XDG_RUNTIME_DIR"
    out=${OUT:-/tmp/out}
    bin=.device/sudoku-anneal
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$out/gpu.txt"
    $bin devices | tee -a "$out/gpu.txt"
    stats() {
        python3 - "$1" "$2" <<'PY'
import json, statistics, sys
records = [json.loads(line) for line in open(sys.argv[1])]
ms = sorted(r["seconds"] * 1000 for r in records)
solved = sum(r["status"] == "solved" for r in records)
print(f"{sys.argv[2]}: solved {solved}/{len(records)}, median {statistics.median(ms):.2f} ms, "
      f"p90 {ms[int(len(ms) * 0.9) - 1]:.2f} ms, max {ms[-1]:.2f} ms, "
      f"median sweeps {statistics.median(r['sweeps'] for r in records)}")
PY
    }
    solve() {
        local name=$1 file=$2
        shift 2
        $bin solve --backend "${backend:-gpu}" "$@" --format jsonl "$file" 2> "$out/$name.err" > "$out/$name.jsonl" || true
        tail -1 "$out/$name.err"
        stats "$out/$name.jsonl" "$name [$*]"
    }
    if [ "$1" = compare ]; then
        $bin solve --backend gpu .device/hard.txt > /dev/null 2>&1 # the driver's first-use costs
        for round in 1 2 3; do
            for bin in .device/sudoku-anneal-old .device/sudoku-anneal; do
                echo "== $bin, round $round"
                solve hardest10000 .device/hardest10000.txt
                solve hardest10000-16x256 .device/hardest10000.txt --ladders 16 --batch 256
                solve top1465 .device/top1465.txt
                solve hardest100 .device/hardest100.txt --batch 1
            done
        done
        exit 0
    fi
    variants=/tmp/kernel-variants
    mkdir -p $variants
    python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' \
        .device/kernel-variants.tar.xz $variants
    if [ "$1" = variants ]; then
        # Each variant beside the committed kernel, alternated twice in this
        # one call: gpu-bits at one temperature (its 9×9 default), 65,536 replicas.
        for round in 1 2; do
            for bench in .device/sweep-bench $variants/sweep-bench-*; do
                echo "== $(basename "$bench"), round $round"
                GPU_BENCH_REPLICAS=${GPU_BENCH_REPLICAS:-65536} $bench --bench 'gpu_sweep.*gpu-bits.*one temperature' --warm-up-time 1 \
                    --measurement-time 3 2>&1 | grep -E '^gpu_sweep|thrpt:'
            done
        done | tee "$out/variants.txt"
        exit 0
    fi
    if [ "$1" = bits ]; then
        for replicas in 4096 65536 262144; do
            echo "== $replicas replicas"
            GPU_BENCH_REPLICAS=$replicas .device/sweep-bench --bench gpu_sweep --warm-up-time 1 --measurement-time 3 2>&1 |
                grep -E '^gpu_sweep|thrpt:'
        done | tee "$out/sweep-bench.txt"
        echo "== 65536 replicas, gpu-bits with uphill moves never accepted (diagnostic build)"
        GPU_BENCH_REPLICAS=65536 $variants/sweep-bench-no-uphill --bench 'gpu_sweep.*gpu-bits' --warm-up-time 1 \
            --measurement-time 3 2>&1 | grep -E '^gpu_sweep|thrpt:' | tee -a "$out/sweep-bench.txt"
        # The host's ceiling on this machine's cores (an instant device).
        .device/pipeline-bench --bench host_ceiling --warm-up-time 1 --measurement-time 3 2>&1 |
            grep -E '^host_ceiling|thrpt:' | tee "$out/host-ceiling.txt"
        $bin solve --backend gpu-bits .device/hard.txt > /dev/null 2>&1 # the driver's first-use costs
        solve hardest10000 .device/hardest10000.txt
        for ladders_batch in 128/512 256/256 1024/64 128/2048 1024/256; do
            backend=gpu-bits solve "hardest10000-bits-${ladders_batch/\//x}" .device/hardest10000.txt \
                --ladders "${ladders_batch%/*}" --batch "${ladders_batch#*/}"
        done
        backend=gpu-bits solve top1465-bits .device/top1465.txt
        for ladders in 1024 4096 16384; do
            backend=gpu-bits solve "hardest100-bits-$ladders" .device/hardest100.txt --batch 1 --ladders "$ladders"
        done
        backend=gpu-bits solve hardest100-bits-16384-every10 .device/hardest100.txt --batch 1 --ladders 16384 \
            --exchange-every 10
        for ladders in 4096 16384; do
            for seed in $(seq 0 15); do
                $bin solve --backend gpu-bits --ladders "$ladders" --seed "$seed" --format jsonl .device/warm-inkala.txt \
                    2>/dev/null | tail -1
            done > "$out/inkala-bits-$ladders.jsonl"
            stats "$out/inkala-bits-$ladders.jsonl" "gpu-bits, $ladders chains: inkala after golden nugget, seeds 0-15"
        done
        $bin bench .device/hardest100.txt --backend cpu-bits,gpu,gpu-bits --runs 3 \
            --json "$out/bench-bits.json" --plot "$out/bench-bits.svg" | tee "$out/bench-bits.md"
        exit 0
    fi
    for replicas in 4096 16384 65536 262144; do
        echo "== $replicas replicas"
        GPU_BENCH_REPLICAS=$replicas .device/sweep-bench --bench gpu_sweep --warm-up-time 1 --measurement-time 3 2>&1 |
            grep -E '^gpu_sweep|thrpt:'
    done | tee "$out/sweep-bench.txt"
    solve hardest100 .device/hardest100.txt --batch 1
    solve hardest100-tuned .device/hardest100.txt --batch 1 --replicas 24 --ladders 128 --t-min 0.45 --t-max 1.4
    solve hardest10000 .device/hardest10000.txt
    solve top1465 .device/top1465.txt
    # Inkala after a warm-up puzzle in the same process, 16 seeds.
    for seed in $(seq 0 15); do
        $bin solve --backend gpu --seed "$seed" --format jsonl .device/warm-inkala.txt 2>/dev/null | tail -1
    done > "$out/inkala.jsonl"
    stats "$out/inkala.jsonl" "inkala after golden nugget, seeds 0-15"
    # CPU (the device machine's cores) and GPU side by side, each at its defaults.
    $bin bench .device/hard.txt .device/hardest100.txt --backend cpu,gpu --runs 3 \
        --json "$out/bench.json" --plot "$out/bench.svg" | tee "$out/bench.md"
    ;;
*)
    echo "usage: $0 prepare [OLD_COMMIT] | run | compare | bits | variants" >&2
    exit 2
    ;;
esac
