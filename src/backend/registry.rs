//! How each backend is built, and what `--backend` names: a backend, or
//! `auto`. The only file that knows every backend's type; none of them
//! reads it.

use clap::builder::PossibleValue;

use super::bitsliced::BitslicedBackend;
use super::cpu::bits::Bits32Backend;
use super::cpu::CpuBackend;
use super::gpu::{AdapterChoice, AdapterName};
use super::kind::BackendKind;
use super::lanes::LanesBackend;
use super::Backend;
use crate::error::{Error, Result};

impl BackendKind {
    /// Builds it; a GPU backend takes any adapter with compute shaders,
    /// software ones too.
    pub fn build(self) -> Result<Box<dyn Backend>> {
        self.build_on(None)
    }

    /// Builds it, a GPU backend on the `adapter` named (`--adapter`), if any;
    /// a CPU backend with an adapter named is an error.
    pub fn build_on(self, adapter: Option<&AdapterName>) -> Result<Box<dyn Backend>> {
        let choice = adapter.map_or(AdapterChoice::Any, |name| AdapterChoice::Named(name.clone()));
        Ok(match self {
            BackendKind::Gpu | BackendKind::GpuBits => gpu_backend(choice, self)?.0,
            _ if adapter.is_some() => {
                return Err(Error::Settings(format!(
                    "--adapter picks a GPU; the {} backend runs on the CPU",
                    self.name()
                )))
            }
            BackendKind::Cpu => Box::new(CpuBackend::new()),
            BackendKind::CpuBits => Box::new(BitslicedBackend::new()),
            BackendKind::CpuLanes => Box::new(LanesBackend::new()),
            BackendKind::Bits32 => Box::new(Bits32Backend::new()),
        })
    }
}

/// A GPU backend of `kind` on an adapter of `choice`, and the adapter's name.
#[cfg(feature = "gpu")]
fn gpu_backend(choice: AdapterChoice, kind: BackendKind) -> Result<(Box<dyn Backend>, String)> {
    let gpu = super::gpu::GpuBackend::new(choice, kind)?;
    let adapter = gpu.adapter().name.clone();
    Ok((Box::new(gpu), adapter))
}

/// Without the `gpu` feature there is none.
#[cfg(not(feature = "gpu"))]
fn gpu_backend(_choice: AdapterChoice, _kind: BackendKind) -> Result<(Box<dyn Backend>, String)> {
    Err(Error::NoAdapter("this build has no GPU backends (built without the `gpu` feature)".into()))
}

/// What `--backend` names: a backend, or `auto`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BackendChoice {
    /// A hardware GPU if there is one (`gpu`), else the CPU (`cpu-lanes`).
    Auto,
    Kind(BackendKind),
}

impl BackendChoice {
    /// Builds the backend, saying on stderr which one `auto` picked and why.
    pub fn build(self) -> Result<(BackendKind, Box<dyn Backend>)> {
        self.build_on(None)
    }

    /// [`BackendChoice::build`] on the `adapter` named, if any: then `auto`
    /// is `gpu` on that adapter, or an error.
    pub fn build_on(self, adapter: Option<&AdapterName>) -> Result<(BackendKind, Box<dyn Backend>)> {
        match (self, adapter) {
            (BackendChoice::Kind(kind), _) => Ok((kind, kind.build_on(adapter)?)),
            (BackendChoice::Auto, Some(_)) => Ok((BackendKind::Gpu, BackendKind::Gpu.build_on(adapter)?)),
            (BackendChoice::Auto, None) => Ok(match gpu_backend(AdapterChoice::Hardware, BackendKind::Gpu) {
                Ok((gpu, adapter)) => {
                    say!("auto picked the gpu backend on {adapter}");
                    (BackendKind::Gpu, gpu)
                }
                // The fastest CPU backend (BENCHMARKS.md: the least CPU time per puzzle).
                Err(why) => {
                    say!("auto picked the cpu-lanes backend ({why})");
                    (BackendKind::CpuLanes, Box::new(LanesBackend::new()))
                }
            }),
        }
    }

    /// The choice `name` makes (as `--backend` reads it, any case), or a
    /// refusal that lists the names: for callers that read names
    /// themselves (the server, the Python module).
    pub fn named(name: &str) -> Result<BackendChoice> {
        use clap::ValueEnum;
        BackendChoice::from_str(name, true).map_err(|_| {
            let names: Vec<String> = BackendChoice::value_variants()
                .iter()
                .filter_map(|choice| choice.to_possible_value().map(|value| value.get_name().to_string()))
                .collect();
            Error::Settings(format!("unknown backend {name:?} (one of {})", names.join(", ")))
        })
    }

    /// Where a run of this choice goes on when the GPU fails mid-run: `auto`
    /// on the CPU backend it would pick without a GPU; an explicit choice nowhere.
    pub fn fallback(self) -> Option<BackendKind> {
        match self {
            BackendChoice::Auto => Some(BackendKind::CpuLanes),
            BackendChoice::Kind(_) => None,
        }
    }
}

impl clap::ValueEnum for BackendChoice {
    fn value_variants<'a>() -> &'a [Self] {
        // Every backend, then auto.
        const CHOICES: [BackendChoice; BackendKind::ALL.len() + 1] = {
            let mut choices = [BackendChoice::Auto; BackendKind::ALL.len() + 1];
            let mut i = 0;
            while i < BackendKind::ALL.len() {
                choices[i] = BackendChoice::Kind(BackendKind::ALL[i]);
                i += 1;
            }
            choices
        };
        &CHOICES
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(match self {
            BackendChoice::Auto => PossibleValue::new("auto").help("a hardware GPU if present (gpu), else cpu-lanes"),
            BackendChoice::Kind(kind) => PossibleValue::new(kind.name()).help(kind.about()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_twins_pair_up() {
        use clap::ValueEnum;
        for kind in BackendKind::ALL {
            assert_eq!(BackendChoice::from_str(kind.name(), false), Ok(BackendChoice::Kind(kind)));
            if let Some(twin) = kind.twin() {
                assert_eq!(twin.twin(), Some(kind));
                assert_ne!(twin.is_gpu(), kind.is_gpu(), "a twin runs on the other device");
            }
        }
        assert_eq!(BackendChoice::from_str("auto", false), Ok(BackendChoice::Auto));
    }
}
