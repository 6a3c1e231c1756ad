//! The GPU backends through wgpu (the `gpu` feature): `gpu` runs
//! `shaders/spins.wgsl` (an int per constraint total, 32 invocations per
//! replica) or `shaders/cells.wgsl` (cell moves), `gpu-bits` runs
//! `shaders/bits.wgsl` (32 replicas bit-sliced per u32 word).
//!
//! The context (adapter, device, a pipeline per board shape) is built
//! once per run and [`Backend::configure`](crate::backend::Backend::configure) allocates a batch's buffers once; each
//! [`Backend::load`](crate::backend::Backend::load) writes one puzzle into its slot's part of them. Between
//! exchange rounds only the slots' sweep counters and the replica→rung map
//! go up, and only the energies come back, with the cells of each slot's
//! first zero-energy replica (gathered on the GPU, so a solved puzzle costs
//! no readback of its own). A submission covers a *bank* of slots and
//! returns at once; the solver keeps two banks, so the device sweeps one
//! while the host exchanges and refills the other.
//!
//! The files by concern: `adapter.rs` names and picks an adapter (names
//! only, without the feature), `backend.rs` is the backend, `context.rs`
//! holds the device and compiled kernels, `batch.rs` the buffers of a batch
//! and its rounds. `kernel.rs` is what the host shares with every shader,
//! and each shader has its host side under its own name: `spins.rs`,
//! `cells.rs`, `bits.rs`; `engine.rs` picks an engine's and computes a
//! kernel's sizes and WGSL from it; `bindings.rs` names the bind group's buffers,
//! `variants.rs` holds the experiments a benchmark may select, `faults.rs`
//! the tests' fault injection.

mod adapter;
#[cfg(feature = "gpu")]
mod backend;
#[cfg(feature = "gpu")]
mod batch;
#[cfg(feature = "gpu")]
mod bindings;
#[cfg(feature = "gpu")]
mod bits;
#[cfg(feature = "gpu")]
mod cells;
#[cfg(feature = "gpu")]
mod context;
#[cfg(feature = "gpu")]
mod engine;
#[cfg(feature = "gpu")]
mod faults;
#[cfg(feature = "gpu")]
pub mod kernel;
#[cfg(feature = "gpu")]
mod spins;
#[cfg(feature = "gpu")]
mod variants;

pub use self::adapter::{list_adapters, AdapterChoice, AdapterName, AdapterSummary};
#[cfg(feature = "gpu")]
pub use self::backend::GpuBackend;
