//! `solve`: output records, exit codes and messages, inputs of every form.

use std::io::Write;

use sudoku_anneal::grid::{Grid, Variant};
use sudoku_anneal::puzzle::{parse_grid, PuzzleReader};

use crate::process::{run, run_bytes, solve_stopped_by, spawn, stdout_lines};
use crate::util::{exact_solve, example, grid, solves, EASY, EASY_SOLUTION, INKALA};

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

#[test]
fn ctrl_c_stops_cleanly_with_complete_records_and_a_summary() {
    let (first, rest, out) = solve_stopped_by("INT");
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
fn a_tiny_budget_ends_every_puzzle_with_a_record() {
    let input = format!("{INKALA}\n").repeat(5);
    // Without completion: with it, the reference solves Inkala within the millisecond.
    let out = run(
        &["solve", "--backend", "cpu", "--complete", "off", "--timeout", "0.001", "--max-sweeps", "4000000000"],
        &input,
    );
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
    let names_where = |reason: &str| {
        let cell = reason.starts_with("no solution: r") && reason.ends_with(" has no candidate");
        cell || reason.starts_with("no solution: digit ") && reason.contains(" has no place in ")
    };
    assert!(names_where(reason), "{reason}");
    assert_eq!(propagated["sweeps"], 0);
    let annealed = status("clues");
    assert_eq!(annealed["status"], "unsolved");
    assert_eq!(annealed["sweeps"], 100);
}

/// The default reduction probes briefly before the anneal, which decides
/// a 17-clue puzzle singles leave (the anneal needs tens of sweeps), and in
/// full a puzzle the anneal has not solved in its first 10 sweeps, or
/// instead before them where more than a quarter of the spins are free
/// after singles:
/// magictour's first is then solved by reduction (the anneal alone needs
/// hundreds of sweeps), and with one clue changed it is found to have no
/// solution, where propagation alone leaves the anneal to search until its
/// budget ends. Inkala, where probing finds nothing, is the anneal's.
#[test]
fn probing_decides_what_the_anneal_has_not_solved_in_ten_sweeps() {
    let magictour = "4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........";
    let record = |args: &[&str], puzzle: &str| {
        let mut all = vec!["solve", "--backend", "cpu-lanes", "--format", "jsonl", "--max-sweeps", "3000"];
        all.extend_from_slice(args);
        all.push(puzzle);
        serde_json::from_slice::<serde_json::Value>(&run(&all, "").stdout).unwrap()
    };
    // Solved by reduction after `sweeps` at the defaults; by the anneal's
    // moves, after more than 10 sweeps, with propagation alone (the grids
    // not completed: singles from a chain's grid solve the 17-clue puzzle
    // in 5).
    let reduced_after = |puzzle: &str, sweeps: u64| {
        let probed = record(&[], puzzle);
        assert_eq!(probed["status"], "solved");
        assert_eq!(probed["solution"], exact_solve(&grid(puzzle)).unwrap().to_string().as_str());
        assert_eq!((probed["solved_by"].as_str(), probed["sweeps"].as_u64()), (Some("reduction"), Some(sweeps)));
        let annealed = record(&["--reduce", "propagate", "--complete", "off"], puzzle);
        assert_eq!(annealed["solution"], probed["solution"]);
        assert_eq!(annealed["solved_by"], "anneal");
        assert!(annealed["sweeps"].as_u64().unwrap() > 10, "{annealed}");
    };
    reduced_after(".................1.....2.3......3.2...1.4......5....6..3......4.7..8...962...7...", 0);
    // Magictour's first leaves 266 of 729 spins free: probed before the
    // anneal; another, 177 free, after its first 10 sweeps.
    reduced_after(magictour, 0);
    reduced_after(".1.....8....75.....39...6........8.6.9..2.4..6.1....9.......2....2149.381...3....", 10);

    // r1c2 holds 6 in the solution; 5 there breaks no clue and no single.
    let unsolvable = format!("45{}", &magictour[2..]);
    let refuted = record(&[], &unsolvable);
    assert_eq!((refuted["status"].as_str(), refuted["sweeps"].as_u64()), (Some("invalid"), Some(0)));
    assert!(refuted["error"].as_str().unwrap().starts_with("no solution: "), "{refuted}");
    let searched = record(&["--reduce", "propagate"], &unsolvable);
    assert_eq!((searched["status"].as_str(), searched["sweeps"].as_u64()), (Some("unsolved"), Some(3000)));

    let inkala = record(&["--seed", "0"], INKALA);
    assert_eq!((inkala["status"].as_str(), inkala["solved_by"].as_str()), (Some("solved"), Some("anneal")));
    assert!(inkala["sweeps"].as_u64().unwrap() > 10, "{inkala}");
}
