//! The solver (stage 2–5 for a stream): batches and threads change no
//! result and no order, records go out as soon as they are done, and the
//! library runs what the command line runs.

use std::io::Write;
use std::process::{Command, Stdio};

use sudoku_anneal::Status;

use crate::process::{run, spawn, stdout_lines, TempFile};
use crate::util::{example, grid, solves, EASY, EASY_SOLUTION, INKALA};

#[test]
fn batching_changes_neither_results_nor_order() {
    let hard = std::fs::read_to_string(example("hard.txt")).unwrap();
    let input = format!("{hard}{EASY}\nbad\n{INKALA}\n");
    for backend in ["cpu", "cpu-bits"] {
        let run_with = |batch: &str| -> Vec<serde_json::Value> {
            let args =
                ["solve", "--backend", backend, "--format", "jsonl", "--max-sweeps", "30", "--batch", batch, "-"];
            stdout_lines(&run(&args, &input))
                .iter()
                .map(|l| {
                    let mut record: serde_json::Value = serde_json::from_str(l).unwrap();
                    record.as_object_mut().unwrap().remove("seconds");
                    record
                })
                .collect()
        };
        let one_at_a_time = run_with("1");
        assert_eq!(one_at_a_time.len(), 8);
        let statuses: Vec<&str> = one_at_a_time.iter().map(|r| r["status"].as_str().unwrap()).collect();
        let all_kinds = ["solved", "unsolved", "invalid"].iter().all(|kind| statuses.contains(kind));
        assert!(all_kinds, "{backend}: {statuses:?}");
        assert_eq!(run_with("3"), one_at_a_time, "{backend}");
        assert_eq!(run_with("8"), one_at_a_time, "{backend}");
    }
}

/// The backends that run a puzzle per thread do so with a solver per
/// thread and no join per round: records in input order, and the same
/// outcomes on one thread or three. A producer that writes one puzzle and
/// waits gets its answer from them too.
#[test]
fn threads_change_neither_results_nor_order() {
    let hard = std::fs::read_to_string(example("hard.txt")).unwrap();
    let input = format!("{hard}{EASY}\nbad\n{INKALA}\n{hard}");
    let solve_on = |backend: &str, threads: &str, stdin: &str| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_sudoku-anneal"))
            .args(["solve", "--backend", backend, "--format", "jsonl", "--max-sweeps", "40", "-"])
            .env("RAYON_NUM_THREADS", threads)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        let records: Vec<serde_json::Value> = stdout_lines(&out)
            .iter()
            .map(|l| {
                let mut record: serde_json::Value = serde_json::from_str(l).unwrap();
                record.as_object_mut().unwrap().remove("seconds");
                record
            })
            .collect();
        records
    };
    for backend in ["cpu-lanes", "cpu-bits"] {
        let one = solve_on(backend, "1", &input);
        assert_eq!(one.len(), 13);
        let indices: Vec<u64> = one.iter().map(|r| r["index"].as_u64().unwrap()).collect();
        assert_eq!(indices, (0..13).collect::<Vec<_>>());
        let statuses: Vec<&str> = one.iter().map(|r| r["status"].as_str().unwrap()).collect();
        assert!(["solved", "unsolved", "invalid"].iter().all(|kind| statuses.contains(kind)), "{statuses:?}");
        assert_eq!(solve_on(backend, "3", &input), one, "{backend}");
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_sudoku-anneal"))
        .args(["solve", "--backend", "cpu-lanes"])
        .env("RAYON_NUM_THREADS", "2")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (sender, answers) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufRead::lines(std::io::BufReader::new(stdout)) {
            drop(sender.send(line.unwrap()));
        }
    });
    for _ in 0..3 {
        writeln!(stdin, "{INKALA}").unwrap();
        let answer =
            answers.recv_timeout(std::time::Duration::from_secs(20)).expect("an answer while the input is open");
        assert!(solves(&grid(INKALA), &grid(&answer)), "{answer}");
    }
    drop(stdin);
    assert_eq!(child.wait().unwrap().code(), Some(0));
}

/// A producer that writes one puzzle and waits for its answer gets it,
/// though the batch has room for more and the input stays open.
#[test]
fn a_record_is_written_as_soon_as_it_is_done_while_the_input_stays_open() {
    for backend in ["cpu", "cpu-lanes"] {
        let mut child = spawn(&["solve", "--backend", backend, "--batch", "8"]);
        let mut stdin = child.stdin.take().unwrap();
        writeln!(stdin, "{EASY}\nnot a puzzle\n{INKALA}").unwrap();
        let stdout = child.stdout.take().unwrap();
        let (sender, answers) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufRead::lines(std::io::BufReader::new(stdout)) {
                drop(sender.send(line.unwrap()));
            }
        });
        let wait = std::time::Duration::from_secs(20);
        assert_eq!(answers.recv_timeout(wait).unwrap(), EASY_SOLUTION, "{backend}");
        assert!(answers.recv_timeout(wait).unwrap().starts_with("not a puzzle # invalid"), "{backend}");
        let inkala = answers.recv_timeout(wait).unwrap();
        assert!(solves(&grid(INKALA), &grid(&inkala)), "{backend}: {inkala}");
        drop(stdin);
        assert_eq!(child.wait().unwrap().code(), Some(1));
    }
}

