// What the sweep kernels (spins.wgsl, bits.wgsl) share: the host's
// structs, most bindings, the counter-based random numbers and the search
// for a slot's solved replica. Prepended to each, after the constants
// src/backend/gpu/kernel.rs writes for the board shape: every upper-case
// name used here and not defined comes from there.

// Keep in sync with src/backend/gpu/kernel.rs.
struct Params {
    // This dispatch covers replicas first_replica..end_replica, whole slots.
    first_replica: u32,
    end_replica: u32,
    replicas_per_slot: u32,
    // The most sweeps any slot runs in this dispatch.
    sweep_count: u32,
    // Words of rung tables per slot: rungs × the kernel's table length.
    table_stride: u32,
}

// What the kernels know of one slot's puzzle. Keep in sync with
// src/backend/gpu/kernel.rs.
struct SlotInfo {
    first_sweep: u32,
    sweep_count: u32,
    seed_lo: u32,
    seed_hi: u32,
    table_len: u32,
    // 1 on the first dispatch after a load: replicas start from the
    // kernel's initial state (spins.wgsl: all-zero, energy = offset;
    // bits.wgsl: random).
    fresh: u32,
    offset: i32,
    // cells.wgsl: where the chains heat, the hot rows' offset from the
    // slot's rows; 0 where they do not.
    hot_rows: u32,
    // Free spins of colour c are class_start[c]..class_start[c + 1].
    class_start: array<u32, CLASS_STARTS>,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> slots: array<SlotInfo>;
// spin_data[(slot * MAX_SPINS + i) * SPIN_VECS + v] for free spin i: first
// (cell | digit << 16, then its other constraints: row-digit, column-digit,
// box-digit); the cell's own constraint index is the cell. With diagonals
// a second vec4 holds the diagonal constraints or PADDING.
@group(0) @binding(2) var<storage, read> spin_data: array<vec4<u32>>;
// rung_tables[slot * table_stride + rung * table_len + x]: spins.wgsl and
// bits.wgsl: the Metropolis threshold of an uphill move of ΔE = x;
// cells.wgsl: the heat-bath weight of a candidate x above the cell's lowest.
@group(0) @binding(3) var<storage, read> rung_tables: array<u32>;
@group(0) @binding(4) var<storage, read> rung_of_replica: array<u32>;
// initial_totals[slot * TOTALS + k]: fixed ones in constraint k.
@group(0) @binding(5) var<storage, read> initial_totals: array<u32>;
@group(0) @binding(8) var<storage, read_write> energies: array<i32>;
// Bindings 6 (totals), 7 (states) and 9 (solutions) are the kernel's own.
// The slots again, writable, for `advance` alone: the sweeps read them as
// read-only storage.
@group(0) @binding(10) var<storage, read_write> slots_to_advance: array<SlotInfo>;

// CUT_SHORT is a replica's energy when its dispatch was cut short. llvmpipe
// (Mesa's software Vulkan driver) ends every loop of an invocation once it
// has run 65,535 loop iterations in all; the sweep kernels check that their
// sweep loop and their last loop ran to the end, and report CUT_SHORT
// instead of the energy of a half-swept state.

// Between two dispatches of one round, one invocation per slot: the sweeps
// the last dispatch ran count as done. Where a driver limits the work of a
// dispatch, a round runs as several (`Kernel::sweeps_per_dispatch`).
@compute @workgroup_size(GATHER_SIZE)
fn advance(@builtin(global_invocation_id) id: vec3<u32>) {
    let per_slot = params.replicas_per_slot;
    let slot = params.first_replica / per_slot + id.x;
    if slot < params.end_replica / per_slot {
        let ran = min(slots_to_advance[slot].sweep_count, params.sweep_count);
        slots_to_advance[slot].first_sweep += ran;
        slots_to_advance[slot].sweep_count -= ran;
        slots_to_advance[slot].fresh = 0u;
    }
}

// Twins of src/rng.rs.

fn mix32(value: u32) -> u32 {
    var x = value;
    x ^= x >> 16u;
    x *= 0x7feb352du;
    x ^= x >> 15u;
    x *= 0x846ca68bu;
    x ^= x >> 16u;
    return x;
}

fn stream_key(seed_lo: u32, seed_hi: u32, stream: u32) -> u32 {
    let seed_key = mix32(mix32(seed_lo ^ GOLDEN) ^ seed_hi);
    return mix32(seed_key ^ stream);
}

fn sweep_key(stream: u32, sweep: u32) -> u32 {
    return mix32(stream ^ mix32(sweep + GOLDEN));
}

fn attempt_random(key: u32, index: u32) -> u32 {
    return mix32(key ^ ((index + 1u) * GOLDEN));
}

// High word of the 64-bit product, from 16-bit halves (twin: `mul_high` in
// src/backend/cpu/cells.rs).
fn mul_high(a: u32, b: u32) -> u32 {
    let a_lo = a & 0xffffu;
    let a_hi = a >> 16u;
    let b_lo = b & 0xffffu;
    let b_hi = b >> 16u;
    let cross = ((a_lo * b_lo) >> 16u) + ((a_hi * b_lo) & 0xffffu) + a_lo * b_hi;
    return a_hi * b_hi + ((a_hi * b_lo) >> 16u) + (cross >> 16u);
}

// Where an invocation of a replica-per-unit sweep (spins.wgsl, cells.wgsl)
// stands: `lanes` invocations per replica, `per_group` replicas per workgroup.
struct Replica {
    member: u32, // which of the workgroup's replicas
    lane: u32,
    index: u32,
    // Padding replicas past the end run along (barriers need every
    // invocation) but read and write nothing global, and borrow the last
    // replica's slot.
    valid: bool,
    clamped: u32,
    slot: u32,
}

fn replica_of(local: u32, group: vec3<u32>, groups: vec3<u32>, lanes: u32, per_group: u32) -> Replica {
    let member = local / lanes;
    let index = params.first_replica + (group.y * groups.x + group.x) * per_group + member;
    let clamped = min(index, params.end_replica - 1u);
    return Replica(member, local % lanes, index, index < params.end_replica, clamped, clamped / params.replicas_per_slot);
}

var<workgroup> first_solved: atomic<u32>;

// For `gather`, one workgroup per slot of the dispatch: the slot's
// lowest-numbered zero-energy replica, the one the host picks (twin:
// `position(|&e| e == 0)` in src/solver.rs), or replicas_per_slot if it has
// none or lies past the dispatch.
fn first_solved_replica(lane: u32, slot: u32) -> u32 {
    let per_slot = params.replicas_per_slot;
    if lane == 0u {
        atomicStore(&first_solved, per_slot);
    }
    workgroupBarrier();
    if slot < params.end_replica / per_slot {
        for (var r = lane; r < per_slot; r += GATHER_SIZE) {
            if energies[slot * per_slot + r] == 0 {
                atomicMin(&first_solved, r);
            }
        }
    }
    workgroupBarrier();
    return atomicLoad(&first_solved);
}
