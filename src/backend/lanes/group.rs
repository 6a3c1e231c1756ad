//! A group: the 32 chains of one slot that share a vector, and their sweep.

use std::ops::Range;

use super::complete::{Completion, CompletionScratch, Sample};
use super::vector::{Constraint, Lanes, NibbleTable, Random, LANES as CHAINS_PER_GROUP, QUARTER};
#[cfg(target_arch = "x86_64")]
use super::vector::{NibbleRegisters, WideRegisters};
use super::{ONE, TABLE_BITS, X_BITS};
use crate::backend::tables::{CellTable, SharedDigit, TradeTable};
use crate::dynamics::{completes_after, AdaptiveWeights, Weights};
use crate::grid::MAX_N;
use crate::rng::{attempt_random, sweep_key, INITIAL_STATE_SWEEP};

/// Whether the sweep compiled for AVX2 runs here.
pub(super) fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    return is_x86_feature_detected!("avx2");
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// Quarters of a group's lanes, and the rungs of a ladder whose chains
/// each stand in their rung's quarter (`Group::arrange`).
pub(super) const QUARTERS: usize = CHAINS_PER_GROUP / QUARTER;

/// The group's random numbers, seeded from its counter-based stream.
fn random(stream: u32) -> Random {
    let key = sweep_key(stream, INITIAL_STATE_SWEEP);
    Random::new(|i| {
        let i = i as u32;
        (attempt_random(key, 2 * i) as u64) << 32 | attempt_random(key, 2 * i + 1) as u64
    })
}

/// Heat-bath weights read from tables (byte shuffles) instead of multiplied,
/// by a cell's number of candidates: the very numbers the products give.
/// Kept by the powers of q they are made from, not the rungs' numbers: a
/// one-rung ladder's chains that heat stay at rung 0, at other powers.
#[derive(Debug, Clone, PartialEq)]
enum WeightTables {
    /// Each quarter's chains at one rung, x of at most `TABLE_BITS` bits: each
    /// quarter's weights of x = 0..16, with the quarters' powers and the bits.
    Quarters([[i16; X_BITS]; QUARTERS], usize, Vec<[NibbleTable; QUARTERS]>),
    /// Every chain at one rung, x of `TABLE_BITS + 1` bits (hot chains, at
    /// 2.25 × 1.2): the weights of x = 0..16 and 16..32, with the powers.
    Wide([i16; X_BITS], Vec<[NibbleTable; 2]>),
}

impl WeightTables {
    /// For chains of up to `most_candidates` candidates a cell whose
    /// quarters stand at `quarters`' powers: `Wide` where x has a bit more
    /// than `TABLE_BITS` (all four quarters at one temperature).
    fn new(quarters: [[i16; X_BITS]; QUARTERS], bits: usize, most_candidates: usize) -> WeightTables {
        // 16 entries from `from` on: x = from..from + 16.
        let table = |one, powers, from| NibbleTable::new(std::array::from_fn(|x| weight(one, powers, bits, from + x)));
        let counts = ONE[..=most_candidates].iter();
        if bits > TABLE_BITS {
            let tables = counts.map(|&one| [0, 16].map(|from| table(one, &quarters[0], from)));
            return WeightTables::Wide(quarters[0], tables.collect());
        }
        // The first quarter's table made once for every quarter at its
        // temperature (all four at one): made four times, they cost an easy
        // collection 5 % more instructions.
        let tables = counts.map(|&one| {
            let first = table(one, &quarters[0], 0);
            quarters.each_ref().map(|p| if *p == quarters[0] { first } else { table(one, p, 0) })
        });
        WeightTables::Quarters(quarters, bits, tables.collect())
    }

    /// The quarters' powers and the bits of x the tables were made for.
    fn made_from(&self) -> ([[i16; X_BITS]; QUARTERS], usize) {
        match self {
            WeightTables::Quarters(quarters, bits, _) => (*quarters, *bits),
            WeightTables::Wide(powers, _) => ([*powers; QUARTERS], TABLE_BITS + 1),
        }
    }
}

/// Whether the four quarters stand at one temperature (their powers of q).
fn at_one_temperature(quarters: &[[i16; X_BITS]; QUARTERS]) -> bool {
    quarters.iter().all(|powers| *powers == quarters[0])
}

/// The chains of one slot that share a vector, one per lane.
#[derive(Debug, Clone)]
pub(super) struct Group {
    /// Per constraint, its total and weight side by side: a candidate's
    /// units are read together. Padded to a power of two entries.
    pub(super) constraints: Vec<Constraint>,
    /// Per free cell, the index of the candidate each chain's cell holds.
    pub(super) choice: Vec<Lanes>,
    random: Random,
    /// A sweep's uniform draws, one per free cell, made before it.
    draws: Vec<Lanes>,
    /// Each chain's weighted energy, as the last sweeps left it.
    pub(super) energy: [i32; CHAINS_PER_GROUP],
    /// `powers[b]` = q^(2^b) of each chain's rung, unsigned 16-bit, rounded down.
    powers: [Lanes; X_BITS],
    /// The weights' tables, where the chains' rungs and bits allow them.
    weight_tables: Option<WeightTables>,
    /// The lane each chain (the host's replicas, in order) sweeps in: its
    /// own, or, for ladders of `QUARTERS` rungs, its rung's quarter
    /// (`Group::arrange`).
    lane_of_chain: [u8; CHAINS_PER_GROUP],
    /// Whether the chains are ladders of `QUARTERS` rungs, each at its own
    /// place in every quarter.
    four_rung_ladders: bool,
    /// The most candidates a cell has: the counts the tables are made for
    /// (made for every count up to 25, they took 7 % of an easy
    /// collection's time).
    most_candidates: usize,
    /// Set once a group rather than once a call: zeroing it took 1.5 % of
    /// a hardest-class run.
    scratch: Scratch,
    /// The rungs, their powers and the bits `powers` were set for: a call
    /// with the same ones (every call, at one temperature) sets nothing (2 %
    /// of a hardest-class run went to setting them again).
    rungs_set: (Vec<u32>, Vec<[i16; X_BITS]>, usize),
    /// Passed on from a puzzle unloaded, or made at the group's first
    /// completion: an easy puzzle solved before makes none.
    completion_scratch: Option<Box<CompletionScratch>>,
}

/// A cell's candidate energies and heat-bath weights, while it is updated.
#[derive(Debug, Clone)]
struct Scratch {
    energies: [Lanes; MAX_N],
    masses: [Lanes; MAX_N],
}

