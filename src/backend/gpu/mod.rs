//! The GPU backend: `shaders/sweep.wgsl` through wgpu.
//!
//! [`GpuContext`] (adapter, device, pipeline) is built once per run; each
//! [`Backend::load`] uploads one problem. Between exchange rounds only the
//! replica→rung map goes up and only the energies come back; a replica's
//! spins are read back only when its energy is 0.

pub mod params;

use std::sync::mpsc;

use wgpu::util::DeviceExt;

use self::params::{Params, REPLICAS_PER_GROUP, WORKGROUP_BYTES};
use super::{Backend, Problem};
use crate::error::{Error, Result};
use crate::grid::{CELLS, CONSTRAINTS};
use crate::model::{constraints_of, Spin};

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
    fn of(info: &wgpu::AdapterInfo) -> AdapterSummary {
        AdapterSummary {
            name: info.name.clone(),
            backend: format!("{:?}", info.backend),
            device_type: format!("{:?}", info.device_type),
            driver: format!("{} {}", info.driver, info.driver_info).trim().to_string(),
        }
    }
}

fn instance() -> wgpu::Instance {
    wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle().with_env())
}

fn rank(adapter: &wgpu::Adapter, choice: AdapterChoice) -> Option<u8> {
    let info = adapter.get_info();
    let usable = adapter.get_downlevel_capabilities().flags.contains(wgpu::DownlevelFlags::COMPUTE_SHADERS)
        && adapter.limits().max_compute_workgroup_storage_size >= WORKGROUP_BYTES
        && adapter.limits().max_storage_buffers_per_shader_stage >= 6
        // wgpu's GL backend loses the device on NVIDIA (shared/GPU.md); Vulkan, Metal and DX12 work.
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

/// Device, queue and pipeline: built once, reused for every puzzle.
pub struct GpuContext {
    pub adapter: AdapterSummary,
    device: wgpu::Device,
    queue: wgpu::Queue,
    pipeline: wgpu::ComputePipeline,
    limits: wgpu::Limits,
}

impl GpuContext {
    pub fn new(choice: AdapterChoice) -> Result<GpuContext> {
        let adapters = pollster::block_on(instance().enumerate_adapters(wgpu::Backends::all()));
        let adapter = adapters
            .into_iter()
            .filter_map(|a| rank(&a, choice).map(|r| (r, a)))
            .min_by_key(|(r, _)| *r)
            .map(|(_, a)| a)
            .ok_or_else(|| {
                Error::NoAdapter(match choice {
                    AdapterChoice::Hardware => "no hardware GPU with compute shaders found".into(),
                    AdapterChoice::Any => "no adapter with compute shaders found (install a Vulkan driver, e.g. mesa-vulkan-drivers)".into(),
                })
            })?;
        let limits = adapter.limits();
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("sudoku-anneal"),
            required_limits: limits.clone(),
            ..Default::default()
        }))
        .map_err(|e| Error::Gpu(format!("cannot open the device: {e}")))?;
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = device.create_shader_module(wgpu::include_wgsl!("../../../shaders/sweep.wgsl"));
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("sweep"),
            layout: None,
            module: &module,
            entry_point: Some("sweep"),
            compilation_options: Default::default(),
            cache: None,
        });
        if let Some(err) = pollster::block_on(scope.pop()) {
            return Err(Error::Gpu(format!("the sweep shader does not build: {err}")));
        }
        Ok(GpuContext { adapter: AdapterSummary::of(&adapter.get_info()), device, queue, pipeline, limits })
    }
}

/// Buffers of one loaded problem.
struct Run {
    params: Params,
    free_spins: Vec<Spin>,
    params_buffer: wgpu::Buffer,
    rungs: wgpu::Buffer,
    cells: wgpu::Buffer,
    energies: wgpu::Buffer,
    readback: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
}

pub struct GpuBackend {
    context: GpuContext,
    run: Option<Run>,
}

