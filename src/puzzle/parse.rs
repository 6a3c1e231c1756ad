//! One puzzle line's cells parsed into a grid: the cells counted 16 bytes
//! at a time, and a stray character reported at its column.

use wide::u8x16;

use crate::error::PuzzleError;
use crate::grid::{Grid, Shape, Variant, SYMBOLS};

const NOT_A_CELL: u8 = u8::MAX;

/// Each byte's value as a cell of the boards above 9×9: 1..=25 for the
/// symbols (either case), 0 for `.`. Smaller boards value a byte by
/// arithmetic instead, which the compiler vectorises (`0` is empty there).
const CELL_VALUES: [u8; 256] = {
    let mut table = [NOT_A_CELL; 256];
    table[b'.' as usize] = 0;
    let mut i = 0;
    while i < SYMBOLS.len() {
        table[SYMBOLS[i] as usize] = i as u8 + 1;
        table[SYMBOLS[i].to_ascii_lowercase() as usize] = i as u8 + 1;
        i += 1;
    }
    table
};

/// How many bytes at the start of `text` are cell symbols. Sixteen at a
/// time: `.`, a digit, or a letter `a`–`p` in either case.
pub(super) fn count_cells(text: &[u8]) -> usize {
    let is_cell = |sixteen: u8x16| {
        let digit = sixteen - u8x16::splat(b'0');
        let letter = (sixteen | u8x16::splat(0x20)) - u8x16::splat(b'a');
        let below = |x: u8x16, limit: u8| x.min(u8x16::splat(limit - 1)).simd_eq(x);
        (sixteen.simd_eq(u8x16::splat(b'.')) | below(digit, 10) | below(letter, 16)).to_bitmask()
    };
    let mut chunks = text.chunks_exact(16);
    let mut count = 0;
    for chunk in chunks.by_ref() {
        let cells = is_cell(u8x16::new(chunk.try_into().expect("16 bytes")));
        if cells != 0xFFFF {
            return count + cells.trailing_ones() as usize;
        }
        count += 16;
    }
    // The last bytes, followed by zeros, which are no cell.
    let mut sixteen = [0; 16];
    sixteen[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    count + is_cell(u8x16::new(sixteen)).trailing_ones() as usize
}

/// Parses the leading cells of `text` as a grid of `variant`; their count
/// (16, 81, 256, 625, or any n² for Latin squares) sets the size.
pub fn parse_grid(text: &[u8], variant: Variant) -> Result<Grid, PuzzleError> {
    let cells_given = count_cells(text);
    if text.get(cells_given).is_some_and(|&byte| !is_comment_start(byte)) {
        return Err(bad_char(text, cells_given, None));
    }
    let Some(shape) = Shape::for_cells(cells_given, variant) else {
        return Err(PuzzleError::BadLength { cells: cells_given, expected: Shape::lengths(variant) });
    };
    let given = &text[..cells_given];
    let cells: Vec<u8> = match shape.n {
        // Arithmetic rather than the table, so the compiler can do 16 cells
        // at a time: a letter, no cell of these boards, comes out above 9.
        ..=9 => given.iter().map(|&byte| if byte == b'.' { 0 } else { byte.wrapping_sub(b'0') }).collect(),
        _ => given.iter().map(|&byte| CELL_VALUES[byte as usize]).collect(),
    };
    if cells.iter().fold(0, |most, &value| most.max(value)) as usize > shape.n {
        let cell = cells.iter().position(|&value| value as usize > shape.n).expect("a value above n");
        return Err(bad_char(text, cell, Some(shape.n)));
    }
    Ok(Grid { shape, cells })
}

pub(super) fn is_comment_start(byte: u8) -> bool {
    byte.is_ascii_whitespace() || byte == b'#'
}

/// A character that is no cell, at 0-based `position`; `n` when the size is known.
fn bad_char(text: &[u8], position: usize, n: Option<usize>) -> PuzzleError {
    let rest = String::from_utf8_lossy(&text[position..]);
    let character = rest.chars().next().unwrap_or(char::REPLACEMENT_CHARACTER);
    let allowed = match n {
        Some(n) if n <= 9 => format!("1-{n}, '.' or '0'"),
        Some(n) => format!("1-9, A-{}, '.'", char::from(SYMBOLS[n - 1])),
        None => "1-9, A-P, '.' or '0'".into(),
    };
    PuzzleError::BadCharacter { character, column: position + 1, allowed }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzle::EASY;

    fn parse(text: &str) -> Result<Grid, PuzzleError> {
        parse_grid(text.as_bytes(), Variant::Standard)
    }

    /// The cells are the bytes with a value on some board, and `0`; each
    /// byte tried at every place of a 16-byte block and of the rest.
    #[test]
    fn cells_are_counted_up_to_the_first_other_byte() {
        for byte in 0..=255u8 {
            let is_cell = CELL_VALUES[byte as usize] != NOT_A_CELL || byte == b'0';
            for place in 0..40 {
                let mut text = [b'7'; 40];
                text[place] = byte;
                let expected = if is_cell { 40 } else { place };
                assert_eq!(count_cells(&text), expected, "byte {byte} at {place}");
            }
        }
        assert_eq!(count_cells(b""), 0);
    }

    #[test]
    fn parses_digits_dots_and_zeros() {
        let grid = parse(EASY).unwrap();
        assert_eq!(grid.cells[2], 4);
        assert_eq!(grid.cells[0], 0);
        assert_eq!(grid.to_string().replace('.', "0"), EASY);
    }

    #[test]
    fn trailing_comment_is_ignored_but_an_extra_cell_is_not() {
        assert!(parse(&format!("{EASY} # easy")).is_ok());
        assert!(parse(&format!("{EASY}#x")).is_ok());
        assert_eq!(
            parse(&format!("{EASY}1")),
            Err(PuzzleError::BadLength { cells: 82, expected: "16, 81, 256 or 625".into() })
        );
    }

    #[test]
    fn reports_short_lines_and_bad_characters() {
        assert_eq!(
            parse(&EASY[..80]),
            Err(PuzzleError::BadLength { cells: 80, expected: "16, 81, 256 or 625".into() })
        );
        let mut bad = EASY.as_bytes().to_vec();
        bad[5] = b'x';
        let allowed = "1-9, A-P, '.' or '0'".to_string();
        assert_eq!(
            parse_grid(&bad, Variant::Standard),
            Err(PuzzleError::BadCharacter { character: 'x', column: 6, allowed })
        );
        bad[5] = b'A';
        let allowed = "1-9, '.' or '0'".to_string();
        assert_eq!(
            parse_grid(&bad, Variant::Standard),
            Err(PuzzleError::BadCharacter { character: 'A', column: 6, allowed })
        );
    }

    #[test]
    fn line_length_sets_the_size_and_symbols_follow_it() {
        let small = parse("1..4..1..3..4..2").unwrap();
        assert_eq!((small.shape.n, small.cells[3]), (4, 4));
        let big = format!("G{}a", ".".repeat(254));
        let big = parse(&big).unwrap();
        assert_eq!((big.shape.n, big.cells[0], big.cells[255]), (16, 16, 10));
        assert_eq!(big.to_string(), format!("G{}A", ".".repeat(254)));
        assert!(matches!(parse(&format!("0{}", ".".repeat(255))), Err(PuzzleError::BadCharacter { column: 1, .. })));
        let latin = parse_grid(b"12...3.1.", Variant::Latin).unwrap();
        assert_eq!((latin.shape.n, latin.cells[5]), (3, 3));
        assert!(matches!(parse("12...3.1."), Err(PuzzleError::BadLength { cells: 9, .. })));
    }
}
