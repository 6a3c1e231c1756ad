// Bit-sliced colour-class Metropolis sweeps: 32 replicas of a slot per u32
// *word* (lane l of word w is replica 32w + l of the slot), one invocation
// per lane, WORDS_PER_GROUP words per workgroup.
// Twin of `Word::sweep` in src/backend/cpu/bits.rs, which describes the
// algorithm: same words, same random numbers, same integer arithmetic.
//
// Prepended, as for spins.wgsl: the board's constants (`Kernel::source` in
// src/backend/gpu/kernel.rs), then common.wgsl.
//
// In the phase of class c, invocation j of a word attempts free spins
// class_start[c] + j, + j + 32, …, each for all 32 lanes at once; spins
// of one class share no constraint, so this equals the twin's spin-by-spin
// order, and a barrier separates the phases. Workgroup memory holds each
// word's constraint totals as bit planes (where they fit: WORKGROUP_TOTALS;
// else they stay in `totals`, 25×25 boards), its threshold rows and where
// its lanes' thresholds are; spins stay in global memory, where each spin
// word is read and written by one invocation a sweep.

// totals[(word * TOTALS + k) * PLANES + p]: bit p of t_k in every lane.
@group(0) @binding(6) var<storage, read_write> totals: array<u32>;
// spins[word * MAX_SPINS + i]: free spin i in every lane.
@group(0) @binding(7) var<storage, read_write> spins: array<u32>;
// solutions[slot * CELLS + cell], bit d = spin (cell, d): the free spins
// of the slot's first zero-energy replica, written by `gather`.
@group(0) @binding(9) var<storage, read_write> solutions: array<atomic<u32>>;

// One word's totals: local_totals[member * TOTALS * PLANES + k * PLANES + p],
// if WORKGROUP_TOTALS.
var<workgroup> local_totals: array<u32, GROUP_TOTALS>;
// rows[member * ROWS + ((v − 1) * 32 + r) * 3 + band]: the lanes whose
// threshold for ΔE class `band` (ΔE = v, v + 2, v + 4) has bit 31 − r set.
var<workgroup> rows: array<u32, GROUP_ROWS>;
// lane_table[member * 32 + l]: where lane l's rung row starts in
// `rung_tables`, or NO_REPLICA.
var<workgroup> lane_table: array<u32, GROUP_LANES>;
// 1 where some invocation of the word found a loop cut short (common.wgsl, CUT_SHORT).
var<workgroup> cut_short: array<atomic<u32>, WORDS_PER_GROUP>;

const NO_REPLICA: u32 = 0xffffffffu;

fn threshold(table: u32, table_len: u32, delta: u32) -> u32 {
    if table == NO_REPLICA || delta >= table_len {
        return 0u;
    }
    return rung_tables[table + delta];
}

// Plane `index` of the word's totals, wherever they are (Place.totals).
fn plane(index: u32) -> u32 {
    if WORKGROUP_TOTALS {
        return local_totals[index];
    }
    return totals[index];
}

// One lane's total, read from its planes at plane(base..).
fn lane_total(base: u32, lane: u32) -> u32 {
    var t = 0u;
    for (var p = 0u; p < PLANES; p++) {
        t |= ((plane(base + p) >> lane) & 1u) << p;
    }
    return t;
}

fn set_plane(index: u32, value: u32) {
    if WORKGROUP_TOTALS {
        local_totals[index] = value;
    } else {
        totals[index] = value;
    }
}

// Between phases: every invocation's updates visible to its word's others.
fn phase_barrier() {
    workgroupBarrier();
    if !WORKGROUP_TOTALS {
        storageBarrier();
    }
}

// Adds the total at plane(base..) to the bit-sliced `sum`. As cpu-bits'
// `bitplanes::add`, `sum` has as few planes as the uphill tests need and
// stays at its largest value where it would pass it: those tests read
// such a lane right, and a thinned lane's exact sum comes from the totals
// (26–30 % faster on an H200 than exact sums, BENCHMARKS.md).
fn add(sum: ptr<function, array<u32, SUM_PLANES>>, base: u32) {
    var above = 0u;
    for (var p = SUM_PLANES; p < PLANES; p++) {
        above |= plane(base + p);
    }
    var carry = 0u;
    for (var p = 0u; p < SUM_PLANES; p++) {
        let a = (*sum)[p];
        let b = select(0u, plane(base + p), p < PLANES) | above;
        (*sum)[p] = a ^ b ^ carry;
        carry = (a & b) | (carry & (a ^ b));
    }
    for (var p = 0u; p < SUM_PLANES; p++) {
        (*sum)[p] |= carry;
    }
}

