//! The AMD `RSQRTPS` results PPSSPP's SSE normalisations return on the machine that made
//! the references (selected by [`crate::transform::RsqrtRule::AmdRsqrtps`]), and Intel's
//! for references made on Intel CPUs.

/// AMD Zen's `RSQRTSS`/`RSQRTPS` mantissas for inputs in [1, 4), indexed by
/// `(even biased exponent) << 12 | top 12 fraction bits`. Measured on an AMD EPYC (family
/// 25, model 1 = Zen 3) by running `RSQRTSS` on every float in [1, 4): the result is
/// constant over each 2^11-wide input block, carries 12 fraction bits, and only the
/// exponent parity matters (same mantissas in every other binade). The 8192 mantissas
/// fall from 4095 to 0 in steps of 0, 1 or 2, stored here as 2-bit steps, four per byte
/// (low bits first), as hex; [`rsqrt_approx`] was checked against that CPU's `RSQRTSS`
/// for all 2^32 inputs. Evidence that the references come from such a CPU: with
/// this table (and not with Intel's) e_lighting_000002/4/15/17/20/34/38/39 and
/// c_texture_000014/22/40 match exactly.
const AMD_RSQRT_STEPS: &str = concat!(
    "551555955515559555155555551555955515559555155555551555555515559555155555551555555515555555155555",
    "551555555515555555155515551555551555159515551555155515951555155515551555155515551555155515551555",
    "155515551555155515551555155515551555151515551555155515151555155545155551451555914515555145155551",
    "451555514515555145155551451555514515555145155511451555514515555145155511451555514515551145155551",
    "455151514551519145515151455151514551515145515151455151514551515145515151455151114551515145515151",
    "455151114551515145515111455151911415455114154551141545911415455114154551141545511415455114154551",
    "141545511415455114154551141545511415455114154511141545511415455151145114511451545114511451145154",
    "511451145114515451145114511451145114511451145154511451145114511451145114511451145114511451145114",
    "141145511411455114114551141145511411451114114551141145511411451114114551141145111411455114114511",
    "141145511411451114114511141145514414114544141145441411854414114544141145441411454414114544141145",
    "441411454414114544141145441411454414110544141145441411454414110511111151111111511111111111111151",
    "111111111111115111111111111111511111111111111151111111111111111111111151111111111111111111111151",
    "444444444444444444444444444444444444444444444444444444444444444444444444444444444444444444444444",
    "444444044444444444444444444444444404115144041111440411514404115144041111440411514404111144041151",
    "440411114404115144041111440411514404111144041111440411514404111111444410114444101144441011444450",
    "114444101144441011444410114444101144441011444410114444101144441011444410114444101144441011444450",
    "041144440411444404114404041144440411444404114444041144440411440404114444041144440411440404114444",
    "041144440411440404114444041144044410415044104110441041504410411044104150441041104410415044104110",
    "441041104410415044104110441041104410415044104110441041104410415004114410041144100411441004114410",
    "041144100411441004114450041144100411441004114410041144100411441004114410041144100411441004114410",
    "104410441044104410441044104410441044100410441044104410441044104410441044104410041044104410441044",
    "104410441044100410441044104410445114455151144551511445915114455151144511511445515114455151144551",
    "511445515114451151144551511445515114451151144551511445115114455114511445145114451451148514511445",
    "145114451451144514511445145114451451140514511445145114451451144514511405145114451451140514511445",
    "141145841411454414114544141145841411454414114544141145441411454414114544141145441411454414114544",
    "141145441411454414114544141145441411111114111151141111511411111114111151141111111411115114111111",
    "141111111411115114111111141111111411115114111111141111111411111144444444444444444444444444444444",
    "444444444444444444444444444444444444444444444404444444444444444444444404444444444444440444444444",
    "414444104144445041444410414444504144441041444410414444504144441041444410414444104144445041444410",
    "414444104144441041444410414444104410114444101144441011444410114444101144441011444410114444101104",
    "441011444410114444101144441011044410114444101144441011044410114444104104441041444410410444104144",
    "441041044410414444104104441041044410414444104104441041044410414444104104441041044410410444104144",
    "104110411041104110411041104110411041104110411041104110411041104110411041104110411041104110411041",
    "104110411041104110411001104110410441104404411044044110040441104404411044044110440441100404411044",
    "044110040441104404411044044110040441104404411004044110440441100404411004044110440441100404411044",
    "044110040441100404411044044110040441100404411044044110040441100404411004044110040441104404411004",
    "411004044110040441100404411004044110040441100404411004044110040441100404411004044110040441100404",
    "411004044110040441100404411004441004040110040441100404411004044110040441100404411004040110040441",
    "100404411004044110040401100404411004044110040401100404411004044110040401100404411004040110040441",
    "100404411004040110040441100404011004044110040401100404411004040110040441100404011004040110040441",
    "040404040404044404040404040404040404044404040404040404040404044404040404040404040404040404040444",
    "040404040404040404040404040404440404040404040404040404040404040404040404040404040404044404040404",
    "0404040404040404040404040404040404040404040404040404040404040404",
);

