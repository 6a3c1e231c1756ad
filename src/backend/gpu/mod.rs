//! The GPU backend: `shaders/sweep.wgsl` through wgpu.
//!
//! [`GpuContext`] (adapter, device, a pipeline per board shape) is built
//! once per run and [`Backend::configure`] allocates a batch's buffers once; each
//! [`Backend::load`] writes one puzzle into its slot's part of them. Between
//! exchange rounds only the slots' sweep counters and the replica→rung map
//! go up and only the energies come back; a replica's spins are read back
//! only when its energy is 0.

pub mod params;

use std::collections::HashMap;
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use self::params::{Kernel, Params, Slot};
use super::{Backend, Layout, Problem};
use crate::error::{Error, Result};
use crate::grid::Shape;
use crate::model::Spin;

/// Workgroup memory every adapter must offer (WebGPU's default limit): one
/// replica of the largest board fits in it.
const MIN_WORKGROUP_BYTES: u32 = 16384;

/// How long a readback polls without blocking before it sleeps until the device is done.
const SPIN_BEFORE_BLOCKING: Duration = Duration::from_millis(1);

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
        && adapter.limits().max_compute_workgroup_storage_size >= MIN_WORKGROUP_BYTES
        && adapter.limits().max_storage_buffers_per_shader_stage >= 8
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

/// Faults the test suite injects through `SUDOKU_ANNEAL_GPU_FAULT`:
/// `shader` (the sweep shader fails to compile) or `lost-after=N` (the
/// device is destroyed before the (N+1)-th sweep dispatch, as when a
/// driver resets). Unset in normal use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fault {
    Shader,
    LostAfter(u32),
}

impl Fault {
    fn from_env() -> Option<Fault> {
        let value = std::env::var("SUDOKU_ANNEAL_GPU_FAULT").ok()?;
        match value.as_str() {
            "shader" => Some(Fault::Shader),
            other => other.strip_prefix("lost-after=")?.parse().ok().map(Fault::LostAfter),
        }
    }
}

/// Device, queue and pipelines: built once, reused for every puzzle.
pub struct GpuContext {
    /// Why the device was lost, once the driver says so.
    lost: Arc<Mutex<Option<String>>>,
    fault: Option<Fault>,
    dispatches: u32,
    pub adapter: AdapterSummary,
    device: wgpu::Device,
    queue: wgpu::Queue,
    /// The sweep shader compiled for each board shape met so far.
    pipelines: HashMap<Shape, (Kernel, wgpu::ComputePipeline)>,
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
                    AdapterChoice::Any => {
                        "no adapter with compute shaders found (install a Vulkan driver, e.g. mesa-vulkan-drivers)"
                            .into()
                    }
                })
            })?;
        let limits = adapter.limits();
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("sudoku-anneal"),
            required_limits: limits.clone(),
            ..Default::default()
        }))
        .map_err(|e| Error::Gpu(format!("cannot open the device: {e}")))?;
        let adapter = AdapterSummary::of(&adapter.get_info());
        let lost = Arc::new(Mutex::new(None));
        let record = Arc::clone(&lost);
        device.set_device_lost_callback(move |reason, message| {
            *record.lock().unwrap_or_else(|e| e.into_inner()) = Some(format!("{reason:?}: {message}"));
        });
        let fault = Fault::from_env();
        let pipelines = HashMap::new();
        let mut context = GpuContext { lost, fault, dispatches: 0, adapter, device, queue, pipelines, limits };
        // Build the classic kernel now, so a shader that does not compile fails before any input is read.
        context.pipeline(Shape::CLASSIC)?;
        Ok(context)
    }

    /// The kernel constants and pipeline for `shape`, compiled on first use.
    fn pipeline(&mut self, shape: Shape) -> Result<&(Kernel, wgpu::ComputePipeline)> {
        if !self.pipelines.contains_key(&shape) {
            let kernel = Kernel::new(shape, self.limits.max_compute_workgroup_storage_size).ok_or_else(|| {
                Error::Gpu(format!("one replica of a {0}×{0} board exceeds this adapter's workgroup memory", shape.n))
            })?;
            let mut source = kernel.wgsl_constants() + include_str!("../../../shaders/sweep.wgsl");
            if self.fault == Some(Fault::Shader) {
                source += "\nthis line is not WGSL";
            }
            let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
            let module = self.device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("sweep.wgsl"),
                source: wgpu::ShaderSource::Wgsl(source.into()),
            });
            let pipeline = self.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
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
            self.pipelines.insert(shape, (kernel, pipeline));
        }
        Ok(&self.pipelines[&shape])
    }
}