/// From a file too, a finished record goes out while later puzzles anneal.
#[test]
fn a_record_is_written_while_the_puzzles_after_it_anneal() {
    // Consistent clues without a solution: without propagation it anneals until stopped.
    let unsolvable = "001300209005009001070060043006002087190007400050083000600000105003508690042910300";
    let file = TempFile::new("easy-then-endless.txt", &format!("{EASY}\n{unsolvable}\n"));
    let args = ["solve", "--backend", "cpu", "--reduce", "clues", "--timeout", "0", "--max-sweeps", "4000000000"];
    let mut child = spawn(&[&args[..], &[file.path()]].concat());
    let stdout = child.stdout.take().unwrap();
    let (sender, answers) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut first = String::new();
        std::io::BufRead::read_line(&mut std::io::BufReader::new(stdout), &mut first).unwrap();
        drop(sender.send(first));
    });
    let first = answers.recv_timeout(std::time::Duration::from_secs(10));
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(first.unwrap().trim_end(), EASY_SOLUTION);
}

/// The library resolves a backend's settings as the command line does:
/// the same choice runs the same sweeps to the same grid.
#[test]
fn the_library_and_the_command_line_run_the_same_settings() {
    use sudoku_anneal::{solve, BackendKind, Overrides, Settings};
    for kind in [BackendKind::Cpu, BackendKind::CpuBits, BackendKind::Bits32] {
        let out = run(&["solve", "--backend", kind.name(), "--seed", "3", "--format", "jsonl", INKALA], "");
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let record: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let settings = Settings::resolve(kind, &Overrides { seed: Some(3), ..Overrides::default() }).unwrap();
        let outcome = solve(&grid(INKALA), &settings, kind.build().unwrap().as_mut()).unwrap();
        let Status::Solved(solution) = outcome.status else { panic!("{kind:?}: {:?}", outcome.status) };
        assert_eq!(record["solution"], solution.to_string(), "{kind:?}");
        assert_eq!(record["sweeps"], outcome.sweeps, "{kind:?}");
        assert_eq!(record["backend"], kind.name());
    }
}

/// What an observer is told the chains ran at: twice the ladder's
/// temperature in the rounds after the tenth sweep where grids are
/// completed on one-rung ladders (cpu-lanes' defaults), the ladder's own
/// before and without completion, whatever the backend.
#[test]
fn observers_see_the_temperatures_the_chains_ran_at() {
    use sudoku_anneal::dynamics::{Completion, COMPLETION_HEAT, SAMPLED_HEAT, SWEEPS_BEFORE_COMPLETION};
    use sudoku_anneal::puzzle::PuzzleReader;
    use sudoku_anneal::reduce::Reduce;
    use sudoku_anneal::settings::ModelOptions;
    use sudoku_anneal::solver::{solve_observed, Observer, Progress};
    use sudoku_anneal::{BackendKind, Overrides, Settings};

    /// Each round's sweeps so far and its coldest temperature.
    struct Rounds(Vec<(u64, f64)>);
    impl Observer for Rounds {
        fn wants_round(&self) -> bool {
            true
        }
        fn round(&mut self, progress: Progress<'_>) {
            self.0.push((progress.sweeps, progress.temperatures[0]));
        }
    }
    // Annealed past sweep 10 at seed 0 (no probing to decide it).
    let hard = "98.7..6..7.5....9..43.....78..2....6..7.1..2......48..3..9...6.....5.3.......1..9";
    let model = ModelOptions { reduce: Reduce::Propagate, ..ModelOptions::default() };
    for (kind, complete, heat) in [
        (BackendKind::CpuLanes, None, SAMPLED_HEAT),
        (BackendKind::CpuLanes, Some(Completion::Singles), COMPLETION_HEAT),
        (BackendKind::Cpu, Some(Completion::Singles), COMPLETION_HEAT),
        (BackendKind::CpuLanes, Some(Completion::Off), 1.0),
    ] {
        let overrides = Overrides { complete, model, ..Overrides::default() };
        let settings = Settings::resolve(kind, &overrides).unwrap();
        let entry = PuzzleReader::new(hard.as_bytes(), settings.variant).next().unwrap().unwrap();
        let mut rounds = Rounds(Vec::new());
        let outcome = solve_observed(entry, &settings, kind.build().unwrap().as_mut(), &mut rounds, || false);
        assert!(matches!(outcome.unwrap().unwrap().status, Status::Solved(_)), "{kind:?} {complete:?}");
        let t = settings.for_shape(sudoku_anneal::grid::Shape::CLASSIC).t_min;
        assert!(rounds.0.last().unwrap().0 > SWEEPS_BEFORE_COMPLETION as u64, "{kind:?}: solved too soon");
        for &(sweeps, temperature) in &rounds.0 {
            let expected = if sweeps > SWEEPS_BEFORE_COMPLETION as u64 { t * heat } else { t };
            assert_eq!(temperature, expected, "{kind:?} {complete:?}, after {sweeps} sweeps");
        }
    }
}

/// Probing in full waits for a puzzle's first 10 sweeps, or comes before
/// the anneal where the first round would reach them (`gpu`'s rounds of
/// 20) or where more than a quarter of the spins are free after singles:
/// a puzzle it decides then takes no slot.
#[test]
fn probing_in_full_comes_before_the_anneal_where_the_anneal_would_wait_for_it() {
    // Two of magictour that brief probing leaves and full probing solves:
    // 177 spins of 729 free after singles, and 271.
    let few_free = ".1.....8....75.....39...6........8.6.9..2.4..6.1....9.......2....2149.381...3....";
    let many_free = "4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........";
    for (puzzle, every, sweeps) in
        [(few_free, "5", 10), (few_free, "10", 0), (few_free, "20", 0), (many_free, "5", 0), (many_free, "20", 0)]
    {
        let out = run(&["solve", "--backend", "cpu", "--exchange-every", every, "--format", "jsonl", puzzle], "");
        let record: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let what = (&record["status"], &record["solved_by"], &record["sweeps"]);
        assert_eq!(what, (&"solved".into(), &"reduction".into(), &sweeps.into()), "{puzzle} --exchange-every {every}");
    }
}
