//! The device, its queue and the kernels compiled for it, built once per
//! run; submissions with a readback.

use std::collections::HashMap;
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use super::adapter::{instance, rank, AdapterChoice, AdapterSummary};
use super::faults::Faults;
use super::kernel::{Engine, Kernel, KernelOptions};
use crate::backend::kind::BackendKind;
use crate::dynamics::{Dynamics, Weights};
use crate::error::{Error, Result};
use crate::grid::Shape;

/// How long a readback polls without blocking before it sleeps until the device is done.
const SPIN_BEFORE_BLOCKING: Duration = Duration::from_millis(1);

/// Device, queue and pipelines: built once, reused for every puzzle.
pub struct GpuContext {
    /// Why the device was lost, once the driver says so.
    pub(super) lost: Arc<Mutex<Option<String>>>,
    /// What the tests inject (`faults.rs`); nothing in a release build.
    pub(super) faults: Faults,
    /// `gpu` or `gpu-bits`.
    pub(super) kind: BackendKind,
    /// The kernels' variant (a benchmark's choice; the default runs).
    pub(super) options: KernelOptions,
    /// A software rasteriser (llvmpipe), which limits the loop iterations of
    /// an invocation: a long round then runs as several dispatches.
    pub(super) software: bool,
    pub adapter: AdapterSummary,
    pub(super) device: wgpu::Device,
    pub(super) queue: wgpu::Queue,
    /// The sweep kernels compiled so far, by engine, board shape, weights and completion.
    pub(super) pipelines: HashMap<(Engine, Shape, Weights, bool, Option<u32>), Pipelines>,
    pub(super) limits: wgpu::Limits,
}

impl GpuContext {
    pub fn new(choice: AdapterChoice, kind: BackendKind, options: KernelOptions) -> Result<GpuContext> {
        let mut adapters = pollster::block_on(instance().enumerate_adapters(wgpu::Backends::all()));
        let adapter =
            match &choice {
                AdapterChoice::Named(name) => {
                    let names: Vec<String> = adapters.iter().map(|a| a.get_info().name).collect();
                    let adapter = adapters.swap_remove(name.find(&names).map_err(Error::NoAdapter)?);
                    if rank(&adapter, &AdapterChoice::Any).is_none() {
                        let name = adapter.get_info().name;
                        return Err(Error::NoAdapter(format!(
                            "{name} cannot run the kernels (compute shaders and their limits)"
                        )));
                    }
                    adapter
                }
                _ => adapters
                    .into_iter()
                    .filter_map(|a| rank(&a, &choice).map(|r| (r, a)))
                    .min_by_key(|(r, _)| *r)
                    .map(|(_, a)| a)
                    .ok_or_else(|| {
                        Error::NoAdapter(match choice {
                        AdapterChoice::Hardware => "no hardware GPU with compute shaders found".into(),
                        _ => "no adapter with compute shaders found (install a Vulkan driver, e.g. mesa-vulkan-drivers)"
                            .into(),
                    })
                    })?,
            };
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
            *record.lock().unwrap_or_else(|e| e.into_inner()) = Some(lost_reason_in_words(reason, &message));
        });
        let pipelines = HashMap::new();
        let mut context = GpuContext {
            lost,
            faults: Faults::from_env(),
            kind,
            options,
            software,
            adapter,
            device,
            queue,
            pipelines,
            limits,
        };
        // Build the classic kernel now, so a shader that does not compile fails before any input is read.
        context.pipeline(Shape::CLASSIC, Dynamics::default())?;
        Ok(context)
    }

    /// The kernel that runs `dynamics` on boards of `shape`, and its
    /// pipelines, compiled on first use.
    pub(super) fn pipeline(&mut self, shape: Shape, dynamics: Dynamics) -> Result<&Pipelines> {
        let engine = Engine::of(self.kind, dynamics).ok_or_else(|| {
            Error::Settings(format!("the {} backend has no kernel for these --moves and --weights", self.kind.name()))
        })?;
        let completes = dynamics.completes_on(shape.geometry());
        let keeps = dynamics.keeps().filter(|_| completes).map(|keeps| keeps as u32);
        let key = (engine, shape, dynamics.weights, completes, keeps);
        if !self.pipelines.contains_key(&key) {
            let workgroup_bytes = self.limits.max_compute_workgroup_storage_size;
            let (weights, options) = (dynamics.weights, self.options);
            let kernel = Kernel::with_options(engine, shape, weights, completes, keeps, workgroup_bytes, options);
            let kernel = kernel.ok_or_else(|| {
                Error::Gpu(format!(
                    "{} of a {1}×{1} board does not fit in this adapter's workgroup memory",
                    engine.unit(),
                    shape.n
                ))
            })?;
            let source = self.faults.shader(kernel.source());
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
            self.pipelines.insert(key, Pipelines { kernel, sweep, gather, advance });
        }
        Ok(&self.pipelines[&key])
    }

    /// Submits `encoder` plus copies of word ranges `(buffer, start, count)`
    /// into `readback`, back to back, and asks for `readback` to be mapped.
    pub(super) fn submit_with_readback(
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
        let submission = self.queue.submit([encoder.finish()]);
        let (sender, mapped) = mpsc::channel();
        readback.slice(..words * 4).map_async(wgpu::MapMode::Read, move |result| drop(sender.send(result)));
        Readback { mapped, words, submission }
    }

    /// Waits for a [`submit_with_readback`](Self::submit_with_readback) and returns the words copied.
    pub(super) fn wait(&self, readback: &wgpu::Buffer, pending: Readback) -> Result<Vec<u32>> {
        self.wait_unexplained(readback, pending).map_err(|err| match (err, self.lost_reason()) {
            // What failed after a loss is wgpu's detail; the loss is the news.
            (Error::Gpu(_), Some(reason)) => Error::Gpu(format!("the device was lost while a round ran ({reason})")),
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
                    // This submission only: a wait for the most recent one
                    // would also wait for the other bank's round, submitted
                    // after it, and leave the device idle while the host
                    // works on this one (the banks' overlap undone).
                    let this = wgpu::PollType::Wait { submission_index: Some(pending.submission), timeout: None };
                    self.device.poll(this).map_err(waiting)?;
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
    pub(super) fn write<T: bytemuck::Pod>(&self, buffer: &wgpu::Buffer, offset: usize, data: &[T]) {
        self.queue.write_buffer(buffer, (offset * std::mem::size_of::<T>()) as u64, bytemuck::cast_slice(data));
    }
}

/// Why a device was lost, for a user: wgpu's reason and the driver's
/// message, which is often empty.
fn lost_reason_in_words(reason: wgpu::DeviceLostReason, message: &str) -> String {
    let how = match reason {
        wgpu::DeviceLostReason::Destroyed => "destroyed",
        wgpu::DeviceLostReason::Unknown => "reset or removed by the driver",
    };
    match message.trim() {
        "" => format!("{how}; the driver gave no reason"),
        message => format!("{how}: {message}"),
    }
}

/// A readback submitted and not yet waited for.
pub(super) struct Readback {
    pub(super) mapped: mpsc::Receiver<std::result::Result<(), wgpu::BufferAsyncError>>,
    pub(super) words: u64,
    /// The submission that copies into the readback buffer.
    pub(super) submission: wgpu::SubmissionIndex,
}

/// The entry points of a sweep kernel compiled for one board shape.
#[derive(Clone)]
pub(super) struct Pipelines {
    pub(super) kernel: Kernel,
    pub(super) sweep: wgpu::ComputePipeline,
    pub(super) gather: wgpu::ComputePipeline,
    pub(super) advance: wgpu::ComputePipeline,
}