/// The buffers of a configured batch.
struct Batch {
    layout: Layout,
    kernel: Kernel,
    pipeline: wgpu::ComputePipeline,
    params: Params,
    /// What `params_buffer` holds; it rarely changes between rounds, and each write costs a staging copy.
    params_on_device: Option<Params>,
    slots: Vec<Slot>,
    /// Free spins of each loaded slot, to decode cell words back to spins.
    free_spins: Vec<Vec<Spin>>,
    params_buffer: wgpu::Buffer,
    slots_buffer: wgpu::Buffer,
    spin_data: wgpu::Buffer,
    thresholds: wgpu::Buffer,
    rungs: wgpu::Buffer,
    initial_totals: wgpu::Buffer,
    cells: wgpu::Buffer,
    energies: wgpu::Buffer,
    readback: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
}

pub struct GpuBackend {
    context: GpuContext,
    batch: Option<Batch>,
}

impl GpuBackend {
    pub fn new(choice: AdapterChoice) -> Result<GpuBackend> {
        Ok(GpuBackend { context: GpuContext::new(choice)?, batch: None })
    }

    pub fn adapter(&self) -> &AdapterSummary {
        &self.context.adapter
    }

    fn batch(&mut self) -> Result<&mut Batch> {
        self.batch.as_mut().ok_or_else(not_configured)
    }

    fn batch_ref(&self) -> Result<&Batch> {
        self.batch.as_ref().ok_or_else(not_configured)
    }

    /// Submits `encoder` plus copies of word ranges `(start, count)` of
    /// `source` into the readback buffer, back to back; waits, and returns
    /// those words.
    fn submit_and_read(
        &self,
        encoder: wgpu::CommandEncoder,
        source: &wgpu::Buffer,
        ranges: &[(u64, u64)],
    ) -> Result<Vec<u32>> {
        self.copy_and_read(encoder, source, ranges).map_err(|err| match (err, self.lost_reason()) {
            (Error::Gpu(what), Some(reason)) => Error::Gpu(format!("the device was lost ({reason}); {what}")),
            (err, _) => err,
        })
    }

    fn lost_reason(&self) -> Option<String> {
        self.context.lost.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn copy_and_read(
        &self,
        mut encoder: wgpu::CommandEncoder,
        source: &wgpu::Buffer,
        ranges: &[(u64, u64)],
    ) -> Result<Vec<u32>> {
        let (device, queue) = (&self.context.device, &self.context.queue);
        let readback = &self.batch_ref()?.readback;
        let mut words = 0;
        for &(start, count) in ranges {
            encoder.copy_buffer_to_buffer(source, start * 4, readback, words * 4, count * 4);
            words += count;
        }
        queue.submit([encoder.finish()]);
        let slice = readback.slice(..words * 4);
        let (sender, receiver) = mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |result| drop(sender.send(result)));
        let waiting = |e| Error::Gpu(format!("waiting for the device: {e}"));
        // Spin before blocking: a blocking wait wakes up tens of µs after a
        // short round ends, a large share of its latency (BENCHMARKS.md).
        let spin_until = Instant::now() + SPIN_BEFORE_BLOCKING;
        let mapped = loop {
            device.poll(wgpu::PollType::Poll).map_err(waiting)?;
            match receiver.try_recv() {
                Ok(mapped) => break mapped,
                Err(mpsc::TryRecvError::Empty) if Instant::now() < spin_until => std::hint::spin_loop(),
                Err(_) => {
                    device.poll(wgpu::PollType::wait_indefinitely()).map_err(waiting)?;
                    break receiver.recv().map_err(|_| Error::Gpu("the readback never completed".into()))?;
                }
            }
        };
        mapped.map_err(|e| Error::Gpu(format!("cannot map the readback buffer: {e}")))?;
        let words = {
            let view =
                slice.get_mapped_range().map_err(|e| Error::Gpu(format!("cannot read the readback buffer: {e}")))?;
            bytemuck::cast_slice(&view).to_vec()
        };
        readback.unmap();
        Ok(words)
    }

