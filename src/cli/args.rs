//! One spelling per concept, for every subcommand.
//!
//! | concept | flag | meaning |
//! |---|---|---|
//! | output | `-o/--output PATH` | the file (or, for `frametests`, the folder) written; missing folders are created and the location is checked before any work |
//! | parallelism | `--threads N` | worker threads, N ≥ 1 (default: all cores); output bytes never depend on it |
//! | animation | `--anim N\|NAME` | slot index or name |
//! | frame | `--frame F`, `--frames A..B` | animation frame; a range is inclusive |
//! | comparison | `--max-mse X` | highest MSE that passes |
//!
//! Numeric values are checked here, at parse time: NaN, infinities and out-of-range values are
//! refused with a message that says the accepted range, and a leading minus is read as a
//! number, not a flag, wherever the parser sees a number.

/// Help text of `--threads`, the same for every command.
pub const THREADS_HELP: &str = "Worker threads, at least 1 (default: all cores); the output is the same for any count";

/// Help text of `--png-compression`, the same for every command.
pub const PNG_COMPRESSION_HELP: &str =
    "PNG compression of the written images (same pixels at every level; fast keeps encoding a small part of the run)";

/// Help text of `--max-mse`, the same for every command.
pub const MAX_MSE_HELP: &str =
    "Highest MSE (over R, G, B of the 480x272 screen) that passes; PPSSPP's frame tests use 0.1, the aim is 0";

/// Largest frame number accepted: well inside f32's exact integer range, far beyond any
/// animation's length.
pub const MAX_FRAME: f32 = 1_000_000.0;

fn number(s: &str) -> Result<f64, String> {
    let v: f64 = s.trim().parse().map_err(|_| format!("{s:?} is not a number"))?;
    if !v.is_finite() {
        return Err(format!("{s} is not a finite number"));
    }
    Ok(v)
}

/// Any finite number (angles).
pub fn finite(s: &str) -> Result<f32, String> {
    number(s).map(|v| v as f32)
}

/// An animation frame: finite, 0 ≤ F ≤ 1 000 000.
pub fn frame(s: &str) -> Result<f32, String> {
    let v = number(s)?;
    if !(0.0..=f64::from(MAX_FRAME)).contains(&v) {
        return Err(format!("frame {v} is outside 0..={MAX_FRAME}"));
    }
    Ok(v as f32)
}

/// A finite number above zero (distances, scales).
pub fn positive(s: &str) -> Result<f32, String> {
    let v = number(s)?;
    if v <= 0.0 || v > f64::from(f32::MAX) {
        return Err(format!("{v} must be above 0"));
    }
    Ok(v as f32)
}

/// A vertical field of view in degrees: 0 < fov < 180.
pub fn fov(s: &str) -> Result<f32, String> {
    let v = number(s)?;
    if !(v > 0.0 && v < 180.0) {
        return Err(format!("field of view {v} is outside 0 < fov < 180 degrees"));
    }
    Ok(v as f32)
}

/// A camera elevation in degrees: -90 < pitch < 90 (straight up or down has no horizon).
pub fn pitch(s: &str) -> Result<f32, String> {
    let v = number(s)?;
    if !(v > -90.0 && v < 90.0) {
        return Err(format!("pitch {v} is outside -90 < pitch < 90 degrees"));
    }
    Ok(v as f32)
}

/// A worker thread count: 1 ≤ N ≤ 1024.
pub fn threads(s: &str) -> Result<usize, String> {
    let v: usize = s.trim().parse().map_err(|_| format!("{s:?} is not a whole number"))?;
    if !(1..=1024).contains(&v) {
        return Err(format!("{v} threads: the count must be 1..=1024"));
    }
    Ok(v)
}

/// An MSE limit: finite, ≥ 0.
pub fn max_mse(s: &str) -> Result<f64, String> {
    let v = number(s)?;
    if v < 0.0 {
        return Err(format!("MSE limit {v} is below 0"));
    }
    Ok(v)
}

