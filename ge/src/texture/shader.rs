//! Per-draw quad shaders: the texture stage of triangles and other quad-walked primitives,
//! specialised once per primitive and band on the state that is fixed for the draw.
//!
//! [`QuadShader::new`] looks at the decoded [`TextureState`] once. When the level choice
//! cannot vary ([`super::constant_lod`]: one level, the same filter for magnifying and
//! minifying) and the stage is not zeroed by an invalid address, it picks a function
//! monomorphised on texel format × filter (nearest / bilinear) × texture function, and
//! resolves level 0 (its memory slice, palette, axes) once instead of once per quad; the
//! LOD arithmetic is skipped (it could not change the result). Mipmapped draws (and draws
//! whose two filters differ) get a shader monomorphised on format × texture function that
//! still picks the level and filter per quad, and, when some level's address is invalid,
//! whether that choice zeroes the stage. Single-level draws with an invalid address run
//! [`super::shade_quad`], which stays the reference: the property test in
//! `shader/tests.rs` checks that every shader equals it lane by lane over random
//! registers, palettes, texture memory and quads.
//!
//! A specialised shader computes colours for covered lanes only (the reference also
//! shades uncovered lanes, whose colours the pixel stage never reads).
//!
//! Measured (callgrind instructions, whole process, `frametests DIR --filter N --bench
//! --runs 1 --threads 1`, each dump's own model), the reference for every draw against
//! these shaders: 15826 hot pixel 210.6 -> 171.7 M (its texture stage 82.3 -> ~44 M
//! inclusive), 16131 shinsengumi 519.8 -> 434.6 M, 14146 gachitora 1 333.7 -> 1 184.9 M
//! with the single-level shaders alone; the mipmapped ones then 14146 -> 1 156.7 M,
//! 21763 test drive 1 649.9 -> 1 606.3 M (with the inlined source-alpha blend). Keeping
//! level 0 resolved per primitive instead of per quad is worth ~0.7% on 14146 and 21763.
//!
//! CLUT4/CLUT8 texels go through the state's [`super::ClutTable`] (palette entry per texel
//! value, index transform applied, also spread for the bilinear filter): the dominant draws
//! of 16131, 21763, 19960 and 15816 are bilinear CLUT textures. Measured (callgrind, `replay
//! -o`, 1 thread, PPSSPP model): 16131 429.0 -> 394.8 M instructions (this shader's two
//! bilinear CLUT instantiations ~360 -> ~290 instructions a fragment), 15826 170.8 -> 169.2 M.
//!
//! Bilinear lanes ([`filter::bilinear4`]) address their taps from two column and two row
//! terms per lane (`format::lane_offsets`), and DXT1 taps decode a block they share once
//! (`FDxt1::taps`); MODULATE runs on all four lanes as 16-bit lanes (`func::modulate4`).
//! Measured (callgrind, `frametests --filter D --bench --runs 1 --threads 1`, PPSSPP model,
//! a build of 55ae095 against these): 21763 test drive 1 347.8 -> 1 282.1 M (mipmapped
//! shaders 267.8 -> 219.3 M, single-level 244.4 -> 205.3 M: its bilinear DXT1 taps were 82
//! instructions each), 15826 hot pixel's shader 39.9 -> 38.0 M (its texture function
//! 7.3 -> 3.3 M). The separate row and column terms do not pay on 16131's bilinear CLUT4
//! draws (shader 20.4 -> 21.4 M): they are kept for the shared code path.
//!
//! The bilinear lanes weigh their taps together as sixteen 16-bit lanes
//! (`filter::weigh4`, vectorised, instead of one u64 SWAR sum per lane), CLUT4/CLUT8 taps
//! read a lane's four bytes with one range check and choose the palette table once
//! (`LevelSrc::entries_wide4`), DXT1 lanes keep the last decoded block from lane to lane
//! (`format::BlockMemo`) and decode it in SWAR (`dxt::dxt1_palette`). Measured
//! (callgrind, `frametests --filter D --bench --runs 1 --threads 1`, whole process,
//! 1b92f9d against these), hardware model: 21763 1 027.3 -> 1 003.9 M (this module's
//! single-level shaders 184.8 -> 163.3 M inclusive, mipmapped 202.8 -> 199.4 M), 19960
//! 811.7 -> 806.0 M, nba-2k12 252.1 -> 247.5 M; PPSSPP model: 21763 1 030.3 -> 1 007.9 M,
//! 20204 135.3 -> 131.3 M, 15826 95.5 -> 94.6 M, 16131 125.9 -> 125.8 M. Not kept:
//! extracting the 16-bit lanes with shifts (scalar code: 21763 +11 %); resolving levels
//! 1–7 once per shader and carrying the DXT1 memo from quad to quad (21763 a further
//! -0.4 %, but the shader grew past 128 bytes and every move became a `memcpy`: 19960
//! +1 %).
//!
//! Nearest lanes fetch their four texels through [`Format::fetch4`]: the common formats
//! (4444, 5551, 565, 8888, CLUT4, CLUT8) address the four as lanes and read them with one
//! range check for all four (`LevelSrc::bytes4`), the CLUT table chosen once; the texel
//! coordinates truncate with `CVTTPS2DQ` on four lanes. Span rows (flat-shaded
//! rectangles) run four fragments at a time through the same lanes, nearest as well as
//! bilinear, with MODULATE as lanes; the per-fragment row kept a "same texel as the last
//! fragment" shortcut, which the lanes drop. Measured (callgrind, `frametests --filter D
//! --bench --runs 1 --threads 1`, whole process, b1c8216 against these, with the cheaper
//! `LevelSrc::bytes` and swizzle terms): 20204 beam 'em up 196.5 -> 164.2 M (PPSSPP model),
//! 195.6 -> 166.8 M (hardware), 15816 125.1 -> 106.3 M, 15826 108.8 -> 103.1 M, 16131
//! 137.9 -> 137.6 M.
//!
//! Mipmapped shaders blend two bilinear levels as sixteen 16-bit lanes before narrowing
//! to bytes (`filter::mip_blend16`), MODULATE masks the secondary colour's alpha after
//! widening (`func::modulate4`), the lanes' range check is the OR of their offsets
//! (`LevelSrc::bytes4`: SSE2 has no unsigned maximum), the 16- and 32-bit formats read
//! their bilinear taps through it, the "all below 2^22" test is one lane mask, and
//! mipmapped draws with an invalid level address no longer run the reference. Measured
//! (callgrind, `frametests --filter D --bench --runs 1 --threads 1`, whole process,
//! 4461b4e against these): PPSSPP model 15826 94.8 -> 91.0 M (`constant` 20.8 -> 16.9 M,
//! 296 -> 240 instructions a quad), 15875 1 112.1 -> 1 071.0 M (34 M of it the 32 640
//! reference quads, now mipmapped), 21763 990.4 -> 957.7 M; hardware model 19960
//! 769.4 -> 754.3 M (`mipmapped` 83.3 -> 73.7 M, `constant` 74.9 -> 69.3 M), 21763
//! 957.0 -> 938.0 M. Steps: the blend before narrowing and the alpha mask 19960 -12.0 M,
//! 21763 -14.8 M; the taps through `bytes4` 21763 -5.9 M. Not kept: clearing the
//! secondary alpha as one `u128` mask (LLVM widened the result byte by byte: 15826
//! `constant` only -2.0 M), blending the levels' bytes after narrowing (19960
//! `mipmapped` +0.4 M against the per-lane SWAR blend, same cause).
//!
//! The bilinear CLUT4 taps index `ClutTable::nibbles` by byte and column parity (one
//! load, no variable shift: the nibble choice was 18 of a lane's 66 instructions), and
//! the CLUT4/CLUT8 taps read their bytes with one compare each (`LevelSrc::bytes1x4`:
//! the compare of the offsets' OR left four bounds checks behind it; masking each offset
//! with the OR did not help, the compiler folds `o & (o | x)` to `o`). Measured
//! (callgrind, `frametests --filter D --bench --runs 1 --threads 1`, whole process,
//! cefdd32 against these), PPSSPP model: 16131 119.1 -> 118.2 M (`constant` 14.3 ->
//! 13.2 M, 553 -> 509 instructions a quad), 15826 89.9 -> 89.7 M; hardware model
//! nba-2k12 230.4 -> 225.9 M. Not kept: reading all four lanes' sixteen taps at once,
//! covered or not, without a branch per lane (16131 +0.9 M: the sixteen offsets and
//! bytes spilled, and the quads cover 3.1 lanes on average).

