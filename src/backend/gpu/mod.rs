//! The GPU backends through wgpu: `gpu` runs `shaders/sweep.wgsl` (an int
//! per constraint total, 32 invocations per replica), `gpu-bits` runs
//! `shaders/bits.wgsl` (32 replicas bit-sliced per u32 word).
//!
//! [`GpuContext`] (adapter, device, a pipeline per board shape) is built
//! once per run and [`Backend::configure`] allocates a batch's buffers once; each
//! [`Backend::load`] writes one puzzle into its slot's part of them. Between
//! exchange rounds only the slots' sweep counters and the replica→rung map
//! go up, and only the energies come back, with the cells of each slot's
//! first zero-energy replica (gathered on the GPU, so a solved puzzle costs
//! no readback of its own). A submission covers a *bank* of slots and
//! returns at once; the solver keeps two banks, so the device sweeps one
//! while the host exchanges and refills the other.

pub mod params;

use std::collections::HashMap;
use std::ops::Range;
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use self::params::{Engine, Kernel, Params, Slot};
use super::bits32;
use super::{Backend, Layout, Problem};
use crate::error::{Error, Result};
use crate::grid::Shape;
use crate::model::Spin;

/// Workgroup memory every adapter must offer (WebGPU's default limit): one
/// replica of the largest board fits in it.
const MIN_WORKGROUP_BYTES: u32 = 16384;

/// What a sweep kernel reports as a replica's energy when the driver cut
/// its dispatch short (`CUT_SHORT` in common.wgsl).
const CUT_SHORT: i32 = -1;

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
    engine: Engine,
    /// A software rasteriser (llvmpipe), which limits the loop iterations of
    /// an invocation: a long round then runs as several dispatches.
    software: bool,
    pub adapter: AdapterSummary,
    device: wgpu::Device,
    queue: wgpu::Queue,
    /// The sweep shader compiled for each board shape met so far.
    pipelines: HashMap<Shape, Pipelines>,
    limits: wgpu::Limits,
}

impl GpuContext {
    pub fn new(choice: AdapterChoice, engine: Engine) -> Result<GpuContext> {
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
        let software = adapter.get_info().device_type == wgpu::DeviceType::Cpu;
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
        let mut context =
            GpuContext { lost, fault, dispatches: 0, engine, software, adapter, device, queue, pipelines, limits };
        // Build the classic kernel now, so a shader that does not compile fails before any input is read.
        context.pipeline(Shape::CLASSIC)?;
        Ok(context)
    }