/// What every sweep of a call shares.
#[derive(Debug, Clone)]
pub(super) struct Sweeps<'a> {
    pub(super) table: &'a CellTable,
    /// The unit constraints a chain can violate (`Puzzle::units`).
    pub(super) units: &'a [u16],
    /// Bits of x that can give a nonzero weight.
    pub(super) bits: usize,
    /// The adaptive rule, if the weights adapt.
    pub(super) rule: Option<AdaptiveWeights>,
    /// The sweeps' numbers (relaxing ones are multiples of `relax_every`, counted from 1).
    pub(super) numbers: Range<u32>,
    /// Completion's tables, where the chains' grids are completed.
    pub(super) completion: Option<Completing<'a>>,
    /// The pairs of cells that trade digits after each sweep, if any.
    pub(super) trades: Option<&'a TradeTable>,
}

/// Completion in a call: its tables, whether the chains heat (which
/// sweeps complete: `dynamics::completes_after`), and how many of a grid's
/// kept cells a completion keeps at most (`Dynamics::keeps`).
#[derive(Debug, Clone, Copy)]
pub(super) struct Completing<'a> {
    pub(super) tables: &'a Completion,
    pub(super) heat: bool,
    pub(super) keeps: Option<usize>,
}

impl Group {
    /// Each chain's cells hold random candidates; every unit weighs the
    /// initial weight. Compiled for AVX2 where the CPU has it, as the sweep
    /// is: the same numbers, and the draw's product one instruction where
    /// the compiler otherwise multiplied lane by lane (400 instructions a
    /// cell, 8 % of an easy collection's). `rungs`: the rungs of a ladder
    /// (the host's replicas are whole ladders, one after another).
    pub(super) fn random(table: &CellTable, units: &[u16], weights: Weights, stream: u32, rungs: usize) -> Group {
        #[cfg(target_arch = "x86_64")]
        if has_avx2() {
            // SAFETY: `random_avx2` needs AVX2 and nothing else, and the CPU has it.
            #[allow(unsafe_code)]
            let group = unsafe { Group::random_avx2(table, units, weights, stream) };
            return group.laid_out(rungs);
        }
        Group::random_on_any(table, units, weights, stream, Lanes::mul_high_unsigned).laid_out(rungs)
    }

    /// Chains of ladders of `QUARTERS` rungs start in their first rung's
    /// quarter, ladder by ladder along it (each start is random, so no state
    /// moves); other chains each in their own lane.
    fn laid_out(mut self, rungs: usize) -> Group {
        self.four_rung_ladders = rungs == QUARTERS;
        if self.four_rung_ladders {
            self.lane_of_chain = std::array::from_fn(|c| ((c % QUARTERS) * QUARTER + c / QUARTERS) as u8);
        }
        self
    }

    /// The group with `scratch` for completion, if given (else made at its
    /// first completion).
    pub(super) fn with_completion_scratch(self, scratch: Option<Box<CompletionScratch>>) -> Group {
        Group { completion_scratch: scratch, ..self }
    }

    /// Completion's scratch, if the group made or was given one.
    pub(super) fn into_completion_scratch(self) -> Option<Box<CompletionScratch>> {
        self.completion_scratch
    }

