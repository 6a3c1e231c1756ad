//! Device faults: a shader that does not compile and a device lost
//! mid-run end a `--backend gpu` run with exit 2 and a clear message
//! (injected through SUDOKU_ANNEAL_GPU_FAULT); under `auto` a failure
//! mid-run continues on the CPU without losing or repeating a record.

use std::ops::Range;
use std::process::Command;

use sudoku_anneal::backend::cpu::CpuBackend;
use sudoku_anneal::backend::{Backend, Layout, Problem};
use sudoku_anneal::grid::Shape;
use sudoku_anneal::puzzle::{Entry, PuzzleReader};
use sudoku_anneal::solver::{solve_stream, solve_stream_with_fallback};
use sudoku_anneal::BackendKind;
use sudoku_anneal::{Error, Outcome, Result, Settings, Status};

use crate::cpu_vs_gpu::gpu;
use crate::util::example;

/// A CPU backend whose device "fails" on its `fail_at`-th submission.
struct Flaky {
    inner: CpuBackend,
    sweeps: u32,
    fail_at: u32,
}

impl Backend for Flaky {
    fn kind(&self) -> BackendKind {
        BackendKind::Gpu
    }
    fn device(&self) -> String {
        "flaky".into()
    }
    fn max_replicas(&self, shape: Shape) -> usize {
        self.inner.max_replicas(shape)
    }
    fn configure(&mut self, layout: Layout) -> Result<()> {
        self.inner.configure(layout)
    }
    fn load(&mut self, slot: usize, problem: &Problem) -> Result<()> {
        self.inner.load(slot, problem)
    }
    fn unload(&mut self, slot: usize) -> Result<()> {
        self.inner.unload(slot)
    }
    fn submit(&mut self, slots: Range<usize>, rung_of_replica: &[u32], counts: &[u32]) -> Result<()> {
        self.sweeps += 1;
        if self.sweeps == self.fail_at {
            return Err(Error::Gpu("injected: the device was lost".into()));
        }
        self.inner.submit(slots, rung_of_replica, counts)
    }
    fn energies(&mut self, slots: Range<usize>) -> Result<Vec<i32>> {
        self.inner.energies(slots)
    }
    fn spins(&mut self, replicas: &[usize]) -> Result<Vec<Vec<u8>>> {
        self.inner.spins(replicas)
    }
}

fn puzzles() -> Vec<Result<Entry>> {
    let text =
        std::fs::read_to_string(example("hard.txt")).unwrap() + &std::fs::read_to_string(example("easy.txt")).unwrap();
    PuzzleReader::new(text.into_bytes().as_slice(), Default::default()).map(|e| Ok(e.unwrap())).collect()
}

#[test]
fn a_failure_mid_run_continues_on_the_fallback_with_every_record_once_in_order() {
    let settings = Settings { batch: 3, seed: 4, ..Settings::plain_model() };
    let mut expected: Vec<(usize, Outcome)> = Vec::new();
    solve_stream(
        puzzles().into_iter(),
        &settings,
        &mut CpuBackend::new(),
        |e, o| {
            expected.push((e.line, o));
            Ok(())
        },
        || false,
    )
    .unwrap();
    for fail_at in [1, 7, 40] {
        let mut flaky = Flaky { inner: CpuBackend::new(), sweeps: 0, fail_at };
        let mut got: Vec<(usize, Outcome)> = Vec::new();
        let mut fell_back = false;
        let fallback = |_: &Error| {
            fell_back = true;
            Some((Box::new(CpuBackend::new()) as Box<dyn Backend>, settings.clone()))
        };
        let emit = |e: Entry, o| {
            got.push((e.line, o));
            Ok(())
        };
        solve_stream_with_fallback(puzzles().into_iter(), &settings, &mut flaky, fallback, emit, || false).unwrap();
        assert!(fell_back, "fail_at {fail_at}");
        let lines = |v: &[(usize, Outcome)]| v.iter().map(|(line, _)| *line).collect::<Vec<_>>();
        assert_eq!(lines(&got), lines(&expected), "fail_at {fail_at}");
        // A puzzle that runs again from scratch with the same seed anneals the same.
        for ((_, a), (_, b)) in got.iter().zip(&expected) {
            assert_eq!((&a.status, a.sweeps), (&b.status, b.sweeps));
        }
    }
    let mut flaky = Flaky { inner: CpuBackend::new(), sweeps: 0, fail_at: 2 };
    let result =
        solve_stream_with_fallback(puzzles().into_iter(), &settings, &mut flaky, |_| None, |_, _| Ok(()), || false);
    assert!(matches!(result, Err(Error::Gpu(_))), "without a fallback the failure is returned");
}

