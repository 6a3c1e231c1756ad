//! Completion: each chain's cells outside every house with a violated unit
//! kept, the rest filled by naked and hidden singles; a chain whose grid
//! fills without a contradiction jumps to that solution.

use super::vector::{Constraint, Lanes, HALF, LANES};
use crate::backend::tables::CellTable;
use crate::grid::Geometry;

/// What completion reads of a puzzle: houses, their clues, each cell's.
#[derive(Debug, Clone)]
pub(super) struct Completion {
    /// Each house's clue digits, one bit each.
    clue_digits: Vec<i16>,
    /// Each free cell's houses, `unit_width` of them.
    cell_houses: Vec<u16>,
    /// Each free cell's candidate digits, one bit each.
    cell_digits: Vec<i16>,
    /// Each candidate's digit bit.
    candidate_bit: Vec<i16>,
    /// The house of each violable unit constraint (in `units`' order).
    unit_house: Vec<u16>,
    /// Every digit's bit.
    all_digits: i16,
    houses: usize,
}

/// The most houses and free cells completion works on (16 × 16 boards):
/// indices masked by these less one are in bounds without a check.
const HOUSES: usize = 64;
const CELLS: usize = 256;

/// Per group: the vectors completion works in, by house and by free cell,
/// for all of a group's lanes (`N` = `LANES`) or the `HALF` still open.
#[derive(Debug, Clone)]
pub(super) struct CompletionScratch {
    /// Where a house has a violated unit.
    broken: [Lanes; HOUSES],
    wide: Passes<LANES>,
    narrow: Passes<HALF>,
}

/// What the passes of naked and hidden singles keep, `N` lanes each.
#[derive(Debug, Clone)]
struct Passes<const N: usize> {
    /// A house's digits placed or given.
    held: [Lanes<N>; HOUSES],
    /// The digits open in at least one, and in at least two, of a house's
    /// open cells; then its hidden singles in `once`.
    once: [Lanes<N>; HOUSES],
    twice: [Lanes<N>; HOUSES],
    /// A cell's digit, 0 while open.
    placed: [Lanes<N>; CELLS],
    /// An open cell's digits no house of it holds.
    open: [Lanes<N>; CELLS],
}

impl<const N: usize> Default for Passes<N> {
    fn default() -> Passes<N> {
        let (houses, cells) = ([Lanes::splat(0); HOUSES], [Lanes::splat(0); CELLS]);
        Passes { held: houses, once: houses, twice: houses, placed: cells, open: cells }
    }
}

impl Default for CompletionScratch {
    fn default() -> CompletionScratch {
        CompletionScratch { broken: [Lanes::splat(0); HOUSES], wide: Passes::default(), narrow: Passes::default() }
    }
}

impl CompletionScratch {
    /// Each free cell's digit bit as the last `fill` left it, in the lanes
    /// it filled.
    pub(super) fn placed(&self) -> &[Lanes] {
        &self.wide.placed
    }
}

/// At most `keeps` of each lane's kept cells, drawn by `draws` (one per
/// free cell), each subset as likely as any other (selection sampling,
/// Knuth's algorithm S), as the reference does (`cpu/complete.rs`): cell i
/// is kept where `⌊draws[i] · left / 2¹⁶⌋ < needed`, `left` the lane's kept
/// cells from i on and `needed` those still to keep. `mul_high`:
/// [`Lanes::mul_high_unsigned`].
pub(super) struct Sample<'a, M> {
    pub(super) keeps: usize,
    pub(super) draws: &'a [Lanes],
    pub(super) mul_high: M,
}

