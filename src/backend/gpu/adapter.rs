//! Which adapter a GPU backend runs on: every adapter wgpu finds, ranked.

/// Workgroup memory every adapter must offer (WebGPU's default limit): one
/// replica of the largest board fits in it.
const MIN_WORKGROUP_BYTES: u32 = 16384;

/// Which adapters may be chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdapterChoice {
    /// Hardware adapters only (what `--backend auto` uses): a software
    /// rasteriser like lavapipe is slower than the CPU backend.
    Hardware,
    /// Any adapter, software ones too (`--backend gpu`, CI on lavapipe).
    Any,
}

/// What `devices` prints about one adapter.
#[derive(Debug, Clone)]
pub struct AdapterSummary {
    pub name: String,
    pub backend: String,
    pub device_type: String,
    pub driver: String,
}

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

pub(super) fn instance() -> wgpu::Instance {
    wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle().with_env())
}

pub(super) fn rank(adapter: &wgpu::Adapter, choice: AdapterChoice) -> Option<u8> {
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
        wgpu::DeviceType::Cpu if choice == AdapterChoice::Any => 3,
        wgpu::DeviceType::Cpu => return None,
    };
    usable.then_some(rank)
}

/// Every adapter wgpu finds, and the index of the one `choice` would pick.
pub fn list_adapters(choice: AdapterChoice) -> (Vec<AdapterSummary>, Option<usize>) {
    let adapters = pollster::block_on(instance().enumerate_adapters(wgpu::Backends::all()));
    let pick = (0..adapters.len()).filter_map(|i| rank(&adapters[i], choice).map(|r| (r, i))).min().map(|(_, i)| i);
    (adapters.iter().map(|a| AdapterSummary::of(&a.get_info())).collect(), pick)
}