use super::filter::{self, Level};
use super::format::{self, BlockMemo, Format};
use super::func::{self, TexFunc};
use super::{dxt, lod, TexFormat, TextureState};
use crate::geom::Quad;
use crate::mem::Memory;

/// The texture stage for the quads of one primitive in one band.
pub struct QuadShader<'a> {
    st: &'a TextureState,
    mem: &'a Memory,
    /// Level 0, resolved once (used by the specialised shaders).
    level: Level<'a>,
    run: ShadeFn,
}

type ShadeFn = fn(&QuadShader, &Quad) -> [[u8; 4]; 4];

impl<'a> QuadShader<'a> {
    /// Choose the shader for `st` (a textured draw outside clear mode).
    pub fn new(st: &'a TextureState, mem: &'a Memory) -> QuadShader<'a> {
        QuadShader { st, mem, level: st.level(mem, 0), run: select(st) }
    }

    /// The colours of a quad's covered fragments after the texture function and the
    /// secondary colour (uncovered lanes are unspecified).
    #[inline]
    pub fn shade(&self, q: &Quad) -> [[u8; 4]; 4] {
        (self.run)(self, q)
    }

    /// True when this draw runs a specialised shader (not the reference).
    pub fn is_specialised(&self) -> bool {
        self.run as usize != reference as ShadeFn as usize
    }
}

