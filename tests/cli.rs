//! The command line contract: output records, exit codes, messages.

use std::io::Write;
use std::process::{Child, Command, Output, Stdio};

use sudoku_anneal::grid::{Grid, Variant};
use sudoku_anneal::puzzle::{parse_grid, PuzzleReader};
use sudoku_anneal::Status;

use crate::util::{exact_solve, example, grid, solves, EASY, EASY_SOLUTION, INKALA};

/// The binary with piped stdin, stdout and stderr.
pub(crate) fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_sudoku-anneal"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

pub(crate) fn run_bytes(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = spawn(args);
    let mut pipe = child.stdin.take().unwrap();
    // Written from a thread: the binary streams its output while it reads, so
    // a large input written before reading would fill both pipes and hang.
    let stdin = stdin.to_vec();
    let writer = std::thread::spawn(move || pipe.write_all(&stdin));
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    output
}

pub(crate) fn run(args: &[&str], stdin: &str) -> Output {
    run_bytes(args, stdin.as_bytes())
}

pub(crate) fn stdout_lines(output: &Output) -> Vec<String> {
    String::from_utf8(output.stdout.clone()).unwrap().lines().map(str::to_string).collect()
}

#[test]
fn solves_the_easy_example_file() {
    let out = run(&["solve", "--backend", "cpu", example("easy.txt").to_str().unwrap()], "");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(stdout_lines(&out), vec![EASY_SOLUTION]);
}

#[test]
fn solves_inkala_from_a_fixed_seed_reproducibly() {
    let solution = exact_solve(&grid(INKALA)).unwrap().to_string();
    for backend in ["cpu", "cpu-bits"] {
        let args = ["solve", "--backend", backend, "--seed", "3", "--format", "jsonl", INKALA];
        let first = run(&args, "");
        assert_eq!(first.status.code(), Some(0));
        let record: serde_json::Value = serde_json::from_slice(&first.stdout).unwrap();
        assert_eq!(record["status"], "solved");
        assert_eq!(record["solution"], solution.as_str());
        assert_eq!(record["backend"], backend);
        let again: serde_json::Value = serde_json::from_slice(&run(&args, "").stdout).unwrap();
        assert_eq!(again["sweeps"], record["sweeps"]);
    }
}

/// Solves `input` on the CPU with `flags` and checks every record against the rules.
fn assert_solves_all(input: &str, flags: &[&str], variant: Variant) {
    let mut args = vec!["solve", "--backend", "cpu", "--reduce", "propagate"];
    args.extend(flags);
    let out = run(&args, input);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let puzzles: Vec<Grid> = PuzzleReader::new(input.as_bytes(), variant).map(|e| e.unwrap().grid.unwrap()).collect();
    let lines = stdout_lines(&out);
    assert_eq!(lines.len(), puzzles.len());
    for (puzzle, line) in puzzles.iter().zip(&lines) {
        let solution = parse_grid(line.as_bytes(), variant).unwrap();
        assert!(solves(puzzle, &solution), "{line} does not solve {puzzle}");
    }
}

#[test]
fn every_size_solves_and_sizes_may_mix_in_one_input() {
    let sixteen = std::fs::read_to_string(example("16x16.txt")).unwrap();
    let sixteen: Vec<&str> = sixteen.lines().filter(|l| !l.starts_with('#')).collect();
    let mixed = format!("....1.....13..2.\n{EASY}\n{}\n{INKALA}\n{}\n.2..3..1..4....2\n", sixteen[0], sixteen[3]);
    assert_solves_all(&mixed, &["--batch", "2"], Variant::Standard);
    let out = run(&["solve", "--backend", "cpu", "--reduce", "propagate", &sixteen[1][..256]], "");
    let exact = exact_solve(&parse_grid(sixteen[1].as_bytes(), Variant::Standard).unwrap()).unwrap();
    assert_eq!(stdout_lines(&out), vec![exact.to_string()], "a public 16×16 puzzle has this one solution");
    let big = std::fs::read_to_string(example("25x25.txt")).unwrap();
    let generated_big = big.lines().last().unwrap();
    assert_solves_all(generated_big, &[], Variant::Standard);
}

