//! Faults the test suite injects into the GPU backends, with the
//! `test-hooks` feature only (the tests turn it on; release builds lack
//! it): `SUDOKU_ANNEAL_GPU_FAULT=shader` (the sweep shader fails to
//! compile) or `lost-after=N` (the device is destroyed before the (N+1)-th
//! sweep dispatch, as when a driver resets).

#[cfg(feature = "test-hooks")]
#[derive(Debug, Default)]
pub(super) struct Faults {
    shader: bool,
    lost_after: Option<u32>,
    dispatches: u32,
}

#[cfg(feature = "test-hooks")]
impl Faults {
    pub(super) fn from_env() -> Faults {
        let value = std::env::var("SUDOKU_ANNEAL_GPU_FAULT").unwrap_or_default();
        let lost_after = value.strip_prefix("lost-after=").and_then(|n| n.parse().ok());
        Faults { shader: value == "shader", lost_after, dispatches: 0 }
    }

    /// The sweep shader's source, broken if asked.
    pub(super) fn shader(&self, source: String) -> String {
        match self.shader {
            true => source + "\nthis line is not WGSL",
            false => source,
        }
    }

    /// Before each sweep dispatch: destroys the device at the one asked for.
    pub(super) fn before_dispatch(&mut self, device: &wgpu::Device) {
        if self.lost_after == Some(self.dispatches) {
            device.destroy();
        }
        self.dispatches += 1;
    }
}

/// Without the feature: nothing, and nothing reads the environment.
#[cfg(not(feature = "test-hooks"))]
#[derive(Debug, Default)]
pub(super) struct Faults;

#[cfg(not(feature = "test-hooks"))]
impl Faults {
    pub(super) fn from_env() -> Faults {
        Faults
    }

    pub(super) fn shader(&self, source: String) -> String {
        source
    }

    pub(super) fn before_dispatch(&mut self, _device: &wgpu::Device) {}
}