    /// Writes `data` at word `offset` of `buffer`.
    fn write<T: bytemuck::Pod>(&self, buffer: &wgpu::Buffer, offset: usize, data: &[T]) {
        self.context.queue.write_buffer(buffer, (offset * std::mem::size_of::<T>()) as u64, bytemuck::cast_slice(data));
    }
}

fn not_configured() -> Error {
    Error::Internal("GPU backend used before configure".into())
}

/// Workgroups to cover `replicas`, as a 2-D grid within the per-dimension
/// limit, balanced so the padding is less than one row.
fn workgroup_grid(replicas: u32, replicas_per_group: u32, max_per_dimension: u32) -> (u32, u32) {
    let groups = replicas.div_ceil(replicas_per_group);
    let rows = groups.div_ceil(max_per_dimension).max(1);
    (groups.div_ceil(rows), rows)
}

impl Backend for GpuBackend {
    fn name(&self) -> &'static str {
        "gpu"
    }

    fn device(&self) -> String {
        format!("{} ({})", self.context.adapter.name, self.context.adapter.backend)
    }

    /// The totals buffer, 4 bytes per constraint per replica, is the largest.
    fn max_replicas(&self, shape: Shape) -> usize {
        let limit = self.context.limits.max_storage_buffer_binding_size.min(u32::MAX as u64);
        limit as usize / ((shape.geometry().constraints + 1) * 4)
    }

    fn configure(&mut self, layout: Layout) -> Result<()> {
        let (replicas, most) = (layout.replicas(), self.max_replicas(layout.shape));
        if replicas > most {
            return Err(Error::Settings(format!(
                "{replicas} replicas in flight exceed this adapter's buffer limit; at most {most}"
            )));
        }
        let (kernel, pipeline) = self.context.pipeline(layout.shape)?.clone();
        let (totals_per_replica, cells_per_replica) = (kernel.totals as usize, kernel.cells as usize);
        let device = &self.context.device;
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let buffer = |label: &str, words: usize, usage: wgpu::BufferUsages| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: (words.max(1) * 4) as u64,
                usage: usage | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        };
        let storage = wgpu::BufferUsages::STORAGE;
        let readable = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
        let params = Params {
            replicas: replicas as u32,
            replicas_per_slot: layout.replicas_per_slot as u32,
            sweep_count: 0,
            threshold_stride: layout.rungs as u32 * kernel.table_len,
        };
        let params_buffer = buffer("params", 4, wgpu::BufferUsages::UNIFORM);
        let slots_buffer = buffer("slots", layout.slots * std::mem::size_of::<Slot>() / 4, storage);
        let spin_data = buffer("spin data", layout.slots * (kernel.max_spins * kernel.spin_vecs * 4) as usize, storage);
        let thresholds = buffer("thresholds", layout.slots * params.threshold_stride as usize, storage);
        let rungs = buffer("rung of replica", replicas, storage);
        let initial_totals = buffer("initial totals", layout.slots * totals_per_replica, storage);
        let totals = buffer("totals", replicas * totals_per_replica, storage);
        let cells = buffer("cells", replicas * cells_per_replica, readable);
        let energies = buffer("energies", replicas, readable);
        // Every replica's energy, or one replica's cells per slot.
        let readback_words = replicas.max(layout.slots * cells_per_replica);
        let readback = buffer("readback", readback_words, wgpu::BufferUsages::MAP_READ);
        let buffers = [
            &params_buffer,
            &slots_buffer,
            &spin_data,
            &thresholds,
            &rungs,
            &initial_totals,
            &totals,
            &cells,
            &energies,
        ];
        let entries: Vec<wgpu::BindGroupEntry> = buffers
            .iter()
            .enumerate()
            .map(|(binding, buffer)| wgpu::BindGroupEntry {
                binding: binding as u32,
                resource: buffer.as_entire_binding(),
            })
            .collect();
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("sweep"),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &entries,
        });
        if let Some(err) = pollster::block_on(scope.pop()) {
            return Err(Error::Gpu(format!("cannot allocate the batch: {err}")));
        }
        self.batch = Some(Batch {
            layout,
            kernel,
            pipeline,
            params,
            params_on_device: None,
            slots: vec![Slot::default(); layout.slots],
            free_spins: vec![Vec::new(); layout.slots],
            params_buffer,
            slots_buffer,
            spin_data,
            thresholds,
            rungs,
            initial_totals,
            cells,
            energies,
            readback,
            bind_group,
        });
        Ok(())
    }

    fn load(&mut self, slot: usize, problem: &Problem) -> Result<()> {
        let model = problem.model;
        let (layout, kernel) = (self.batch()?.layout, self.batch()?.kernel);
        if model.fixed.shape != layout.shape {
            return Err(Error::Internal(format!("a {:?} puzzle in a {:?} batch", model.fixed.shape, layout.shape)));
        }
        if problem.table_len > kernel.table_len as usize || problem.thresholds.len() != layout.rungs * problem.table_len
        {
            return Err(Error::Internal(format!("threshold table of {} rows × {}", layout.rungs, problem.table_len)));
        }
        // Keep in sync: `spin_data` in sweep.wgsl.
        let geometry = model.geometry();
        let padding = kernel.totals - 1;
        let mut spin_data: Vec<[u32; 4]> = Vec::with_capacity(model.len() * kernel.spin_vecs as usize);
        let mut words = vec![padding; 4 * kernel.spin_vecs as usize];
        for s in &model.spins {
            words.fill(padding);
            for (word, k) in words.iter_mut().zip(geometry.constraints_of(s.cell as usize, s.digit as usize)) {
                *word = k as u32;
            }
            debug_assert_eq!(words[0], s.cell as u32);
            words[0] |= (s.digit as u32) << 16;
            spin_data.extend(words.chunks(4).map(|v| [v[0], v[1], v[2], v[3]]));
        }
        let mut class_start = [0u32; 28];
        class_start[..model.class_start.len()].copy_from_slice(&model.class_start);
        let info = Slot {
            first_sweep: 0,
            sweep_count: 0,
            seed_lo: problem.seed as u32,
            seed_hi: (problem.seed >> 32) as u32,
            table_len: problem.table_len as u32,
            fresh: 1,
            offset: model.offset,
            class_start,
        };
        let mut initial_totals: Vec<u32> = model.fixed_ones.iter().map(|&t| t as u32).collect();
        initial_totals.push(0); // the padding total
        let batch = self.batch.as_ref().expect("checked above");
        self.write(&batch.spin_data, slot * (kernel.max_spins * kernel.spin_vecs) as usize, &spin_data);
        self.write(&batch.thresholds, slot * batch.params.threshold_stride as usize, &problem.thresholds);
        self.write(&batch.initial_totals, slot * kernel.totals as usize, &initial_totals);
        let batch = self.batch()?;
        batch.slots[slot] = info;
        batch.free_spins[slot] = model.spins.clone();
        Ok(())
    }

    fn unload(&mut self, slot: usize) -> Result<()> {
        let batch = self.batch()?;
        batch.slots[slot] = Slot::default();
        batch.free_spins[slot].clear();
        Ok(())
    }

    fn sweep(&mut self, rung_of_replica: &[u32], counts: &[u32]) -> Result<Vec<i32>> {
        let batch = self.batch()?;
        // Dispatch only up to the last slot with work: idle replicas would
        // still copy their state in and out and wait at every barrier.
        let busy_slots = counts.iter().rposition(|&c| c > 0).map_or(0, |last| last + 1);
        let per_slot = batch.layout.replicas_per_slot;
        let replicas = busy_slots * per_slot;
        let mut energies = vec![i32::MAX; batch.layout.replicas()];
        if busy_slots == 0 {
            return Ok(energies);
        }
        for (slot, &count) in batch.slots.iter_mut().zip(counts) {
            slot.sweep_count = count;
        }
        batch.params.replicas = replicas as u32;
        batch.params.sweep_count = counts.iter().copied().max().unwrap_or(0);
        let params_changed = batch.params_on_device.replace(batch.params) != Some(batch.params);
        let batch = self.batch.as_ref().expect("checked above");
        if params_changed {
            self.write(&batch.params_buffer, 0, &[batch.params]);
        }
        self.write(&batch.slots_buffer, 0, &batch.slots[..busy_slots]);
        self.write(&batch.rungs, 0, &rung_of_replica[..replicas]);
        if self.context.fault == Some(Fault::LostAfter(self.context.dispatches)) {
            self.context.device.destroy();
        }
        self.context.dispatches += 1;
        let batch = self.batch.as_ref().expect("checked above");
        let context = &self.context;
        let scope = context.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let mut encoder = context.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(&batch.pipeline);
            pass.set_bind_group(0, &batch.bind_group, &[]);
            let per_group = batch.kernel.replicas_per_group;
            let (x, y) =
                workgroup_grid(replicas as u32, per_group, context.limits.max_compute_workgroups_per_dimension);
            pass.dispatch_workgroups(x, y, 1);
        }
        let words = self.submit_and_read(encoder, &batch.energies, &[(0, replicas as u64)])?;
        if let Some(err) = pollster::block_on(scope.pop()) {
            return Err(Error::Gpu(format!("sweep dispatch failed: {err}")));
        }
        let batch = self.batch()?;
        for slot in &mut batch.slots[..busy_slots] {
            slot.first_sweep += slot.sweep_count;
            slot.fresh = 0;
        }
        energies[..replicas].copy_from_slice(bytemuck::cast_slice(&words));
        Ok(energies)
    }

    fn spins(&mut self, replicas: &[usize]) -> Result<Vec<Vec<u8>>> {
        let batch = self.batch_ref()?;
        let per_slot = batch.layout.replicas_per_slot;
        let cells_per_replica = batch.kernel.cells as u64;
        // Not dispatched since its load: still the all-zero state, nothing to read.
        let fresh = |replica: usize| batch.slots[replica / per_slot].fresh != 0;
        let ranges: Vec<(u64, u64)> = replicas
            .iter()
            .filter(|&&r| !fresh(r))
            .map(|&r| (r as u64 * cells_per_replica, cells_per_replica))
            .collect();
        // One submission per readback-buffer load (one unless more than one replica per slot is asked for).
        let per_readback = (batch.readback.size() / 4 / cells_per_replica) as usize;
        let mut cells = Vec::with_capacity(ranges.len() * cells_per_replica as usize);
        for ranges in ranges.chunks(per_readback) {
            let encoder = self.context.device.create_command_encoder(&Default::default());
            cells.extend(self.submit_and_read(encoder, &batch.cells, ranges)?);
        }
        let mut read = cells.chunks(cells_per_replica as usize);
        Ok(replicas
            .iter()
            .map(|&r| {
                let free_spins = &batch.free_spins[r / per_slot];
                if fresh(r) {
                    return vec![0; free_spins.len()];
                }
                let cells = read.next().expect("one range per replica read");
                free_spins.iter().map(|s| (cells[s.cell as usize] >> s.digit & 1) as u8).collect()
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workgroup_grid_covers_every_replica_within_limits() {
        assert_eq!(workgroup_grid(4, 4, 65_535), (1, 1));
        assert_eq!(workgroup_grid(5, 4, 65_535), (2, 1));
        let (x, y) = workgroup_grid(10_000_000, 4, 65_535);
        assert!(x <= 65_535 && (x * y * 4) as u64 >= 10_000_000);
        // 65,536 groups: two rows of 32,768, not 65,535 + 65,535 mostly padding.
        assert_eq!(workgroup_grid(65_536 * 4, 4, 65_535), (32_768, 2));
        assert_eq!(workgroup_grid(65_536, 1, 65_535), (32_768, 2));
    }
}