#[test]
fn diagonal_sudoku_and_latin_squares_follow_their_rules() {
    let x = std::fs::read_to_string(example("x.txt")).unwrap();
    assert_solves_all(&x, &["--variant", "x"], Variant::X);
    let latin = std::fs::read_to_string(example("latin.txt")).unwrap();
    let small: String =
        latin.lines().filter(|l| !l.starts_with('#') && l.len() <= 100).map(|l| format!("{l}\n")).collect();
    assert_solves_all(&small, &["--variant", "latin"], Variant::Latin);
    let out = run(&["solve", "--backend", "cpu", "--variant", "latin", "1..."], "");
    assert_eq!(stdout_lines(&out), vec!["1221"]);
    let out = run(&["solve", "--backend", "cpu", "1..."], "");
    assert_eq!(stdout_lines(&out), vec!["1... # invalid: line 1: expected 16, 81, 256 or 625 cells, found 4"]);
}

#[test]
fn parse_errors_exit_1_and_name_the_line() {
    let input = format!("# comment\n{EASY}\n{}\n", &EASY[..80]);
    let out = run(&["solve", "--backend", "cpu"], &input);
    assert_eq!(out.status.code(), Some(1));
    let lines = stdout_lines(&out);
    assert_eq!(lines[0], EASY_SOLUTION);
    assert_eq!(lines[1], format!("{} # invalid: line 3: expected 16, 81, 256 or 625 cells, found 80", &EASY[..80]));
}

#[test]
fn one_record_per_puzzle_in_input_order() {
    let conflicting = format!("55{}", &EASY[2..]);
    let input = format!("{INKALA}\n\n# skip\n{conflicting}\nnot a puzzle\n{EASY} # trailing comment\n");
    let out = run(
        &["solve", "--backend", "cpu", "--reduce", "propagate", "--max-sweeps", "5", "--format", "jsonl", "-"],
        &input,
    );
    assert_eq!(out.status.code(), Some(1));
    let records: Vec<serde_json::Value> = stdout_lines(&out).iter().map(|l| serde_json::from_str(l).unwrap()).collect();
    let summary: Vec<(u64, &str)> =
        records.iter().map(|r| (r["line"].as_u64().unwrap(), r["status"].as_str().unwrap())).collect();
    assert_eq!(summary, vec![(1, "unsolved"), (4, "invalid"), (5, "invalid"), (6, "solved")]);
    assert_eq!(records[1]["error"], "clues conflict: digit 5 twice in row 1 (r1c1 and r1c2)");
    assert_eq!(records[0]["sweeps"], 5);
    // Propagation alone solves the easy puzzle.
    assert_eq!(records[3]["sweeps"], 0);
    assert_eq!(records[3]["solution"], EASY_SOLUTION);
}

#[test]
fn plain_output_marks_unsolved_puzzles() {
    let out = run(&["solve", "--backend", "cpu", "--max-sweeps", "1", INKALA], "");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout_lines(&out), vec![format!("{INKALA} # unsolved")]);
}

