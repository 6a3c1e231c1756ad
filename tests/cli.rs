//! The command line as a whole: completions and the manual, choosing a GPU.

use std::process::Command;

use crate::process::{run, stdout_lines};
use crate::util::{EASY, EASY_SOLUTION, INKALA};

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
