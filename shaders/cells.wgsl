// Cell moves with adaptive unit weights: CELL_INVOCATIONS invocations per
// replica, REPLICAS_PER_GROUP replicas per workgroup, one puzzle per slot.
// Twin of `sweep` in src/backend/cpu/cells.rs, which describes the moves:
// same states, weights, random numbers and integer arithmetic, so both give
// bit-identical replicas.
//
// Prepended, as for spins.wgsl: the board's constants (`Kernel::source` in
// src/backend/gpu/kernel.rs, with the weights' rule: ADAPTIVE, WEIGHT_BASE,
// WEIGHT_CAP, RELAX_EVERY), then common.wgsl.
//
// Free cells are numbered class by class (the slot's class_start); in the
// phase of class c, invocation j of a replica updates cells class_start[c]
// + j, + j + CELL_INVOCATIONS, ...; cells of one class share no unit, so
// their updates never touch the same total and equal the twin's cell-by-cell
// order. A barrier separates the phases; after the last, the invocations
// share the pass over the unit constraints that adapts the weights.
//
// spin_data here holds, per slot (CELL_DATA vec4s), a header per free cell,
// (first candidate, candidates, cell, 0), then the candidates in cell order,
// SPIN_VECS vec4s each, as spins.wgsl's spins: (cell | digit << 16, then its
// unit constraints, PADDING past its own).
//
// Workgroup memory holds, per replica, each constraint's total and weight
// (packed t | w << 16; the padding's stay 0) and a word per cell (bit d:
// the cell holds digit d), so the state in global memory reads back, and
// `gather` copies it, as spins.wgsl's does.

// totals[replica * TOTALS + k] = t_k | w_k << 16; cells[replica * CELLS + cell]
@group(0) @binding(6) var<storage, read_write> totals: array<u32>;
@group(0) @binding(7) var<storage, read_write> cells: array<u32>;
// solutions[slot * CELLS + cell]: a copy of the cells of the slot's first
// zero-energy replica, written by `gather`.
@group(0) @binding(9) var<storage, read_write> solutions: array<u32>;

var<workgroup> local_units: array<u32, GROUP_TOTALS>;
var<workgroup> local_cells: array<u32, GROUP_CELLS>;
// Σ_k w_k (1 − t_k)² over the unit constraints, at the end of the dispatch.
var<workgroup> local_energy: array<atomic<i32>, REPLICAS_PER_GROUP>;
// 1 where some invocation of the replica found a loop cut short (common.wgsl, CUT_SHORT).
var<workgroup> cut_short: array<atomic<u32>, REPLICAS_PER_GROUP>;

const TOTAL_MASK: u32 = 0xffffu;

fn weight_of(unit: u32) -> i32 {
    return i32(unit >> 16u);
}

fn total_of(unit: u32) -> i32 {
    return i32(unit & TOTAL_MASK);
}

// Candidate `j` of the slot: its digit and its unit constraints (PADDING past its own).
fn candidate(slot_base: u32, j: u32, digit: ptr<function, u32>) -> array<u32, 5> {
    let head = spin_data[slot_base + CELLS + j * SPIN_VECS];
    *digit = head.x >> 16u;
    var units = array<u32, 5>(head.y, head.z, head.w, PADDING, PADDING);
    if SPIN_VECS > 1u {
        let more = spin_data[slot_base + CELLS + j * SPIN_VECS + 1u];
        units[3] = more.x;
        units[4] = more.y;
    }
    return units;
}

// Adds `step` (1 or −1, wrapping) to the totals of `units` of a replica.
fn count(t0: u32, units: array<u32, 5>, step: u32) {
    for (var u = 0u; u < WIDTH - 1u; u++) {
        if units[u] != PADDING {
            local_units[t0 + units[u]] += step;
        }
    }
}