/// The reference: LOD per quad, format matched per quad.
fn reference(sh: &QuadShader, q: &Quad) -> [[u8; 4]; 4] {
    super::shade_quad(sh.st, sh.mem, q, q.w)
}

fn select(st: &TextureState) -> ShadeFn {
    macro_rules! by_func {
        ($shader:ident, $($p:tt)*) => {
            match st.func.func {
                TexFunc::Modulate => $shader::<$($p)*, MODULATE>,
                TexFunc::Decal => $shader::<$($p)*, DECAL>,
                TexFunc::Blend => $shader::<$($p)*, BLEND>,
                TexFunc::Replace => $shader::<$($p)*, REPLACE>,
                TexFunc::Add => $shader::<$($p)*, ADD>,
            }
        };
    }
    match super::constant_lod(st) {
        Some(lod) if !st.null_output(0) => {
            macro_rules! run {
                ($f:ty) => {
                    if lod.linear {
                        by_func!(constant, $f, true)
                    } else {
                        by_func!(constant, $f, false)
                    }
                };
            }
            dispatch_format!(st.format, run)
        }
        // Invalid addresses zero the stage for some level choices: checked per quad.
        None => {
            macro_rules! run {
                ($f:ty) => {
                    by_func!(mipmapped, $f)
                };
            }
            dispatch_format!(st.format, run)
        }
        _ => reference,
    }
}

const MODULATE: u8 = 0;
const DECAL: u8 = 1;
const BLEND: u8 = 2;
const REPLACE: u8 = 3;
const ADD: u8 = 4;