// +1 in the lanes of `on`, −1 in those of `off`, to the total at plane(base..).
fn count(base: u32, on: u32, off: u32) {
    var carry = on;
    var borrow = off;
    for (var p = 0u; p < PLANES; p++) {
        let t = plane(base + p);
        set_plane(base + p, t ^ carry ^ borrow);
        carry = t & carry;
        borrow = ~t & borrow;
    }
}

// The lanes where `sum` ≥ m.
fn at_least(sum: ptr<function, array<u32, SUM_PLANES>>, m: u32) -> u32 {
    if m >= (1u << SUM_PLANES) {
        return 0u;
    }
    var greater = 0u;
    var equal = 0xffffffffu;
    for (var p = SUM_PLANES; p > 0u; p--) {
        let plane = (*sum)[p - 1u];
        if ((m >> (p - 1u)) & 1u) == 1u {
            equal &= plane;
        } else {
            greater |= equal & plane;
            equal &= ~plane;
        }
    }
    return greater | equal;
}

// The lanes where `sum` = m.
fn equals(sum: ptr<function, array<u32, SUM_PLANES>>, m: u32) -> u32 {
    if m >= (1u << SUM_PLANES) {
        return 0u;
    }
    var equal = 0xffffffffu;
    for (var p = 0u; p < SUM_PLANES; p++) {
        equal &= select(~(*sum)[p], (*sum)[p], ((m >> p) & 1u) == 1u);
    }
    return equal;
}

// The lanes whose flip costs `delta`: x = 0 costs 2S − c, x = 1 costs 3c − 2S.
fn uphill_by(x: u32, sum: ptr<function, array<u32, SUM_PLANES>>, c: u32, delta: u32) -> u32 {
    return (~x & equals(sum, (c + delta) / 2u)) | (x & equals(sum, (3u * c - delta) / 2u));
}

// Where one word's replicas are.
struct Place {
    member: u32,
    word: u32,
    slot: u32,
    // Where its totals start: in local_totals, or in `totals`.
    totals: u32,
    // Its lanes that hold replicas.
    live: u32,
    table_len: u32,
}

// The constraints of free spin i of a slot, PADDING past its own.
fn constraints_of(slot: u32, i: u32) -> array<u32, 6> {
    let spin = (slot * MAX_SPINS + i) * SPIN_VECS;
    let head = spin_data[spin];
    var k = array<u32, 6>(head.x & 0xffffu, head.y, head.z, head.w, PADDING, PADDING);
    if SPIN_VECS > 1u {
        k[4] = spin_data[spin + 1u].x;
        k[5] = spin_data[spin + 1u].y;
    }
    return k;
}