    /// The kernel constants and pipelines for `shape`, compiled on first use.
    fn pipeline(&mut self, shape: Shape) -> Result<&Pipelines> {
        if !self.pipelines.contains_key(&shape) {
            let workgroup_bytes = self.limits.max_compute_workgroup_storage_size;
            let kernel = Kernel::new(self.engine, shape, workgroup_bytes).ok_or_else(|| {
                let unit = if self.engine == Engine::Bits { "a word of 32 replicas" } else { "one replica" };
                Error::Gpu(format!(
                    "{unit} of a {0}×{0} board does not fit in this adapter's workgroup memory",
                    shape.n
                ))
            })?;
            let mut source = kernel.source();
            if self.fault == Some(Fault::Shader) {
                source += "\nthis line is not WGSL";
            }
            let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
            let module = self.device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("sweep kernel"),
                source: wgpu::ShaderSource::Wgsl(source.into()),
            });
            let entry_point = |name| {
                self.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(name),
                    layout: None,
                    module: &module,
                    entry_point: Some(name),
                    compilation_options: Default::default(),
                    cache: None,
                })
            };
            let (sweep, gather, advance) = (entry_point("sweep"), entry_point("gather"), entry_point("advance"));
            if let Some(err) = pollster::block_on(scope.pop()) {
                return Err(Error::Gpu(format!("the sweep shader does not build: {err}")));
            }
            self.pipelines.insert(shape, Pipelines { kernel, sweep, gather, advance });
        }
        Ok(&self.pipelines[&shape])
    }

    /// Submits `encoder` plus copies of word ranges `(buffer, start, count)`
    /// into `readback`, back to back, and asks for `readback` to be mapped.
    fn submit_with_readback(
        &self,
        mut encoder: wgpu::CommandEncoder,
        copies: &[(&wgpu::Buffer, u64, u64)],
        readback: &wgpu::Buffer,
    ) -> Readback {
        let mut words = 0;
        for &(source, start, count) in copies {
            encoder.copy_buffer_to_buffer(source, start * 4, readback, words * 4, count * 4);
            words += count;
        }
        self.queue.submit([encoder.finish()]);
        let (sender, mapped) = mpsc::channel();
        readback.slice(..words * 4).map_async(wgpu::MapMode::Read, move |result| drop(sender.send(result)));
        Readback { mapped, words }
    }

    /// Waits for a [`submit_with_readback`](Self::submit_with_readback) and returns the words copied.
    fn wait(&self, readback: &wgpu::Buffer, pending: Readback) -> Result<Vec<u32>> {
        self.wait_unexplained(readback, pending).map_err(|err| match (err, self.lost_reason()) {
            (Error::Gpu(what), Some(reason)) => Error::Gpu(format!("the device was lost ({reason}); {what}")),
            (err, _) => err,
        })
    }

    fn lost_reason(&self) -> Option<String> {
        self.lost.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn wait_unexplained(&self, readback: &wgpu::Buffer, pending: Readback) -> Result<Vec<u32>> {
        let waiting = |e| Error::Gpu(format!("waiting for the device: {e}"));
        // Spin before blocking: a blocking wait wakes up tens of µs after a
        // short round ends, a large share of its latency (BENCHMARKS.md).
        let spin_until = Instant::now() + SPIN_BEFORE_BLOCKING;
        let mapped = loop {
            self.device.poll(wgpu::PollType::Poll).map_err(waiting)?;
            match pending.mapped.try_recv() {
                Ok(mapped) => break mapped,
                Err(mpsc::TryRecvError::Empty) if Instant::now() < spin_until => std::hint::spin_loop(),
                Err(_) => {
                    self.device.poll(wgpu::PollType::wait_indefinitely()).map_err(waiting)?;
                    break pending.mapped.recv().map_err(|_| Error::Gpu("the readback never completed".into()))?;
                }
            }
        };
        mapped.map_err(|e| Error::Gpu(format!("cannot map the readback buffer: {e}")))?;
        let slice = readback.slice(..pending.words * 4);
        let words = {
            let view =
                slice.get_mapped_range().map_err(|e| Error::Gpu(format!("cannot read the readback buffer: {e}")))?;
            bytemuck::cast_slice(&view).to_vec()
        };
        readback.unmap();
        Ok(words)
    }

    /// Writes `data` at element `offset` of `buffer`.
    fn write<T: bytemuck::Pod>(&self, buffer: &wgpu::Buffer, offset: usize, data: &[T]) {
        self.queue.write_buffer(buffer, (offset * std::mem::size_of::<T>()) as u64, bytemuck::cast_slice(data));
    }
}

/// A readback submitted and not yet waited for.
struct Readback {
    mapped: mpsc::Receiver<std::result::Result<(), wgpu::BufferAsyncError>>,
    words: u64,
}

/// The entry points of a sweep kernel compiled for one board shape.
#[derive(Clone)]
struct Pipelines {
    kernel: Kernel,
    sweep: wgpu::ComputePipeline,
    gather: wgpu::ComputePipeline,
    advance: wgpu::ComputePipeline,
}

/// A range of slots submitted and collected on its own: the solver keeps
/// two, so the device sweeps one while the host works on the other.
struct Bank {
    /// What `params_buffer` holds; it rarely changes between rounds, and each write costs a staging copy.
    params_on_device: Option<Params>,
    params_buffer: wgpu::Buffer,
    sweep_group: wgpu::BindGroup,
    gather_group: wgpu::BindGroup,
    advance_group: wgpu::BindGroup,
    /// The bank's energies, then one replica's cells per slot.
    readback: wgpu::Buffer,
    /// The submission not yet collected (`None` if it swept nothing), and the slots it swept.
    in_flight: Option<(Option<Readback>, Range<usize>)>,
}