// The update of free cell i (Suwa–Todo's turn of the circle of weights,
// the heat bath where the cell's own candidate weighs 0). Twin: the loop
// body of `sweep` in cells.rs, which describes it.
fn update_cell(slot_base: u32, t0: u32, c0: u32, i: u32, key: u32, table: u32, table_len: u32) {
    let header = spin_data[slot_base + i];
    let first = header.x;
    let count_here = header.y;
    let cell = header.z;
    let current = firstTrailingBit(local_cells[c0 + cell]);
    // e_j = Σ_k w_k (2 t_k − 1) with the cell's candidate taken out of its
    // units: that changes only the current candidate's own units, whose
    // totals are one less, so e_current loses 2 Σ_k w_k.
    var energies: array<i32, COLOURS>;
    var lowest = 0x7fffffff;
    var own = 0u;
    for (var c = 0u; c < count_here; c++) {
        var digit = 0u;
        let units = candidate(slot_base, first + c, &digit);
        var e = 0;
        for (var u = 0u; u < WIDTH - 1u; u++) {
            let unit = local_units[t0 + units[u]];
            let t = total_of(unit) - select(0, 1, digit == current && units[u] != PADDING);
            e += weight_of(unit) * (2 * t - 1);
        }
        energies[c] = e;
        lowest = min(lowest, e);
        own = select(own, c, digit == current);
    }
    var weights: array<u32, COLOURS>;
    var sum = 0u;
    var before = 0u;
    for (var c = 0u; c < count_here; c++) {
        let x = u32(energies[c] - lowest);
        weights[c] = select(0u, rung_tables[table + x], x < table_len);
        before += select(0u, weights[c], c < own);
        sum += weights[c];
    }
    let uniform = attempt_random(key, i);
    var r = mul_high(uniform, sum);
    if weights[own] != 0u {
        let turned = before + mul_high(uniform, weights[own]) + rung_tables[table];
        r = select(turned, turned - sum, turned >= sum);
    }
    var pick = count_here - 1u;
    for (var c = 0u; c < count_here; c++) {
        if r < weights[c] {
            pick = c;
            break;
        }
        r -= weights[c];
    }
    if pick != own {
        var digit = 0u;
        count(t0, candidate(slot_base, first + own, &digit), 0xffffffffu);
        count(t0, candidate(slot_base, first + pick, &digit), 1u);
        local_cells[c0 + cell] = 1u << digit;
    }
}

// A replica's state into workgroup memory: its slot's initial totals at
// the base weight and no cell set where the slot is fresh, else where the
// last round left it.
fn load_replica(r: Replica, fresh: bool, t0: u32, c0: u32) {
    if r.valid && fresh {
        let initial_weight = select(1u, WEIGHT_BASE, ADAPTIVE) << 16u;
        for (var k = r.lane; k < TOTALS; k += CELL_INVOCATIONS) {
            let weight = select(initial_weight, 0u, k == PADDING);
            local_units[t0 + k] = initial_totals[r.slot * TOTALS + k] | weight;
        }
        for (var c = r.lane; c < CELLS; c += CELL_INVOCATIONS) {
            local_cells[c0 + c] = 0u;
        }
    } else if r.valid {
        for (var k = r.lane; k < TOTALS; k += CELL_INVOCATIONS) {
            local_units[t0 + k] = totals[r.index * TOTALS + k];
        }
        for (var c = r.lane; c < CELLS; c += CELL_INVOCATIONS) {
            local_cells[c0 + c] = cells[r.index * CELLS + c];
        }
    }
    if r.lane == 0u {
        atomicStore(&local_energy[r.member], 0);
        atomicStore(&cut_short[r.member], 0u);
    }
}

// A fresh replica starts from a random candidate in each of its
// `free_cells` (none where it is not fresh), class by class (cells of
// different classes may share a unit). Twin: `CellReplica::random`.
fn initial_state(slot: SlotInfo, slot_base: u32, free_cells: u32, lane: u32, t0: u32, c0: u32, stream: u32) {
    let initial = sweep_key(stream, INITIAL_STATE_SWEEP);
    for (var colour = 0u; colour < COLOURS; colour++) {
        let end = min(slot.class_start[colour + 1u], free_cells);
        for (var i = slot.class_start[colour] + lane; i < end; i += CELL_INVOCATIONS) {
            let header = spin_data[slot_base + i];
            var digit = 0u;
            let units = candidate(slot_base, header.x + mul_high(attempt_random(initial, i), header.y), &digit);
            count(t0, units, 1u);
            local_cells[c0 + header.z] = 1u << digit;
        }
        workgroupBarrier();
    }
}