    /// The lane a chain (a replica of the host's, counted from the group's first) sweeps in.
    pub(super) fn lane(&self, chain: usize) -> usize {
        self.lane_of_chain[chain] as usize
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn random_avx2(table: &CellTable, units: &[u16], weights: Weights, stream: u32) -> Group {
        Group::random_on_any(table, units, weights, stream, |a: Lanes, b| a.mul_high_unsigned_avx2(b))
    }

    /// [`Group::random`]; `mul_high`: [`Lanes::mul_high_unsigned`].
    #[inline(always)]
    fn random_on_any(
        table: &CellTable,
        units: &[u16],
        weights: Weights,
        stream: u32,
        mul_high: impl Fn(Lanes, Lanes) -> Lanes,
    ) -> Group {
        let mut random = random(stream);
        let weight = Lanes::splat(weights.initial() as i16);
        // A power of two, so the sweep's indices, masked, need no bounds
        // check; the padding's and those past it total 0 and weigh 0. Loops,
        // not closures, here: a closure is not compiled for AVX2 with the
        // function around it.
        let zero = Constraint { total: Lanes::splat(0), weight: Lanes::splat(0) };
        let mut constraints = vec![zero; table.fixed_ones.len().next_power_of_two()];
        for (constraint, &t) in constraints.iter_mut().zip(&table.fixed_ones[..table.padding as usize]) {
            *constraint = Constraint { total: Lanes::splat(t as i16), weight };
        }
        let mut choice = Vec::with_capacity(table.len());
        for i in 0..table.len() {
            let count = table.candidates(i).len() as i16;
            let cell = mul_high(random.next(), Lanes::splat(count));
            for (c, j) in table.candidates(i).enumerate() {
                let holds = cell.eq_mask(Lanes::splat(c as i16));
                for &k in table.units_of(j) {
                    constraints[k as usize].total -= holds;
                }
            }
            choice.push(cell);
        }
        constraints[table.padding as usize] = zero;
        let draws = vec![Lanes::splat(0); table.len()];
        let mut group = Group {
            constraints,
            choice,
            random,
            draws,
            energy: [0; CHAINS_PER_GROUP],
            powers: [Lanes::splat(0); X_BITS],
            weight_tables: None,
            lane_of_chain: std::array::from_fn(|c| c as u8),
            four_rung_ladders: false,
            most_candidates: (0..table.len()).map(|i| table.candidates(i).len()).max().unwrap_or(0),
            scratch: Scratch { energies: [Lanes::splat(0); MAX_N], masses: [Lanes::splat(0); MAX_N] },
            rungs_set: (Vec::new(), Vec::new(), 0),
            completion_scratch: None,
        };
        group.energy = group.energies(units);
        group
    }

    /// Each chain's q^(2^b) for its rung (`rungs`, in the chains' order),
    /// and the weight tables where each quarter's chains stand at one rung
    /// and `bits` is small enough (or, a bit more, where all stand at one).
    /// Chains of four-rung ladders first move to their rungs' quarters.
    pub(super) fn set_rungs(&mut self, rungs: &[u32], rung_powers: &[[i16; X_BITS]], bits: usize, units: &[u16]) {
        if self.rungs_set.2 == bits && self.rungs_set.0 == rungs && self.rungs_set.1 == rung_powers {
            return;
        }
        self.rungs_set = (rungs.to_vec(), rung_powers.to_vec(), bits);
        if self.four_rung_ladders {
            self.arrange(rungs, units);
        }
        let mut rung_of_lane = [None; CHAINS_PER_GROUP];
        for (&lane, &rung) in self.lane_of_chain.iter().zip(rungs) {
            rung_of_lane[lane as usize] = Some(rung);
        }
        for (b, power) in self.powers.iter_mut().enumerate() {
            *power = Lanes(std::array::from_fn(|l| rung_of_lane[l].map_or(0, |r| rung_powers[r as usize][b])));
        }
        // The rung of each quarter whose lanes all hold chains at one rung.
        let one_rung = |q: &[Option<u32>]| q[0].filter(|&r| q.iter().all(|&s| s == Some(r)));
        let quarter_rungs: Option<Vec<u32>> = rung_of_lane.chunks(QUARTER).map(one_rung).collect();
        let quarter_powers = quarter_rungs
            .map(|q| <[u32; QUARTERS]>::try_from(q).expect("four quarters").map(|r| rung_powers[r as usize]));
        // Tables where each quarter stands at one rung and x has at most
        // `TABLE_BITS` bits, or every quarter at one and x a bit more.
        let wanted = quarter_powers.filter(|q| bits <= TABLE_BITS || bits == TABLE_BITS + 1 && at_one_temperature(q));
        let kept = self.weight_tables.take().filter(|tables| wanted.is_some_and(|q| tables.made_from() == (q, bits)));
        self.weight_tables = kept.or_else(|| wanted.map(|q| WeightTables::new(q, bits, self.most_candidates)));
    }

    /// Moves each chain of a four-rung ladder to its rung's quarter, at its
    /// ladder's place there, so each quarter's weights can come from one
    /// table (a byte shuffle reads one table per 128-bit half; computed
    /// for several rungs, weights cost a sweep 1.3× the time: BENCHMARKS.md).
    /// A chain's candidates, totals and weights move with it; its random
    /// numbers are its new lane's, drawn as independently as its own.
    /// Only the constraints in `units` differ from chain to chain (the
    /// others hold their fixed totals and the base weight; the padding's
    /// total counts for nothing), so only those move. Compiled for AVX2
    /// where the CPU has it, as the sweep is.
    fn arrange(&mut self, rungs: &[u32], units: &[u16]) {
        #[cfg(target_arch = "x86_64")]
        if has_avx2() {
            // SAFETY: `arrange_avx2` needs AVX2 and nothing else, and the CPU has it.
            #[allow(unsafe_code)]
            return unsafe { self.arrange_avx2(rungs, units) };
        }
        self.arrange_on_any(rungs, units);
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn arrange_avx2(&mut self, rungs: &[u32], units: &[u16]) {
        self.arrange_on_any(rungs, units);
    }

    #[inline(always)]
    fn arrange_on_any(&mut self, rungs: &[u32], units: &[u16]) {
        // An odd–even transposition sort of each place's four quarters by
        // their chains' rungs: an exchange round swaps adjacent rungs, so a
        // pass of one parity moves every chain it changed; four sort any order.
        for _ in 0..QUARTERS / 2 {
            self.sort_pass([1, 0, 3, 2], rungs, units);
            self.sort_pass([0, 2, 1, 3], rungs, units);
        }
    }

    /// One pass of [`Group::arrange`]: each quarter q and its partner
    /// `partner[q]` exchange the chains of a place where they are out of order.
    #[inline(always)]
    fn sort_pass(&mut self, partner: [usize; QUARTERS], rungs: &[u32], units: &[u16]) {
        let mut chain_of_lane = [None; CHAINS_PER_GROUP];
        for (chain, &lane) in self.lane_of_chain.iter().enumerate().take(rungs.len()) {
            chain_of_lane[lane as usize] = Some(chain);
        }
        let rung = |lane: usize| chain_of_lane[lane].map(|c| rungs[c]);
        // The lane at a lane's place in its quarter's partner.
        let partner_lane = |l: usize| partner[l / QUARTER] * QUARTER + l % QUARTER;
        let swap = Lanes(std::array::from_fn(|l| {
            let other = partner_lane(l);
            let (lower, upper) = (rung(l.min(other)), rung(l.max(other)));
            -(lower.zip(upper).is_some_and(|(lower, upper)| lower > upper) as i16)
        }));
        if swap == Lanes::splat(0) {
            return;
        }
        let moved = |v: Lanes| swap.select(v.quarters_from(partner), v);
        for choice in &mut self.choice {
            *choice = moved(*choice);
        }
        // Masked, as in the sweep: in bounds by construction, no check.
        let mask = self.constraints.len() - 1;
        let constraints = &mut self.constraints[..=mask];
        for &k in units {
            let unit = &mut constraints[k as usize & mask];
            *unit = Constraint { total: moved(unit.total), weight: moved(unit.weight) };
        }
        let energy = self.energy;
        for (l, energy_of) in self.energy.iter_mut().enumerate() {
            if swap.0[l] < 0 {
                *energy_of = energy[partner_lane(l)];
            }
        }
        for lane in &mut self.lane_of_chain {
            let l = *lane as usize;
            if swap.0[l] < 0 {
                *lane = partner_lane(l) as u8;
            }
        }
    }

    /// The sweeps of one call, compiled for AVX2 where the CPU has it: the
    /// same arithmetic, so the same chains, 1.8× faster than with SSE2
    /// (BENCHMARKS.md; an AVX-512 variant gained only 3 %). Whether a
    /// chain's grid was completed, which ends the call's sweeps.
    pub(super) fn run(&mut self, sweeps: Sweeps) -> bool {
        #[cfg(target_arch = "x86_64")]
        if has_avx2() {
            // SAFETY: `run_avx2` needs AVX2 and nothing else, and the CPU has it.
            #[allow(unsafe_code)]
            return unsafe { self.run_avx2(sweeps) };
        }
        let (powers, bits, mul_high) = (self.powers, sweeps.bits, Lanes::mul_high_unsigned);
        self.run_on_any(sweeps, |count| Products { powers: &powers, bits, count, mul_high }, mul_high)
    }

    /// With AVX2, the weights come from the tables where there are some
    /// (byte shuffles), and every high product is one instruction: the
    /// same numbers, so the same chains.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn run_avx2(&mut self, sweeps: Sweeps) -> bool {
        let mul_high = |a: Lanes, b: Lanes| a.mul_high_unsigned_avx2(b);
        // A cell's table registers are loaded once, then read for each candidate.
        let weight_tables = self.weight_tables.take();
        let completed = match &weight_tables {
            Some(WeightTables::Quarters(quarters, _, tables)) if at_one_temperature(quarters) => {
                let one = |count: usize| {
                    let table = NibbleRegisters::one(&tables[count][0]);
                    Lookup(move |x| table.lookup(x))
                };
                self.run_on_any(sweeps, one, mul_high)
            }
            Some(WeightTables::Quarters(_, _, tables)) => {
                let four = |count: usize| {
                    let table = NibbleRegisters::new(&tables[count]);
                    Lookup(move |x| table.lookup(x))
                };
                self.run_on_any(sweeps, four, mul_high)
            }
            Some(WeightTables::Wide(_, tables)) => {
                let wide = |count: usize| {
                    let table = WideRegisters::new(&tables[count]);
                    Lookup(move |x| table.lookup(x))
                };
                self.run_on_any(sweeps, wide, mul_high)
            }
            None => {
                let (powers, bits) = (self.powers, sweeps.bits);
                self.run_on_any(sweeps, |count| Products { powers: &powers, bits, count, mul_high }, mul_high)
            }
        };
        self.weight_tables = weight_tables;
        completed
    }

    /// `weights(c).of(x)`: each chain's heat-bath weight of a candidate x
    /// above its cell's best, in a cell of c candidates (what depends on c
    /// alone is set once a cell); `mul_high`: [`Lanes::mul_high_unsigned`].
    #[inline(always)]
    fn run_on_any<W: CellWeights>(
        &mut self,
        sweeps: Sweeps,
        weights: impl Fn(usize) -> W,
        mul_high: impl Fn(Lanes, Lanes) -> Lanes,
    ) -> bool {
        let mut completed = false;
        for s in sweeps.numbers {
            match sweeps.table.unit_width {
                2 => self.sweep::<2, W>(sweeps.table, sweeps.bits, &weights, &mul_high),
                3 => self.sweep::<3, W>(sweeps.table, sweeps.bits, &weights, &mul_high),
                4 => self.sweep::<4, W>(sweeps.table, sweeps.bits, &weights, &mul_high),
                5 => self.sweep::<5, W>(sweeps.table, sweeps.bits, &weights, &mul_high),
                width => unreachable!("no board has candidates in {width} units"),
            }
            if let Some(trades) = sweeps.trades {
                self.trade(trades, s, sweeps.bits, &weights, &mul_high);
            }
            if let Some(Completing { tables, keeps, .. }) = sweeps.completion.filter(|c| completes_after(s, c.heat)) {
                let complete = match sweeps.table.unit_width {
                    2 => self.complete::<2>(sweeps.table, sweeps.units, tables, keeps, &mul_high),
                    3 => self.complete::<3>(sweeps.table, sweeps.units, tables, keeps, &mul_high),
                    width => unreachable!("completion on cells in {width} houses"),
                };
                if complete {
                    completed = true;
                    break;
                }
            }
            if let Some(rule) = sweeps.rule {
                let relax = (s + 1).is_multiple_of(rule.relax_every);
                self.adapt(sweeps.units, rule.base as i16, rule.cap as i16, relax);
            }
        }
        // Here, so they are summed with the sweep's instructions.
        self.energy = self.energies(sweeps.units);
        completed
    }

    /// A sweep's uniform draws, made before it in the order the cells use
    /// them: drawn inside the loop, the compiler merged the generator's
    /// 64-bit words into the draw's multiply with some forty shuffles a cell
    /// (BENCHMARKS.md). The generator's state stays in registers (a local
    /// copy): in `self`, every step would wait for the stores of the step before.
    #[inline(always)]
    fn draw_ahead(&mut self) {
        let mut random = self.random.clone();
        for draw in &mut self.draws {
            *draw = random.next();
        }
        self.random = random;
    }

    /// One sweep of cell moves. `W` unit constraints per candidate.
    #[inline(always)]
    fn sweep<const W: usize, Weigh: CellWeights>(
        &mut self,
        table: &CellTable,
        bits: usize,
        weights: &impl Fn(usize) -> Weigh,
        mul_high: &impl Fn(Lanes, Lanes) -> Lanes,
    ) {
        self.draw_ahead();
        let Group { constraints, choice, draws, scratch: Scratch { energies, masses }, .. } = self;
        // Indices masked by the length less one are in bounds by
        // construction: no compare and branch per unit read (the mask
        // changes no index, each is below the length).
        let mask = constraints.len() - 1;
        let constraints = &mut constraints[..=mask];
        let largest = Lanes::splat(((1 << bits) - 1) as i16);
        // Each candidate's units; a cell's candidates, energies and masses
        // are sliced once, so no index is checked per candidate.
        let (candidate_units, _) = table.units.as_chunks::<W>();
        for ((i, choice), &uniform) in choice.iter_mut().enumerate().zip(draws.iter()) {
            let candidates = &candidate_units[table.candidates(i)];
            let count = candidates.len();
            let (energies, masses) = (&mut energies[..count], &mut masses[..count]);
            let current = *choice;
            // e_j = Σ_k w_k (2 t_k − 1), the current candidate taken out of its units.
            let (mut lowest, mut own_energy) = (Lanes::splat(i16::MAX), Lanes::splat(0));
            for ((c, units), energy) in candidates.iter().enumerate().zip(energies.iter_mut()) {
                let (mut held, mut weight) = (Lanes::splat(0), Lanes::splat(0));
                for &k in units {
                    let Constraint { total, weight: w } = constraints[k as usize & mask];
                    held += w.mul(total);
                    weight += w;
                }
                let own = current.eq_mask(Lanes::splat(c as i16));
                let e = (held - (own & weight)).double() - weight;
                *energy = e;
                lowest = lowest.min(e);
                own_energy = own.select(e, own_energy);
            }
            // Heat-bath weights ONE_c · q^x, x = e − lowest, their sum and
            // the sum of those before the own candidate; its own weight from
            // the energy kept above (one table read a cell, not a gather per
            // candidate: the turn's cost per attempt).
            let (weight, mut sum) = (weights(count), Lanes::splat(0));
            let mut before = Lanes::splat(0);
            for (c, (&energy, mass_of)) in energies.iter().zip(masses.iter_mut()).enumerate() {
                let mass = weight.of((energy - lowest).min(largest));
                *mass_of = mass;
                before = current.eq_mask(Lanes::splat(c as i16)).select(sum, before);
                sum += mass;
            }
            let own_weight = weight.of((own_energy - lowest).min(largest));
            // Suwa–Todo's turn (cpu/cells.rs): a point of the own candidate's
            // stretch moved on by the heaviest weight (the lowest candidate's,
            // x = 0), less the sum where it passes it, computed as the turned
            // point less the sum (a 16-bit lane holds it) plus the sum where
            // that is negative. Where the own candidate weighs 0, the heat
            // bath's uniform draw in 0..sum.
            let heaviest = weight.of(Lanes::splat(0));
            let turned = before + mul_high(uniform, own_weight) - (sum - heaviest);
            let turned = turned + (sum & Lanes::splat(0).gt_mask(turned));
            let draw = own_weight.eq_mask(Lanes::splat(0)).select(mul_high(uniform, sum), turned);
            // The first candidate whose running sum passes the draw: the
            // number of running sums at or below it (they only grow, and the
            // last, the sum, is above it), counted as count − 1 less those
            // above it.
            let (mut below, mut pick) = (Lanes::splat(0), Lanes::splat(count as i16 - 1));
            for &mass in &masses[..count - 1] {
                below += mass;
                // The mask is −1 where the running sum is above the draw.
                pick += below.gt_mask(draw);
            }
            // The old candidate leaves its units, the new one joins its own.
            // Every candidate's units are written, changed or not: with 32
            // chains, whether any changed is a branch the CPU mispredicts
            // often enough to cost a sixth of the sweep (BENCHMARKS.md).
            for (c, units) in candidates.iter().enumerate() {
                let (joins, leaves) = (pick.eq_mask(Lanes::splat(c as i16)), current.eq_mask(Lanes::splat(c as i16)));
                // Masks are −1 where set: +1 where it joins, −1 where it leaves.
                let delta = leaves - joins;
                for &k in units {
                    constraints[k as usize & mask].total += delta;
                }
            }
            *choice = pick;
        }
    }

    /// Sweep `s`'s trades: in each group of pairs ([`TradeTable`]), its
    /// pair `s` mod the group's size proposes that its cells trade digits,
    /// accepted by Metropolis at each chain's temperature from the weights
    /// of a two-candidate cell: ONE_2 · q^ΔE against a uniform draw in
    /// 0..ONE_2. A chain whose cells hold the same digit, or one the other
    /// cell may not hold, keeps them.
    #[inline(always)]
    fn trade<Weigh: CellWeights>(
        &mut self,
        trades: &TradeTable,
        s: u32,
        bits: usize,
        weights: &impl Fn(usize) -> Weigh,
        mul_high: &impl Fn(Lanes, Lanes) -> Lanes,
    ) {
        if trades.groups.is_empty() {
            return;
        }
        let mut random = self.random.clone();
        let Group { constraints, choice, .. } = self;
        // In bounds by construction, as in the sweep.
        let mask = constraints.len() - 1;
        let constraints = &mut constraints[..=mask];
        let largest = Lanes::splat(((1 << bits) - 1) as i16);
        let weight = weights(2);
        let one = weight.of(Lanes::splat(0));
        let (zero, unit, three) = (Lanes::splat(0), Lanes::splat(1), Lanes::splat(3));
        // `s` mod each group's size, with a division per size rather than
        // per group (a group of b cells has at most b(b − 1)/2 pairs: 10 on
        // 25×25 boards).
        let turns: [u32; 16] = std::array::from_fn(|size| s.checked_rem(size as u32).unwrap_or(0));
        for group in &trades.groups {
            let size = group.end - group.start;
            let turn = turns.get(size as usize).copied().unwrap_or_else(|| s % size);
            let pair = &trades.pairs[(group.start + turn) as usize];
            let uniform = random.next();
            let digits = &trades.shared[pair.digits.start as usize..pair.digits.end as usize];
            let [p, q] = pair.cells.map(|c| c as usize);
            let (held_p, held_q) = (choice[p], choice[q]);
            // ΔE of the trade, over the digits the two cells hold: a cell
            // leaving a unit of total t (itself included) changes its energy
            // by w(3 − 2t), one joining a unit of total t by w(2t − 1).
            let (mut delta, mut p_may, mut q_may, mut same) = (zero, zero, zero, zero);
            let (mut to_p, mut to_q) = (held_p, held_q);
            for &SharedDigit { candidate: [in_p, in_q], own_unit: [unit_p, unit_q] } in digits {
                let (p_holds, q_holds) =
                    (held_p.eq_mask(Lanes::splat(in_p as i16)), held_q.eq_mask(Lanes::splat(in_q as i16)));
                let Constraint { total: t_p, weight: w_p } = constraints[unit_p as usize & mask];
                let Constraint { total: t_q, weight: w_q } = constraints[unit_q as usize & mask];
                let (leave_p, join_p) = (w_p.mul(three - t_p.double()), w_p.mul(t_p.double() - unit));
                let (leave_q, join_q) = (w_q.mul(three - t_q.double()), w_q.mul(t_q.double() - unit));
                delta += (p_holds & (leave_p + join_q)) + (q_holds & (leave_q + join_p));
                p_may = p_may | p_holds;
                q_may = q_may | q_holds;
                same = same | (p_holds & q_holds);
                to_p = q_holds.select(Lanes::splat(in_p as i16), to_p);
                to_q = p_holds.select(Lanes::splat(in_q as i16), to_q);
            }
            let x = delta.gt_mask(zero).select(delta, zero).min(largest);
            let accept = (p_may & q_may).and_not(same) & weight.of(x).gt_mask(mul_high(uniform, one));
            if accept.is_zero() {
                continue;
            }
            for &SharedDigit { candidate: [in_p, in_q], own_unit: [unit_p, unit_q] } in digits {
                // Masks are −1 where set: the cell that leaves a digit's unit
                // takes 1 from its total, the one that joins adds 1.
                let p_gives = accept & held_p.eq_mask(Lanes::splat(in_p as i16));
                let q_gives = accept & held_q.eq_mask(Lanes::splat(in_q as i16));
                constraints[unit_p as usize & mask].total += p_gives - q_gives;
                constraints[unit_q as usize & mask].total += q_gives - p_gives;
            }
            choice[p] = accept.select(to_p, held_p);
            choice[q] = accept.select(to_q, held_q);
        }
        self.random = random;
    }

    /// Moves every chain whose grid completion fills to that solution (its
    /// candidates and totals; its weights stay): whether any did. The
    /// call's sweeps then stop, so the solver finds the solution at the
    /// call's end; it counts the sweeps not run as work.
    /// `keeps`: at most so many of a grid's kept cells kept, drawn from
    /// the group's stream (the next sweep's draws, made now and again then).
    #[inline(always)]
    fn complete<const W: usize>(
        &mut self,
        table: &CellTable,
        units: &[u16],
        completion: &Completion,
        keeps: Option<usize>,
        mul_high: impl Fn(Lanes, Lanes) -> Lanes,
    ) -> bool {
        let mask = self.constraints.len() - 1;
        if keeps.is_some() {
            self.draw_ahead();
        }
        let sample = keeps.map(|keeps| Sample { keeps, draws: &self.draws, mul_high });
        let scratch = self.completion_scratch.get_or_insert_with(Box::default);
        let filled = completion.fill::<W>(table, &self.choice, &self.constraints, units, sample, scratch);
        if filled.is_zero() {
            return false;
        }
        let placed = scratch.placed();
        let constraints = &mut self.constraints[..=mask];
        for (i, choice) in self.choice.iter_mut().enumerate() {
            let current = *choice;
            let mut pick = current;
            for (c, j) in table.candidates(i).enumerate() {
                let is = placed[i].eq_mask(Lanes::splat(completion.candidate_bit(j))) & filled;
                pick = is.select(Lanes::splat(c as i16), pick);
            }
            // The sweep's move of a cell, written again: shared as one
            // inlined function, it cost a run 3–6 % (BENCHMARKS.md).
            for (c, j) in table.candidates(i).enumerate() {
                let delta = current.eq_mask(Lanes::splat(c as i16)) - pick.eq_mask(Lanes::splat(c as i16));
                for &k in table.units_of(j) {
                    constraints[k as usize & mask].total += delta;
                }
            }
            *choice = pick;
        }
        true
    }

    /// After a sweep: +1 on each violated unit up to `cap`, and on a
    /// relaxing sweep −1 on each weight above `base`.
    #[inline(always)]
    fn adapt(&mut self, units: &[u16], base: i16, cap: i16, relax: bool) {
        // One loop for each case: the test of `relax` stays out of the loop.
        if relax {
            self.adapt_units(units, cap, |grown| grown + grown.gt_mask(Lanes::splat(base)));
        } else {
            self.adapt_units(units, cap, |grown| grown);
        }
    }

    /// +1 on each violated unit up to `cap`, then `relax`.
    #[inline(always)]
    fn adapt_units(&mut self, units: &[u16], cap: i16, relax: impl Fn(Lanes) -> Lanes) {
        let (one, cap) = (Lanes::splat(1), Lanes::splat(cap));
        // Masked, as in the sweep: in bounds by construction, no check.
        let mask = self.constraints.len() - 1;
        let constraints = &mut self.constraints[..=mask];
        for &k in units {
            let unit = &mut constraints[k as usize & mask];
            // + 1, less 1 where the unit holds (its mask is −1 there).
            unit.weight = relax((unit.weight + one + unit.total.eq_mask(one)).min(cap));
        }
    }

    /// Each chain's Σ_k w_k (1 − t_k)² over `units`.
    #[inline(always)]
    fn energies(&self, units: &[u16]) -> [i32; CHAINS_PER_GROUP] {
        let mut sum = [0; CHAINS_PER_GROUP];
        for &k in units {
            let Constraint { total: t, weight: w } = self.constraints[k as usize];
            let missing = Lanes::splat(1) - t;
            // (1 − t)² ≤ 24² fits 16 bits; times a weight (≤ 100) it may not.
            let square = missing.mul(missing);
            for ((sum, &w), &square) in sum.iter_mut().zip(&w.0).zip(&square.0) {
                *sum += w as i32 * square as i32;
            }
        }
        sum
    }
}

/// How a cell weighs a candidate x above its best: each chain's ONE_c · q^x.
/// The sweep makes one a cell (what depends on the count c alone is set
/// then) and asks it for every candidate. A trait whose methods are always
/// inlined, not a closure: a closure holding the products' loop was called
/// out of line, its powers copied once a cell, and a sweep of a group of
/// several rungs (every board above 9×9 at the defaults) cost 1.4× what it
/// costs inlined (BENCHMARKS.md).
trait CellWeights {
    fn of(&self, x: Lanes) -> Lanes;
}

/// The weights as products of the chains' own powers of q ([`weights`]).
struct Products<'a, M> {
    powers: &'a [Lanes; X_BITS],
    bits: usize,
    count: usize,
    mul_high: M,
}

