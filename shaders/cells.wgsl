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

// Completion (COMPLETE: --complete singles or sampled on boards up to 16×16
// without diagonals; twin: src/backend/cpu/complete.rs, which describes it). Per
// replica, a word per cell, `fill`: a free cell's digit bit once placed,
// else its open digits above bit 16 (a kept cell's hold its candidates',
// for a sample to open it: SAMPLE_KEEPS); per house, `house_digits` at
// member * 3 * HOUSES + 3 * house: the digits it holds (placed or fixed),
// the open digits seen in it once, and twice. Singles are placed many at
// once, each forced by the kept cells, so the same grids fill as the twin's
// one at a time, to the same digits; a placement whose house already holds
// its digit, a cell or a missing digit without a place, fails the grid.
var<workgroup> fill: array<u32, GROUP_FILL>;
var<workgroup> house_digits: array<atomic<u32>, GROUP_HOUSE_WORDS>;
// Per replica, at 2 * member + the sweep's parity: VIOLATED where a unit
// of it is violated after the sweep (the other parity's is the last
// sweep's, still read while this one's is written).
var<workgroup> sweep_flags: array<atomic<u32>, 2u * REPLICAS_PER_GROUP>;
// Per replica, during a completion: COMPLETING, FAILED, then OPEN and
// PROGRESS of the round, and FILLED once its grid has.
var<workgroup> fill_flags: array<atomic<u32>, REPLICAS_PER_GROUP>;
// Per replica, its kept cells, for the sample.
var<workgroup> kept_cells: array<atomic<u32>, REPLICAS_PER_GROUP>;
// Whether any replica of the workgroup completes, or goes on completing:
// written by one invocation, read by all (workgroupUniformLoad).
var<workgroup> busy: u32;

const VIOLATED: u32 = 1u;
const COMPLETING: u32 = 1u;
const FAILED: u32 = 2u;
const OPEN: u32 = 4u;
const PROGRESS: u32 = 8u;
const FILLED: u32 = 16u;
const OPEN_SHIFT: u32 = 16u;

// Twin: `dynamics::completes_after`.
fn completes_after(s: u32, heat: bool) -> bool {
    let every = select(COMPLETE_EVERY, HOT_COMPLETE_EVERY, heat && s >= SWEEPS_BEFORE_COMPLETION);
    return s + 1u > SWEEPS_BEFORE_COMPLETION && (s + 1u) % every == 0u;
}

// The houses of free cell `i` (as many as a candidate's units; none past them).
fn houses_of(slot_base: u32, i: u32) -> array<u32, 4> {
    var digit = 0u;
    let units = candidate(slot_base, spin_data[slot_base + i].x, &digit);
    var houses = array<u32, 4>(HOUSES, HOUSES, HOUSES, HOUSES);
    for (var u = 0u; u < min(WIDTH - 1u, 4u); u++) {
        if units[u] != PADDING {
            houses[u] = (units[u] - FIRST_UNIT) / COLOURS;
        }
    }
    return houses;
}

// Word `word` (0: the digits held; 1: as `complete` uses it) of a cell's
// houses, OR-ed together.
fn houses_word(h0: u32, houses: array<u32, 4>, word: u32) -> u32 {
    var bits = 0u;
    for (var u = 0u; u < 4u; u++) {
        if houses[u] < HOUSES {
            bits |= atomicLoad(&house_digits[h0 + 3u * houses[u] + word]);
        }
    }
    return bits;
}

// An open cell's digits (its `fill` word) that no house of it holds.
fn open_digits(h0: u32, houses: array<u32, 4>, cell_fill: u32) -> u32 {
    return (cell_fill >> OPEN_SHIFT) & ~houses_word(h0, houses, 0u);
}