/// One level, one filter: each covered lane sampled at its own coordinates and run
/// through the texture function `FUNC`, as [`super::shade_quad`] does for a constant LOD.
/// The texel coordinates of the four lanes are computed as lane arrays
/// (`Axis::nearest4`, `Axis::linear4`: the same arithmetic per lane, without a branch per
/// lane when every coordinate is below 2^22 texel/256); measured (callgrind, `replay -o`,
/// 1 thread, PPSSPP model, whole process) 16131 368.6 -> 346.3 M instructions, 15826
/// 158.3 -> 156.3 M.
fn constant<F: Format, const LINEAR: bool, const FUNC: u8>(sh: &QuadShader, q: &Quad) -> [[u8; 4]; 4] {
    let st = sh.st;
    let fs = fixed_func::<FUNC>(st);
    // Texel coordinates of all four lanes at once (the same arithmetic per lane as
    // `filter::nearest` / `filter::bilinear`, as lane arrays so it vectorises; uncovered
    // lanes are converted too and never read).
    // A loop, not `array::from_fn` (its closures were a measurable share, callgrind).
    let (mut s, mut t) = ([0f32; 4], [0f32; 4]);
    for i in 0..4 {
        (s[i], t[i]) = st.normalise(q.s[i], q.t[i]);
    }
    // Written out here rather than through `filter_lanes`: with that call (inlined) the
    // shader measured 4 % more instructions on 16131 (callgrind).
    let l = &sh.level;
    let texels = if LINEAR {
        filter::bilinear4::<F>(l, s, t, q.mask, &mut BlockMemo::default())
    } else {
        // Every lane is fetched (uncovered ones too: their texel coordinates are wrapped or
        // clamped like the others', and their colours are never read).
        F::fetch4(&l.src, l.u.nearest4(s), l.v.nearest4(t))
    };
    stage4::<FUNC>(st, &fs, q, &texels)
}

/// The texels of the lanes in `mask` from level `l`, bilinear or nearest, with the texel
/// coordinates of the four lanes computed as lane arrays (`Axis::nearest4`,
/// `Axis::linear4`: per lane the arithmetic of `filter::nearest` / `filter::bilinear`).
#[inline(always)]
fn filter_lanes<F: Format>(l: &Level, s: &[f32; 4], t: &[f32; 4], mask: u8, linear: bool) -> [[u8; 4]; 4] {
    if linear {
        return filter::bilinear4::<F>(l, *s, *t, mask, &mut BlockMemo::default());
    }
    F::fetch4(&l.src, l.u.nearest4(*s), l.v.nearest4(*t))
}

/// `super::sample_levels` with [`filter_lanes`]: level `l0` (already resolved), blended
/// with the next level when the LOD has a fraction.
#[inline(always)]
fn sample_levels_lanes<F: Format>(
    sh: &QuadShader,
    l0: &Level,
    s: &[f32; 4],
    t: &[f32; 4],
    mask: u8,
    lod: lod::Lod,
) -> [[u8; 4]; 4] {
    if lod.frac == 0 {
        return filter_lanes::<F>(l0, s, t, mask, lod.linear);
    }
    let l1 = sh.st.level(sh.mem, lod.level as usize + 1);
    if lod.linear {
        // Both levels' bilinear lanes blended before narrowing to bytes.
        let c0 = filter::bilinear4_wide::<F>(l0, *s, *t, mask, &mut BlockMemo::default());
        let c1 = filter::bilinear4_wide::<F>(&l1, *s, *t, mask, &mut BlockMemo::default());
        return filter::mip_blend16(&c0, &c1, lod.frac as u32);
    }
    let c0 = filter_lanes::<F>(l0, s, t, mask, false);
    let c1 = filter_lanes::<F>(&l1, s, t, mask, false);
    std::array::from_fn(|i| filter::mip_blend(c0[i], c1[i], lod.frac as u32))
}

/// A row of a flat-shaded rectangle: `(state, level, primary, secondary, coordinates, out)`.
pub(super) type SpanFn = fn(&TextureState, &Level, [u8; 4], [u8; 3], &[(f32, f32)], &mut [[u8; 4]]);