impl<M: Fn(Lanes, Lanes) -> Lanes> CellWeights for Products<'_, M> {
    #[inline(always)]
    fn of(&self, x: Lanes) -> Lanes {
        weights(self.powers, self.bits, x, self.count, &self.mul_high)
    }
}

/// The weights read from a table of the cell's count, where every chain
/// stands at one rung: a closure made inside the AVX2 sweep, which may call
/// the table's AVX2 lookup there (two byte shuffles, small enough to be
/// inlined).
#[cfg(target_arch = "x86_64")]
struct Lookup<F>(F);

#[cfg(target_arch = "x86_64")]
impl<F: Fn(Lanes) -> Lanes> CellWeights for Lookup<F> {
    #[inline(always)]
    fn of(&self, x: Lanes) -> Lanes {
        (self.0)(x)
    }
}

/// Each chain's heat-bath weight ONE_c · q^x for x (each lane's own) in a
/// cell of c candidates, from the chain's powers q^(2^b) for the `bits`
/// low bits of x; `mul_high` is [`Lanes::mul_high_unsigned`].
#[inline(always)]
fn weights(
    powers: &[Lanes; X_BITS],
    bits: usize,
    x: Lanes,
    c: usize,
    mul_high: impl Fn(Lanes, Lanes) -> Lanes,
) -> Lanes {
    let mut mass = Lanes::splat(ONE[c] as i16);
    for (b, &power) in powers[..bits].iter().enumerate() {
        // q^(2^b) where x has bit b, 65535 (one, less one part in 2^16) where not:
        // one OR where a select costs three (BENCHMARKS.md).
        let clear = (x & Lanes::splat(1 << b)).eq_mask(Lanes::splat(0));
        mass = mul_high(mass, power | clear);
    }
    mass
}

