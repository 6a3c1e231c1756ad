//! The buffers of a configured batch and its rounds: loads staged and
//! uploaded in one copy, a round's dispatches, its energies and gathered
//! solutions read back, replicas' states on request.

mod bank;
mod uploads;

use std::collections::HashMap;
use std::ops::Range;

use bank::{record_round, Bank};
use uploads::{Destination, Uploads};

use super::context::{GpuContext, Pipelines};
use super::kernel::{self, spins_of_cells, Engine, Loaded, Params, SlotInfo, CLASS_STARTS, CUT_SHORT};
use crate::backend::tables::CellTable;
use crate::backend::{Layout, Problem};
use crate::dynamics::Weights;
use crate::error::{Error, Result};
use crate::model::Spin;

/// The buffers of a configured batch.
pub(super) struct Batch {
    layout: Layout,
    pipelines: Pipelines,
    /// Rung-table words per slot: rungs × the kernel's table length.
    table_stride: u32,
    slots: Vec<SlotInfo>,
    /// What each loaded slot keeps to decode its replicas' states.
    loaded: Vec<Loaded>,
    /// Per slot, its first zero-energy replica (global index) and that
    /// replica's cell words, from the last round collected.
    gathered: Vec<Option<(usize, Vec<u32>)>>,
    /// By their slot range (start, end).
    banks: HashMap<(usize, usize), Bank>,
    slots_buffer: wgpu::Buffer,
    spin_data: wgpu::Buffer,
    rung_tables: wgpu::Buffer,
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

impl Batch {
    /// Sweeps per dispatch on a software adapter for the loaded slots of `busy`.
    fn sweeps_per_dispatch(&self, busy: Range<usize>) -> u32 {
        let colours = self.layout.shape.n;
        let lanes = self.pipelines.kernel.lanes();
        let most = self.slots[busy].iter().map(|slot| slot.attempts_per_lane(colours, lanes)).max().unwrap_or(0);
        self.pipelines.kernel.sweeps_per_dispatch(kernel::SOFTWARE_LOOP_BUDGET, most)
    }

    /// Allocates the buffers of `layout`, every slot empty.
    pub(super) fn new(context: &mut GpuContext, layout: Layout) -> Result<Batch> {
        let replicas = layout.replicas();
        let pipelines = context.pipeline(layout.shape, layout.dynamics)?.clone();
        let kernel = pipelines.kernel;
        let units = kernel.units(layout.slots, layout.replicas_per_slot);
        let cells_per_replica = kernel.cells as usize;
        let device = &context.device;
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
        // Where the chains heat, the hot rows after the rungs' own.
        let heats = layout.dynamics.heats(layout.shape.geometry(), layout.rungs);
        let table_stride = (layout.rungs * if heats { 2 } else { 1 }) as u32 * kernel.table_len;
        let slots_buffer = buffer("slots", layout.slots * std::mem::size_of::<SlotInfo>() / 4, storage);
        let spin_data = buffer("spin data", layout.slots * kernel.spin_data_per_slot() as usize * 4, storage);
        let rung_tables = buffer("rung tables", layout.slots * table_stride as usize, storage);
        let rungs = buffer("rung of replica", replicas, storage);
        let initial_totals = buffer("initial totals", layout.slots * kernel.totals as usize, storage);
        let totals = buffer("totals", units * kernel.totals_per_unit() as usize, readable);
        let states = buffer("states", units * kernel.state_per_unit() as usize, readable);
        let energies = buffer("energies", replicas, readable);
        let solutions = buffer("solutions", layout.slots * cells_per_replica, readable);
        // For replicas' states and weights read on request: one replica's cells per slot, and at least one unit's state or totals.
        let unit_words = kernel.state_per_unit().max(kernel.totals_per_unit()) as usize;
        let readback_words = (layout.slots * cells_per_replica).max(unit_words);
        let readback = buffer("readback", readback_words, wgpu::BufferUsages::MAP_READ);
        if let Some(err) = pollster::block_on(scope.pop()) {
            return Err(Error::Gpu(format!("cannot allocate the batch: {err}")));
        }
        Ok(Batch {
            layout,
            pipelines,
            table_stride,
            slots: vec![SlotInfo::default(); layout.slots],
            loaded: vec![Loaded::default(); layout.slots],
            gathered: vec![None; layout.slots],
            banks: HashMap::new(),
            slots_buffer,
            spin_data,
            rung_tables,
            rungs,
            initial_totals,
            totals,
            states,
            energies,
            solutions,
            readback,
            uploads: Uploads::default(),
        })
    }

