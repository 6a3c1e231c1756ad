//! The one declaration of every setting a user can choose.

use super::{Budget, LARGE_BOARD_BUDGET, SEED, SMALL_BOARD_BUDGET};
use crate::backend::kind::{BackendKind, BoardDefaults, Defaults};
use crate::dynamics::{AdaptiveWeights, Completion, Moves, Trades, WeightRule};
use crate::error::{Error, Result};
use crate::grid::Variant;
use crate::reduce::Reduce;
use crate::tempering::Ladders;

/// What the user chose; `None` leaves it to the backend's defaults. The one
/// declaration of every setting: its field, flag, help and default (the
/// help's defaults come from the values). The command line flattens it into
/// `solve` and `bench`; the server and any binding read theirs through
/// [`Overrides::from_pairs`], by the same names.
#[derive(Debug, Clone, Default, PartialEq, clap::Args)]
pub struct Overrides {
    #[arg(long, help = format!("Seed of every random stream; the same seed gives the same result [default: {SEED}]"))]
    pub seed: Option<u64>,
    #[arg(long, conflicts_with = "temperatures", help = ladder_help("Replicas per ladder, one per temperature", |l| l.replicas.to_string())
        + ". Setting any of --replicas, --t-min, --t-max, --temperatures sets the ladder for every board size")]
    pub replicas: Option<usize>,
    #[arg(long, help = ladder_help("Independent ladders per puzzle", |l| l.ladders.to_string()))]
    pub ladders: Option<usize>,
    #[arg(long, help = per_backend("Puzzles annealed at once; a finished one's slot takes the next", |d| d.batch.to_string()))]
    pub batch: Option<usize>,
    #[arg(long, help = ladder_help("Lowest temperature of the geometric ladder", |l| l.t_min.to_string()))]
    pub t_min: Option<f64>,
    #[arg(long, help = ladder_help("Highest temperature of the geometric ladder", |l| l.t_max.to_string()))]
    pub t_max: Option<f64>,
    /// An explicit ladder instead of the geometric one: increasing temperatures, one per replica.
    #[arg(long, value_delimiter = ',', value_name = "T,T,...", conflicts_with_all = ["t_min", "t_max"])]
    pub temperatures: Option<Vec<f64>>,
    #[arg(long, help = per_backend("Sweeps between replica-exchange rounds", |d| d.exchange_every.to_string()))]
    pub exchange_every: Option<u32>,
    #[arg(long, help = budget_help("Sweep budget per puzzle", |b| b.max_sweeps.to_string()))]
    pub max_sweeps: Option<u32>,
    #[arg(long, help = budget_help("Time budget per puzzle in seconds, 0 for none", |b| b.timeout.map_or(0, |t| t.as_secs()).to_string()))]
    pub timeout: Option<f64>,
    #[arg(long, value_enum, help = per_backend("How a sweep updates a replica: single spins (the plain model), or whole cells kept one-hot (redrawn from their candidates' Boltzmann weights by Suwa–Todo's turn)", |d| format!("{:?}", d.moves).to_lowercase()))]
    pub moves: Option<Moves>,
    #[arg(long, value_enum, help = per_backend("Unit constraint weights: all 1 (the plain model), or per replica, grown on violated units (cell moves only)", |d| format!("{:?}", d.weights).to_lowercase()))]
    pub weights: Option<WeightRule>,
    #[arg(long, help = weight_help("Adaptive weights: the weight units start at and relax toward", "--weight-cap", |w| w.base))]
    pub weight_base: Option<u8>,
    #[arg(long, help = weight_help("Adaptive weights: the most a unit may weigh", "--weight-base", |w| w.cap))]
    pub weight_cap: Option<u8>,
    #[arg(long, help = relax_help())]
    pub relax_every: Option<u32>,
    #[arg(long, value_enum, help = per_backend("What the chains' grids get besides their moves: nothing, or from the 12th sweep, every other sweep, the cells outside the houses of a chain's violated units kept and the rest filled by naked and hidden singles, the chain moving to the solution where they fill it, and on ladders of one rung (9×9 defaults) the chains at 2.25 times their temperature from the 11th sweep on, completed after every sweep (cell moves on cpu-lanes, cpu and gpu; boards up to 16×16 without diagonals); or sampled (cpu-lanes' default): the same, but hot chains run at 1.75 times their temperature and a completion keeps at most 6 of their kept cells, drawn at random", |d| { let name = |c: Completion| format!("{c:?}").to_lowercase(); by_size(name(d.small_board_completion), name(d.completion), name(d.completion)) }))]
    pub complete: Option<Completion>,
    #[arg(long, value_enum, help = per_backend("Whether, after each sweep, two free cells that share every unit but one (a row and a box, a column and a box; a row or a column of a Latin square) propose to trade their digits, accepted by Metropolis: one pair of each such group of cells a sweep, in turn (cell moves on cpu-lanes only; none on boards with diagonals; off by default on Latin squares)", |d| { let name = |t: Trades| format!("{t:?}").to_lowercase(); by_size(name(d.small_board_trades), name(d.trades), name(d.trades)) }))]
    pub trades: Option<Trades>,
    #[command(flatten)]
    pub model: ModelOptions,
}