impl<M: Fn(Lanes, Lanes) -> Lanes> Sample<'_, M> {
    /// Clears the bits of the kept cells (the nonzero `placed`) that the
    /// sample does not keep. A method, not a closure `fill` calls: the
    /// compiler left such a closure out of line, without the caller's
    /// AVX2, and it took 5 % of a hardest-class run (BENCHMARKS.md).
    #[inline(always)]
    pub(super) fn keep(&self, placed: &mut [Lanes]) {
        let zero = Lanes::splat(0);
        let mut left = zero;
        for &bit in placed.iter() {
            // Masks are −1 where set: less one for each kept cell.
            left -= !bit.eq_mask(zero);
        }
        let mut needed = left.min(Lanes::splat(self.keeps as i16));
        for (bit, &draw) in placed.iter_mut().zip(self.draws) {
            let kept = !bit.eq_mask(zero);
            let keep = kept & needed.gt_mask((self.mul_high)(draw, left));
            *bit = *bit & keep;
            needed += keep;
            left += kept;
        }
    }
}

/// How the passes over a group's lanes end: every lane filled or failed
/// (the filled ones), or few enough still open to go on in `HALF` lanes
/// (the failed ones).
enum Ended<const N: usize> {
    Done(Lanes<N>),
    Few(Lanes<N>),
}

impl Completion {
    /// On a board where grids are completed (`Dynamics::completes_on`: up
    /// to 16 × 16 cells, so up to 48 houses).
    pub(super) fn new(geometry: &Geometry, table: &CellTable, units: &[u16]) -> Completion {
        let n = geometry.n;
        let houses = geometry.unit_cells.len();
        assert!(geometry.cells <= CELLS && houses <= HOUSES && n <= 16, "completion on a board of {n} digits");
        let clue_digits = (0..houses)
            .map(|u| {
                let first = geometry.cells + n * u;
                (0..n).filter(|&d| table.fixed_ones[first + d] > 0).fold(0u16, |m, d| m | 1 << d) as i16
            })
            .collect();
        let mut cell_houses = Vec::new();
        for &cell in &table.cells {
            cell_houses.extend(geometry.cell_units[cell as usize].iter().map(|&u| u as u16));
        }
        let cell_digits =
            (0..table.len()).map(|i| table.candidates(i).fold(0u16, |m, j| m | 1 << table.digits[j]) as i16).collect();
        let candidate_bit = table.digits.iter().map(|&d| (1u16 << d) as i16).collect();
        let unit_house = units.iter().map(|&k| ((k as usize - geometry.cells) / n) as u16).collect();
        let all_digits = ((1u32 << n) - 1) as u16 as i16;
        Completion { clue_digits, cell_houses, cell_digits, candidate_bit, unit_house, all_digits, houses }
    }

    pub(super) fn candidate_bit(&self, j: usize) -> i16 {
        self.candidate_bit[j]
    }

    /// The lanes whose grids completion fills, and each free cell's digit
    /// bit there (`placed`). `constraints[units[k] & mask]`: the totals.
    /// `W`: houses a cell. `sample`: where given, at most so many of the
    /// kept cells are kept ([`Sample`]).
    #[inline(always)]
    pub(super) fn fill<const W: usize>(
        &self,
        table: &CellTable,
        choice: &[Lanes],
        constraints: &[Constraint],
        units: &[u16],
        sample: Option<Sample<'_, impl Fn(Lanes, Lanes) -> Lanes>>,
        scratch: &mut CompletionScratch,
    ) -> Lanes {
        let (zero, one) = (Lanes::splat(0), Lanes::splat(1));
        let mask = constraints.len() - 1;
        let constraints = &constraints[..=mask];
        let CompletionScratch { broken, wide, .. } = scratch;
        let Passes { held, placed, .. } = wide;
        let (hm, cm) = (HOUSES - 1, CELLS - 1);
        broken[..self.houses].fill(zero);
        held[..self.houses].fill(zero);
        let (cell_houses, _) = self.cell_houses.as_chunks::<W>();
        let cell_houses = &cell_houses[..choice.len()];
        for (&k, &u) in units.iter().zip(&self.unit_house) {
            let u = u as usize & hm;
            broken[u] = broken[u] | !constraints[k as usize & mask].total.eq_mask(one);
        }
        for (i, (&current, houses_of)) in choice.iter().zip(cell_houses).enumerate() {
            let mut freed = zero;
            for &u in houses_of {
                freed = freed | broken[u as usize & hm];
            }
            let mut bit = zero;
            for (c, j) in table.candidates(i).enumerate() {
                bit = bit | (current.eq_mask(Lanes::splat(c as i16)) & Lanes::splat(self.candidate_bit[j]));
            }
            placed[i & cm] = bit.and_not(freed);
        }
        if let Some(sample) = sample {
            sample.keep(&mut placed[..cell_houses.len()]);
        }
        for (i, houses_of) in cell_houses.iter().enumerate() {
            // The kept cells lie in houses whose units all hold: no digit
            // is placed twice yet.
            let bit = placed[i & cm];
            for &u in houses_of {
                let u = u as usize & hm;
                held[u] = held[u] | bit;
            }
        }
        for (held, &clues) in held.iter_mut().zip(&self.clue_digits) {
            *held = *held | Lanes::splat(clues);
        }
        let few_open = |failed: Lanes| failed.0.iter().filter(|&&failed| failed == 0).count() <= HALF;
        let failed = match self.passes(cell_houses, wide, zero, few_open) {
            Ended::Done(filled) => return filled,
            Ended::Few(failed) => failed,
        };
        self.finish_in_half(cell_houses, scratch, failed)
    }