    /// Stages a puzzle's data for its slot; the next submission uploads it.
    pub(super) fn load(&mut self, slot: usize, problem: &Problem) -> Result<()> {
        let model = problem.model;
        let (layout, kernel) = (self.layout, self.pipelines.kernel);
        if model.fixed.shape != layout.shape {
            return Err(Error::Internal(format!("a {:?} puzzle in a {:?} batch", model.fixed.shape, layout.shape)));
        }
        let rows = layout.rungs * if problem.heats() { 2 } else { 1 };
        if problem.table_len > kernel.table_len as usize || problem.table.len() != rows * problem.table_len {
            return Err(Error::Internal(format!("threshold table of {rows} rows × {}", problem.table_len)));
        }
        // Keep in sync: `spin_data` in common.wgsl, and cells.wgsl's headers.
        let geometry = model.geometry();
        let padding = kernel.totals - 1;
        let mut spin_data: Vec<[u32; 4]> = Vec::with_capacity(kernel.spin_data_per_slot() as usize);
        let mut words = vec![padding; 4 * kernel.spin_vecs as usize];
        let mut spin = |spin_data: &mut Vec<[u32; 4]>, s: Spin| {
            words.fill(padding);
            for (word, k) in words.iter_mut().zip(geometry.constraints_of(s.cell as usize, s.digit as usize)) {
                *word = k as u32;
            }
            debug_assert_eq!(words[0], s.cell as u32);
            words[0] |= (s.digit as u32) << 16;
            spin_data.extend(words.chunks(4).map(|v| [v[0], v[1], v[2], v[3]]));
        };
        let mut class_start = [0u32; CLASS_STARTS];
        let cells = match kernel.engine {
            Engine::Spins | Engine::Bits => {
                model.spins.iter().for_each(|&s| spin(&mut spin_data, s));
                class_start[..model.class_start.len()].copy_from_slice(&model.class_start);
                None
            }
            Engine::Cells => {
                let table = CellTable::new(model);
                for (i, &cell) in table.cells.iter().enumerate() {
                    let candidates = table.candidates(i);
                    spin_data.push([candidates.start as u32, candidates.len() as u32, cell as u32, 0]);
                }
                spin_data.resize(kernel.cells as usize, [0; 4]);
                table.spins.iter().for_each(|&j| spin(&mut spin_data, model.spins[j as usize]));
                class_start[..table.class_start.len()].copy_from_slice(&table.class_start);
                Some(table)
            }
        };
        let info = SlotInfo {
            first_sweep: 0,
            sweep_count: 0,
            seed_lo: problem.seed as u32,
            seed_hi: (problem.seed >> 32) as u32,
            table_len: problem.table_len as u32,
            fresh: 1,
            offset: model.offset,
            hot_rows: if problem.heats() { (layout.rungs * problem.table_len) as u32 } else { 0 },
            class_start,
        };
        let mut initial_totals: Vec<u32> = model.fixed_ones.iter().map(|&t| t as u32).collect();
        initial_totals.push(0); // the padding total
        let batch = self;
        let spin_data_offset = slot * kernel.spin_data_per_slot() as usize * 4;
        batch.uploads.add(Destination::SpinData, spin_data_offset, bytemuck::cast_slice(&spin_data));
        batch.uploads.add(Destination::RungTables, slot * batch.table_stride as usize, &problem.table);
        batch.uploads.add(Destination::InitialTotals, slot * kernel.totals as usize, &initial_totals);
        batch.slots[slot] = info;
        batch.loaded[slot] = Loaded { free_spins: model.spins.clone(), cells };
        batch.gathered[slot] = None;
        Ok(())
    }

    pub(super) fn unload(&mut self, slot: usize) {
        let batch = self;
        batch.slots[slot] = SlotInfo::default();
        batch.loaded[slot] = Loaded::default();
        batch.gathered[slot] = None;
    }

