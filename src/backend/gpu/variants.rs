//! The experiments: variants of the kernels that a benchmark can select to
//! time an idea on a GPU before adopting it. Nothing on the production
//! path sets one; each keeps the chains exact (the twin tests pass with it).

/// Variants of the kernels a benchmark can select, to time an idea on a
/// GPU before adopting it (`scripts/gpu-bench.sh`, `GPU_BENCH_KERNEL`); the
/// default is what runs. Each says what it was predicted to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct KernelOptions {
    /// bits.wgsl: a spin's sum of totals saturates in as few planes as
    /// cpu-bits' (3 on 9×9 boards instead of 6), a thinned lane's exact sum
    /// read from the totals. The same decisions (the twin tests pass);
    /// predicted +5 to +15 % attempts/s on an H100, −7 to −10 % on lavapipe.
    pub saturating_sums: bool,
    /// bits.wgsl: totals stay in global memory even where they fit in the
    /// workgroup's: what the 25×25 path costs on 9×9. Predicted −20 to −50 %.
    pub global_totals: bool,
    /// At most this many replicas or words per workgroup, instead of 4:
    /// occupancy against barriers (spins.wgsl measured +1.5 % at 2, −13 % at 8).
    pub units_per_group: Option<u32>,
}

impl KernelOptions {
    /// Options from text like `saturating-sums,units-per-group=2`; empty: none.
    pub fn parse(text: &str) -> Result<KernelOptions, String> {
        let mut options = KernelOptions::default();
        for option in text.split(',').map(str::trim).filter(|o| !o.is_empty()) {
            match option.split_once('=') {
                None if option == "saturating-sums" => options.saturating_sums = true,
                None if option == "global-totals" => options.global_totals = true,
                Some(("units-per-group", n)) => match n.parse() {
                    Ok(n @ 1..=64) => options.units_per_group = Some(n),
                    _ => return Err(format!("units-per-group takes 1 to 64, not {n:?}")),
                },
                _ => {
                    return Err(format!(
                        "unknown kernel option {option:?} (saturating-sums, global-totals, units-per-group=N)"
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
        let options = KernelOptions::parse("saturating-sums, units-per-group=2").unwrap();
        assert_eq!(options, KernelOptions { saturating_sums: true, units_per_group: Some(2), ..Default::default() });
        assert_eq!(KernelOptions::parse(""), Ok(KernelOptions::default()));
        assert!(KernelOptions::parse("units-per-group=0").unwrap_err().contains("1 to 64"));
        assert!(KernelOptions::parse("fast").unwrap_err().contains("unknown kernel option \"fast\""));
        let bits =
            |options| Kernel::with_options(Engine::Bits, Shape::CLASSIC, Weights::Fixed, 16384, options).unwrap();
        let varied = bits(KernelOptions::parse("saturating-sums,global-totals,units-per-group=1").unwrap());
        assert_eq!((varied.sum_planes, varied.workgroup_totals, varied.per_group), (3, false, 1));
    }
}