    /// The passes of the lanes `failed` leaves open, at most `HALF`, in
    /// `HALF` lanes: the lanes they fill, and those lanes' digits copied
    /// back to `placed`. Most lanes fail in the first passes, while a lane
    /// that fills takes 4 to 19 (hot chains on the hardest class): in one
    /// register each pass costs about half as much.
    #[inline(always)]
    fn finish_in_half<const W: usize>(
        &self,
        cell_houses: &[[u16; W]],
        scratch: &mut CompletionScratch,
        failed: Lanes,
    ) -> Lanes {
        let CompletionScratch { wide, narrow, .. } = scratch;
        let zero = Lanes::splat(0);
        let mut open_lanes = [0; HALF];
        let mut count = 0;
        for (lane, &failed) in failed.0.iter().enumerate() {
            if failed == 0 {
                open_lanes[count & (HALF - 1)] = lane;
                count += 1;
            }
        }
        let open_lanes = &open_lanes[..count];
        let (houses, cells) = (self.houses, cell_houses.len());
        for to in narrow.held[..houses].iter_mut().chain(&mut narrow.placed[..cells]) {
            *to = Lanes::splat(0);
        }
        // Lane by lane, a scalar copy for each vector: building each vector
        // from its lanes cost some ten instructions a lane.
        for (k, &lane) in open_lanes.iter().enumerate() {
            let (k, lane) = (k & (HALF - 1), lane & (LANES - 1));
            for (to, from) in narrow.held[..houses].iter_mut().zip(&wide.held[..houses]) {
                to.0[k] = from.0[lane];
            }
            for (to, from) in narrow.placed[..cells].iter_mut().zip(&wide.placed[..cells]) {
                to.0[k] = from.0[lane];
            }
        }
        let padding = Lanes(std::array::from_fn(|k| -((k >= count) as i16)));
        let Ended::Done(filled_narrow) = self.passes(cell_houses, narrow, padding, |_| false) else {
            unreachable!("the passes over half the lanes end only when each is filled or failed")
        };
        let mut filled = zero;
        for (k, &lane) in open_lanes.iter().enumerate() {
            if filled_narrow.0[k] != 0 {
                filled.0[lane] = -1;
                for (to, from) in wide.placed[..cells].iter_mut().zip(&narrow.placed[..cells]) {
                    to.0[lane] = from.0[k];
                }
            }
        }
        filled
    }