/// The buffers of a configured batch.
struct Batch {
    layout: Layout,
    pipelines: Pipelines,
    /// Threshold words per slot: rungs × the kernel's table length.
    threshold_stride: u32,
    slots: Vec<Slot>,
    /// Free spins of each loaded slot, to decode cell words back to spins.
    free_spins: Vec<Vec<Spin>>,
    /// Per slot, its first zero-energy replica (global index) and that
    /// replica's cell words, from the last round collected.
    gathered: Vec<Option<(usize, Vec<u32>)>>,
    /// By their slot range (start, end).
    banks: HashMap<(usize, usize), Bank>,
    slots_buffer: wgpu::Buffer,
    spin_data: wgpu::Buffer,
    thresholds: wgpu::Buffer,
    rungs: wgpu::Buffer,
    initial_totals: wgpu::Buffer,
    totals: wgpu::Buffer,
    /// Each replica's cell words (scalar), or each word's spins (bits).
    states: wgpu::Buffer,
    energies: wgpu::Buffer,
    solutions: wgpu::Buffer,
    /// For replicas' states read on request.
    readback: wgpu::Buffer,
    /// Loads not yet on the device.
    uploads: Uploads,
}

/// Where a load's data goes.
#[derive(Clone, Copy)]
enum Destination {
    SpinData,
    Thresholds,
    InitialTotals,
}

/// Loads waiting for the next dispatch, packed into one staging write and
/// copied to their slots' places from there: a `write_buffer` per buffer
/// and puzzle cost a staging buffer each, ~18 µs a puzzle on the H100's
/// host (BENCHMARKS.md), all of it on the solver's one thread.
#[derive(Default)]
struct Uploads {
    words: Vec<u32>,
    /// (destination, word offset there, start in `words`, words)
    copies: Vec<(Destination, u64, u64, u64)>,
    /// Grown to the largest round of loads so far.
    buffer: Option<wgpu::Buffer>,
}

impl Uploads {
    fn add(&mut self, destination: Destination, offset: usize, data: &[u32]) {
        self.copies.push((destination, offset as u64, self.words.len() as u64, data.len() as u64));
        self.words.extend_from_slice(data);
    }
}

impl Batch {
    fn buffer(&self, destination: Destination) -> &wgpu::Buffer {
        match destination {
            Destination::SpinData => &self.spin_data,
            Destination::Thresholds => &self.thresholds,
            Destination::InitialTotals => &self.initial_totals,
        }
    }

