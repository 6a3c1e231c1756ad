#!/usr/bin/env bash
# Builds the image and checks that the binary inside lists adapters and
# solves on lavapipe (the CPU), as the README's Kubernetes recipe needs:
#
#   scripts/docker-check.sh [IMAGE]     (default: sudoku-anneal:check)
#
# Needs a running Docker daemon that can pull rust and debian images.
set -euo pipefail
cd "$(dirname "$0")/.."
image=${1:-sudoku-anneal:check}
docker build -t "$image" .
docker run --rm "$image" devices
expected=812753649943682175675491283154237896369845721287169534521974368438526917796318452
got=$(docker run --rm "$image" solve --backend gpu '8..........36......7..9.2...5...7.......457.....1...3...1....68..85...1..9....4..')
[ "$got" = "$expected" ] || { echo "docker-check: the gpu backend on lavapipe gave $got" >&2; exit 1; }
got=$(docker run --rm -v "$PWD/examples:/data:ro" "$image" solve --backend cpu-lanes --allow-unsolved /data/hard.txt | wc -l)
[ "$got" = 5 ] || { echo "docker-check: $got records for the 5 puzzles of hard.txt" >&2; exit 1; }
echo "docker-check: $image lists its adapters and solves on lavapipe and the CPU"