    /// Naked and hidden singles over `N` lanes from `held` and `placed`, the
    /// lanes in `failed` left out, until each lane is filled or failed, or
    /// until `few` says the lanes `failed` leaves open are few enough.
    #[inline(always)]
    fn passes<const W: usize, const N: usize>(
        &self,
        cell_houses: &[[u16; W]],
        scratch: &mut Passes<N>,
        mut failed: Lanes<N>,
        few: impl Fn(Lanes<N>) -> bool,
    ) -> Ended<N> {
        let (zero, one) = (Lanes::splat(0), Lanes::splat(1));
        let Passes { held, once, twice, placed, open } = scratch;
        let hm = HOUSES - 1;
        // The cells' vectors walked beside their houses, not indexed.
        let cells = cell_houses.len();
        let (placed, open) = (&mut placed[..cells], &mut open[..cells]);
        loop {
            if few(failed) {
                return Ended::Few(failed);
            }
            // Naked singles, each placed at once: an open cell's digits not
            // held in its houses.
            let (mut unfilled, mut empty, mut progress) = (zero, zero, zero);
            let naked = cell_houses.iter().zip(&self.cell_digits).zip(placed.iter_mut()).zip(open.iter_mut());
            for (((houses_of, &cell_digits), placed), open) in naked {
                // Each house's index masked once and kept for the updates
                // below: read and masked at each use, and each cell's vectors
                // found by index, a hardest run took 1.07 times the
                // instructions (BENCHMARKS.md).
                let houses_of = houses_of.map(|u| u as usize & hm);
                let mut taken = zero;
                for &u in &houses_of {
                    taken = taken | held[u];
                }
                let is_open = placed.eq_mask(zero);
                let digits = Lanes::splat(cell_digits).and_not(taken) & is_open;
                empty = empty | (is_open & digits.eq_mask(zero));
                let single = digits & (digits & (digits - one)).eq_mask(zero);
                for &u in &houses_of {
                    held[u] = held[u] | single;
                }
                *placed = *placed | single;
                progress = progress | single;
                let still_open = digits.and_not(!single.eq_mask(zero));
                *open = still_open;
                unfilled = unfilled | still_open;
            }
            failed = failed | empty;
            let unfilled = !unfilled.eq_mask(zero);
            if unfilled.and_not(failed).is_zero() {
                return Ended::Done(!failed);
            }
            // Hidden singles: a digit missing from a house with one open place.
            for (once, twice) in once.iter_mut().zip(twice.iter_mut()).take(self.houses) {
                *once = zero;
                *twice = zero;
            }
            for (houses_of, &digits) in cell_houses.iter().zip(open.iter()) {
                for &u in houses_of {
                    let u = u as usize & hm;
                    twice[u] = twice[u] | (once[u] & digits);
                    once[u] = once[u] | digits;
                }
            }
            let mut lost = zero;
            for ((once, &twice), &held) in once.iter_mut().zip(twice.iter()).zip(held.iter()).take(self.houses) {
                let missing = Lanes::splat(self.all_digits).and_not(held);
                lost = lost | missing.and_not(*once);
                // Now each house's hidden singles.
                *once = once.and_not(twice) & missing;
            }
            // A cell given two digits, or a digit twice in a house, fails its lane.
            let (mut several, mut clash) = (zero, zero);
            for ((houses_of, &digits), placed) in cell_houses.iter().zip(open.iter()).zip(placed.iter_mut()) {
                let houses_of = houses_of.map(|u| u as usize & hm);
                let mut hidden = zero;
                for &u in &houses_of {
                    hidden = hidden | once[u];
                }
                let new = digits & hidden;
                several = several | (new & (new - one));
                for &u in &houses_of {
                    clash = clash | (held[u] & new);
                    held[u] = held[u] | new;
                }
                *placed = *placed | new;
                progress = progress | new;
            }
            failed = failed | !(lost | several | clash).eq_mask(zero);
            // Lanes that neither fail nor move on are stuck.
            failed = failed | unfilled & progress.eq_mask(zero);
            if unfilled.and_not(failed).is_zero() {
                return Ended::Done(!failed & !unfilled);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::lanes::violable_units;
    use crate::backend::lanes::CHAINS_PER_GROUP;
    use crate::grid::Variant;
    use crate::model::Model;
    use crate::puzzle::parse_grid;
    use crate::reduce::{reduce, Reduce};
    use crate::rng::WyRand;

    const INKALA: &str = "8..........36......7..9.2...5...7.......457.....1...3...1....68..85...1..9....4..";
    const INKALA_SOLVED: &str = "812753649943682175675491283154237896369845721287169534521974368438526917796318452";

    /// Each lane's completion is the reference's, one grid at a time
    /// (`cpu/complete.rs`): the same lanes fill, to the same solutions, on
    /// states from random to one house off the solution.
    #[test]
    fn completion_fills_the_lanes_the_one_grid_completion_fills() {
        // Reduced as `--reduce propagate` would.
        let puzzle = parse_grid(INKALA.as_bytes(), Variant::Standard).unwrap();
        let model = Model::build(&reduce(&puzzle, Reduce::Propagate).unwrap()).unwrap();
        let table = CellTable::new(&model);
        let units = violable_units(&table);
        let completion = Completion::new(model.geometry(), &table, &units);
        let reference = crate::backend::cpu::complete::Completion::new(model.geometry(), &table);
        let solved: Vec<u8> = INKALA_SOLVED.bytes().map(|b| b - b'0').collect();
        let solution: Vec<u8> = (0..table.len())
            .map(|i| {
                let digit = solved[table.cells[i] as usize] - 1;
                table.candidates(i).position(|j| table.digits[j] == digit).unwrap() as u8
            })
            .collect();
        let mut random = WyRand::new(11);
        let (mut filled, mut tried) = (0, 0);
        let geometry = model.geometry();
        for round in 0..400 {
            // Lane l: the solution with l % 8 cells redrawn at random, or
            // (odd rounds) every cell of l % 4 houses; every cell in every
            // tenth round, and in the first 20 lanes of another, so the
            // others go on in half the lanes.
            let choices: Vec<Vec<u8>> = (0..CHAINS_PER_GROUP)
                .map(|l| {
                    let redrawn: Vec<usize> = if round % 10 == 9 || round % 10 == 7 && l < 20 {
                        (0..table.len()).collect()
                    } else if round % 2 == 1 {
                        let houses: Vec<usize> = (0..l % 4).map(|_| (random.next_u64() % 27) as usize).collect();
                        let in_houses = |i: &usize| {
                            houses.iter().any(|&u| geometry.unit_cells[u].contains(&(table.cells[*i] as usize)))
                        };
                        (0..table.len()).filter(in_houses).collect()
                    } else {
                        (0..l % 8).map(|_| (random.next_u64() % table.len() as u64) as usize).collect()
                    };
                    let mut choice = solution.clone();
                    for i in redrawn {
                        choice[i] = (random.next_u64() % table.candidates(i).len() as u64) as u8;
                    }
                    choice
                })
                .collect();
            let choice: Vec<Lanes> =
                (0..table.len()).map(|i| Lanes(std::array::from_fn(|l| choices[l][i] as i16))).collect();
            let zero = Constraint { total: Lanes::splat(0), weight: Lanes::splat(0) };
            let mut constraints = vec![zero; table.fixed_ones.len().next_power_of_two()];
            for (k, &t) in table.fixed_ones.iter().enumerate() {
                constraints[k].total = Lanes::splat(t as i16);
            }
            for (i, choice) in choice.iter().enumerate() {
                for (c, j) in table.candidates(i).enumerate() {
                    let holds = choice.eq_mask(Lanes::splat(c as i16));
                    for &k in table.units_of(j) {
                        constraints[k as usize].total -= holds;
                    }
                }
            }
            // Every third round keeps at most 2 to 8 of each lane's kept cells.
            let draws: Vec<Vec<u16>> =
                (0..CHAINS_PER_GROUP).map(|_| (0..table.len()).map(|_| random.next_u64() as u16).collect()).collect();
            let draws_of_lanes: Vec<Lanes> =
                (0..table.len()).map(|i| Lanes(std::array::from_fn(|l| draws[l][i] as i16))).collect();
            let keeps = (round % 3 == 2).then_some(2 + round % 7);
            let sample =
                keeps.map(|keeps| Sample { keeps, draws: &draws_of_lanes, mul_high: Lanes::mul_high_unsigned });
            let mut scratch = Box::<CompletionScratch>::default();
            let lanes = completion.fill::<3>(&table, &choice, &constraints, &units, sample, &mut scratch);
            for (l, lane_choice) in choices.iter().enumerate() {
                let mut totals = table.fixed_ones.clone();
                for (i, &c) in lane_choice.iter().enumerate() {
                    table
                        .units_of(table.candidates(i).start + c as usize)
                        .iter()
                        .for_each(|&k| totals[k as usize] += 1);
                }
                let one = reference.fill(&table, lane_choice, &totals, keeps.map(|keeps| (keeps, &draws[l][..])));
                tried += 1;
                assert_eq!(lanes.0[l] == -1, one.is_some(), "round {round}, lane {l}");
                if let Some(filled_choice) = one {
                    filled += 1;
                    assert_eq!(filled_choice, solution, "round {round}, lane {l}: a solution, the only one");
                    for (i, &c) in filled_choice.iter().enumerate() {
                        let bit = scratch.placed()[i].0[l];
                        let digit = table.digits[table.candidates(i).start + c as usize];
                        assert_eq!(bit, 1 << digit, "round {round}, lane {l}, cell {i}");
                    }
                }
            }
        }
        assert!(filled > tried / 10 && filled < tried * 9 / 10, "{filled} of {tried} lanes filled");
    }

    /// Sampling keeps exactly min(keeps, kept) of a lane's kept cells, each
    /// subset as often as any other: lane l keeps 2 of its first 3 + l % 4
    /// cells (3 to 15 subsets), over 30,000 draws each.
    #[test]
    fn sampling_keeps_every_subset_of_the_kept_cells_as_often() {
        const CELLS: usize = 8;
        let kept_cells = |l: usize| 3 + l % 4;
        let mut random = WyRand::new(5);
        let mut counts = vec![std::collections::HashMap::<u16, u32>::new(); LANES];
        let draws_per_lane = 30_000;
        for _ in 0..draws_per_lane {
            let mut placed: Vec<Lanes> = (0..CELLS)
                .map(|i| Lanes(std::array::from_fn(|l| if i < kept_cells(l) { 1 << (i % 9) } else { 0 })))
                .collect();
            let draws: Vec<Lanes> =
                (0..CELLS).map(|_| Lanes(std::array::from_fn(|_| random.next_u64() as u16 as i16))).collect();
            Sample { keeps: 2, draws: &draws, mul_high: Lanes::mul_high_unsigned }.keep(&mut placed);
            for (l, counts) in counts.iter_mut().enumerate() {
                let subset = (0..CELLS).filter(|&i| placed[i].0[l] != 0).fold(0u16, |m, i| m | 1 << i);
                assert_eq!(subset.count_ones(), 2, "lane {l}: {subset:#b}");
                assert!(subset < 1 << kept_cells(l), "lane {l}: a cell it did not keep, {subset:#b}");
                *counts.entry(subset).or_default() += 1;
            }
        }
        for (l, counts) in counts.iter().enumerate() {
            let k = kept_cells(l);
            let subsets = k * (k - 1) / 2;
            assert_eq!(counts.len(), subsets, "lane {l}");
            let expected = draws_per_lane as f64 / subsets as f64;
            // Five standard deviations of a binomial count.
            let bound = 5.0 * (expected * (1.0 - 1.0 / subsets as f64)).sqrt();
            for (&subset, &count) in counts {
                assert!(
                    (count as f64 - expected).abs() < bound,
                    "lane {l}, {subset:#b}: {count}, expected {expected:.0}"
                );
            }
        }
    }
}