const fn hex_digit(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        _ => 0,
    }
}

const fn amd_rsqrt_table() -> [u16; 8192] {
    let hex = AMD_RSQRT_STEPS.as_bytes();
    let mut t = [0u16; 8192];
    let mut m: u16 = 4095;
    let mut i = 0;
    while i < 8192 {
        t[i] = m;
        let byte = hex_digit(hex[i / 4 * 2]) << 4 | hex_digit(hex[i / 4 * 2 + 1]);
        let step = (byte >> (2 * (i % 4))) & 3;
        m = m.saturating_sub(step as u16);
        i += 1;
    }
    t
}

static AMD_RSQRT: [u16; 8192] = amd_rsqrt_table();

/// The inputs both vendors' `RSQRTSS` treat specially: zero and denormals (as zero)
/// give an infinity of the same sign, +infinity gives 0, NaNs are quietened, negative
/// numbers give the default NaN. `None` for ordinary positive numbers.
fn rsqrt_special(x: f32) -> Option<f32> {
    let bits = x.to_bits();
    let sign = bits >> 31;
    let exp = (bits >> 23) & 0xFF;
    let frac = bits & 0x7F_FFFF;
    if exp == 0 {
        Some(f32::from_bits((sign << 31) | 0x7F80_0000))
    } else if exp == 0xFF && frac != 0 {
        Some(f32::from_bits(bits | 0x0040_0000))
    } else if exp == 0xFF && sign == 0 {
        Some(0.0)
    } else if sign != 0 {
        Some(f32::from_bits(0xFFC0_0000))
    } else {
        None
    }
}

/// AMD Zen's `RSQRTSS`/`RSQRTPS` approximation (see `AMD_RSQRT_STEPS`), the one the
/// reference images were made with. Special inputs behave as on Intel: ±0 and
/// denormals give ±infinity, +infinity gives 0, NaNs are quietened, negatives give
/// the default NaN.
pub fn rsqrt_approx(x: f32) -> f32 {
    if let Some(r) = rsqrt_special(x) {
        return r;
    }
    let bits = x.to_bits();
    let exp = ((bits >> 23) & 0xFF) as i32;
    let frac = bits & 0x7F_FFFF;
    let idx = (((exp & 1) ^ 1) as usize) << 12 | (frac >> 11) as usize;
    let out_exp = (0x7E - ((exp - 0x7F) >> 1)) as u32;
    f32::from_bits((out_exp << 23) | (AMD_RSQRT[idx] as u32) << 11)
}

