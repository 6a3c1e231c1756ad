//! Ctrl-C and SIGTERM, raised as flags that a run reads between rounds.

use std::io;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::Context;

/// Flags that Ctrl-C (SIGINT) and SIGTERM (what Slurm and Kubernetes send
/// before they kill a job) raise, so a run stops between rounds and reports
/// what it has; a second signal ends the process at once.
pub struct Interrupt {
    stop: Arc<AtomicBool>,
    terminated: Arc<AtomicBool>,
}

impl Interrupt {
    pub fn install() -> anyhow::Result<Interrupt> {
        use signal_hook::consts::{SIGINT, SIGTERM};
        use signal_hook::flag::{register, register_conditional_shutdown};
        let interrupt = Interrupt { stop: Arc::default(), terminated: Arc::default() };
        let install = || -> io::Result<()> {
            // The shutdown first: it acts only when a signal before this one raised the flag.
            register_conditional_shutdown(SIGINT, 130, Arc::clone(&interrupt.stop))?;
            register_conditional_shutdown(SIGTERM, 143, Arc::clone(&interrupt.stop))?;
            register(SIGINT, Arc::clone(&interrupt.stop))?;
            register(SIGTERM, Arc::clone(&interrupt.stop))?;
            register(SIGTERM, Arc::clone(&interrupt.terminated)).map(drop)
        };
        install().context("cannot install the signal handlers")?;
        Ok(interrupt)
    }

    pub fn raised(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// What stopped the run, and its exit status (128 + the signal's number, as a shell reports it).
    pub fn cause(&self) -> (&'static str, ExitCode) {
        match self.terminated.load(Ordering::Relaxed) {
            true => ("stopped by SIGTERM", ExitCode::from(143)),
            false => ("interrupted", ExitCode::from(130)),
        }
    }
}