// One attempt on free spin i for every lane of the word. Twin: the loop body of `Word::sweep`.
fn attempt(place: Place, i: u32, key: u32) {
    let k = constraints_of(place.slot, i);
    let t0 = place.totals;
    var sum: array<u32, SUM_PLANES>;
    var c = 0u;
    for (var j = 0u; j < WIDTH; j++) {
        if k[j] != PADDING {
            add(&sum, t0 + k[j] * PLANES);
            c += 1u;
        }
    }
    let x = spins[place.word * MAX_SPINS + i];
    let up = ((~x & at_least(&sum, c / 2u + 1u)) | (x & ~at_least(&sum, (3u * c + 1u) / 2u))) & place.live;
    let v = 2u - c % 2u;
    let at_v = uphill_by(x, &sum, c, v);
    let at_v2 = uphill_by(x, &sum, c, v + 2u);
    let rest = up & ~at_v & ~at_v2;
    let row = place.member * ROWS + (v - 1u) * 32u * 3u;
    var undecided = up;
    var below = 0u;
    for (var r = 0u; r < 32u && undecided != 0u; r++) {
        let bits = (at_v & rows[row + r * 3u]) | (at_v2 & rows[row + r * 3u + 1u]) | (rest & rows[row + r * 3u + 2u]);
        let draw = attempt_random(key, DRAWS_PER_SPIN * i + r);
        below |= undecided & bits & ~draw;
        undecided &= ~(bits ^ draw);
    }
    var accepted = (~up | (below & (at_v | at_v2))) & place.live;
    var thinned = below & rest;
    while thinned != 0u {
        let lane = firstTrailingBit(thinned);
        thinned &= thinned - 1u;
        let table = lane_table[place.member * 32u + lane];
        // The exact sum, from the totals: `sum` may have saturated.
        var s = 0u;
        for (var j = 0u; j < WIDTH; j++) {
            if k[j] != PADDING {
                s += lane_total(t0 + k[j] * PLANES, lane);
            }
        }
        let delta = select(2u * s - c, 3u * c - 2u * s, ((x >> lane) & 1u) == 1u);
        let draw = attempt_random(key, DRAWS_PER_SPIN * i + 32u + lane);
        if mul_high(draw, threshold(table, place.table_len, v + 4u)) < threshold(table, place.table_len, delta) {
            accepted |= 1u << lane;
        }
    }
    if accepted != 0u {
        spins[place.word * MAX_SPINS + i] = x ^ accepted;
        for (var j = 0u; j < WIDTH; j++) {
            if k[j] != PADDING {
                count(t0 + k[j] * PLANES, accepted & ~x, accepted & x);
            }
        }
    }
}

// Lane `lane` builds round `lane`'s threshold rows for word `member`.
fn build_rows(member: u32, lane: u32, table_len: u32) {
    for (var v = 1u; v <= 2u; v++) {
        for (var band = 0u; band < 3u; band++) {
            var bits = 0u;
            for (var l = 0u; l < 32u; l++) {
                let t = threshold(lane_table[member * 32u + l], table_len, v + 2u * band);
                bits |= ((t >> (31u - lane)) & 1u) << l;
            }
            rows[member * ROWS + ((v - 1u) * 32u + lane) * 3u + band] = bits;
        }
    }
}

// A fresh word starts from random states over its `free_spins` (none
// where it is not fresh): each live lane's spin on with probability ½.
// Twin: `Word::random`.
fn initial_state(place: Place, slot: SlotInfo, free_spins: u32, lane: u32, stream: u32) {
    let initial = sweep_key(stream, INITIAL_STATE_SWEEP);
    for (var colour = 0u; colour < COLOURS; colour++) {
        let end = min(slot.class_start[colour + 1u], free_spins);
        for (var i = slot.class_start[colour] + lane; i < end; i += 32u) {
            let on = attempt_random(initial, i) & place.live;
            spins[place.word * MAX_SPINS + i] = on;
            let k = constraints_of(place.slot, i);
            for (var j = 0u; j < WIDTH; j++) {
                if k[j] != PADDING {
                    count(place.totals + k[j] * PLANES, on, 0u);
                }
            }
        }
        phase_barrier();
    }
}

// Σ_k (t_k − 1)² over the real constraints (all but PADDING, the last) of
// lane `lane`, and how far its loop ran (PADDING unless the driver cut it short).
fn lane_energy(t0: u32, lane: u32) -> vec2<i32> {
    var energy = 0;
    var k = 0u;
    for (; k < PADDING; k++) {
        let t = i32(lane_total(t0 + k * PLANES, lane));
        energy += (t - 1) * (t - 1);
    }
    return vec2<i32>(energy, i32(k));
}