// Adaptive weights after a sweep: +1 on violated units up to the cap, and
// on a `relax` sweep −1 on those above the base. Twin: `update_weights`.
fn adapt_weights(lane: u32, t0: u32, relax: bool) {
    for (var k = FIRST_UNIT + lane; k < PADDING; k += CELL_INVOCATIONS) {
        let unit = local_units[t0 + k];
        var w = u32(weight_of(unit));
        if total_of(unit) != 1 {
            w = min(w + 1u, WEIGHT_CAP);
        }
        if relax && w > WEIGHT_BASE {
            w -= 1u;
        }
        local_units[t0 + k] = (unit & TOTAL_MASK) | (w << 16u);
    }
}

@compute @workgroup_size(GROUP_SIZE)
fn sweep(
    @builtin(local_invocation_index) local: u32,
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let r = replica_of(local, group, groups, CELL_INVOCATIONS, REPLICAS_PER_GROUP);
    let t0 = r.member * TOTALS;
    let c0 = r.member * CELLS;
    let slot = slots[r.slot];
    let fresh = slot.fresh != 0u;
    let slot_base = r.slot * CELL_DATA;
    let stream = stream_key(slot.seed_lo, slot.seed_hi, r.clamped - r.slot * params.replicas_per_slot);
    load_replica(r, fresh, t0, c0);
    workgroupBarrier();
    initial_state(slot, slot_base, select(0u, slot.class_start[COLOURS], r.valid && fresh), r.lane, t0, c0, stream);

    let sweeps = select(0u, slot.sweep_count, r.valid);
    let table = r.slot * params.table_stride + rung_of_replica[r.clamped] * slot.table_len;
    var s = 0u;
    for (; s < params.sweep_count; s++) {
        let key = sweep_key(stream, slot.first_sweep + s);
        for (var colour = 0u; colour < COLOURS; colour++) {
            // A slot past its own sweep count idles; the barriers stay uniform.
            let end = select(0u, slot.class_start[colour + 1u], s < sweeps);
            for (var i = slot.class_start[colour] + r.lane; i < end; i += CELL_INVOCATIONS) {
                update_cell(slot_base, t0, c0, i, key, table, slot.table_len);
            }
            workgroupBarrier();
        }
        if ADAPTIVE && s < sweeps {
            adapt_weights(r.lane, t0, (slot.first_sweep + s + 1u) % RELAX_EVERY == 0u);
        }
        workgroupBarrier();
    }

    // Σ_k w_k (1 − t_k)² over the unit constraints; the state goes back.
    var energy = 0;
    var copied = FIRST_UNIT + r.lane;
    if r.valid {
        for (; copied < PADDING; copied += CELL_INVOCATIONS) {
            let unit = local_units[t0 + copied];
            let missing = 1 - total_of(unit);
            energy += weight_of(unit) * missing * missing;
        }
        for (var k = r.lane; k < TOTALS; k += CELL_INVOCATIONS) {
            totals[r.index * TOTALS + k] = local_units[t0 + k];
        }
        for (var c = r.lane; c < CELLS; c += CELL_INVOCATIONS) {
            cells[r.index * CELLS + c] = local_cells[c0 + c];
        }
    }
    atomicAdd(&local_energy[r.member], energy);
    // The sweeps and the energy's loop run to their ends unless the driver cut them short.
    if s < params.sweep_count || (r.valid && copied < PADDING) {
        atomicStore(&cut_short[r.member], 1u);
    }
    workgroupBarrier();
    if r.valid && r.lane == 0u {
        let total = atomicLoad(&local_energy[r.member]);
        energies[r.index] = select(total, CUT_SHORT, atomicLoad(&cut_short[r.member]) != 0u);
    }
}
