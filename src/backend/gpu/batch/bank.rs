//! A bank: a range of slots with its own bind groups and readback, and the
//! round it records.

use std::ops::Range;

use super::Batch;
use crate::backend::gpu::context::{Pipelines, Readback};
use crate::backend::gpu::kernel::{self, Binding, Params};

/// A range of slots submitted and collected on its own: the solver keeps
/// two, so the device sweeps one while the host works on the other.
pub(super) struct Bank {
    /// What `params_buffer` holds; it rarely changes between rounds, and each write costs a staging copy.
    pub(super) params_on_device: Option<Params>,
    pub(super) params_buffer: wgpu::Buffer,
    sweep_group: wgpu::BindGroup,
    gather_group: wgpu::BindGroup,
    advance_group: wgpu::BindGroup,
    /// The bank's energies, then one replica's cells per slot.
    pub(super) readback: wgpu::Buffer,
    /// The submission not yet collected (`None` if it swept nothing), and the slots it swept.
    pub(super) in_flight: Option<(Option<Readback>, Range<usize>)>,
}

impl Batch {
    /// Makes the bank of `slots` unless it exists.
    pub(super) fn make_bank(&mut self, device: &wgpu::Device, slots: Range<usize>) {
        let per_slot = self.layout.replicas_per_slot;
        let (kernel, pipelines) = (self.pipelines.kernel, &self.pipelines);
        self.banks.entry((slots.start, slots.end)).or_insert_with(|| {
            let params_buffer = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("params"),
                size: std::mem::size_of::<Params>() as u64,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            let buffer = |binding| match binding {
                Binding::Params => &params_buffer,
                Binding::Slots | Binding::SlotsToAdvance => &self.slots_buffer,
                Binding::SpinData => &self.spin_data,
                Binding::RungTables => &self.rung_tables,
                Binding::RungOfReplica => &self.rungs,
                Binding::InitialTotals => &self.initial_totals,
                Binding::Totals => &self.totals,
                Binding::States => &self.states,
                Binding::Energies => &self.energies,
                Binding::Solutions => &self.solutions,
            };
            // Auto layouts hold only the bindings an entry point uses.
            let bind_group = |pipeline: &wgpu::ComputePipeline, bindings: &[Binding]| {
                let entries: Vec<wgpu::BindGroupEntry> = bindings
                    .iter()
                    .map(|&binding| wgpu::BindGroupEntry {
                        binding: binding.number(),
                        resource: buffer(binding).as_entire_binding(),
                    })
                    .collect();
                device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: None,
                    layout: &pipeline.get_bind_group_layout(0),
                    entries: &entries,
                })
            };
            let sweep_group = bind_group(&pipelines.sweep, Binding::SWEEP);
            let gather_group = bind_group(&pipelines.gather, kernel.gather_bindings());
            let advance_group = bind_group(&pipelines.advance, &Binding::ADVANCE);
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

/// Records a round on `slots` busy slots of `per_slot` replicas: the sweep
/// kernel in `dispatches` dispatches (one, except where the driver limits a
/// dispatch's work), `advance` between them, then `gather`.
pub(super) fn record_round(
    encoder: &mut wgpu::CommandEncoder,
    pipelines: &Pipelines,
    bank: &Bank,
    slots: usize,
    per_slot: usize,
    dispatches: u32,
    max_per_dimension: u32,
) {
    let mut pass = encoder.begin_compute_pass(&Default::default());
    let kernel = pipelines.kernel;
    let (x, y) = workgroup_grid(kernel.units(slots, per_slot) as u32, kernel.per_group, max_per_dimension);
    for dispatch in 0..dispatches {
        if dispatch > 0 {
            pass.set_pipeline(&pipelines.advance);
            pass.set_bind_group(0, &bank.advance_group, &[]);
            pass.dispatch_workgroups((slots as u32).div_ceil(kernel::GATHER_SIZE), 1, 1);
        }
        pass.set_pipeline(&pipelines.sweep);
        pass.set_bind_group(0, &bank.sweep_group, &[]);
        pass.dispatch_workgroups(x, y, 1);
    }
    pass.set_pipeline(&pipelines.gather);
    pass.set_bind_group(0, &bank.gather_group, &[]);
    let (x, y) = workgroup_grid(slots as u32, 1, max_per_dimension);
    pass.dispatch_workgroups(x, y, 1);
}

/// Workgroups to cover `units`, as a 2-D grid within the per-dimension
/// limit, balanced so the padding is less than one row.
fn workgroup_grid(units: u32, per_group: u32, max_per_dimension: u32) -> (u32, u32) {
    let groups = units.div_ceil(per_group);
    let rows = groups.div_ceil(max_per_dimension).max(1);
    (groups.div_ceil(rows), rows)
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