// Places `bit` in a cell of `houses`: whether a house held it already.
fn place(h0: u32, houses: array<u32, 4>, bit: u32) -> bool {
    var clash = false;
    for (var u = 0u; u < 4u; u++) {
        if houses[u] < HOUSES {
            clash = clash || (atomicOr(&house_digits[h0 + 3u * houses[u]], bit) & bit) != 0u;
        }
    }
    return clash;
}

// A free cell's `fill` word while open: its candidates' digits above bit 16.
fn open_word(slot_base: u32, header: vec4<u32>) -> u32 {
    var digits = 0u;
    for (var c = 0u; c < header.y; c++) {
        var digit = 0u;
        candidate(slot_base, header.x + c, &digit);
        digits |= 1u << digit;
    }
    return digits << OPEN_SHIFT;
}

// At most SAMPLE_KEEPS of a replica's `kept` cells stay kept, the others
// open, each subset as likely (Knuth's selection sampling, one invocation
// in the cells' order, until all it meets are kept): twin of the sample in
// `Completion::fill` (cpu/complete.rs), with cpu/cells.rs `sweep`'s draws.
fn sample_kept(slot_base: u32, free_cells: u32, c0: u32, key: u32, kept: u32) {
    var left = kept;
    var needed = min(left, SAMPLE_KEEPS);
    for (var i = 0u; i < free_cells && needed < left; i++) {
        let cell = spin_data[slot_base + i].z;
        if (fill[c0 + cell] & TOTAL_MASK) != 0u {
            let draw = attempt_random(key, free_cells + i) >> 16u;
            if (draw * left) >> 16u < needed {
                needed -= 1u;
            } else {
                fill[c0 + cell] &= ~TOTAL_MASK;
            }
            left -= 1u;
        }
    }
}