#[test]
fn missing_file_and_bad_settings_exit_2() {
    let out = run(&["solve", "no/such/file.txt"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot open no/such/file.txt"));
    let out = run(&["solve", "--t-min", "0", EASY], "");
    assert_eq!(out.status.code(), Some(2));
    let out = run(&["solve", "--bogus"], "");
    assert_eq!(out.status.code(), Some(2));
    for timeout in ["2e19", "1e300", "-1", "NaN"] {
        let out = run(&["solve", &format!("--timeout={timeout}"), EASY], "");
        assert_eq!(out.status.code(), Some(2), "--timeout {timeout}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("--timeout must be a number of seconds from 0"));
    }
    // Each backend says what it runs when asked for something else.
    for (backend, moves, says) in [
        ("cpu-lanes", "spin", "the cpu-lanes backend runs cell moves only (--moves cell)"),
        ("cpu-bits", "cell", "the cpu-bits backend runs single-spin moves on the plain model only"),
    ] {
        let out = run(&["solve", "--backend", backend, "--moves", moves, EASY], "");
        assert_eq!(out.status.code(), Some(2), "{backend} {moves}");
        assert!(String::from_utf8_lossy(&out.stderr).contains(says), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let out = run(&["solve", "--replicas", "100000", "--ladders", "100000", "--batch", "1", EASY], "");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("is 10000000000; at most 4194303 replicas run at once"), "{stderr}");
}

/// `--temperatures` replaces the geometric ladder: listing the geometric
/// ladder itself changes nothing, another ladder changes the run, and a
/// list that is not increasing, or clashes with --replicas, is refused.
#[test]
fn an_explicit_ladder_replaces_the_geometric_one() {
    let sweeps = |flags: &[&str]| {
        let args =
            [&["solve", "--backend", "cpu", "--moves", "spin", "--format", "jsonl", "--seed", "1"], flags, &[INKALA]]
                .concat();
        let out = run(&args, "");
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let record: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(solves(&grid(INKALA), &grid(record["solution"].as_str().unwrap())));
        record["sweeps"].as_u64().unwrap()
    };
    // Ladder::geometric's arithmetic; Display prints the shortest text that parses back exactly.
    let geometric: Vec<String> = (0..16).map(|k| (0.4 * (1.2f64 / 0.4).powf(k as f64 / 15.0)).to_string()).collect();
    assert_eq!(sweeps(&["--temperatures", &geometric.join(",")]), sweeps(&[]));
    let other = "0.400,0.457,0.505,0.548,0.589,0.629,0.669,0.710,0.753,0.800,0.851,0.908,0.972,1.040,1.116,1.200";
    assert_ne!(sweeps(&["--temperatures", other]), sweeps(&[]));
    for flags in [&["--temperatures", "0.5,0.4"][..], &["--temperatures", "0.4,0.5", "--replicas", "2"]] {
        let out = run(&[&["solve", "--backend", "cpu"], flags, &[INKALA]].concat(), "");
        assert_eq!(out.status.code(), Some(2), "{flags:?}");
    }
}

/// cpu-bits anneals 9×9 boards at one temperature and larger ones on its
/// ladder, also when sizes mix in one input; a ladder flag sets every size.
#[test]
fn cpu_bits_picks_its_ladder_by_board_size() {
    let sixteen = std::fs::read_to_string(example("16x16.txt")).unwrap();
    let sixteen = sixteen.lines().find(|l| !l.starts_with('#')).unwrap();
    let sweeps = |flags: &[&str], input: &str| -> Vec<u64> {
        let args = [&["solve", "--backend", "cpu-bits", "--format", "jsonl", "--seed", "1"], flags, &["-"]].concat();
        let out = run(&args, input);
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        stdout_lines(&out)
            .iter()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["sweeps"].as_u64().unwrap())
            .collect()
    };
    let mixed = sweeps(&[], &format!("{INKALA}\n{sixteen}\n"));
    let one_temperature = ["--replicas", "1", "--t-min", "0.63", "--t-max", "0.63"];
    let ladder = ["--replicas", "8", "--t-min", "0.45", "--t-max", "1.0"];
    assert_eq!(mixed, [sweeps(&one_temperature, INKALA), sweeps(&ladder, sixteen)].concat());
    assert_ne!(sweeps(&ladder, INKALA), sweeps(&one_temperature, INKALA));
    assert_eq!(sweeps(&["--replicas", "8"], INKALA), sweeps(&ladder, INKALA));
}

/// The solution's spins in the exported variable order, 0/1.
fn solution_spins(variables: &[(u64, u64)]) -> Vec<i64> {
    let solution = exact_solve(&grid(INKALA)).unwrap();
    variables.iter().map(|&(cell, digit)| i64::from(solution.cells[cell as usize] as u64 == digit)).collect()
}

fn export(format: &str) -> Vec<u8> {
    let out = run(&["export", "--format", format, INKALA], "");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

/// Energy of a JSON model (bqm-json or ising) at `v`.
fn json_energy(bqm: &serde_json::Value, v: &[f64]) -> f64 {
    let linear: f64 = bqm["linear"].as_array().unwrap().iter().zip(v).map(|(h, vi)| h.as_f64().unwrap() * vi).sum();
    let quadratic: f64 = bqm["quadratic"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t[2].as_f64().unwrap() * v[t[0].as_u64().unwrap() as usize] * v[t[1].as_u64().unwrap() as usize])
        .sum();
    bqm["offset"].as_f64().unwrap() + linear + quadratic
}

#[test]
fn every_export_format_gives_the_solution_zero_energy_and_a_corruption_more() {
    for (format, spin) in [("bqm-json", false), ("ising", true)] {
        let bqm: serde_json::Value = serde_json::from_slice(&export(format)).unwrap();
        assert_eq!(bqm["vartype"], if spin { "SPIN" } else { "BINARY" });
        let variables: Vec<(u64, u64)> = bqm["variables"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| (v[0].as_u64().unwrap(), v[1].as_u64().unwrap()))
            .collect();
        let to_value = |x: i64| if spin { 2.0 * x as f64 - 1.0 } else { x as f64 };
        let mut v: Vec<f64> = solution_spins(&variables).into_iter().map(to_value).collect();
        assert_eq!(json_energy(&bqm, &v), 0.0, "{format}");
        v[0] = if spin { -v[0] } else { 1.0 - v[0] };
        assert!(json_energy(&bqm, &v) > 0.0, "{format}");
    }

    let text = String::from_utf8(export("qubo")).unwrap();
    let mut variables = Vec::new();
    let (mut offset, mut terms) = (0i64, Vec::new());
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words[..] {
            ["offset", n] => offset = n.parse().unwrap(),
            ["var", _, cell, digit] => variables.push((cell.parse().unwrap(), digit.parse().unwrap())),
            [i, j, q] => {
                terms.push((i.parse::<usize>().unwrap(), j.parse::<usize>().unwrap(), q.parse::<i64>().unwrap()))
            }
            _ => panic!("unexpected line {line:?}"),
        }
    }
    let energy = |x: &[i64]| offset + terms.iter().map(|&(i, j, q)| q * x[i] * x[j]).sum::<i64>();
    let mut x = solution_spins(&variables);
    assert_eq!(energy(&x), 0);
    x[0] ^= 1;
    assert!(energy(&x) > 0);

    let text = String::from_utf8(export("dimacs")).unwrap();
    let (mut variables, mut clauses, mut header) = (Vec::new(), Vec::new(), None);
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words[..] {
            ["c", "var", v, cell, digit] => {
                assert_eq!(v.parse::<usize>().unwrap(), variables.len() + 1);
                variables.push((cell.parse().unwrap(), digit.parse().unwrap()));
            }
            ["c", ..] => {}
            ["p", "cnf", v, c] => header = Some((v.parse::<usize>().unwrap(), c.parse::<usize>().unwrap())),
            [.., "0"] => clauses.push(words[..words.len() - 1].iter().map(|l| l.parse::<i64>().unwrap()).collect()),
            _ => panic!("unexpected line {line:?}"),
        }
    }
    assert_eq!(header, Some((variables.len(), clauses.len())));
    let satisfied =
        |x: &[i64], clause: &Vec<i64>| clause.iter().any(|&l| x[l.unsigned_abs() as usize - 1] == i64::from(l > 0));
    let mut x = solution_spins(&variables);
    assert!(clauses.iter().all(|c| satisfied(&x, c)));
    x[0] ^= 1;
    assert!(!clauses.iter().all(|c| satisfied(&x, c)));
}

#[test]
fn batching_changes_neither_results_nor_order() {
    let hard = std::fs::read_to_string(example("hard.txt")).unwrap();
    let input = format!("{hard}{EASY}\nbad\n{INKALA}\n");
    for backend in ["cpu", "cpu-bits"] {
        let run_with = |batch: &str| -> Vec<serde_json::Value> {
            let args =
                ["solve", "--backend", backend, "--format", "jsonl", "--max-sweeps", "300", "--batch", batch, "-"];
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

#[test]
fn byte_order_mark_crlf_and_trailing_spaces_are_accepted() {
    let out = run(&["solve", "--backend", "cpu"], &format!("\u{feff}{EASY}  \r\n{EASY}\r\n"));
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout_lines(&out), vec![EASY_SOLUTION, EASY_SOLUTION]);
}

#[test]
fn non_utf8_bytes_make_that_line_invalid_and_nothing_else() {
    let mut input = EASY.as_bytes()[..80].to_vec();
    input.extend_from_slice(b"\xff\n");
    input.extend_from_slice(format!("{EASY}\n").as_bytes());
    let out = run_bytes(&["solve", "--backend", "cpu", "--format", "jsonl"], &input);
    assert_eq!(out.status.code(), Some(1));
    let records: Vec<serde_json::Value> = stdout_lines(&out).iter().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(records[0]["status"], "invalid");
    assert!(records[0]["error"].as_str().unwrap().contains("column 81"), "{}", records[0]["error"]);
    assert_eq!(records[1]["status"], "solved");
}

#[test]
fn empty_input_and_comment_only_input_give_no_records_and_exit_0() {
    for input in ["", "# only a comment\n\n# and another\n"] {
        let out = run(&["solve", "--backend", "cpu"], input);
        assert_eq!(out.status.code(), Some(0));
        assert!(out.stdout.is_empty());
    }
}

/// Every input is opened before the first puzzle, so a bad one stops the
/// run before work that its error would bury.
#[test]
fn an_unreadable_input_names_itself_and_its_cause_once_before_any_puzzle() {
    let dir = env!("CARGO_MANIFEST_DIR");
    for bad in [dir, "no/such/file.txt"] {
        let out = run(&["solve", "--backend", "cpu", EASY, bad], "");
        assert_eq!(out.status.code(), Some(2));
        assert!(out.stdout.is_empty());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.matches(&format!("error: cannot open {bad}: ")).count(), 1, "{stderr}");
    }
}

/// A puzzle argument reads as the same line in a file would: a byte-order
/// mark, blanks and a trailing comment around it change nothing.
#[test]
fn a_puzzle_argument_is_read_as_a_line_of_a_file() {
    for arg in [format!("{EASY}  # easy"), format!(" {EASY}"), format!("\t{EASY}\t"), format!("\u{feff}{EASY}")] {
        let out = run(&["solve", "--backend", "cpu", &arg], "");
        assert_eq!(out.status.code(), Some(0), "{arg:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(stdout_lines(&out), vec![EASY_SOLUTION]);
        assert!(String::from_utf8_lossy(&out.stderr).contains("1 puzzle: 1 solved"));
    }
}

/// A CSV names its columns: the puzzle is read from its column, and a
/// solution other than the expected one is said (a valid one still prints).
#[test]
fn csv_columns_are_found_by_name_and_the_expected_solution_is_checked() {
    let other = EASY_SOLUTION.replace('8', "x").replace('1', "8").replace('x', "1");
    let csv = format!("id,quizzes,solutions\n7,{EASY},{EASY_SOLUTION}\n8,{EASY},{other}\n");
    let out = run(&["solve", "--backend", "cpu", "--format", "jsonl"], &csv);
    assert_eq!(out.status.code(), Some(0));
    let records: Vec<serde_json::Value> = stdout_lines(&out).iter().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(records.len(), 2);
    assert!(records.iter().all(|r| r["solution"] == EASY_SOLUTION));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(&format!("warning: line 3: the solution found, {EASY_SOLUTION}, is not")), "{stderr}");
    assert!(!stderr.contains("line 2:"), "{stderr}");
}

/// Records name their input and carry one index over all inputs, so
/// outputs of several files or shards sort back into input order.
#[test]
fn jsonl_records_carry_their_file_and_an_index_over_all_inputs() {
    let easy = example("easy.txt");
    let easy = easy.to_str().unwrap();
    let out = run(&["solve", "--backend", "cpu", "--format", "jsonl", easy, EASY, "-", easy], &format!("{EASY}\n"));
    assert_eq!(out.status.code(), Some(0));
    let records: Vec<serde_json::Value> = stdout_lines(&out).iter().map(|l| serde_json::from_str(l).unwrap()).collect();
    let seen: Vec<(u64, Option<&str>, u64)> = records
        .iter()
        .map(|r| (r["index"].as_u64().unwrap(), r["file"].as_str(), r["line"].as_u64().unwrap()))
        .collect();
    // easy.txt holds one puzzle, on line 3.
    let expected = vec![(0, Some(easy), 3), (1, None, 1), (2, Some("-"), 1), (3, Some(easy), 3)];
    assert_eq!(seen, expected);
    assert!(stdout_lines(&out)[0].starts_with("{\"index\":0,\"file\":"), "index first, for sort");
}

#[test]
fn closing_the_output_early_is_a_clean_exit() {
    let input = format!("{EASY}\n").repeat(2_000);
    let mut child = spawn(&["solve", "--backend", "cpu", "--reduce", "propagate"]);
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || drop(stdin.write_all(input.as_bytes())));
    let mut first = [0u8; 82];
    std::io::Read::read_exact(child.stdout.as_mut().unwrap(), &mut first).unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    // As a process killed by SIGPIPE: not 0, since most puzzles never ran.
    assert_eq!(out.status.code(), Some(141));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
}

#[test]
fn shards_together_equal_the_unsharded_run() {
    let hard = std::fs::read_to_string(example("hard.txt")).unwrap();
    let input = format!("{hard}{EASY}\nbad\n{INKALA}\n# end\n{EASY}\n");
    let records = |extra: &[&str]| -> Vec<(u64, String)> {
        let mut args = vec!["solve", "--backend", "cpu", "--format", "jsonl", "--max-sweeps", "2000"];
        args.extend_from_slice(extra);
        stdout_lines(&run(&args, &input))
            .iter()
            .map(|l| {
                let mut record: serde_json::Value = serde_json::from_str(l).unwrap();
                record.as_object_mut().unwrap().remove("seconds");
                (record["line"].as_u64().unwrap(), record.to_string())
            })
            .collect()
    };
    let whole = records(&[]);
    assert_eq!(whole.len(), 9);
    let mut merged = Vec::new();
    for shard in ["0/4", "1/4", "2/4", "3/4"] {
        let part = records(&["--shard", shard]);
        assert!(part.windows(2).all(|w| w[0].0 < w[1].0), "shard {shard} keeps input order");
        merged.extend(part);
    }
    merged.sort();
    assert_eq!(merged, whole);
    assert_eq!(run(&["solve", "--shard", "4/4", EASY], "").status.code(), Some(2));
}

/// With `--allow-unsolved`, unsolved and invalid puzzles exit 0 (a job
/// array's shard is no failed task); an unreadable input still exits 2.
#[test]
fn allow_unsolved_exits_0_for_unsolved_and_invalid_puzzles_only() {
    let args = ["solve", "--backend", "cpu-lanes", "--max-sweeps", "1", "--allow-unsolved", "-"];
    let out = run(&args, &format!("{INKALA}\nbad\n"));
    assert_eq!(out.status.code(), Some(0));
    let lines = stdout_lines(&out);
    assert!(lines[0].ends_with("# unsolved") && lines[1].starts_with("bad # invalid"), "{lines:?}");
    let without = run(&["solve", "--backend", "cpu-lanes", "--max-sweeps", "1", "-"], &format!("{INKALA}\n"));
    assert_eq!(without.status.code(), Some(1));
    let missing = run(&["solve", "--allow-unsolved", "no/such/file.txt"], "");
    assert_eq!(missing.status.code(), Some(2));
}

/// Shell completions and the manual page know every subcommand.
#[test]
fn completions_and_the_manual_page_name_every_subcommand() {
    for shell in ["bash", "zsh", "fish"] {
        let out = run(&["completions", shell], "");
        assert_eq!(out.status.code(), Some(0));
        let script = String::from_utf8(out.stdout).unwrap();
        for command in ["solve", "bench", "export", "merge", "serve", "allow-unsolved"] {
            assert!(script.contains(command), "{shell}: {command}");
        }
    }
    let man = String::from_utf8(run(&["man"], "").stdout).unwrap();
    assert!(man.starts_with(".ie") && man.contains(".TH sudoku-anneal 1") && man.contains("merge"), "{man}");
}

/// `--adapter` puts the GPU backends on the adapter named by number or by
/// a part of its name; a CPU backend or an adapter that is not there is an
/// error that says what there is. (The runs need an adapter: lavapipe on CI.)
#[test]
fn adapter_names_the_gpu_by_number_or_name() {
    let out = run(&["solve", "--backend", "cpu-lanes", "--adapter", "0", EASY], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--adapter picks a GPU; the cpu-lanes backend runs on the CPU")
    );
    let out = run(&["solve", "--adapter", "no-such-adapter", EASY], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no adapter's name has \"no-such-adapter\""));
    let devices = String::from_utf8(run(&["devices"], "").stdout).unwrap();
    let Some(first) =
        devices.lines().find_map(|l| l.strip_prefix("0: ")).map(|l| l.split(" | ").next().unwrap().to_string())
    else {
        assert_ne!(std::env::var("REQUIRE_GPU").as_deref(), Ok("1"), "REQUIRE_GPU=1 but no adapter");
        return eprintln!("skipping the runs on an adapter: none found");
    };
    for adapter in ["0", &first[..first.len().min(6)].to_lowercase()] {
        let out = run(
            &["solve", "--backend", "gpu", "--adapter", adapter, "--max-sweeps", "200", "--format", "jsonl", INKALA],
            "",
        );
        assert!(matches!(out.status.code(), Some(0 | 1)), "{adapter}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(String::from_utf8_lossy(&out.stderr).contains(&format!("gpu backend on {first}")), "{adapter}");
    }
    let out = run(&["bench", "--adapter", "0", "--max-sweeps", "200", EASY], "");
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("| cpu-lanes |") && table.contains(&format!("| gpu | {first}")), "{table}");
}

/// `merge` joins shard outputs into the unsharded run's order, and names
/// what is missing or repeated (exit 1) or what is no shard output (exit 2).
#[test]
fn merge_joins_shards_and_names_missing_and_repeated_indices() {
    let hard = std::fs::read_to_string(example("hard.txt")).unwrap();
    let input = TempFile::new("merge-input.txt", &format!("{hard}{EASY}\nbad\n{INKALA}\n"));
    let solve = |shard: &str| {
        let args = ["solve", "--backend", "cpu-lanes", "--format", "jsonl", "--shard", shard, input.path()];
        let out = run(&args, "");
        let records: String = stdout_lines(&out).iter().map(|l| l.clone() + "\n").collect();
        TempFile::new(&format!("merge-out-{}.jsonl", shard.replace('/', "-")), &records)
    };
    let without_seconds = |lines: Vec<String>| -> Vec<String> {
        lines
            .iter()
            .map(|l| {
                let mut record: serde_json::Value = serde_json::from_str(l).unwrap();
                record.as_object_mut().unwrap().remove("seconds");
                record.to_string()
            })
            .collect()
    };
    let whole = without_seconds(stdout_lines(&run(
        &["solve", "--backend", "cpu-lanes", "--format", "jsonl", input.path()],
        "",
    )));
    assert_eq!(whole.len(), 8);
    let shards = [solve("0/3"), solve("1/3"), solve("2/3")];
    let out = run(&["merge", shards[2].path(), shards[0].path(), shards[1].path(), "--expect", "8"], "");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(without_seconds(stdout_lines(&out)), whole);
    let out = run(&["merge", shards[0].path(), shards[0].path(), shards[2].path(), "--expect", "8"], "");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("error: 3 indices missing: 1, 4, 7 (a shard not run"), "{stderr}");
    assert!(stderr.contains("error: 3 indices repeated, each written once: 0, 3, 6"), "{stderr}");
    let out = run(&["merge", example("hard.txt").to_str().unwrap()], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a record of `solve --format jsonl`"));
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

#[test]
fn ctrl_c_stops_cleanly_with_complete_records_and_a_summary() {
    let input = format!("{EASY}\n{}", format!("{INKALA}\n").repeat(20));
    let mut child =
        spawn(&["solve", "--backend", "cpu", "--format", "jsonl", "--timeout", "0", "--max-sweeps", "4000000000"]);
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    std::io::BufRead::read_line(&mut stdout, &mut first).unwrap();
    let kill = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(kill.success());
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    for line in std::iter::once(first.as_str()).chain(rest.lines()).filter(|l| !l.trim().is_empty()) {
        let record: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(record["status"], "solved");
    }
    assert!(rest.lines().count() < 20, "stopped before the end");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("interrupted; the last record printed is for line"), "{stderr}");
}

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

/// Export reads inputs as solve does: one model per puzzle in input order,
/// and an invalid puzzle stops it after the models before it.
#[test]
fn export_writes_one_model_per_puzzle_of_files_and_stdin() {
    let hard = example("hard.txt");
    let puzzles: Vec<String> = std::fs::read_to_string(&hard)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l[..81].to_string())
        .collect();
    let out = run(&["export", "--reduce", "clues", hard.to_str().unwrap(), "-"], &format!("{INKALA}\n"));
    assert_eq!(out.status.code(), Some(0));
    let fixed: Vec<String> = stdout_lines(&out)
        .iter()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["fixed"].as_str().unwrap().to_string())
        .collect();
    let expected: Vec<String> = puzzles.iter().chain([&INKALA.to_string()]).map(|p| grid(p).to_string()).collect();
    assert_eq!(fixed, expected);
    let qubo = run(&["export", "--format", "qubo", "-"], &format!("{EASY}\n{INKALA}\n"));
    let headers: Vec<String> = stdout_lines(&qubo).into_iter().filter(|l| l.starts_with("# puzzle")).collect();
    assert_eq!(headers, vec!["# puzzle 0 (-, line 1)", "# puzzle 1 (-, line 2)"]);
    let cnf = run(&["export", "--format", "dimacs", "-"], &format!("{EASY}\n{INKALA}\n"));
    let headers: Vec<String> = stdout_lines(&cnf).into_iter().filter(|l| l.starts_with("c puzzle")).collect();
    assert_eq!(headers, vec!["c puzzle 0 (-, line 1)", "c puzzle 1 (-, line 2)"]);
    let out = run(&["export", "-"], &format!("{EASY}\nbad\n{EASY}\n"));
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout_lines(&out).len(), 1);
    assert!(String::from_utf8_lossy(&out.stderr).contains("error: -, line 2: expected 16, 81, 256 or 625 cells"));
}

