#!/usr/bin/env bash
# The whole GPU benchmark in one call, on whatever GPU this machine has:
#
#   scripts/gpu-bench.sh [OUT]     logs into OUT (default: gpu-bench/)
#
# It needs nothing outside this repository. With cargo it builds the
# release binary and the benches first; without (a GPU machine with no
# toolchain) it runs those a build left in GPU_BENCH_BIN (default
# target/release): build here with `cargo build --release && cargo bench
# --no-run`, copy sudoku-anneal and the newest deps/sweep-* and
# deps/pipeline-* into a folder of that shape (~30 MB; target/release
# itself is too large to carry) and carry it along with the tree. A
# software adapter (lavapipe) is taken when there is no other, with fewer
# replicas, as a dry run. On a hardware GPU it takes about 6 minutes, the
# most telling parts first, so that it fits a 15-minute lease with time
# to spare; what a cut-off run wrote is kept. It writes a dozen files: where
# only a few may come back, run it under `timeout` and pack OUT after it
# (`tar czf`), so a cut-off run still comes back whole.
#
# What it writes, each with the command that made it:
#   devices.txt      the adapters, and the one each GPU backend takes
#   sweep.txt        the sweep kernels, attempts/s (criterion) at 8,192
#                    (the cell default's 256 puzzles in flight) to 262,144
#                    replicas: spins.wgsl, cells.wgsl, bits.wgsl
#   host.txt         the solver against an instant device on this machine's
#                    cores: the most puzzles/s the host allows
#   *.md, *.json     bench tables: benches/data/hardest100.txt and
#                    examples/hard.txt, all at once and one at a time, on gpu
#                    (cell and spin moves, and cell moves with --complete
#                    off and sampled) and gpu-bits, with cpu-lanes beside
#   large-boards.md  generated 16×16 and 25×25 boards on each backend (python3)
#   collections.md   with GPU_BENCH_COLLECTIONS="FILE ..." (larger sets, carried
#                    along: the fixed public sets are not in the repository):
#                    each backend at its defaults, gpu with --reduce propagate
#                    (as before probing, session 39), and gpu at 256 and 512 in
#                    flight with completion from all kept cells, from a sample
#                    of them, and without (session 55: 512 won by 3-9 % with
#                    it; the default waits on the plain runs)
#   variants.txt     each kernel option (KernelOptions) after the kernel that
#                    runs, at 8,192 replicas (as whole runs keep), in the same call
#   large-sweep.txt  cells.wgsl on the public 25×25 by replicas in flight (3 to
#                    256 puzzles' worth), as it runs and with two replicas a
#                    workgroup (the shape before session 47)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-gpu-bench}
mkdir -p "$out"
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp/xdg}
mkdir -p -m 700 "$XDG_RUNTIME_DIR"

if command -v cargo >/dev/null; then
    cargo build --release --quiet
    cargo bench --no-run --quiet 2>/dev/null
fi
bins=${GPU_BENCH_BIN:-target/release}
bin=$bins/sudoku-anneal
newest() { ls -t "$bins"/deps/"$1"-* 2>/dev/null | grep -v '\.d$' | head -1; }
sweep=$(newest sweep)
pipeline=$(newest pipeline)
[ -x "$bin" ] && [ -x "$sweep" ] && [ -x "$pipeline" ] || {
    echo "gpu-bench: no binaries in $bins: build them (see the top of $0)" >&2
    exit 2
}
run() { # run NAME COMMAND...: the command and its output into OUT/NAME
    local name=$1
    shift
    { echo "\$ $*"; "$@" 2>&1; } | tee -a "$out/$name"
}
criterion=(--warm-up-time 1 --measurement-time 3 --sample-size 20)
hardware=true
$bin devices | tee "$out/devices.txt"
grep -q ' <- auto' "$out/devices.txt" || hardware=false
if $hardware; then
    replicas=(8192 65536 262144)
    # Whole runs keep 8,192 replicas in flight (256 puzzles): global totals
    # ran 1.2x faster at 65,536 but 0.8x at 8,192 (session 45).
    variant_replicas=8192
    sets=(benches/data/hardest100.txt examples/hard.txt)
    runs=3
else
    echo "gpu-bench: no hardware GPU; a dry run on the software adapter" | tee -a "$out/devices.txt"
    replicas=(1024)
    variant_replicas=1024
    sets=(examples/hard.txt)
    runs=1
    criterion=(--warm-up-time 0.1 --measurement-time 0.5 --sample-size 10)
    export GPU_BENCH_SWEEPS=2 GPU_BENCH_LARGE_REPLICAS=32
fi

for n in "${replicas[@]}"; do
    GPU_BENCH_REPLICAS=$n run sweep.txt "$sweep" --bench gpu_sweep "${criterion[@]}"