    /// Writes the pending loads and records their copies at the start of `encoder`.
    fn flush_uploads(&mut self, context: &GpuContext, encoder: &mut wgpu::CommandEncoder) {
        if self.uploads.copies.is_empty() {
            return;
        }
        let bytes = (self.uploads.words.len() * 4) as u64;
        if self.uploads.buffer.as_ref().is_none_or(|buffer| buffer.size() < bytes) {
            self.uploads.buffer = Some(context.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("uploads"),
                size: bytes.next_power_of_two(),
                usage: wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }));
        }
        let staging = self.uploads.buffer.as_ref().expect("made above");
        context.write(staging, 0, &self.uploads.words);
        for &(destination, offset, start, words) in &self.uploads.copies {
            encoder.copy_buffer_to_buffer(staging, start * 4, self.buffer(destination), offset * 4, words * 4);
        }
        self.uploads.words.clear();
        self.uploads.copies.clear();
    }

    /// Sweeps per dispatch on a software adapter for the loaded slots of `busy`.
    fn sweeps_per_dispatch(&self, busy: Range<usize>) -> u32 {
        let attempts_per_lane = |slot: &Slot| -> u64 {
            let starts = &slot.class_start[..=self.layout.shape.n];
            starts.windows(2).map(|class| (class[1] - class[0]).div_ceil(32) as u64).sum()
        };
        let most = self.slots[busy].iter().map(attempts_per_lane).max().unwrap_or(0);
        self.pipelines.kernel.sweeps_per_dispatch(params::SOFTWARE_LOOP_BUDGET, most)
    }

    /// Makes the bank of `slots` unless it exists.
    fn make_bank(&mut self, device: &wgpu::Device, slots: Range<usize>) {
        let per_slot = self.layout.replicas_per_slot;
        let (kernel, pipelines) = (self.pipelines.kernel, &self.pipelines);
        let buffers = [
            &self.slots_buffer,
            &self.spin_data,
            &self.thresholds,
            &self.rungs,
            &self.initial_totals,
            &self.totals,
            &self.states,
            &self.energies,
            &self.solutions,
        ];
        self.banks.entry((slots.start, slots.end)).or_insert_with(|| {
            let params_buffer = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("params"),
                size: std::mem::size_of::<Params>() as u64,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            // Auto layouts hold only the bindings an entry point uses.
            let bind_group = |pipeline: &wgpu::ComputePipeline, bindings: &[u32]| {
                // Binding 10 is the slots again, writable (`advance`).
                let entries: Vec<wgpu::BindGroupEntry> = std::iter::once(&params_buffer)
                    .chain(buffers)
                    .chain([&self.slots_buffer])
                    .enumerate()
                    .filter(|(binding, _)| bindings.contains(&(*binding as u32)))
                    .map(|(binding, buffer)| wgpu::BindGroupEntry {
                        binding: binding as u32,
                        resource: buffer.as_entire_binding(),
                    })
                    .collect();
                device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: None,
                    layout: &pipeline.get_bind_group_layout(0),
                    entries: &entries,
                })
            };
            let sweep_group = bind_group(&pipelines.sweep, &[0, 1, 2, 3, 4, 5, 6, 7, 8]);
            let gather_group = bind_group(&pipelines.gather, kernel.gather_bindings());
            let advance_group = bind_group(&pipelines.advance, &[0, 10]);
            let words = slots.len() * (per_slot + kernel.cells as usize);
            let readback = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("round readback"),
                size: (words * 4) as u64,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            Bank {
                params_on_device: None,
                params_buffer,
                sweep_group,
                gather_group,
                advance_group,
                readback,
                in_flight: None,
            }
        });
    }
}

pub struct GpuBackend {
    context: GpuContext,
    batch: Option<Batch>,
}

impl GpuBackend {
    pub fn new(choice: AdapterChoice, engine: Engine) -> Result<GpuBackend> {
        Ok(GpuBackend { context: GpuContext::new(choice, engine)?, batch: None })
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
}

fn not_configured() -> Error {
    Error::Internal("GPU backend used before configure".into())
}

/// Workgroups to cover `units`, as a 2-D grid within the per-dimension
/// limit, balanced so the padding is less than one row.
fn workgroup_grid(units: u32, per_group: u32, max_per_dimension: u32) -> (u32, u32) {
    let groups = units.div_ceil(per_group);
    let rows = groups.div_ceil(max_per_dimension).max(1);
    (groups.div_ceil(rows), rows)
}

impl Backend for GpuBackend {
    fn name(&self) -> &'static str {
        match self.context.engine {
            Engine::Scalar => "gpu",
            Engine::Bits => "gpu-bits",
        }
    }

    fn device(&self) -> String {
        format!("{} ({})", self.context.adapter.name, self.context.adapter.backend)
    }

    /// As many as the largest buffer (totals or states) holds in one binding.
    fn max_replicas(&self, shape: Shape) -> usize {
        let limit = self.context.limits.max_storage_buffer_binding_size.min(u32::MAX as u64);
        // Workgroup memory plays no part here: a kernel that does not fit fails in `configure`.
        Kernel::new(self.context.engine, shape, u32::MAX).expect("fits in unlimited memory").max_replicas(limit)
    }