impl GpuBackend {
    pub fn new(choice: AdapterChoice) -> Result<GpuBackend> {
        Ok(GpuBackend { context: GpuContext::new(choice)?, run: None })
    }

    pub fn adapter(&self) -> &AdapterSummary {
        &self.context.adapter
    }

    fn loaded(&self) -> Result<&Run> {
        self.run.as_ref().ok_or_else(|| Error::Internal("GPU backend used before load".into()))
    }

    /// Submits `encoder` plus a copy of `count` words of `source` from word
    /// `start` into the readback buffer, waits, and returns those words.
    fn submit_and_read(&self, mut encoder: wgpu::CommandEncoder, source: &wgpu::Buffer, start: u64, count: u64) -> Result<Vec<u32>> {
        let (device, queue) = (&self.context.device, &self.context.queue);
        let run = self.loaded()?;
        encoder.copy_buffer_to_buffer(source, start * 4, &run.readback, 0, count * 4);
        queue.submit([encoder.finish()]);
        let slice = run.readback.slice(..count * 4);
        let (sender, receiver) = mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |result| drop(sender.send(result)));
        device.poll(wgpu::PollType::wait_indefinitely()).map_err(|e| Error::Gpu(format!("waiting for the device: {e}")))?;
        receiver
            .recv()
            .map_err(|_| Error::Gpu("the readback never completed".into()))?
            .map_err(|e| Error::Gpu(format!("cannot map the readback buffer: {e}")))?;
        let words = {
            let view = slice.get_mapped_range().map_err(|e| Error::Gpu(format!("cannot read the readback buffer: {e}")))?;
            bytemuck::cast_slice(&view).to_vec()
        };
        run.readback.unmap();
        Ok(words)
    }
}

/// Workgroups to cover `replicas`, as a 2-D grid within the per-dimension
/// limit, balanced so the padding is less than one row.
fn workgroup_grid(replicas: u32, max_per_dimension: u32) -> (u32, u32) {
    let groups = replicas.div_ceil(REPLICAS_PER_GROUP);
    let rows = groups.div_ceil(max_per_dimension).max(1);
    (groups.div_ceil(rows), rows)
}