/// A file of its own in the temporary directory, removed on drop.
struct TempFile(std::path::PathBuf);

impl TempFile {
    fn new(name: &str, text: &str) -> TempFile {
        let path = std::env::temp_dir().join(format!("sudoku-anneal-{}-{name}", std::process::id()));
        std::fs::write(&path, text).unwrap();
        TempFile(path)
    }

    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        drop(std::fs::remove_file(&self.0));
    }
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

#[test]
fn no_usable_adapter_is_exit_2_for_gpu_and_a_fallback_for_auto() {
    if cfg!(target_os = "macos") {
        return;
    }
    // wgpu then looks for Metal adapters only, which Linux and Windows lack.
    let without_adapter = |backend: &str| {
        Command::new(env!("CARGO_BIN_EXE_sudoku-anneal"))
            .args(["solve", "--backend", backend, EASY])
            .env("WGPU_BACKEND", "metal")
            .output()
            .unwrap()
    };
    let gpu = without_adapter("gpu");
    assert_eq!(gpu.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&gpu.stderr).contains("error: no usable GPU adapter"));
    assert!(gpu.stdout.is_empty());
    let auto = without_adapter("auto");
    assert_eq!(auto.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&auto.stderr).contains("auto picked the cpu-lanes backend"));
    assert_eq!(stdout_lines(&auto), vec![EASY_SOLUTION]);
    let devices =
        Command::new(env!("CARGO_BIN_EXE_sudoku-anneal")).arg("devices").env("WGPU_BACKEND", "metal").output();
    let devices = String::from_utf8(devices.unwrap().stdout).unwrap();
    assert_eq!(devices, "auto: no hardware GPU with compute shaders; the cpu-lanes backend is used\n");
}

