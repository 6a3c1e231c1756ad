//! `bench`: the table, JSON and plot, and what it refuses or skips.

use std::process::Command;

use crate::process::{run, spawn, TempFile};
use crate::util::{example, EASY, INKALA};

#[test]
fn bench_writes_a_table_json_and_a_plot() {
    let dir = std::env::temp_dir().join(format!("sudoku-anneal-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (json, svg) = (dir.join("bench.json"), dir.join("tts.svg"));
    let hard = example("hard.txt");
    let args = [
        "bench",
        hard.to_str().unwrap(),
        "--backend",
        "cpu",
        "--moves",
        "spin",
        "--runs",
        "2",
        "--max-sweeps",
        "2000",
        "--json",
        json.to_str().unwrap(),
        "--plot",
        svg.to_str().unwrap(),
    ];
    let out = run(&args, "");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(table.starts_with("| file | backend | device | puzzles × runs | solved | puzzles/s |"), "{table}");
    assert!(table.contains("| hard.txt | cpu |") && table.contains("| 5 × 2 |"), "{table}");
    let reports: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let report = &reports[0];
    for key in [
        "solved",
        "solved_by_reduction",
        "puzzles_per_second",
        "attempts_per_second",
        "median_sweeps",
        "median_attempts",
        "mean_attempts",
        "puzzles_per_cpu_second",
        "swap_acceptance",
        "device",
        "settings",
    ] {
        assert!(!report[key].is_null(), "missing {key}: {report}");
    }
    assert_eq!(report["seeds"], serde_json::json!([0, 1]));
    assert_eq!(report["settings"]["max_sweeps"], 2000);
    assert_eq!(report["success_probability"].as_array().unwrap().len(), 5);
    // 16 rungs by default: 15 adjacent pairs, each proposed and sometimes accepted.
    let pairs = report["swap_acceptance_per_pair"].as_array().unwrap();
    assert_eq!(pairs.len(), 15);
    assert!(pairs.iter().all(|p| (0.0..=1.0).contains(&p.as_f64().unwrap())));
    let solved = report["solved"].as_u64().unwrap();
    assert!(solved < 10, "a 2,000-sweep budget leaves some hard puzzles unsolved");
    let plot = std::fs::read_to_string(&svg).unwrap();
    assert!(plot.starts_with("<svg") && plot.contains("hard.txt / cpu"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Arguments that cannot work stop `bench` before its first puzzle.
#[test]
fn bench_refuses_what_cannot_work_before_any_puzzle() {
    let hard = example("hard.txt");
    let hard = hard.to_str().unwrap();
    for (args, said) in [
        (vec!["--runs", "0"], "--runs"),
        (vec!["--runs", "4294967295"], "--runs"),
        (vec!["--plot", "tts.png"], "name it PATH.svg"),
        (vec!["--json", "no/such/dir/b.json"], "cannot write no/such/dir/b.json"),
        (vec!["no/such/file.txt"], "cannot open no/such/file.txt"),
    ] {
        let started = std::time::Instant::now();
        let out = run(&[&["bench", "--backend", "cpu", hard][..], &args].concat(), "");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(said),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stdout.is_empty() && started.elapsed().as_secs() < 5, "{args:?}");
    }
}

/// Lines that are no puzzle count in no figure; the run says so and exits 1.
#[test]
fn bench_counts_invalid_lines_nowhere() {
    let file = TempFile::new("invalid.txt", &format!("{EASY}\nnot a puzzle\n{}\n", &EASY[..80]));
    let out = run(&["bench", "--backend", "cpu", file.path()], "");
    assert_eq!(out.status.code(), Some(1));
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("| 1 × 1 (and 2 invalid) | 1 |"), "{table}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("2 input lines are no valid puzzle"));
}

/// A backend that cannot start is skipped and said; the others' rows are printed, then exit 2.
#[test]
fn bench_skips_a_backend_that_cannot_start_and_prints_the_others() {
    if cfg!(target_os = "macos") {
        return;
    }
    let hard = example("hard.txt");
    let out = Command::new(env!("CARGO_BIN_EXE_sudoku-anneal"))
        .args(["bench", "--backend", "gpu,cpu-bits", "--max-sweeps", "2000", hard.to_str().unwrap()])
        .env("WGPU_BACKEND", "metal")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("| hard.txt | cpu-bits |") && !table.contains("| gpu |"), "{table}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("no usable GPU adapter"));
}

#[cfg(target_os = "linux")]
#[test]
fn bench_says_when_the_table_cannot_be_written() {
    let full = std::fs::File::create("/dev/full").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_sudoku-anneal"))
        .args(["bench", "--backend", "cpu-bits", "--max-sweeps", "1", EASY])
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("error: cannot write the table: No space left on device"), "{stderr}");
}

#[test]
fn ctrl_c_stops_bench_within_a_second_with_exit_130() {
    let file = TempFile::new("many.txt", &format!("{INKALA}\n").repeat(200));
    let mut child = spawn(&["bench", "--backend", "cpu", "--runs", "1000", "--timeout", "0", file.path()]);
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let kill = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    let killed = std::time::Instant::now();
    assert!(kill.success());
    let status = child.wait().unwrap();
    assert!(killed.elapsed().as_secs_f64() < 1.0, "stopped in {:?}", killed.elapsed());
    assert_eq!(status.code(), Some(130));
    let mut stdout = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut stdout).unwrap();
    assert!(stdout.starts_with("| file | backend |"), "{stdout}");
}