    fn configure(&mut self, layout: Layout) -> Result<()> {
        let (replicas, most) = (layout.replicas(), self.max_replicas(layout.shape));
        if replicas > most {
            return Err(Error::Settings(format!(
                "{replicas} replicas in flight exceed this adapter's buffer limit; at most {most}"
            )));
        }
        let pipelines = self.context.pipeline(layout.shape)?.clone();
        let kernel = pipelines.kernel;
        let units = kernel.units(layout.slots, layout.replicas_per_slot);
        let cells_per_replica = kernel.cells as usize;
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
        let threshold_stride = layout.rungs as u32 * kernel.table_len;
        let slots_buffer = buffer("slots", layout.slots * std::mem::size_of::<Slot>() / 4, storage);
        let spin_data = buffer("spin data", layout.slots * (kernel.max_spins * kernel.spin_vecs * 4) as usize, storage);
        let thresholds = buffer("thresholds", layout.slots * threshold_stride as usize, storage);
        let rungs = buffer("rung of replica", replicas, storage);
        let initial_totals = buffer("initial totals", layout.slots * kernel.totals as usize, storage);
        let totals = buffer("totals", units * kernel.totals_per_unit() as usize, storage);
        let states = buffer("states", units * kernel.state_per_unit() as usize, readable);
        let energies = buffer("energies", replicas, readable);
        let solutions = buffer("solutions", layout.slots * cells_per_replica, readable);
        // For replicas' states read on request: one replica's cells per slot, and at least one unit's state.
        let readback_words = (layout.slots * cells_per_replica).max(kernel.state_per_unit() as usize);
        let readback = buffer("readback", readback_words, wgpu::BufferUsages::MAP_READ);
        if let Some(err) = pollster::block_on(scope.pop()) {
            return Err(Error::Gpu(format!("cannot allocate the batch: {err}")));
        }
        self.batch = Some(Batch {
            layout,
            pipelines,
            threshold_stride,
            slots: vec![Slot::default(); layout.slots],
            free_spins: vec![Vec::new(); layout.slots],
            gathered: vec![None; layout.slots],
            banks: HashMap::new(),
            slots_buffer,
            spin_data,
            thresholds,
            rungs,
            initial_totals,
            totals,
            states,
            energies,
            solutions,
            readback,
            uploads: Uploads::default(),
        });
        Ok(())
    }

    fn load(&mut self, slot: usize, problem: &Problem) -> Result<()> {
        let model = problem.model;
        let (layout, kernel) = (self.batch()?.layout, self.batch()?.pipelines.kernel);
        if model.fixed.shape != layout.shape {
            return Err(Error::Internal(format!("a {:?} puzzle in a {:?} batch", model.fixed.shape, layout.shape)));
        }
        if problem.table_len > kernel.table_len as usize || problem.thresholds.len() != layout.rungs * problem.table_len
        {
            return Err(Error::Internal(format!("threshold table of {} rows × {}", layout.rungs, problem.table_len)));
        }
        // Keep in sync: `spin_data` in common.wgsl.
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
        let batch = self.batch.as_mut().expect("checked above");
        let spin_data_offset = slot * (kernel.max_spins * kernel.spin_vecs * 4) as usize;
        batch.uploads.add(Destination::SpinData, spin_data_offset, bytemuck::cast_slice(&spin_data));
        batch.uploads.add(Destination::Thresholds, slot * batch.threshold_stride as usize, &problem.thresholds);
        batch.uploads.add(Destination::InitialTotals, slot * kernel.totals as usize, &initial_totals);
        batch.slots[slot] = info;
        batch.free_spins[slot] = model.spins.clone();
        batch.gathered[slot] = None;
        Ok(())
    }

    fn unload(&mut self, slot: usize) -> Result<()> {
        let batch = self.batch()?;
        batch.slots[slot] = Slot::default();
        batch.free_spins[slot].clear();
        batch.gathered[slot] = None;
        Ok(())
    }