/// The row shader for format `F`, the filter and the draw's texture function (see
/// [`super::shade_span`]).
pub(super) fn span_fn<F: Format>(st: &TextureState, linear: bool) -> SpanFn {
    macro_rules! by_func {
        ($lin:literal) => {
            match st.func.func {
                TexFunc::Modulate => span::<F, $lin, MODULATE>,
                TexFunc::Decal => span::<F, $lin, DECAL>,
                TexFunc::Blend => span::<F, $lin, BLEND>,
                TexFunc::Replace => span::<F, $lin, REPLACE>,
                TexFunc::Add => span::<F, $lin, ADD>,
            }
        };
    }
    if linear {
        by_func!(true)
    } else {
        by_func!(false)
    }
}

fn span<F: Format, const LINEAR: bool, const FUNC: u8>(
    st: &TextureState,
    l: &Level,
    prim: [u8; 4],
    secondary: [u8; 3],
    coords: &[(f32, f32)],
    out: &mut [[u8; 4]],
) {
    let fs = fixed_func::<FUNC>(st);
    let finish = |texel| func::add_secondary(func::apply(&fs, prim, texel), secondary);
    // Four fragments at a time as lanes: bilinear through the quads' lanes
    // ([`filter::bilinear4`], equal to `filter::bilinear` lane by lane), nearest through
    // `Axis::nearest4` and `Format::fetch4` (equal to `filter::nearest` lane by lane); the
    // texture function on the four ([`span_func4`]). The last one to three fragments one
    // by one.
    let n = out.len().min(coords.len());
    let (out, coords) = (&mut out[..n], &coords[..n]);
    let mut outs = out.chunks_exact_mut(4);
    let mut runs = coords.chunks_exact(4);
    let (prim4, sec4) = ([prim; 4], [[secondary[0], secondary[1], secondary[2], 0]; 4]);
    let mut memo = BlockMemo::default();
    for (o, c) in (&mut outs).zip(&mut runs) {
        let (mut s, mut t) = ([0f32; 4], [0f32; 4]);
        for i in 0..4 {
            (s[i], t[i]) = st.normalise(c[i].0, c[i].1);
        }
        let texels = if LINEAR {
            filter::bilinear4::<F>(l, s, t, 0xF, &mut memo)
        } else {
            F::fetch4(&l.src, l.u.nearest4(s), l.v.nearest4(t))
        };
        o.copy_from_slice(&span_func4::<FUNC>(&fs, &prim4, &sec4, &texels, finish));
    }
    for (o, &(s, t)) in outs.into_remainder().iter_mut().zip(runs.remainder()) {
        let (s, t) = st.normalise(s, t);
        *o = finish(if LINEAR { filter::bilinear::<F>(l, s, t) } else { filter::nearest::<F>(l, s, t) });
    }
}

/// The texture function `FUNC` and the secondary colour for four fragments of a span
/// (one primary and one secondary colour, `prim4` and `sec4` with alpha 0, repeated):
/// MODULATE as lanes ([`func::modulate4`], equal to `finish` per lane by
/// `modulate4_equals_modulate` and `modulate_and_replace_equal_apply`), the others with
/// `finish` lane by lane.
#[inline(always)]
fn span_func4<const FUNC: u8>(
    fs: &func::TexFuncState,
    prim4: &[[u8; 4]; 4],
    sec4: &[[u8; 4]; 4],
    texels: &[[u8; 4]; 4],
    finish: impl Fn([u8; 4]) -> [u8; 4],
) -> [[u8; 4]; 4] {
    if FUNC == MODULATE {
        func::modulate4(fs, prim4, sec4, texels)
    } else {
        texels.map(finish)
    }
}