/// An inclusive frame range `A..B` (or `A..=B`) of whole frames, at most 100 000 frames.
pub fn frame_range(s: &str) -> Result<(u32, u32), String> {
    let (a, b) = s.split_once("..").ok_or_else(|| format!("{s:?} is not a range A..B"))?;
    let whole = |t: &str| -> Result<u32, String> {
        t.trim().parse::<u32>().map_err(|_| format!("{t:?} is not a whole frame number ≥ 0"))
    };
    let (a, b) = (whole(a)?, whole(b.trim_start_matches('='))?);
    if b < a {
        return Err(format!("empty range {a}..{b}"));
    }
    if b - a >= 100_000 {
        return Err("more than 100000 frames".into());
    }
    if f64::from(b) > f64::from(MAX_FRAME) {
        return Err(format!("frame {b} is outside 0..={MAX_FRAME}"));
    }
    Ok((a, b))
}

/// A pixel `X,Y` in drawing coordinates, each 0..=1023 (the GE's 10-bit drawing range).
pub fn pixel(s: &str) -> Result<(i32, i32), String> {
    let (x, y) = s.split_once(',').ok_or_else(|| format!("{s:?} is not X,Y"))?;
    let coord = |t: &str| -> Result<i32, String> {
        let v: i64 = t.trim().parse().map_err(|_| format!("{t:?} is not a whole number"))?;
        if !(0..=1023).contains(&v) {
            return Err(format!("{v} is outside the GE's drawing coordinates 0..=1023"));
        }
        Ok(v as i32)
    };
    Ok((coord(x)?, coord(y)?))
}

/// A draw number: 1 for the first draw (PRIM, BEZIER or SPLINE) of a dump.
pub fn draw(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(0) => Err("draws count from 1 (draw 1 is the dump's first PRIM, BEZIER or SPLINE)".to_string()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("{s:?} is not a draw number (1, 2, ...)")),
    }
}

/// A pushbuf byte offset as `psprender disasm` prints it: hexadecimal (with or without
/// `0x`), a multiple of 4.
pub fn cmd_offset(s: &str) -> Result<u32, String> {
    let t = s.trim();
    let hex = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")).unwrap_or(t);
    let v = u32::from_str_radix(hex, 16).map_err(|_| format!("{s:?} is not a hexadecimal offset like 0x1a0"))?;
    if v % 4 != 0 {
        return Err(format!("offset 0x{v:x} is not a multiple of 4 (command words are 4-byte aligned)"));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_checked() {
        assert_eq!(frame("12.5"), Ok(12.5));
        assert_eq!(frame("0"), Ok(0.0));
        for bad in ["NaN", "inf", "-inf", "-5", "1e9", "x", ""] {
            assert!(frame(bad).is_err(), "{bad}");
        }
        assert_eq!(finite("-60"), Ok(-60.0));
        assert!(finite("nan").is_err());
        assert!(positive("0").is_err() && positive("-3").is_err() && positive("1e300").is_err());
        assert_eq!(positive("2.5"), Ok(2.5));
        assert!(fov("0").is_err() && fov("180").is_err() && fov("-10").is_err());
        assert_eq!(fov("60"), Ok(60.0));
        assert!(pitch("90").is_err() && pitch("-90").is_err());
        assert_eq!(pitch("-60"), Ok(-60.0));
        assert!(threads("0").is_err() && threads("-1").is_err() && threads("99999").is_err());
        assert_eq!(threads("2"), Ok(2));
        assert!(max_mse("-1").is_err() && max_mse("nan").is_err());
        assert_eq!(max_mse("0"), Ok(0.0));
    }

    #[test]
    fn ranges_and_pixels() {
        assert_eq!(frame_range("3..6"), Ok((3, 6)));
        assert_eq!(frame_range("3..=6"), Ok((3, 6)));
        assert!(frame_range("6..3").is_err());
        assert!(frame_range("-1..3").is_err());
        assert!(frame_range("0..200000").is_err());
        assert_eq!(pixel("120,64"), Ok((120, 64)));
        assert!(pixel("9999,9999").is_err());
        assert!(pixel("-1,3").is_err());
        assert!(pixel("3").is_err());
    }
}