    /// Records and submits a round of `counts` sweeps on `slots` and the
    /// copies of its energies and gathered solutions; returns at once.
    pub(super) fn submit(
        &mut self,
        context: &mut GpuContext,
        slots: Range<usize>,
        rung_of_replica: &[u32],
        counts: &[u32],
    ) -> Result<()> {
        let batch = self;
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
            table_stride: batch.table_stride,
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
            context.faults.before_dispatch(&context.device);
            let dispatches = most.div_ceil(params.sweep_count).max(1);
            record_round(
                &mut encoder,
                pipelines,
                bank,
                busy.len(),
                per_slot,
                dispatches,
                context.limits.max_compute_workgroups_per_dimension,
            );
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

    /// Waits for the round on `slots` and returns their replicas' energies.
    pub(super) fn energies(&mut self, context: &GpuContext, slots: Range<usize>) -> Result<Vec<i32>> {
        let batch = self;
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
        let words = context.wait(&bank.readback, pending)?;
        let (swept, solutions) = words.split_at(busy.len() * per_slot);
        energies[..swept.len()].copy_from_slice(bytemuck::cast_slice(swept));
        if energies[..swept.len()].contains(&CUT_SHORT) {
            return Err(Error::Gpu(format!(
                "the driver cut a sweep dispatch short ({}): fewer sweeps per round (--exchange-every) may help",
                context.adapter.name
            )));
        }
        for ((slot, energies), solution) in busy.zip(energies.chunks(per_slot)).zip(solutions.chunks(cells)) {
            if let Some(replica) = energies.iter().position(|&e| e == 0) {
                batch.gathered[slot] = Some((slot * per_slot + replica, solution.to_vec()));
            }
        }
        Ok(energies)
    }

    /// The free spins of `replicas` (global indices), read back in as few copies as fit.
    pub(super) fn spins(&self, context: &GpuContext, replicas: &[usize]) -> Result<Vec<Vec<u8>>> {
        let batch = self;
        let per_slot = batch.layout.replicas_per_slot;
        let kernel = batch.pipelines.kernel;
        // Not dispatched since its load: still in its initial state, nothing to read.
        let fresh = |replica: usize| batch.slots[replica / per_slot].fresh != 0;
        // The solved replica of each slot came back with the energies.
        let gathered = |replica: usize| {
            batch.gathered[replica / per_slot].as_ref().filter(|(solved, _)| *solved == replica).map(|(_, cells)| cells)
        };
        let unit_words = kernel.state_per_unit() as u64;
        let copies: Vec<(&wgpu::Buffer, u64, u64)> = replicas
            .iter()
            .filter(|&&r| !fresh(r) && gathered(r).is_none())
            .map(|&r| (&batch.states, kernel.unit_of(r, per_slot) as u64 * unit_words, unit_words))
            .collect();
        let per_readback = (batch.readback.size() / 4 / unit_words) as usize;
        let mut read = Vec::with_capacity(copies.len() * unit_words as usize);
        for copies in copies.chunks(per_readback) {
            let encoder = context.device.create_command_encoder(&Default::default());
            let pending = context.submit_with_readback(encoder, copies, &batch.readback);
            read.extend(context.wait(&batch.readback, pending)?);
        }
        let mut read = read.chunks(unit_words as usize);
        Ok(replicas
            .iter()
            .map(|&r| {
                let (slot, loaded) = (&batch.slots[r / per_slot], &batch.loaded[r / per_slot]);
                let free_spins = &loaded.free_spins;
                // Gathered solutions are cell words (bit d: spin (cell, d)), from every kernel.
                if let Some(cells) = gathered(r) {
                    return spins_of_cells(cells, free_spins);
                }
                match fresh(r) {
                    true => kernel.initial_spins(loaded, slot.seed(), r % per_slot),
                    false => {
                        kernel.spins_of(read.next().expect("one range per replica read"), r % per_slot, free_spins)
                    }
                }
            })
            .collect())
    }

    /// The unit weights of `replicas` (global indices) under adaptive
    /// weights (cells.wgsl keeps `t | w << 16` per constraint); empty otherwise.
    pub(super) fn weights(&self, context: &GpuContext, replicas: &[usize]) -> Result<Vec<Vec<u8>>> {
        let kernel = self.pipelines.kernel;
        let Weights::Adaptive(rule) = kernel.weights else { return Ok(vec![Vec::new(); replicas.len()]) };
        let per_slot = self.layout.replicas_per_slot;
        let units = kernel.cells as usize..kernel.totals as usize - 1;
        let words = kernel.totals_per_unit() as u64;
        let mut weights = Vec::with_capacity(replicas.len());
        for &r in replicas {
            weights.push(match self.slots[r / per_slot].fresh {
                0 => {
                    let encoder = context.device.create_command_encoder(&Default::default());
                    let copy = [(&self.totals, kernel.unit_of(r, per_slot) as u64 * words, words)];
                    let pending = context.submit_with_readback(encoder, &copy, &self.readback);
                    let read = context.wait(&self.readback, pending)?;
                    read[units.clone()].iter().map(|&unit| (unit >> 16) as u8).collect()
                }
                _ => vec![rule.base; units.len()],
            });
        }
        Ok(weights)
    }
}
