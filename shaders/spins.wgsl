// Colour-class Metropolis sweeps: INVOCATIONS_PER_REPLICA invocations per replica,
// REPLICAS_PER_GROUP replicas per workgroup, one puzzle per slot of
// `replicas_per_slot` replicas (src/backend/mod.rs).
// Twin of `sweep` in src/backend/cpu/spins.rs: same spins, same random numbers,
// same integer arithmetic, so both give bit-identical states.
//
// The board's constants (CELLS, TOTALS, WIDTH, …) are not defined here:
// src/backend/gpu/kernel.rs (`Kernel::source`) prepends them for each board
// shape, so a 9×9 kernel keeps fixed loop counts and array sizes, and then
// common.wgsl (the structs and random numbers both kernels share).
//
// Free spins are numbered class by class (model.rs). In the phase of class
// c, lane j of a replica attempts free spins class_start[c] + j, + j + INVOCATIONS_PER_REPLICA,
// …; spins of one class share no constraint, so the lanes' reads and
// writes never overlap and updating them at once equals updating them in
// order. A barrier separates the COLOURS phases of a sweep.
//
// Workgroup memory holds, per replica, the total t_k of each constraint and
// one word per cell whose bit d is spin (cell, d); a class has at most one
// spin per cell, so no two lanes write the same word in a phase.

// totals[replica * TOTALS + k], cells[replica * CELLS + cell]
@group(0) @binding(6) var<storage, read_write> totals: array<u32>;
@group(0) @binding(7) var<storage, read_write> cells: array<u32>;
// solutions[slot * CELLS + cell]: a copy of the cells of the slot's first
// zero-energy replica, written by `gather`.
@group(0) @binding(9) var<storage, read_write> solutions: array<u32>;

var<workgroup> local_totals: array<u32, GROUP_TOTALS>;
var<workgroup> local_cells: array<u32, GROUP_CELLS>;
var<workgroup> local_energy: array<atomic<i32>, REPLICAS_PER_GROUP>;
// 1 where some invocation of the replica found a loop cut short (common.wgsl, CUT_SHORT).
var<workgroup> cut_short: array<atomic<u32>, REPLICAS_PER_GROUP>;

// A replica's state into workgroup memory: its slot's initial totals and
// no spin on where the slot is fresh, else where the last round left it.
fn load_replica(r: Replica, fresh: bool, t0: u32, c0: u32) {
    if r.valid && fresh {
        for (var k = r.lane; k < TOTALS; k += INVOCATIONS_PER_REPLICA) {
            local_totals[t0 + k] = initial_totals[r.slot * TOTALS + k];
        }
        for (var c = r.lane; c < CELLS; c += INVOCATIONS_PER_REPLICA) {
            local_cells[c0 + c] = 0u;
        }
    } else if r.valid {
        for (var k = r.lane; k < TOTALS; k += INVOCATIONS_PER_REPLICA) {
            local_totals[t0 + k] = totals[r.index * TOTALS + k];
        }
        for (var c = r.lane; c < CELLS; c += INVOCATIONS_PER_REPLICA) {
            local_cells[c0 + c] = cells[r.index * CELLS + c];
        }
    }
    if r.lane == 0u {
        atomicStore(&local_energy[r.member], 0);
        atomicStore(&cut_short[r.member], 0u);
    }
}