impl Backend for GpuBackend {
    fn name(&self) -> &'static str {
        "gpu"
    }

    fn load(&mut self, problem: &Problem) -> Result<()> {
        let model = problem.model;
        let replicas = problem.replicas as u32;
        let largest = (CONSTRAINTS * problem.replicas * 4) as u64;
        let limit = self.context.limits.max_storage_buffer_binding_size as u64;
        if largest > limit {
            let most = limit / (CONSTRAINTS as u64 * 4);
            return Err(Error::Settings(format!("{replicas} replicas exceed this adapter's buffer limit; at most {most}")));
        }
        let device = &self.context.device;
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let storage = |label: &str, contents: &[u8], extra: wgpu::BufferUsages| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents,
                usage: wgpu::BufferUsages::STORAGE | extra,
            })
        };
        // Keep in sync: `spin_data` in sweep.wgsl.
        let spin_data: Vec<[u32; 4]> = model
            .spins
            .iter()
            .map(|s| {
                let [cell, row, column, block] = constraints_of(s.cell as usize, s.digit as usize).map(|k| k as u32);
                debug_assert_eq!(cell, s.cell as u32);
                [cell | 1 << s.digit << 16, row, column, block]
            })
            .collect();
        let totals: Vec<u32> = (0..replicas).flat_map(|_| model.fixed_ones.iter().map(|&t| t as u32)).collect();
        let mut class_start = [[0u32; 4]; 3];
        for (c, &start) in model.class_start.iter().enumerate() {
            class_start[c / 4][c % 4] = start;
        }
        let params = Params {
            replicas,
            spins: model.len() as u32,
            table_len: problem.table_len as u32,
            first_sweep: 0,
            sweep_count: 0,
            seed_lo: problem.seed as u32,
            seed_hi: (problem.seed >> 32) as u32,
            padding: 0,
            class_start,
        };
        let params_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("params"),
            contents: bytemuck::bytes_of(&params),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        });
        let none = wgpu::BufferUsages::empty();
        let copy = wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
        let spin_data = storage("spin data", bytemuck::cast_slice(&spin_data), none);
        let thresholds = storage("thresholds", bytemuck::cast_slice(&problem.thresholds), none);
        let rungs = storage("rung of replica", bytemuck::cast_slice(&(0..replicas).collect::<Vec<u32>>()), copy);
        let totals = storage("totals", bytemuck::cast_slice(&totals), copy);
        let cells = storage("cells", bytemuck::cast_slice(&vec![0u32; CELLS * replicas as usize]), copy);
        let energies = storage("energies", bytemuck::cast_slice(&vec![model.offset; replicas as usize]), copy);
        let readback = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size: 4 * (replicas as u64).max(CELLS as u64),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let buffers = [&params_buffer, &spin_data, &thresholds, &rungs, &totals, &cells, &energies];
        let entries: Vec<wgpu::BindGroupEntry> = buffers
            .iter()
            .enumerate()
            .map(|(binding, buffer)| wgpu::BindGroupEntry { binding: binding as u32, resource: buffer.as_entire_binding() })
            .collect();
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("sweep"),
            layout: &self.context.pipeline.get_bind_group_layout(0),
            entries: &entries,
        });
        if let Some(err) = pollster::block_on(scope.pop()) {
            return Err(Error::Gpu(format!("cannot upload the problem: {err}")));
        }
        let free_spins = model.spins.clone();
        self.run = Some(Run { params, free_spins, params_buffer, rungs, cells, energies, readback, bind_group });
        Ok(())
    }

    fn sweep(&mut self, rung_of_replica: &[u32], first: u32, count: u32) -> Result<Vec<i32>> {
        let context = &self.context;
        let run = self.run.as_mut().ok_or_else(|| Error::Internal("GPU backend used before load".into()))?;
        run.params.first_sweep = first;
        run.params.sweep_count = count;
        context.queue.write_buffer(&run.params_buffer, 0, bytemuck::bytes_of(&run.params));
        context.queue.write_buffer(&run.rungs, 0, bytemuck::cast_slice(rung_of_replica));
        let scope = context.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let mut encoder = context.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(&context.pipeline);
            pass.set_bind_group(0, &run.bind_group, &[]);
            let (x, y) = workgroup_grid(run.params.replicas, context.limits.max_compute_workgroups_per_dimension);
            pass.dispatch_workgroups(x, y, 1);
        }
        let replicas = run.params.replicas as u64;
        let energies = &self.loaded()?.energies;
        let words = self.submit_and_read(encoder, energies, 0, replicas)?;
        if let Some(err) = pollster::block_on(scope.pop()) {
            return Err(Error::Gpu(format!("sweep dispatch failed: {err}")));
        }
        Ok(bytemuck::cast_slice(&words).to_vec())
    }

    fn spins(&mut self, replica: usize) -> Result<Vec<u8>> {
        let run = self.loaded()?;
        let encoder = self.context.device.create_command_encoder(&Default::default());
        let cells = self.submit_and_read(encoder, &run.cells, (replica * CELLS) as u64, CELLS as u64)?;
        Ok(run.free_spins.iter().map(|s| (cells[s.cell as usize] >> s.digit & 1) as u8).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workgroup_grid_covers_every_replica_within_limits() {
        assert_eq!(workgroup_grid(REPLICAS_PER_GROUP, 65_535), (1, 1));
        assert_eq!(workgroup_grid(REPLICAS_PER_GROUP + 1, 65_535), (2, 1));
        let (x, y) = workgroup_grid(10_000_000, 65_535);
        assert!(x <= 65_535 && (x * y * REPLICAS_PER_GROUP) as u64 >= 10_000_000);
        // 65,536 groups: two rows of 32,768, not 65,535 + 65,535 mostly padding.
        assert_eq!(workgroup_grid(65_536 * REPLICAS_PER_GROUP, 65_535), (32_768, 2));
    }
}