done
run host.txt "$pipeline" --bench host_ceiling "${criterion[@]}"

# All at once at each backend's defaults; the GPU backends' first use is
# paid by bench's untimed warm-up puzzle.
run bench.md $bin bench --backend gpu,gpu-bits,cpu-lanes --runs $runs --json "$out/bench.json" --plot "$out/bench.svg" "${sets[@]}"
run bench-spins.md $bin bench --backend gpu --moves spin --runs $runs --json "$out/bench-spins.json" "${sets[@]}"
# The annealers alone: no grid completed (gpu and cpu-lanes complete them by default on 9×9).
run bench-plain.md $bin bench --backend gpu,cpu-lanes --complete off --runs $runs --json "$out/bench-plain.json" "${sets[@]}"
# gpu completing from a sample of a hot chain's kept cells, as cpu-lanes does
# by default (0.66-0.75 of the work of all of them: BENCHMARKS.md, session 61).
run bench-sampled.md $bin bench --backend gpu --complete sampled --runs $runs --json "$out/bench-sampled.json" "${sets[@]}"
# One puzzle at a time: the latency of a single solve.
run one-at-a-time.md $bin bench --backend gpu,gpu-bits,cpu-lanes --batch 1 --runs $runs --json "$out/one-at-a-time.json" "${sets[@]}"
run one-at-a-time-spins.md $bin bench --backend gpu --moves spin --batch 1 --runs $runs "${sets[@]}"
# Boards above 9×9, where the cell kernel takes another shape (session 45:
# the 9×9 one ran them 0.6–0.8× as fast), generated as BENCHMARKS.md's
# 16×16 and 25×25 sets were; a sweep budget keeps the time bounded.
if $hardware && command -v python3 >/dev/null; then
    python3 scripts/generate_puzzles.py --n 16 --count 40 --keep 0.4 --seed 7 >"$out/g16.txt"
    python3 scripts/generate_puzzles.py --n 25 --count 12 --keep 0.45 --seed 7 >"$out/g25.txt"
    run large-boards.md $bin bench --backend gpu,gpu-bits,cpu-lanes --runs 1 --max-sweeps 4000 "$out/g16.txt" "$out/g25.txt"
fi
# Collections, where throughput is what counts; 2,048 in flight was slower
# than 256 while the two banks' rounds were serialized, 1,024 without
# completion too (BENCHMARKS.md).
if [ -n "${GPU_BENCH_COLLECTIONS:-}" ]; then
    read -ra collections <<<"$GPU_BENCH_COLLECTIONS"
    run collections.md $bin bench --backend gpu,gpu-bits,cpu-lanes --runs 1 --json "$out/collections.json" "${collections[@]}"
    run collections.md $bin bench --backend gpu --reduce propagate --runs 1 "${collections[@]}"
    # 256 and 512 in flight, alternated, with completion from all kept
    # cells, from a sample of them, and without (the annealer alone).
    for pass in 1 2; do
        for complete in singles sampled off; do
            for batch in 256 512; do
                run collections.md $bin bench --backend gpu --complete $complete --batch $batch --runs 1 \
                    --json "$out/collections-$complete-$batch-$pass.json" "${collections[@]}"
            done
        done
    done
fi
# Each variant after the kernel that runs, in this call (machine instances
# differ by up to 1.5×: compare within one call only). Read the times:
# criterion cuts the names short, so its "change" lines compare a variant
# with the one timed before it. (units-per-group=2 left the list in session
# 47: 0.85-0.87x on cells.wgsl, and bits.wgsl now holds one word.)
for variant in "" cell-invocations=16,units-per-group=2 global-totals; do
    # criterion cuts long names short: say which variant the lines below are.
    echo "variant: ${variant:-(the kernel that runs)}" | tee -a "$out/variants.txt"
    GPU_BENCH_KERNEL=$variant GPU_BENCH_REPLICAS=$variant_replicas run variants.txt \
        "$sweep" --bench 'gpu_sweep.*(one temperature|Cell)' "${criterion[@]}"
done
# 25×25 by replicas in flight: where one workgroup more a multiprocessor
# starts to pay (session 47: 10 puzzles 1.7× with three replicas a
# workgroup, 6 puzzles not).
for variant in "" units-per-group=2; do
    echo "variant: ${variant:-(the kernel that runs)}" | tee -a "$out/large-sweep.txt"
    # (gpu_sweep sets itself up before criterion's filter skips it: at few replicas.)
    GPU_BENCH_KERNEL=$variant GPU_BENCH_REPLICAS=1024 run large-sweep.txt \
        "$sweep" --bench gpu_cells_large "${criterion[@]}"
done
echo "gpu-bench: done; logs in $out/"