// One Metropolis attempt on free spin i of the slot whose spins start at
// `spin_base`: the energy change, 0 where the flip is rejected.
fn attempt_spin(spin_base: u32, i: u32, t0: u32, c0: u32, key: u32, table: u32) -> i32 {
    let head = spin_data[(spin_base + i) * SPIN_VECS];
    let k = vec4<u32>(head.x & 0xffffu, head.y, head.z, head.w);
    let cell = c0 + k.x;
    let bit = 1u << (head.x >> 16u);
    let cell_word = local_cells[cell];
    let x = (cell_word & bit) != 0u;
    // A cell with free spins has no fixed one: its total is its word's popcount.
    var sum = countOneBits(cell_word) + local_totals[t0 + k.y] + local_totals[t0 + k.z];
    if WIDTH >= 4u {
        sum += local_totals[t0 + k.w];
    }
    // Diagonal constraints, or PADDING (total 0, never written).
    var diagonals = vec2<u32>(PADDING, PADDING);
    if SPIN_VECS > 1u {
        diagonals = spin_data[(spin_base + i) * SPIN_VECS + 1u].xy;
        sum += local_totals[t0 + diagonals.x] + local_totals[t0 + diagonals.y];
    }
    let count = select(4 + i32(diagonals.x != PADDING) + i32(diagonals.y != PADDING), i32(WIDTH), UNIFORM);
    let field = 2 * i32(sum) - count * select(1, 3, x); // Σ_k (2(t_k − x) − 1)
    let delta = select(field, -field, x);
    if delta > 0 {
        let threshold = rung_tables[table + u32(delta)];
        if threshold == 0u || attempt_random(key, i) >= threshold {
            return 0;
        }
    }
    local_cells[cell] = cell_word ^ bit;
    let step = select(1u, 0xffffffffu, x); // +1 or −1, wrapping
    local_totals[t0 + k.y] += step;
    local_totals[t0 + k.z] += step;
    if WIDTH >= 4u {
        local_totals[t0 + k.w] += step;
    }
    if diagonals.x != PADDING {
        local_totals[t0 + diagonals.x] += step;
    }
    if diagonals.y != PADDING {
        local_totals[t0 + diagonals.y] += step;
    }
    return delta;
}

@compute @workgroup_size(GROUP_SIZE)
fn sweep(
    @builtin(local_invocation_index) local: u32,
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let r = replica_of(local, group, groups, INVOCATIONS_PER_REPLICA, REPLICAS_PER_GROUP);
    let t0 = r.member * TOTALS;
    let c0 = r.member * CELLS;
    let fresh = slots[r.slot].fresh != 0u;
    load_replica(r, fresh, t0, c0);
    workgroupBarrier();

    let sweeps = select(0u, slots[r.slot].sweep_count, r.valid);
    let first_sweep = slots[r.slot].first_sweep;
    let stream = stream_key(slots[r.slot].seed_lo, slots[r.slot].seed_hi, r.clamped - r.slot * params.replicas_per_slot);
    let table = r.slot * params.table_stride + rung_of_replica[r.clamped] * slots[r.slot].table_len;
    let spin_base = r.slot * MAX_SPINS;
    var energy_change = 0;
    var s = 0u;
    for (; s < params.sweep_count; s++) {
        let key = sweep_key(stream, first_sweep + s);
        for (var colour = 0u; colour < COLOURS; colour++) {
            // A slot past its own sweep count idles; the barriers stay uniform.
            let end = select(0u, slots[r.slot].class_start[colour + 1u], s < sweeps);
            for (var i = slots[r.slot].class_start[colour] + r.lane; i < end; i += INVOCATIONS_PER_REPLICA) {
                energy_change += attempt_spin(spin_base, i, t0, c0, key, table);
            }
            workgroupBarrier();
        }
    }

    atomicAdd(&local_energy[r.member], energy_change);
    var copied = r.lane;
    if r.valid {
        for (var c = r.lane; c < CELLS; c += INVOCATIONS_PER_REPLICA) {
            cells[r.index * CELLS + c] = local_cells[c0 + c];
        }
        for (; copied < TOTALS; copied += INVOCATIONS_PER_REPLICA) {
            totals[r.index * TOTALS + copied] = local_totals[t0 + copied];
        }
    }
    // The sweeps and the last loop run to their ends unless the driver cut them short.
    if s < params.sweep_count || (r.valid && copied < TOTALS) {
        atomicStore(&cut_short[r.member], 1u);
    }
    workgroupBarrier();
    if r.valid && r.lane == 0u {
        let start = select(energies[r.index], slots[r.slot].offset, fresh);
        let energy = start + atomicLoad(&local_energy[r.member]);
        energies[r.index] = select(energy, CUT_SHORT, atomicLoad(&cut_short[r.member]) != 0u);
    }
}