#[cfg(feature = "test-hooks")]
fn solve_with_fault(fault: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_sudoku-anneal"))
        .args(["solve", "--backend", "gpu", "--batch", "2", "--ladders", "1"])
        .arg(example("hard.txt"))
        .env("SUDOKU_ANNEAL_GPU_FAULT", fault)
        .output()
        .unwrap()
}

/// The injected faults need the `test-hooks` feature (the README's test
/// command); where the GPU tests are required, so are they.
#[cfg(not(feature = "test-hooks"))]
#[test]
fn injected_faults_need_the_test_hooks_feature() {
    assert!(std::env::var_os("REQUIRE_GPU").is_none(), "run the tests with --features test-hooks, as the README says");
}

#[cfg(feature = "test-hooks")]
#[test]
fn shader_failure_and_device_loss_exit_2_with_a_clear_message() {
    if gpu().is_none() {
        return;
    }
    let out = solve_with_fault("shader");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("error: GPU error: the sweep shader does not build"));
    assert!(out.stdout.is_empty());
    let out = solve_with_fault("lost-after=3");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let said = "error: GPU error: the device was lost while a round ran (destroyed; the driver gave no reason)";
    assert!(stderr.contains(said), "{stderr}");
    assert!(!stderr.contains("panicked"));
    assert!(String::from_utf8_lossy(&out.stdout).lines().all(|l| l.len() == 81), "printed records are complete");
}

/// A CPU backend that claims, once, that slot 1's first replica reached
/// energy 0, and hands back a state that encodes no grid.
struct Lying {
    inner: CpuBackend,
    per_slot: usize,
    lied: bool,
}

impl Backend for Lying {
    fn kind(&self) -> BackendKind {
        BackendKind::Cpu
    }
    fn device(&self) -> String {
        "lying".into()
    }
    fn max_replicas(&self, shape: Shape) -> usize {
        self.inner.max_replicas(shape)
    }
    fn configure(&mut self, layout: Layout) -> Result<()> {
        self.per_slot = layout.replicas_per_slot;
        self.inner.configure(layout)
    }
    fn load(&mut self, slot: usize, problem: &Problem) -> Result<()> {
        self.inner.load(slot, problem)
    }
    fn unload(&mut self, slot: usize) -> Result<()> {
        self.inner.unload(slot)
    }
    fn submit(&mut self, slots: Range<usize>, rung_of_replica: &[u32], counts: &[u32]) -> Result<()> {
        self.inner.submit(slots, rung_of_replica, counts)
    }
    fn energies(&mut self, slots: Range<usize>) -> Result<Vec<i32>> {
        let mut energies = self.inner.energies(slots.clone())?;
        if slots.contains(&1) && !std::mem::replace(&mut self.lied, true) {
            energies[(1 - slots.start) * self.per_slot] = 0;
        }
        Ok(energies)
    }
    fn spins(&mut self, replicas: &[usize]) -> Result<Vec<Vec<u8>>> {
        let mut spins = self.inner.spins(replicas)?;
        for (state, _) in spins.iter_mut().zip(replicas).filter(|(_, &r)| r == self.per_slot) {
            state.fill(0);
        }
        Ok(spins)
    }
}

/// The engine failing on one puzzle (a zero-energy replica that decodes to
/// no grid) gives that puzzle an error record; every other puzzle still
/// gets its own, in order.
#[test]
fn a_failure_on_one_puzzle_costs_no_other_record() {
    let settings = Settings { batch: 2, seed: 4, ..Settings::plain_model() };
    let mut records: Vec<(usize, Outcome)> = Vec::new();
    let emit = |e: Entry, o| {
        records.push((e.line, o));
        Ok(())
    };
    let mut lying = Lying { inner: CpuBackend::new(), per_slot: 0, lied: false };
    solve_stream(puzzles().into_iter(), &settings, &mut lying, emit, || false).unwrap();
    let lines: Vec<usize> = puzzles().iter().map(|e| e.as_ref().unwrap().line).collect();
    assert_eq!(records.iter().map(|(line, _)| *line).collect::<Vec<_>>(), lines);
    let failed =
        records.iter().filter(|(_, o)| matches!(&o.status, Status::Failed(why) if why.contains("does not decode")));
    assert_eq!(failed.count(), 1, "the puzzle first in slot 1");
    assert!(records.iter().filter(|(_, o)| !matches!(o.status, Status::Failed(_))).all(|(_, o)| o.is_solved()));
}