    fn submit(&mut self, slots: Range<usize>, rung_of_replica: &[u32], counts: &[u32]) -> Result<()> {
        let context = &mut self.context;
        let batch = self.batch.as_mut().ok_or_else(not_configured)?;
        // Dispatch only up to the last slot with work: idle replicas would
        // still copy their state in and out and wait at every barrier.
        let busy = slots.start..slots.start + counts.iter().rposition(|&c| c > 0).map_or(0, |last| last + 1);
        let per_slot = batch.layout.replicas_per_slot;
        let replicas = busy.start * per_slot..busy.end * per_slot;
        for (slot, &count) in batch.slots[busy.clone()].iter_mut().zip(counts) {
            slot.sweep_count = count;
        }
        batch.gathered[slots.clone()].fill(None);
        let most = counts.iter().copied().max().unwrap_or(0);
        let per_dispatch = match context.software {
            true => batch.sweeps_per_dispatch(busy.clone()),
            false => u32::MAX,
        };
        let params = Params {
            first_replica: replicas.start as u32,
            end_replica: replicas.end as u32,
            replicas_per_slot: per_slot as u32,
            sweep_count: most.min(per_dispatch),
            threshold_stride: batch.threshold_stride,
        };
        let scope = context.device.push_error_scope(wgpu::ErrorFilter::Validation);
        batch.make_bank(&context.device, slots.clone());
        if batch.banks[&(slots.start, slots.end)].in_flight.is_some() {
            return Err(Error::Internal(format!("slots {slots:?} submitted twice without collecting")));
        }
        let mut encoder = context.device.create_command_encoder(&Default::default());
        if !busy.is_empty() {
            batch.flush_uploads(context, &mut encoder);
        }
        let (bank, pipelines) = (batch.banks.get_mut(&(slots.start, slots.end)).expect("made"), &batch.pipelines);
        if !busy.is_empty() {
            if bank.params_on_device.replace(params) != Some(params) {
                context.write(&bank.params_buffer, 0, &[params]);
            }
            context.write(&batch.slots_buffer, busy.start, &batch.slots[busy.clone()]);
            // At one rung every replica is at rung 0, as the buffer has been since wgpu zero-filled it.
            if batch.layout.rungs > 1 {
                context.write(&batch.rungs, replicas.start, &rung_of_replica[..replicas.len()]);
            }
            if context.fault == Some(Fault::LostAfter(context.dispatches)) {
                context.device.destroy();
            }
            context.dispatches += 1;
            let max = context.limits.max_compute_workgroups_per_dimension;
            let mut pass = encoder.begin_compute_pass(&Default::default());
            let kernel = pipelines.kernel;
            let (x, y) = workgroup_grid(kernel.units(busy.len(), per_slot) as u32, kernel.per_group, max);
            // One dispatch a round, except where the driver limits a dispatch's work.
            for dispatch in 0..most.div_ceil(params.sweep_count).max(1) {
                if dispatch > 0 {
                    pass.set_pipeline(&pipelines.advance);
                    pass.set_bind_group(0, &bank.advance_group, &[]);
                    pass.dispatch_workgroups((busy.len() as u32).div_ceil(params::GATHER_SIZE), 1, 1);
                }
                pass.set_pipeline(&pipelines.sweep);
                pass.set_bind_group(0, &bank.sweep_group, &[]);
                pass.dispatch_workgroups(x, y, 1);
            }
            pass.set_pipeline(&pipelines.gather);
            pass.set_bind_group(0, &bank.gather_group, &[]);
            let (x, y) = workgroup_grid(busy.len() as u32, 1, max);
            pass.dispatch_workgroups(x, y, 1);
        }
        let cells = pipelines.kernel.cells as u64;
        let copies = [
            (&batch.energies, replicas.start as u64, replicas.len() as u64),
            (&batch.solutions, busy.start as u64 * cells, busy.len() as u64 * cells),
        ];
        // Nothing swept, nothing to read.
        let readback = (!busy.is_empty()).then(|| context.submit_with_readback(encoder, &copies, &bank.readback));
        if let Some(err) = pollster::block_on(scope.pop()) {
            return Err(Error::Gpu(format!("sweep dispatch failed: {err}")));
        }
        bank.in_flight = Some((readback, busy.clone()));
        for slot in &mut batch.slots[busy] {
            slot.first_sweep += slot.sweep_count;
            slot.fresh = 0;
        }
        Ok(())
    }

