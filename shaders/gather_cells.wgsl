// The gather pass of the kernels that keep a word per cell (spins.wgsl,
// cells.wgsl; bits.wgsl has its own), appended after either.

// After a sweep, one workgroup per slot of the dispatch: copies the cells
// of the slot's first zero-energy replica to `solutions`, so they come
// back with the energies instead of in a readback of their own, which
// would wait for whatever the device was given since.
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
        let replica = slot * per_slot + solved;
        for (var c = lane; c < CELLS; c += GATHER_SIZE) {
            solutions[slot * CELLS + c] = cells[replica * CELLS + c];
        }
    }
}
