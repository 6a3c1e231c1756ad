//! `merge`: shard outputs joined back into input order.

use crate::process::{run, stdout_lines, TempFile};
use crate::util::{example, EASY, INKALA};

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