/// How each puzzle line becomes a model: its rules and the spins removed
/// before annealing (`export` takes these alone).
#[derive(Debug, Clone, Copy, Default, PartialEq, clap::Args)]
pub struct ModelOptions {
    /// Spins removed before annealing.
    #[arg(long, value_enum, default_value_t = Reduce::default())]
    pub reduce: Reduce,
    /// The rules: standard Sudoku, X (diagonals too), or Latin squares (no boxes). The size follows from the line length.
    #[arg(long, value_enum, default_value_t = Variant::Standard)]
    pub variant: Variant,
}

impl Overrides {
    /// The overrides that `name=value` pairs set, as the flags `--name value`
    /// would (`_` in a name reads as `-`): the server's query and bindings'
    /// keywords. An empty value, or `default`, leaves a setting unset.
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<Overrides> {
        use clap::{Args, FromArgMatches};
        let mut argv = vec!["settings".to_string()];
        for (name, value) in pairs.into_iter().filter(|(_, value)| !value.is_empty() && *value != "default") {
            argv.push(format!("--{}={value}", name.replace('_', "-")));
        }
        let command = Overrides::augment_args(clap::Command::new("settings"));
        let parsed = command.try_get_matches_from(argv).and_then(|matches| Overrides::from_arg_matches(&matches));
        parsed.map_err(|error| Error::Settings(usage_error(&error)))
    }
}

impl Overrides {
    /// Every setting's name as [`Overrides::from_pairs`] takes it: its
    /// flag's, `_` for `-`.
    pub fn names() -> Vec<String> {
        use clap::Args;
        let command = Overrides::augment_args(clap::Command::new("settings"));
        command.get_arguments().filter_map(|arg| arg.get_long()).map(|long| long.replace('-', "_")).collect()
    }
}

/// clap's message for a bad flag, in one line without its advice on `--help`.
fn usage_error(error: &clap::Error) -> String {
    let text = error.render().to_string();
    let lines = text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with("For more information"));
    lines.collect::<Vec<_>>().join(" ").trim_start_matches("error: ").to_string()
}

/// `what` and each backend's default, backends with the same one
/// together, and those of cpu and gpu with single-spin moves.
fn per_backend(what: &str, value: impl Fn(&Defaults) -> String) -> String {
    let group = |defaults: &dyn Fn(BackendKind) -> Defaults, kinds: &[BackendKind]| {
        let mut groups: Vec<(String, Vec<&str>)> = Vec::new();
        for &kind in kinds {
            let value = value(&defaults(kind));
            match groups.iter_mut().find(|(v, _)| *v == value) {
                Some((_, names)) => names.push(kind.name()),
                None => groups.push((value, vec![kind.name()])),
            }
        }
        groups.iter().map(|(value, names)| format!("{}: {value}", names.join(", "))).collect::<Vec<_>>().join("; ")
    };
    let at_default = group(&|kind| kind.defaults(Variant::Standard, None), &BackendKind::ALL);
    let spin =
        group(&|kind| kind.defaults(Variant::Standard, Some(Moves::Spin)), &[BackendKind::Cpu, BackendKind::Gpu]);
    format!("{what} [default: {at_default}; with --moves spin, {spin}]")
}

/// A default on boards up to 9×9, above and on 25×25: one value where they
/// agree, each size's where it differs.
fn by_size(small: String, large: String, largest: String) -> String {
    let text = if small == large { small } else { format!("{small} up to 9×9, {large} above") };
    if largest == large {
        text
    } else {
        format!("{text}, {largest} on 25×25")
    }
}

