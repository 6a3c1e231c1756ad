//! Which adapter a GPU backend runs on: every adapter wgpu finds, ranked.
//! Without the `gpu` feature there is none, but `--adapter` still parses.

/// Workgroup memory every adapter must offer (WebGPU's default limit): one
/// replica of the largest board fits in it.
#[cfg(feature = "gpu")]
const MIN_WORKGROUP_BYTES: u32 = 16384;

/// Which adapters may be chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AdapterChoice {
    /// Hardware adapters only (what `--backend auto` uses): a software
    /// rasteriser like lavapipe is slower than the CPU backend.
    Hardware,
    /// Any adapter, software ones too (`--backend gpu`, CI on lavapipe).
    Any,
    /// The one the user named (`--adapter`): one shard per GPU of a host.
    Named(AdapterName),
}

/// An adapter as `--adapter` names it: its number in `devices`' list, or
/// a part of its name (in either case) that no other adapter's name has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AdapterName {
    Number(usize),
    Name(String),
}

impl std::str::FromStr for AdapterName {
    type Err = String;
    fn from_str(text: &str) -> Result<AdapterName, String> {
        match text.trim() {
            "" => Err("an adapter is a number from `sudoku-anneal devices` or a part of its name".into()),
            digits if digits.bytes().all(|b| b.is_ascii_digit()) => {
                digits.parse().map(AdapterName::Number).map_err(|e| format!("{digits}: {e}"))
            }
            name => Ok(AdapterName::Name(name.to_string())),
        }
    }
}

impl AdapterName {
    /// The index of the adapter this names among `names`, or why none.
    pub fn find(&self, names: &[String]) -> Result<usize, String> {
        let listed = || match names.len() {
            0 => "no adapter was found".to_string(),
            n => format!(
                "`sudoku-anneal devices` lists {}",
                (0..n).map(|i| format!("{i}: {}", names[i])).collect::<Vec<_>>().join(", ")
            ),
        };
        match self {
            AdapterName::Number(i) if *i < names.len() => Ok(*i),
            AdapterName::Number(i) => Err(format!("no adapter {i}: {}", listed())),
            AdapterName::Name(part) => {
                let part = part.to_lowercase();
                let matching: Vec<usize> =
                    (0..names.len()).filter(|&i| names[i].to_lowercase().contains(&part)).collect();
                match matching[..] {
                    [i] => Ok(i),
                    [] => Err(format!("no adapter's name has {part:?}: {}", listed())),
                    _ => Err(format!("several adapters' names have {part:?}: {}; give its number", listed())),
                }
            }
        }
    }
}

/// What `devices` prints about one adapter.
#[derive(Debug, Clone)]
pub struct AdapterSummary {
    pub name: String,
    pub backend: String,
    pub device_type: String,
    pub driver: String,
}

#[cfg(feature = "gpu")]
impl AdapterSummary {
    pub(super) fn of(info: &wgpu::AdapterInfo) -> AdapterSummary {
        AdapterSummary {
            name: info.name.clone(),
            backend: format!("{:?}", info.backend),
            device_type: format!("{:?}", info.device_type),
            driver: format!("{} {}", info.driver, info.driver_info).trim().to_string(),
        }
    }
}

#[cfg(feature = "gpu")]
pub(super) fn instance() -> wgpu::Instance {
    wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle().with_env())
}

#[cfg(feature = "gpu")]
pub(super) fn rank(adapter: &wgpu::Adapter, choice: &AdapterChoice) -> Option<u8> {
    let info = adapter.get_info();
    let usable = adapter.get_downlevel_capabilities().flags.contains(wgpu::DownlevelFlags::COMPUTE_SHADERS)
        && adapter.limits().max_compute_workgroup_storage_size >= MIN_WORKGROUP_BYTES
        && adapter.limits().max_storage_buffers_per_shader_stage >= 8
        // wgpu's GL backend loses the device on NVIDIA (request_device fails with Device(Lost) on an H100); Vulkan, Metal and DX12 work.
        && info.backend != wgpu::Backend::Gl;
    let rank = match info.device_type {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu | wgpu::DeviceType::Other => 2,
        wgpu::DeviceType::Cpu if *choice != AdapterChoice::Hardware => 3,
        wgpu::DeviceType::Cpu => return None,
    };
    usable.then_some(rank)
}

/// Every adapter wgpu finds, and the index of the one `choice` would pick.
#[cfg(feature = "gpu")]
pub fn list_adapters(choice: AdapterChoice) -> (Vec<AdapterSummary>, Option<usize>) {
    let adapters = pollster::block_on(instance().enumerate_adapters(wgpu::Backends::all()));
    let pick = (0..adapters.len()).filter_map(|i| rank(&adapters[i], &choice).map(|r| (r, i))).min().map(|(_, i)| i);
    (adapters.iter().map(|a| AdapterSummary::of(&a.get_info())).collect(), pick)
}

/// Without the `gpu` feature: no adapter.
#[cfg(not(feature = "gpu"))]
pub fn list_adapters(_choice: AdapterChoice) -> (Vec<AdapterSummary>, Option<usize>) {
    (Vec::new(), None)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A number or a part of a name finds one adapter; anything else says
    /// what there is.
    #[test]
    fn an_adapter_is_found_by_number_or_by_a_part_of_its_name() {
        let names = ["NVIDIA H100 80GB HBM3".to_string(), "llvmpipe (LLVM 15.0.6, 256 bits)".to_string()];
        let find = |text: &str| text.parse::<AdapterName>().and_then(|name| name.find(&names));
        assert_eq!((find("1"), find("h100"), find(" LLVMpipe ")), (Ok(1), Ok(0), Ok(1)));
        assert_eq!(find("2"), Err("no adapter 2: `sudoku-anneal devices` lists 0: NVIDIA H100 80GB HBM3, 1: llvmpipe (LLVM 15.0.6, 256 bits)".into()));
        assert!(find("amd").unwrap_err().starts_with("no adapter's name has \"amd\""));
        assert!(find("v").unwrap_err().starts_with("several adapters' names have \"v\""));
        assert!(find("").is_err());
        assert_eq!(AdapterName::Number(0).find(&[]), Err("no adapter 0: no adapter was found".into()));
    }
}
