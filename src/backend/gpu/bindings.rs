//! The bind group's buffers by name, tied to the shaders' `@binding(N)`.

/// The buffers of the bind group, by the names the shaders declare them
/// with (`@group(0) @binding(N) var<…> name;`); a test holds every such
/// declaration in `shaders/` to this table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Binding {
    Params,
    Slots,
    SpinData,
    RungTables,
    RungOfReplica,
    InitialTotals,
    Totals,
    /// Each replica's cell words (spins.wgsl, cells.wgsl), or each word's spins (bits.wgsl).
    States,
    Energies,
    Solutions,
    /// The slots again, writable, for the `advance` entry point.
    SlotsToAdvance,
}

impl Binding {
    pub const ALL: [Binding; 11] = [
        Binding::Params,
        Binding::Slots,
        Binding::SpinData,
        Binding::RungTables,
        Binding::RungOfReplica,
        Binding::InitialTotals,
        Binding::Totals,
        Binding::States,
        Binding::Energies,
        Binding::Solutions,
        Binding::SlotsToAdvance,
    ];
    /// What the sweep entry points use: all but the last two.
    pub const SWEEP: &[Binding] = Binding::ALL.split_at(9).0;
    pub const ADVANCE: [Binding; 2] = [Binding::Params, Binding::SlotsToAdvance];

    /// Its `@binding(N)`.
    pub fn number(self) -> u32 {
        self as u32
    }

    /// The names the shaders give it.
    pub fn shader_names(self) -> &'static [&'static str] {
        match self {
            Binding::Params => &["params"],
            Binding::Slots => &["slots"],
            Binding::SpinData => &["spin_data"],
            Binding::RungTables => &["rung_tables"],
            Binding::RungOfReplica => &["rung_of_replica"],
            Binding::InitialTotals => &["initial_totals"],
            Binding::Totals => &["totals"],
            Binding::States => &["cells", "spins"],
            Binding::Energies => &["energies"],
            Binding::Solutions => &["solutions"],
            Binding::SlotsToAdvance => &["slots_to_advance"],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `@binding(N)` a shader declares is the binding of that number
    /// here, under one of its names, and every binding is declared.
    #[test]
    fn bindings_match_the_shaders_declarations() {
        let shaders = [
            include_str!("../../../shaders/common.wgsl"),
            include_str!("../../../shaders/spins.wgsl"),
            include_str!("../../../shaders/cells.wgsl"),
            include_str!("../../../shaders/bits.wgsl"),
            include_str!("../../../shaders/gather_cells.wgsl"),
        ];
        let mut declared = Vec::new();
        for line in shaders.iter().flat_map(|shader| shader.lines()).filter(|l| l.contains("@binding(")) {
            let number: u32 = line.split("@binding(").nth(1).unwrap().split(')').next().unwrap().parse().unwrap();
            let name = line.split('>').nth(1).unwrap().split(':').next().unwrap().trim();
            let binding = Binding::ALL.iter().find(|b| b.number() == number);
            assert!(binding.is_some_and(|b| b.shader_names().contains(&name)), "{line}");
            declared.push(number);
        }
        assert!(Binding::ALL.iter().enumerate().all(|(i, b)| b.number() == i as u32 && declared.contains(&(i as u32))));
    }
}
