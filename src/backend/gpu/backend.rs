//! The GPU backend: a context built once, a batch of buffers per layout.

use std::ops::Range;

use super::adapter::{AdapterChoice, AdapterSummary};
use super::batch::Batch;
use super::context::GpuContext;
use super::kernel::{Engine, Kernel, KernelOptions};
use crate::backend::kind::BackendKind;
use crate::backend::{Backend, Layout, Problem};
use crate::dynamics::{Dynamics, Weights};
use crate::error::{Error, Result};
use crate::grid::Shape;

pub struct GpuBackend {
    context: GpuContext,
    batch: Option<Batch>,
}

impl GpuBackend {
    /// `gpu` or `gpu-bits` on an adapter of `choice`.
    pub fn new(choice: AdapterChoice, kind: BackendKind) -> Result<GpuBackend> {
        GpuBackend::with_options(choice, kind, KernelOptions::default())
    }

    /// A benchmark's variant of the kernels (`KernelOptions`).
    pub fn with_options(choice: AdapterChoice, kind: BackendKind, options: KernelOptions) -> Result<GpuBackend> {
        if !kind.is_gpu() {
            return Err(Error::Internal(format!("{} is no GPU backend", kind.name())));
        }
        Ok(GpuBackend { context: GpuContext::new(choice, kind, options)?, batch: None })
    }

    pub fn adapter(&self) -> &AdapterSummary {
        &self.context.adapter
    }

    fn batch(&mut self) -> Result<&mut Batch> {
        self.batch.as_mut().ok_or_else(|| Error::Internal("GPU backend used before configure".into()))
    }
}

impl Backend for GpuBackend {
    fn kind(&self) -> BackendKind {
        self.context.kind
    }

    fn device(&self) -> String {
        format!("{} ({})", self.context.adapter.name, self.context.adapter.backend)
    }

    /// As many as the largest buffer (totals or states) holds in one binding.
    fn max_replicas(&self, shape: Shape) -> usize {
        let limit = self.context.limits.max_storage_buffer_binding_size.min(u32::MAX as u64);
        // Workgroup memory plays no part here: a kernel that does not fit fails in `configure`.
        // Single-spin and cell kernels keep the same states.
        let engine =
            Engine::of(self.context.kind, Dynamics::default()).expect("every GPU backend runs the plain model");
        Kernel::new(engine, shape, Weights::Fixed, u32::MAX).expect("fits in unlimited memory").max_replicas(limit)
    }

    fn configure(&mut self, layout: Layout) -> Result<()> {
        let (replicas, most) = (layout.replicas(), self.max_replicas(layout.shape));
        if replicas > most {
            return Err(Error::Settings(format!(
                "{replicas} replicas in flight exceed this adapter's buffer limit; at most {most}"
            )));
        }
        self.batch = Some(Batch::new(&mut self.context, layout)?);
        Ok(())
    }

    fn load(&mut self, slot: usize, problem: &Problem) -> Result<()> {
        self.batch()?.load(slot, problem)
    }

    fn unload(&mut self, slot: usize) -> Result<()> {
        self.batch()?.unload(slot);
        Ok(())
    }

    fn submit(&mut self, slots: Range<usize>, rung_of_replica: &[u32], counts: &[u32]) -> Result<()> {
        let batch = self.batch.as_mut().ok_or_else(|| Error::Internal("GPU backend used before configure".into()))?;
        batch.submit(&mut self.context, slots, rung_of_replica, counts)
    }

    fn energies(&mut self, slots: Range<usize>) -> Result<Vec<i32>> {
        let batch = self.batch.as_mut().ok_or_else(|| Error::Internal("GPU backend used before configure".into()))?;
        batch.energies(&self.context, slots)
    }

    fn overlaps_host_work(&self) -> bool {
        true
    }

    fn spins(&mut self, replicas: &[usize]) -> Result<Vec<Vec<u8>>> {
        let batch = self.batch.as_ref().ok_or_else(|| Error::Internal("GPU backend used before configure".into()))?;
        batch.spins(&self.context, replicas)
    }

    fn weights(&mut self, replicas: &[usize]) -> Result<Vec<Vec<u8>>> {
        let batch = self.batch.as_ref().ok_or_else(|| Error::Internal("GPU backend used before configure".into()))?;
        batch.weights(&self.context, replicas)
    }
}
