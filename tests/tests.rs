//! Integration tests, one file per topic (ripgrep's layout).

mod cli;
mod model;
mod tempering;
mod util;