/// Intel's `RSQRTSS`/`RSQRTPS` approximation, bit-exact with the tables Bochs uses
/// (`cpu/sse_rcp.cc`), which this formula reproduces entry for entry: the top 10
/// fraction bits select an interval whose midpoint `1.f` (times 2 for an even biased
/// exponent) gives `2/sqrt(·)` rounded to 12 fraction bits. Not used: the references
/// were made on an AMD CPU (see [`rsqrt_approx`]); kept for references made on Intel.
#[allow(dead_code)]
pub fn rsqrt_approx_intel(x: f32) -> f32 {
    if let Some(r) = rsqrt_special(x) {
        return r;
    }
    let bits = x.to_bits();
    let exp = ((bits >> 23) & 0xFF) as i32;
    let frac = bits & 0x7F_FFFF;
    let idx = (frac >> 13) as f64;
    let mut mid = 1.0 + (2.0 * idx + 1.0) / 2048.0;
    if exp & 1 == 0 {
        mid *= 2.0;
    }
    let m = ((2.0 / mid.sqrt() - 1.0) * 4096.0).round() as u32;
    let out_exp = (0x7E - ((exp - 0x7F) >> 1)) as u32;
    f32::from_bits((out_exp << 23) | (m << 11))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rsqrt_matches_known_intel_values() {
        // Intel RSQRTSS(1.0) = 0x3F7FF000, (4.0) = 0x3EFFF000, (2.0) = 0x3F34F800.
        assert_eq!(rsqrt_approx_intel(1.0).to_bits(), 0x3F7F_F000);
        assert_eq!(rsqrt_approx_intel(4.0).to_bits(), 0x3EFF_F000);
        assert_eq!(rsqrt_approx_intel(2.0).to_bits(), 0x3F34_F800);
        assert_eq!(rsqrt_approx_intel(0.0), f32::INFINITY);
        assert_eq!(rsqrt_approx_intel(f32::INFINITY), 0.0);
        assert!(rsqrt_approx_intel(-1.0).is_nan());
    }

    #[test]
    fn rsqrt_matches_measured_amd_values() {
        // Measured on an AMD EPYC (Zen 3) with RSQRTSS; they differ from Intel's above.
        assert_eq!(rsqrt_approx(1.0).to_bits(), 0x3F7F_F800);
        assert_eq!(rsqrt_approx(4.0).to_bits(), 0x3EFF_F800);
        assert_eq!(rsqrt_approx(2.0).to_bits(), 0x3F35_0000);
        assert_eq!(rsqrt_approx(0.5).to_bits(), 0x3FB5_0000);
        assert_eq!(rsqrt_approx(0.25).to_bits(), 0x3FFF_F800);
        // The last entry of each half of the table: just below 2.0 and just below 4.0.
        assert_eq!(rsqrt_approx(f32::from_bits(0x3FFF_FFFF)).to_bits(), 0x3F35_0800);
        assert_eq!(rsqrt_approx(f32::from_bits(0x407F_FFFF)).to_bits(), 0x3F00_0000);
        assert_eq!(rsqrt_approx(f32::from_bits(0x0100_0000)).to_bits(), 0x5EB5_0000);
        assert_eq!(rsqrt_approx(f32::from_bits(0x0080_0000)).to_bits(), 0x5EFF_F800);
        assert_eq!(rsqrt_approx(f32::from_bits(0x3F7F_F800)).to_bits(), 0x3F80_0000);
        assert_eq!(rsqrt_approx(f32::from_bits(0x3EB5_0000)).to_bits(), 0x3FD7_4800);
        assert_eq!(rsqrt_approx(0.0), f32::INFINITY);
        assert_eq!(rsqrt_approx(-0.0), f32::NEG_INFINITY);
        assert_eq!(rsqrt_approx(f32::INFINITY), 0.0);
        assert!(rsqrt_approx(-1.0).is_nan());
    }

    #[test]
    fn rsqrt_within_architectural_bound() {
        let mut x = 1.0e-30f32;
        while x < 1.0e30 {
            let want = 1.0 / (x as f64).sqrt();
            for got in [rsqrt_approx(x) as f64, rsqrt_approx_intel(x) as f64] {
                assert!(((got - want) / want).abs() <= 1.5 / 4096.0, "{x}");
            }
            x *= 1.37;
        }
    }
}