    fn energies(&mut self, slots: Range<usize>) -> Result<Vec<i32>> {
        let batch = self.batch.as_mut().ok_or_else(not_configured)?;
        let per_slot = batch.layout.replicas_per_slot;
        let cells = batch.pipelines.kernel.cells as usize;
        let Some(bank) = batch.banks.get_mut(&(slots.start, slots.end)) else {
            return Err(Error::Internal(format!("slots {slots:?} collected without a submission")));
        };
        let Some((pending, busy)) = bank.in_flight.take() else {
            return Err(Error::Internal(format!("slots {slots:?} collected without a submission")));
        };
        let mut energies = vec![i32::MAX; slots.len() * per_slot];
        let Some(pending) = pending else { return Ok(energies) };
        let words = self.context.wait(&bank.readback, pending)?;
        let (swept, solutions) = words.split_at(busy.len() * per_slot);
        energies[..swept.len()].copy_from_slice(bytemuck::cast_slice(swept));
        if energies[..swept.len()].contains(&CUT_SHORT) {
            return Err(Error::Gpu(format!(
                "the driver cut a sweep dispatch short ({}): fewer sweeps per round (--exchange-every) may help",
                self.context.adapter.name
            )));
        }
        for ((slot, energies), solution) in busy.zip(energies.chunks(per_slot)).zip(solutions.chunks(cells)) {
            if let Some(replica) = energies.iter().position(|&e| e == 0) {
                batch.gathered[slot] = Some((slot * per_slot + replica, solution.to_vec()));
            }
        }
        Ok(energies)
    }

    fn overlaps_host_work(&self) -> bool {
        true
    }

    fn spins(&mut self, replicas: &[usize]) -> Result<Vec<Vec<u8>>> {
        let batch = self.batch_ref()?;
        let per_slot = batch.layout.replicas_per_slot;
        let kernel = batch.pipelines.kernel;
        // Not dispatched since its load: still in its initial state, nothing to read.
        let fresh = |replica: usize| batch.slots[replica / per_slot].fresh != 0;
        // The solved replica of each slot came back with the energies.
        let gathered = |replica: usize| {
            batch.gathered[replica / per_slot].as_ref().filter(|(solved, _)| *solved == replica).map(|(_, cells)| cells)
        };
        // Where a replica's state is: its cells (scalar), or its word's spins (bits).
        let unit = |replica: usize| match kernel.engine {
            Engine::Scalar => replica,
            Engine::Bits => kernel.units(replica / per_slot, per_slot) + replica % per_slot / bits32::WORD,
        };
        let unit_words = kernel.state_per_unit() as u64;
        let copies: Vec<(&wgpu::Buffer, u64, u64)> = replicas
            .iter()
            .filter(|&&r| !fresh(r) && gathered(r).is_none())
            .map(|&r| (&batch.states, unit(r) as u64 * unit_words, unit_words))
            .collect();
        let per_readback = (batch.readback.size() / 4 / unit_words) as usize;
        let mut read = Vec::with_capacity(copies.len() * unit_words as usize);
        for copies in copies.chunks(per_readback) {
            let encoder = self.context.device.create_command_encoder(&Default::default());
            let pending = self.context.submit_with_readback(encoder, copies, &batch.readback);
            read.extend(self.context.wait(&batch.readback, pending)?);
        }
        let mut read = read.chunks(unit_words as usize);
        Ok(replicas
            .iter()
            .map(|&r| {
                let (slot, free_spins) = (&batch.slots[r / per_slot], &batch.free_spins[r / per_slot]);
                let from_cells =
                    |cells: &[u32]| free_spins.iter().map(|s| (cells[s.cell as usize] >> s.digit & 1) as u8).collect();
                if let Some(cells) = gathered(r) {
                    return from_cells(cells);
                }
                let lane = r % per_slot % bits32::WORD;
                match (kernel.engine, fresh(r)) {
                    (Engine::Scalar, true) => vec![0; free_spins.len()],
                    (Engine::Scalar, false) => from_cells(read.next().expect("one range per replica read")),
                    (Engine::Bits, true) => {
                        let seed = (slot.seed_hi as u64) << 32 | slot.seed_lo as u64;
                        bits32::initial_state(free_spins.len(), seed, r % per_slot)
                    }
                    (Engine::Bits, false) => {
                        let words = read.next().expect("one range per replica read");
                        words[..free_spins.len()].iter().map(|w| (w >> lane & 1) as u8).collect()
                    }
                }
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
