//! The experiments: variants of the kernels that a benchmark can select to
//! time an idea on a GPU before adopting it. Nothing on the production
//! path sets one; each keeps the chains exact (the twin tests pass with it).

/// Variants of the kernels a benchmark can select, to time an idea on a
/// GPU before adopting it (`scripts/gpu-bench.sh`, `GPU_BENCH_KERNEL`); the
/// default is what runs. Each says what it was predicted to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct KernelOptions {
    /// bits.wgsl: totals stay in global memory even where they fit in the
    /// workgroup's: what the 25×25 path costs on 9×9. On an H200 with the
    /// saturating sums, 1.17–1.21× the attempts/s at 65,536 replicas but
    /// 0.80× at the 8,192 whole runs keep in flight, and 0.81–0.83× the
    /// puzzles/s of whole runs (BENCHMARKS.md): not adopted.
    pub global_totals: bool,
    /// At most this many replicas or words per workgroup, instead of the
    /// kernel's own most: occupancy against barriers (H200: spins.wgsl
    /// +1.5 % at 2, −13 % at 8; bits.wgsl with exact sums +5–8 % at 1, its
    /// own most since session 47).
    pub units_per_group: Option<u32>,
    /// cells.wgsl: this many invocations per replica instead of its own
    /// (8 up to 9×9, 16 above).
    pub cell_invocations: Option<u32>,
}

impl KernelOptions {
    /// Options from text like `global-totals,units-per-group=2`; empty: none.
    pub fn parse(text: &str) -> Result<KernelOptions, String> {
        let mut options = KernelOptions::default();
        let count = |name: &str, n: &str| match n.parse() {
            Ok(n @ 1..=64) => Ok(Some(n)),
            _ => Err(format!("{name} takes 1 to 64, not {n:?}")),
        };
        for option in text.split(',').map(str::trim).filter(|o| !o.is_empty()) {
            match option.split_once('=') {
                None if option == "global-totals" => options.global_totals = true,
                Some((name @ "units-per-group", n)) => options.units_per_group = count(name, n)?,
                Some((name @ "cell-invocations", n)) => options.cell_invocations = count(name, n)?,
                _ => {
                    return Err(format!(
                        "unknown kernel option {option:?} (global-totals, units-per-group=N, cell-invocations=N)"
                    ))
                }
            }
        }
        Ok(options)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::gpu::kernel::{Engine, Kernel};
    use crate::dynamics::Weights;
    use crate::grid::Shape;

    #[test]
    fn kernel_options_parse_and_say_what_is_wrong() {
        let options = KernelOptions::parse("global-totals, units-per-group=2, cell-invocations=8").unwrap();
        assert_eq!(options, KernelOptions { global_totals: true, units_per_group: Some(2), cell_invocations: Some(8) });
        assert_eq!(KernelOptions::parse(""), Ok(KernelOptions::default()));
        assert!(KernelOptions::parse("units-per-group=0").unwrap_err().contains("1 to 64"));
        assert!(KernelOptions::parse("fast").unwrap_err().contains("unknown kernel option \"fast\""));
        let bits = |options| {
            Kernel::with_options(Engine::Bits, Shape::CLASSIC, Weights::Fixed, false, None, 16384, options).unwrap()
        };
        let varied = bits(KernelOptions::parse("global-totals,units-per-group=1").unwrap());
        assert_eq!((varied.sum_planes, varied.workgroup_totals, varied.per_group), (3, false, 1));
    }
}