/// [`weights`] of one lane: the same products in the same order.
pub(super) fn weight(one: u16, powers: &[i16; X_BITS], bits: usize, x: usize) -> u16 {
    (0..bits).fold(one, |mass, b| {
        let factor = if x >> b & 1 == 1 { powers[b] as u16 } else { u16::MAX };
        ((mass as u32 * factor as u32) >> 16) as u16
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::lanes::{bits, powers, violable_units};
    use crate::dynamics::COMPLETION_HEAT;
    use crate::grid::Variant;
    use crate::model::Model;
    use crate::puzzle::parse_grid;
    use crate::reduce::{reduce, Reduce};

    /// The starting state and the sweep `run` picks (compiled for AVX2 where
    /// the CPU has it) leave every chain as those compiled for any x86-64
    /// do, bit for bit, the chains' grids completed every other sweep: at
    /// two temperatures in alternate lanes; at one, where the AVX2 sweep
    /// reads its weights from tables instead of multiplying; in ladders of
    /// four rungs, from each quarter's table; and at one hot temperature
    /// (2.25 × 1.2, x of five bits), from the wide table.
    #[test]
    fn the_sweep_for_this_cpu_equals_the_sweep_for_any() {
        let (model, rule) = (inkala_model(), AdaptiveWeights::DEFAULT);
        let table = CellTable::new(&model);
        let units = violable_units(&table);
        let completion = Completion::new(model.geometry(), &table, &units);
        let q = [1.2, 0.8, 0.6, 0.5].map(|t: f64| (-1.0 / t).exp());
        let on_any = Group::random_on_any(&table, &units, Weights::Adaptive(rule), 7, Lanes::mul_high_unsigned);
        let on_this = Group::random(&table, &units, Weights::Adaptive(rule), 7, 1);
        assert!(on_any.choice == on_this.choice && on_any.constraints == on_this.constraints, "the starts differ");
        let hot = [(-1.0 / (1.2 * COMPLETION_HEAT)).exp()];
        assert_eq!(bits(hot[0]), TABLE_BITS + 1, "hot chains' x has a bit more than a nibble table covers");
        let chains = 0..CHAINS_PER_GROUP as u32;
        let alternate: Vec<u32> = chains.clone().map(|c| c % 2).collect();
        let ladders: Vec<u32> = chains.map(|c| [2, 0, 3, 1][c as usize % 4]).collect();
        let one = vec![0; CHAINS_PER_GROUP];
        for (rungs, ladder_rungs, q, tables) in [
            (alternate, 2, &q[..], None),
            (one.clone(), 1, &q[..], Some("quarters")),
            (ladders, QUARTERS, &q[..], Some("quarters")),
            (one, 1, &hot[..], Some("wide")),
        ] {
            let bits = q.iter().map(|&q| bits(q)).max().unwrap();
            let completion = Some(Completing { tables: &completion, heat: false, keeps: None });
            let sweeps = Sweeps {
                table: &table,
                units: &units,
                bits,
                rule: Some(rule),
                numbers: 0..40,
                completion,
                trades: None,
            };
            let mut for_any = Group::random(&table, &units, Weights::Adaptive(rule), 7, ladder_rungs);
            let q: Vec<_> = q.iter().map(|&q| powers(q)).collect();
            for_any.set_rungs(&rungs, &q, sweeps.bits, &units);
            let made = for_any.weight_tables.as_ref().map(|tables| match tables {
                WeightTables::Quarters(..) => "quarters",
                WeightTables::Wide(..) => "wide",
            });
            assert_eq!(made, tables, "tables where each quarter is at one rung, wide ones where all are, hot");
            let mut for_this = for_any.clone();
            let (chain_powers, chain_bits) = (for_any.powers, sweeps.bits);
            let mul_high = Lanes::mul_high_unsigned;
            for_any.run_on_any(
                sweeps.clone(),
                |count| Products { powers: &chain_powers, bits: chain_bits, count, mul_high },
                mul_high,
            );
            for_this.run(sweeps);
            if !has_avx2() {
                eprintln!("this CPU has no AVX2: both ran the sweep for any CPU");
            }
            assert_ne!(
                for_any.choice,
                Group::random(&table, &units, Weights::Adaptive(rule), 7, ladder_rungs).choice,
                "the chains moved"
            );
            assert!(for_this.choice == for_any.choice, "the chains' candidates differ");
            assert!(for_this.constraints == for_any.constraints, "the chains' totals or weights differ");
            assert_eq!(for_this.energy, for_any.energy);
        }
    }

    /// Chains of four-rung ladders stand in their rungs' quarters, at their
    /// ladders' places, whatever the exchange did; each keeps its own
    /// candidates, totals, weights and energy as it moves, the same whether
    /// moved by the code compiled for AVX2 or for any x86-64.
    #[test]
    fn chains_of_four_rung_ladders_move_to_their_rungs_quarters_with_their_states() {
        let (table, rule) = (CellTable::new(&inkala_model()), AdaptiveWeights::DEFAULT);
        let units = violable_units(&table);
        let q = [0.4, 0.45, 0.5, 0.55].map(|t: f64| (-1.0 / t).exp()).map(powers);
        let mut group = Group::random(&table, &units, Weights::Adaptive(rule), 3, QUARTERS);
        let state = |g: &Group, chain: usize| {
            let lane = g.lane(chain);
            let constraints = g.constraints.iter().map(|k| (k.total.0[lane], k.weight.0[lane]));
            (g.choice.iter().map(|c| c.0[lane]).collect::<Vec<_>>(), constraints.collect::<Vec<_>>(), g.energy[lane])
        };
        let mut random = crate::rng::WyRand::new(5);
        let mut rungs: Vec<u32> = (0..CHAINS_PER_GROUP as u32).map(|c| c % 4).collect();
        for round in 0..12 {
            group.set_rungs(&rungs, &q, 4, &units);
            for (chain, &rung) in rungs.iter().enumerate() {
                assert_eq!(group.lane(chain), rung as usize * QUARTER + chain / QUARTERS, "round {round}");
            }
            let quarters = match &group.weight_tables {
                Some(WeightTables::Quarters(quarters, ..)) => Some(*quarters),
                _ => None,
            };
            assert_eq!(quarters, Some(q), "round {round}: each quarter at its rung");
            let sweeps = Sweeps {
                table: &table,
                units: &units,
                bits: 4,
                rule: Some(rule),
                numbers: 0..3,
                completion: None,
                trades: None,
            };
            group.run(sweeps);
            let before: Vec<_> = (0..CHAINS_PER_GROUP).map(|c| state(&group, c)).collect();
            // Each ladder's rungs in a new order: two of them swapped, or,
            // every third round, six swaps (any order).
            for ladder in rungs.chunks_mut(QUARTERS) {
                let swaps = if round % 3 == 2 { 6 } else { 1 };
                for _ in 0..swaps {
                    let (a, b) = ((random.next_u64() % 4) as u32, (random.next_u64() % 4) as u32);
                    let (i, j) =
                        (ladder.iter().position(|&r| r == a).unwrap(), ladder.iter().position(|&r| r == b).unwrap());
                    ladder.swap(i, j);
                }
            }
            let mut on_any = group.clone();
            on_any.arrange_on_any(&rungs, &units);
            group.set_rungs(&rungs, &q, 4, &units);
            for (chain, state_before) in before.iter().enumerate() {
                assert!(state(&group, chain) == *state_before, "round {round}: chain {chain} lost its state");
            }
            let same = (on_any.lane_of_chain, on_any.choice, on_any.constraints, on_any.energy);
            assert!(same == (group.lane_of_chain, group.choice.clone(), group.constraints.clone(), group.energy));
        }
    }

    /// Each table entry is the product the sweep for any CPU computes, for
    /// every count of candidates and every x the table covers: 16 where x
    /// has at most four bits, 32 where it has five (1.5, and hot chains at
    /// 2.25 × 1.2), which the wide table's lookup (AVX2) reads back.
    #[test]
    fn weight_tables_hold_the_products() {
        for t in [0.5, 0.8, 1.2, 1.5, 1.2 * COMPLETION_HEAT] {
            let (q, b) = ((-1.0f64 / t).exp(), bits((-1.0f64 / t).exp()));
            let rung_powers = [powers(q)];
            let mut group = Group::random(&CellTable::new(&inkala_model()), &[], Weights::Fixed, 1, 1);
            group.set_rungs(&[0; CHAINS_PER_GROUP], &rung_powers, b, &[]);
            let tables = group.weight_tables.clone().expect("one rung, at most five bits");
            let counts = match &tables {
                WeightTables::Quarters(_, _, tables) => tables.len(),
                WeightTables::Wide(_, tables) => tables.len(),
            };
            assert_eq!(counts, group.most_candidates + 1, "a table for every count up to the most candidates");
            let x = Lanes(std::array::from_fn(|l| l as i16));
            for c in 1..=group.most_candidates {
                let products = weights(&group.powers, b, x, c, Lanes::mul_high_unsigned);
                let stored: Vec<i16> = match &tables {
                    WeightTables::Quarters(_, _, tables) => (0..16).map(|x| tables[c][0].get(x) as i16).collect(),
                    WeightTables::Wide(_, tables) => (0..32).map(|x| tables[c][x / 16].get(x % 16) as i16).collect(),
                };
                assert_eq!(stored.len(), 1 << b.max(TABLE_BITS), "T {t}: the entries x of {b} bits takes");
                assert_eq!(stored, products.0[..stored.len()], "T {t} c {c}");
                for (l, &product) in products.0[..stored.len()].iter().enumerate() {
                    assert_eq!(weight(ONE[c], &rung_powers[0], b, l) as i16, product, "T {t} c {c} x {l}");
                }
                #[cfg(target_arch = "x86_64")]
                if let (WeightTables::Wide(_, tables), true) = (&tables, has_avx2()) {
                    // SAFETY: the lookup needs AVX2, and the CPU has it.
                    #[allow(unsafe_code)]
                    let read = unsafe { WideRegisters::new(&tables[c]).lookup(x) };
                    assert_eq!(read.0, products.0, "T {t} c {c}: the wide lookup");
                }
            }
        }
    }

    /// Rungs set again take effect, whatever was set before: other rungs at
    /// the same temperatures, or the same rungs at others. The second is what
    /// one-rung ladders do when their chains heat (`COMPLETION_HEAT`); at
    /// T = 0.11 cold and hot weights have as many bits, so only the
    /// temperature tells their tables apart.
    #[test]
    fn rungs_set_again_replace_the_ones_before() {
        let table = CellTable::new(&inkala_model());
        let q = [(-1.0f64 / 1.2).exp(), (-1.0f64 / 0.8).exp()].map(powers);
        let (one, alternate) = (vec![0; CHAINS_PER_GROUP], (0..CHAINS_PER_GROUP as u32).map(|l| l % 2).collect());
        for (first, then) in [(&one, &alternate), (&alternate, &one)] {
            let mut fresh = Group::random(&table, &[], Weights::Fixed, 1, 1);
            let mut reset = fresh.clone();
            reset.set_rungs(first, &q, 4, &[]);
            reset.set_rungs(then, &q, 4, &[]);
            fresh.set_rungs(then, &q, 4, &[]);
            assert_eq!(reset.powers, fresh.powers);
            assert_eq!(reset.weight_tables, fresh.weight_tables);
        }
        let (cold, hot) = ((-1.0f64 / 0.11).exp(), (-1.0 / (0.11 * COMPLETION_HEAT)).exp());
        assert_eq!(bits(cold), bits(hot), "as many bits cold as hot");
        let mut fresh = Group::random(&table, &[], Weights::Fixed, 1, 1);
        let mut reset = fresh.clone();
        reset.set_rungs(&one, &[powers(cold)], bits(cold), &[]);
        reset.set_rungs(&one, &[powers(hot)], bits(hot), &[]);
        fresh.set_rungs(&one, &[powers(hot)], bits(hot), &[]);
        assert!(fresh.weight_tables.is_some(), "one rung, few bits: tables");
        assert_eq!(reset.powers, fresh.powers);
        assert_eq!(reset.weight_tables, fresh.weight_tables, "the hot rung's tables");
    }

    fn inkala_model() -> Model {
        let inkala = "8..........36......7..9.2...5...7.......457.....1...3...1....68..85...1..9....4..";
        Model::build(&reduce(&parse_grid(inkala.as_bytes(), Variant::Standard).unwrap(), Reduce::Clues).unwrap())
            .unwrap()
    }
}
