//! Loads staged for the next submission and uploaded in one copy.

use super::Batch;
use crate::backend::gpu::context::GpuContext;

/// Where a load's data goes.
#[derive(Clone, Copy)]
pub(super) enum Destination {
    SpinData,
    RungTables,
    InitialTotals,
}

/// Loads waiting for the next dispatch, packed into one staging write and
/// copied to their slots' places from there: a `write_buffer` per buffer
/// and puzzle cost a staging buffer each, ~18 µs a puzzle on the H100's
/// host (BENCHMARKS.md), all of it on the solver's one thread.
#[derive(Default)]
pub(super) struct Uploads {
    words: Vec<u32>,
    /// (destination, word offset there, start in `words`, words)
    copies: Vec<(Destination, u64, u64, u64)>,
    /// Grown to the largest round of loads so far.
    buffer: Option<wgpu::Buffer>,
}

impl Uploads {
    pub(super) fn add(&mut self, destination: Destination, offset: usize, data: &[u32]) {
        self.copies.push((destination, offset as u64, self.words.len() as u64, data.len() as u64));
        self.words.extend_from_slice(data);
    }
}

impl Batch {
    fn buffer(&self, destination: Destination) -> &wgpu::Buffer {
        match destination {
            Destination::SpinData => &self.spin_data,
            Destination::RungTables => &self.rung_tables,
            Destination::InitialTotals => &self.initial_totals,
        }
    }

    /// Writes the pending loads and records their copies at the start of `encoder`.
    pub(super) fn flush_uploads(&mut self, context: &GpuContext, encoder: &mut wgpu::CommandEncoder) {
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
}