#[test]
fn a_tiny_budget_ends_every_puzzle_with_a_record() {
    let input = format!("{INKALA}\n").repeat(5);
    let out = run(&["solve", "--backend", "cpu", "--timeout", "0.001", "--max-sweeps", "4000000000"], &input);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout_lines(&out), vec![format!("{INKALA} # unsolved"); 5]);
    let many = format!("{INKALA}\n{EASY}\nnot a puzzle\n").repeat(4_000);
    let out = run(&["solve", "--backend", "cpu", "--reduce", "propagate", "--max-sweeps", "1", "--batch", "16"], &many);
    assert_eq!(out.status.code(), Some(1));
    let lines = stdout_lines(&out);
    assert_eq!(lines.len(), 12_000);
    for (index, line) in lines.iter().enumerate() {
        let expected = match index % 3 {
            0 => format!("{INKALA} # unsolved"),
            1 => EASY_SOLUTION.to_string(),
            _ => format!(
                "not a puzzle # invalid: line {}: character 't' at column 3 is not a cell (1-9, A-P, '.' or '0')",
                index + 1
            ),
        };
        assert_eq!(*line, expected);
    }
}

#[test]
fn puzzles_with_many_solutions_even_empty_grids_get_a_verified_one() {
    let empty = |cells: usize| ".".repeat(cells);
    let input = format!("{}\n{}\n{}\n", empty(16), empty(81), empty(256));
    assert_solves_all(&input, &[], Variant::Standard);
    assert_solves_all(&format!("{}\n", empty(81)), &["--variant", "x"], Variant::X);
    // Latin squares of order 12 and more order only below the Sudoku ladder's
    // coldest rung; their own default ladder orders them in tens of sweeps.
    let latin = format!("{}\n{}\n{}\n", empty(100), empty(256), empty(625));
    assert_solves_all(&latin, &["--variant", "latin", "--timeout", "10"], Variant::Latin);
}

#[test]
fn consistent_clues_without_solution_are_invalid_under_propagation_and_unsolved_otherwise() {
    // The easy puzzle with r1c3 changed from 4 to 1: no clue conflicts, but
    // singles propagation runs into a cell without candidates.
    let unsolvable = "001300209005009001070060043006002087190007400050083000600000105003508690042910300";
    let status = |mode: &str| {
        let out = run(
            &["solve", "--backend", "cpu", "--format", "jsonl", "--reduce", mode, "--max-sweeps", "100", unsolvable],
            "",
        );
        assert_eq!(out.status.code(), Some(1));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let propagated = status("propagate");
    assert_eq!(propagated["status"], "invalid");
    // Which contradiction propagation meets first depends on its order; any one proves it.
    let reason = propagated["error"].as_str().unwrap();
    assert!(reason.starts_with("no solution: r") && reason.ends_with(" has no candidate"), "{reason}");
    assert_eq!(propagated["sweeps"], 0);
    let annealed = status("clues");
    assert_eq!(annealed["status"], "unsolved");
    assert_eq!(annealed["sweeps"], 100);
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