// After a sweep: whether a unit of the replica is violated (sweep_flags),
// and where it `completes`, its grid completed; one that fills moves there
// (every constraint then holds once). `swept`: the replica swept; where it
// `samples` (its chains heat, SAMPLE_KEEPS), from a sample of its kept
// cells drawn with the sweep's `key`.
fn complete(r: Replica, slot_base: u32, free_cells: u32, t0: u32, c0: u32, swept: bool, completes: bool, parity: u32, samples: bool, key: u32) {
    let h0 = r.member * 3u * HOUSES;
    let flags = &fill_flags[r.member];
    if r.lane == 0u {
        atomicStore(&sweep_flags[2u * r.member + 1u - parity], 0u);
        atomicStore(flags, select(0u, COMPLETING, completes));
        atomicStore(&kept_cells[r.member], 0u);
    }
    for (var u = r.lane; u < HOUSES; u += CELL_INVOCATIONS) {
        var broken = 0u;
        var fixed = 0u;
        for (var d = 0u; d < COLOURS; d++) {
            let k = FIRST_UNIT + u * COLOURS + d;
            broken |= select(0u, 1u, swept && total_of(local_units[t0 + k]) != 1);
            if completes && initial_totals[r.slot * TOTALS + k] != 0u {
                fixed |= 1u << d;
            }
        }
        if broken != 0u {
            atomicOr(&sweep_flags[2u * r.member + parity], VIOLATED);
        }
        if completes {
            atomicStore(&house_digits[h0 + 3u * u], fixed);
            // Until the cells have read it, whether the house is broken.
            atomicStore(&house_digits[h0 + 3u * u + 1u], broken);
        }
    }
    workgroupBarrier();
    if r.member == 0u && r.lane == 0u {
        var any = 0u;
        for (var m = 0u; m < REPLICAS_PER_GROUP; m++) {
            any |= atomicLoad(&fill_flags[m]) & COMPLETING;
        }
        busy = any;
    }
    if workgroupUniformLoad(&busy) == 0u {
        return;
    }
    // The cells outside every broken house kept, the others open.
    for (var i = r.lane; i < select(0u, free_cells, completes); i += CELL_INVOCATIONS) {
        let header = spin_data[slot_base + i];
        let kept = houses_word(h0, houses_of(slot_base, i), 1u) == 0u;
        let open = open_word(slot_base, header);
        fill[c0 + header.z] = select(open, local_cells[c0 + header.z] | open, kept);
        if SAMPLE_KEEPS != 0u && kept {
            atomicAdd(&kept_cells[r.member], 1u);
        }
    }
    workgroupBarrier();
    if SAMPLE_KEEPS != 0u {
        if completes && samples && r.lane == 0u {
            sample_kept(slot_base, free_cells, c0, key, atomicLoad(&kept_cells[r.member]));
        }
        workgroupBarrier();
    }
    for (var i = r.lane; i < select(0u, free_cells, completes); i += CELL_INVOCATIONS) {
        let cell = spin_data[slot_base + i].z;
        let bit = fill[c0 + cell] & TOTAL_MASK;
        if bit != 0u {
            place(h0, houses_of(slot_base, i), bit);
        }
    }
    // A round a cell at most: each places at least one.
    for (var round = 0u; round <= CELLS; round++) {
        let failed = (atomicLoad(flags) & FAILED) != 0u;
        let working = completes && !failed;
        // Naked singles: an open cell's digits that no house of it holds.
        for (var u = r.lane; u < select(0u, HOUSES, working); u += CELL_INVOCATIONS) {
            atomicStore(&house_digits[h0 + 3u * u + 1u], 0u);
            atomicStore(&house_digits[h0 + 3u * u + 2u], 0u);
        }
        workgroupBarrier();
        for (var i = r.lane; i < select(0u, free_cells, working); i += CELL_INVOCATIONS) {
            let cell = spin_data[slot_base + i].z;
            if (fill[c0 + cell] & TOTAL_MASK) == 0u {
                let houses = houses_of(slot_base, i);
                let digits = open_digits(h0, houses, fill[c0 + cell]);
                if digits == 0u || (countOneBits(digits) == 1u && place(h0, houses, digits)) {
                    atomicOr(flags, FAILED);
                } else if countOneBits(digits) == 1u {
                    fill[c0 + cell] = digits;
                    atomicOr(flags, PROGRESS);
                }
            }
        }
        workgroupBarrier();
        // Each house's open digits seen once, and twice.
        for (var i = r.lane; i < select(0u, free_cells, working); i += CELL_INVOCATIONS) {
            let cell = spin_data[slot_base + i].z;
            if (fill[c0 + cell] & TOTAL_MASK) == 0u {
                let houses = houses_of(slot_base, i);
                let digits = open_digits(h0, houses, fill[c0 + cell]);
                fill[c0 + cell] = digits << OPEN_SHIFT;
                for (var u = 0u; u < 4u; u++) {
                    if houses[u] < HOUSES {
                        let seen = atomicOr(&house_digits[h0 + 3u * houses[u] + 1u], digits);
                        atomicOr(&house_digits[h0 + 3u * houses[u] + 2u], seen & digits);
                    }
                }
            }
        }
        workgroupBarrier();
        // Hidden singles: a digit missing from a house with one open place
        // (kept in the word of those seen once); none fails the grid.
        for (var u = r.lane; u < select(0u, HOUSES, working); u += CELL_INVOCATIONS) {
            let missing = ((1u << COLOURS) - 1u) & ~atomicLoad(&house_digits[h0 + 3u * u]);
            let once = atomicLoad(&house_digits[h0 + 3u * u + 1u]);
            let twice = atomicLoad(&house_digits[h0 + 3u * u + 2u]);
            if (missing & ~once) != 0u {
                atomicOr(flags, FAILED);
            }
            atomicStore(&house_digits[h0 + 3u * u + 1u], once & ~twice & missing);
        }
        workgroupBarrier();
        for (var i = r.lane; i < select(0u, free_cells, working); i += CELL_INVOCATIONS) {
            let cell = spin_data[slot_base + i].z;
            if (fill[c0 + cell] & TOTAL_MASK) == 0u {
                let houses = houses_of(slot_base, i);
                let single = (fill[c0 + cell] >> OPEN_SHIFT) & houses_word(h0, houses, 1u);
                if countOneBits(single) > 1u || (single != 0u && place(h0, houses, single)) {
                    atomicOr(flags, FAILED);
                } else if single != 0u {
                    fill[c0 + cell] = single;
                    atomicOr(flags, PROGRESS);
                } else {
                    atomicOr(flags, OPEN);
                }
            }
        }
        workgroupBarrier();
        if r.member == 0u && r.lane == 0u {
            var any = 0u;
            for (var m = 0u; m < REPLICAS_PER_GROUP; m++) {
                let f = atomicLoad(&fill_flags[m]);
                let done = (f & (COMPLETING | FAILED | OPEN)) == COMPLETING;
                let going = (f & (COMPLETING | FAILED | OPEN | PROGRESS)) == (COMPLETING | OPEN | PROGRESS);
                atomicStore(&fill_flags[m], (f & (COMPLETING | FAILED)) | select(0u, FILLED, done));
                any |= select(0u, 1u, going);
            }
            busy = any;
        }
        if workgroupUniformLoad(&busy) == 0u {
            break;
        }
    }
    // A filled grid is a solution: every constraint holds once.
    let filled = (atomicLoad(flags) & FILLED) != 0u;
    for (var i = r.lane; i < select(0u, free_cells, filled); i += CELL_INVOCATIONS) {
        let cell = spin_data[slot_base + i].z;
        local_cells[c0 + cell] = fill[c0 + cell] & TOTAL_MASK;
    }
    for (var k = FIRST_UNIT + r.lane; k < select(0u, PADDING, filled); k += CELL_INVOCATIONS) {
        local_units[t0 + k] = (local_units[t0 + k] & ~TOTAL_MASK) | 1u;
    }
    workgroupBarrier();
}

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
        if COMPLETE {
            atomicStore(&sweep_flags[2u * r.member], 0u);
            atomicStore(&sweep_flags[2u * r.member + 1u], 0u);
        }
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
    // Where grids are completed, a solved replica stays solved: the sweeps
    // would take it away before the round's end, where the host looks
    // (twin: the `cpu` backend's sweeps).
    var stopped = COMPLETE && r.valid && !fresh && energies[r.index] == 0;
    var s = 0u;
    for (; s < params.sweep_count; s++) {
        let sweep_number = slot.first_sweep + s;
        let key = sweep_key(stream, sweep_number);
        let swept = s < sweeps && !stopped;
        let hot = slot.hot_rows != 0u && sweep_number >= SWEEPS_BEFORE_COMPLETION;
        let row = select(table, table + slot.hot_rows, hot);
        for (var colour = 0u; colour < COLOURS; colour++) {
            // A slot past its own sweep count idles; the barriers stay uniform.
            let end = select(0u, slot.class_start[colour + 1u], swept);
            for (var i = slot.class_start[colour] + r.lane; i < end; i += CELL_INVOCATIONS) {
                update_cell(slot_base, t0, c0, i, key, row, slot.table_len);
            }
            workgroupBarrier();
        }
        if COMPLETE {
            let completes = swept && completes_after(sweep_number, slot.hot_rows != 0u);
            let free_cells = slot.class_start[COLOURS];
            complete(r, slot_base, free_cells, t0, c0, swept, completes, s & 1u, slot.hot_rows != 0u, key);
        }
        if ADAPTIVE && swept {
            adapt_weights(r.lane, t0, (sweep_number + 1u) % RELAX_EVERY == 0u);
        }
        workgroupBarrier();
        if COMPLETE && swept {
            let violated = (atomicLoad(&sweep_flags[2u * r.member + (s & 1u)]) & VIOLATED) != 0u;
            stopped = !violated || (atomicLoad(&fill_flags[r.member]) & FILLED) != 0u;
        }
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
