//! Integration tests, one file per topic (ripgrep's layout).

mod bitsliced;
mod browser;
mod cells;
mod cli;
mod cpu_vs_gpu;
mod faults;
mod fuzz;
mod model;
mod reliability;
mod serve;
mod tempering;
mod util;
