//! `export`: every format gives the solution energy 0, one model per puzzle.

use crate::process::{run, stdout_lines};
use crate::util::{exact_solve, example, grid, EASY, INKALA};

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