/// `what` with its defaults by board size; a value set applies to every size.
fn by_board_size(what: &str, small: String, large: String, largest: String) -> String {
    format!("{what} [default: {}]; setting it sets it for every board size", by_size(small, large, largest))
}

/// A budget's defaults, which differ on boards above 9×9.
fn budget_help(what: &str, value: impl Fn(&Budget) -> String) -> String {
    by_board_size(what, value(&SMALL_BOARD_BUDGET), value(&LARGE_BOARD_BUDGET), value(&LARGE_BOARD_BUDGET))
}

/// `--relax-every`'s defaults, which differ on boards above 9×9.
fn relax_help() -> String {
    let cells = BackendKind::Cpu.defaults(Variant::Standard, Some(Moves::Cell));
    let relax = |board: &BoardDefaults| board.weights.relax_every.to_string();
    by_board_size(
        "Adaptive weights: sweeps between two relaxations of every weight above the base",
        relax(&cells.small_boards),
        relax(&cells.large_boards),
        relax(&cells.largest_boards),
    )
}

/// `--weight-base`'s or `--weight-cap`'s defaults, which differ on 25×25
/// boards; either set sets both for every size (the other at its default
/// below 25×25).
fn weight_help(what: &str, other: &str, value: impl Fn(&AdaptiveWeights) -> u8) -> String {
    let cells = BackendKind::Cpu.defaults(Variant::Standard, Some(Moves::Cell));
    let [small, large, largest] =
        [cells.small_boards, cells.large_boards, cells.largest_boards].map(|b| value(&b.weights).to_string());
    format!(
        "{what} [default: {}]; setting it or {other} sets both for every board size",
        by_size(small, large, largest)
    )
}

/// A ladder setting's defaults, which may differ on boards above 9×9 and on
/// 25×25 and, with single-spin moves, on Latin squares.
fn ladder_help(what: &str, value: impl Fn(&Ladders) -> String) -> String {
    let by_sizes = |d: &Defaults| {
        by_size(value(&d.small_boards.tempering), value(&d.large_boards.tempering), value(&d.largest_boards.tempering))
    };
    let spin = |variant| value(&BackendKind::Cpu.defaults(variant, Some(Moves::Spin)).large_boards.tempering);
    let help = per_backend(what, by_sizes);
    match spin(Variant::Latin) {
        latin if latin != spin(Variant::Standard) => {
            format!("{}, on Latin squares {latin}]", help.trim_end_matches(']'))
        }
        _ => help,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The server's and bindings' `name=value` pairs set what the flags set,
    /// and are refused with the flag's name where they are wrong.
    #[test]
    fn pairs_set_what_the_flags_set() {
        let pairs = [("weight_cap", "8"), ("moves", "spin"), ("temperatures", "0.5,1"), ("seed", "default")];
        let pairs = Overrides::from_pairs(pairs.into_iter().chain([("variant", "latin"), ("batch", "")]));
        let expected = Overrides {
            weight_cap: Some(8),
            moves: Some(Moves::Spin),
            temperatures: Some(vec![0.5, 1.0]),
            model: ModelOptions { variant: Variant::Latin, reduce: Reduce::default() },
            ..Overrides::default()
        };
        assert_eq!(pairs.unwrap(), expected);
        let refused = |pairs: &[(&str, &str)]| match Overrides::from_pairs(pairs.iter().copied()) {
            Err(Error::Settings(message)) => message,
            other => panic!("{pairs:?} gave {other:?}"),
        };
        assert_eq!(
            refused(&[("replicas", "many")]),
            "invalid value 'many' for '--replicas <REPLICAS>': invalid digit found in string"
        );
        assert!(refused(&[("colour", "red")]).starts_with("unexpected argument '--colour' found"));
        assert!(refused(&[("moves", "both")]).starts_with("invalid value 'both' for '--moves <MOVES>'"));
        let names = Overrides::names();
        assert_eq!(names.len(), 19, "{names:?}");
        assert!(["seed", "t_min", "weight_cap", "relax_every", "complete", "trades", "reduce", "variant"]
            .iter()
            .all(|n| names.contains(&n.to_string())));
        assert!(names.iter().all(|name| Overrides::from_pairs([(name.as_str(), "default")]).is_ok()), "{names:?}");
    }
}
