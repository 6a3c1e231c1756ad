# sudoku-anneal in a container: the release binary on a slim Debian with
# Vulkan's loader and Mesa's drivers (lavapipe runs the shaders on the CPU
# where there is no GPU).
#
#   docker build -t sudoku-anneal .
#   docker run --rm sudoku-anneal devices
#   docker run --rm -v "$PWD/examples:/data" sudoku-anneal solve /data/hard.txt
#
# On NVIDIA GPUs, the NVIDIA Container Toolkit brings the driver's Vulkan
# ICD into the container when its capabilities include `graphics` (Vulkan
# lives there, not in `compute`), as this image asks:
#
#   docker run --rm --gpus all sudoku-anneal devices      # lists the GPUs
#
# scripts/docker-check.sh builds it and checks both commands above.

FROM rust:1.95-slim-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked

FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends libvulkan1 mesa-vulkan-drivers ca-certificates \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/target/release/sudoku-anneal /usr/local/bin/sudoku-anneal
ENV NVIDIA_DRIVER_CAPABILITIES=compute,utility,graphics \
    XDG_RUNTIME_DIR=/tmp
ENTRYPOINT ["sudoku-anneal"]
CMD ["--help"]