@compute @workgroup_size(GROUP_SIZE)
fn sweep(
    @builtin(local_invocation_index) local: u32,
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let member = local / 32u; // which of the workgroup's words
    let lane = local % 32u;
    let per_slot = params.replicas_per_slot;
    let words_per_slot = (per_slot + 31u) / 32u;
    let end_word = params.end_replica / per_slot * words_per_slot;
    let word = params.first_replica / per_slot * words_per_slot + (group.y * groups.x + group.x) * WORDS_PER_GROUP + member;
    // Padding words past the end run along (barriers need every
    // invocation) but read and write nothing global.
    let valid = word < end_word;
    let clamped = min(word, end_word - 1u);
    let slot_index = clamped / words_per_slot;
    let first_lane = (clamped - slot_index * words_per_slot) * 32u; // replica of lane 0, in the slot
    let live = select(0u, 0xffffffffu >> (32u - min(32u, per_slot - first_lane)), valid);
    let slot = slots[slot_index];
    let t0 = select(clamped, member, WORKGROUP_TOTALS) * TOTALS * PLANES;
    let place = Place(member, clamped, slot_index, t0, live, slot.table_len);
    let replica = slot_index * per_slot + first_lane + lane;
    let lane_live = ((live >> lane) & 1u) == 1u;
    let rung = rung_of_replica[min(replica, params.end_replica - 1u)];
    lane_table[member * 32u + lane] =
        select(NO_REPLICA, slot_index * params.table_stride + rung * slot.table_len, lane_live);
    let fresh = slot.fresh != 0u;
    if lane == 0u {
        atomicStore(&cut_short[member], 0u);
    }
    if valid && (WORKGROUP_TOTALS || fresh) {
        for (var j = lane; j < TOTALS * PLANES; j += 32u) {
            let ones = initial_totals[slot_index * TOTALS + j / PLANES];
            let start = select(0u, 0xffffffffu, ((ones >> (j % PLANES)) & 1u) == 1u);
            set_plane(t0 + j, select(totals[clamped * TOTALS * PLANES + j], start, fresh));
        }
    }
    phase_barrier();
    build_rows(member, lane, slot.table_len);
    let stream = stream_key(slot.seed_lo, slot.seed_hi, first_lane / 32u);
    initial_state(place, slot, select(0u, slot.class_start[COLOURS], fresh && valid), lane, stream);

    let sweeps = select(0u, slot.sweep_count, valid);
    var s = 0u;
    for (; s < params.sweep_count; s++) {
        let key = sweep_key(stream, slot.first_sweep + s);
        for (var colour = 0u; colour < COLOURS; colour++) {
            // A slot past its own sweep count idles; the barriers stay uniform.
            let end = select(0u, slot.class_start[colour + 1u], s < sweeps);
            for (var i = slot.class_start[colour] + lane; i < end; i += 32u) {
                attempt(place, i, key);
            }
            phase_barrier();
        }
    }

    if valid && WORKGROUP_TOTALS {
        for (var j = lane; j < TOTALS * PLANES; j += 32u) {
            totals[clamped * TOTALS * PLANES + j] = local_totals[t0 + j];
        }
    }
    var energy = vec2<i32>(0, i32(PADDING));
    if lane_live {
        energy = lane_energy(t0, lane);
    }
    // The sweeps and the last loop run to their ends unless the driver cut them short.
    if s < params.sweep_count || (lane_live && u32(energy.y) < PADDING) {
        atomicStore(&cut_short[member], 1u);
    }
    workgroupBarrier();
    if lane_live {
        energies[replica] = select(energy.x, CUT_SHORT, atomicLoad(&cut_short[member]) != 0u);
    }
}

// After a sweep, one workgroup per slot of the dispatch: writes the free
// spins of the slot's first zero-energy replica to `solutions` as cell
// words, so they come back with the energies.
@compute @workgroup_size(GATHER_SIZE)
fn gather(
    @builtin(local_invocation_index) lane: u32,
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let per_slot = params.replicas_per_slot;
    let slot = params.first_replica / per_slot + group.y * groups.x + group.x;
    let solved = first_solved_replica(lane, slot);
    if solved < per_slot {
        for (var c = lane; c < CELLS; c += GATHER_SIZE) {
            atomicStore(&solutions[slot * CELLS + c], 0u);
        }
    }
    storageBarrier();
    if solved < per_slot {
        let word = slot * ((per_slot + 31u) / 32u) + solved / 32u;
        for (var i = lane; i < slots[slot].class_start[COLOURS]; i += GATHER_SIZE) {
            if ((spins[word * MAX_SPINS + i] >> (solved % 32u)) & 1u) == 1u {
                let head = spin_data[(slot * MAX_SPINS + i) * SPIN_VECS].x;
                atomicOr(&solutions[slot * CELLS + (head & 0xffffu)], 1u << (head >> 16u));
            }
        }
    }
}