/// [`super::stage_texel`] with the function `FUNC` for lane `i` of `q`: MODULATE and
/// REPLACE in unsigned arithmetic ([`func::modulate`], [`func::replace`]) unless the
/// primary colour has indefinite channels.
#[inline(always)]
fn stage<const FUNC: u8>(st: &TextureState, fs: &func::TexFuncState, q: &Quad, i: usize, texel: [u8; 4]) -> [u8; 4] {
    let sec = [q.color1[i][0], q.color1[i][1], q.color1[i][2]];
    match FUNC {
        MODULATE if q.color0_indefinite[i] == 0 => func::modulate(fs, q.color0[i], sec, texel),
        REPLACE if q.color0_indefinite[i] == 0 => func::replace(fs, q.color0[i], sec, texel),
        _ => super::stage_texel(st, fs, &q.frag(i), texel),
    }
}

/// [`stage`] for the covered lanes of `q` (uncovered lanes are unspecified), MODULATE as
/// lanes ([`func::modulate4`], straight from the quad's colour lanes) with the reference
/// for lanes whose primary colour has indefinite channels.
#[inline(always)]
fn stage4<const FUNC: u8>(st: &TextureState, fs: &func::TexFuncState, q: &Quad, texels: &[[u8; 4]; 4]) -> [[u8; 4]; 4] {
    if FUNC == MODULATE {
        let mut out = func::modulate4(fs, &q.color0, &q.color1, texels);
        if u32::from_ne_bytes(q.color0_indefinite) != 0 {
            for (i, o) in out.iter_mut().enumerate() {
                if q.mask & (1 << i) != 0 && q.color0_indefinite[i] != 0 {
                    *o = super::stage_texel(st, fs, &q.frag(i), texels[i]);
                }
            }
        }
        return out;
    }
    let mut out = [[0u8; 4]; 4];
    for (i, o) in out.iter_mut().enumerate() {
        if q.mask & (1 << i) != 0 {
            *o = stage::<FUNC>(st, fs, q, i, texels[i]);
        }
    }
    out
}

/// The function `FUNC` fixed in the draw's texture-function state.
#[inline(always)]
fn fixed_func<const FUNC: u8>(st: &TextureState) -> func::TexFuncState {
    func::TexFuncState {
        func: match FUNC {
            MODULATE => TexFunc::Modulate,
            DECAL => TexFunc::Decal,
            BLEND => TexFunc::Blend,
            REPLACE => TexFunc::Replace,
            _ => TexFunc::Add,
        },
        ..st.func
    }
}

/// Mipmaps or differing filters: the LOD per quad from the first lanes' differences, then
/// the reference's sampling for the format (one level or two blended) with lane-array
/// coordinates ([`sample_levels_lanes`]), as [`super::shade_quad`] does for a draw without
/// invalid addresses; the texture function is fixed. Measured (callgrind, `replay -o`,
/// 1 thread, PPSSPP model, whole process): 21763 1 410.5 -> 1 384.4 M instructions.
fn mipmapped<F: Format, const FUNC: u8>(sh: &QuadShader, q: &Quad) -> [[u8; 4]; 4] {
    let st = sh.st;
    let fs = fixed_func::<FUNC>(st);
    let (mut s, mut t) = ([0f32; 4], [0f32; 4]);
    for i in 0..4 {
        (s[i], t[i]) = st.normalise(q.s[i], q.t[i]);
    }
    let lod = lod::lod_from(st, s[1] - s[0], t[2] - t[0], q.w);
    if st.any_invalid && st.null_output(lod.level) {
        // The stage outputs 0 before the texture function, as in `super::shade_quad`.
        return q.color1.map(|c| func::add_secondary([0; 4], [c[0], c[1], c[2]]));
    }
    let texels = if lod.level == 0 {
        sample_levels_lanes::<F>(sh, &sh.level, &s, &t, q.mask, lod)
    } else {
        sample_levels_lanes::<F>(sh, &st.level(sh.mem, lod.level as usize), &s, &t, q.mask, lod)
    };
    stage4::<FUNC>(st, &fs, q, &texels)
}

#[cfg(test)]
mod tests;
