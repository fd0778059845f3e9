//! The GE texture unit: texel formats, CLUT, swizzle, DXT, wrap/clamp, nearest and
//! bilinear filtering, mipmaps with LOD selection, and the texture functions
//! (ge-reference.md §10–§11).
//!
//! Design:
//! * [`TextureState::decode`] turns the registers and a snapshot of the CLUT cache into an
//!   immutable typed state once per draw. Per-pixel code never looks at register bits.
//!   The palette is decoded to RGBA entries at that point, so a later LOADCLUT cannot affect
//!   the draw [PP SoftGpu Execute_LoadClut; ge-reference.md §10.2].
//! * Sampling works on 2x2 quads ([`sample_quad`]): the LOD is computed once per quad from
//!   the differences between its fragments, as PPSSPP's rasterizer does
//!   [PP Rasterizer.cpp ApplyTexturing, CalculateSamplingParams]. The format is matched
//!   once per quad and the inner samplers are monomorphised per format (`format.rs`).
//! * Where PPSSPP's x86-64 sampler JIT (which produced our references) differs from its
//!   C++ fallback, the JIT is followed: bilinear coordinates round to nearest
//!   (`filter.rs`), DXT5 alpha uses the JIT's division (`dxt.rs`), and a draw whose
//!   texture address is invalid yields 0 from the whole texture stage
//!   ([`sample_quad_w`] returns `None`) [PP SamplerX86.cpp hasInvalidPtr].
//! * Texel reads are bounds checked: bytes past mapped memory read as 0, never panic.
//!
//! Submodules: `format` (formats, addressing, CLUT), `dxt`, `filter` (coordinates and
//! filters), `lod` (level selection), `func` (texture functions), `shader` (per-draw
//! specialised quad shaders, checked against [`shade_quad`]).

mod dxt;
mod filter;
mod format;
mod func;
mod lod;
#[cfg(test)]
mod tests;

pub use dxt::{dxt1_texel, dxt3_texel, dxt5_texel};
pub use format::{is_valid_texture_address, rgb565, rgba4444, rgba5551, ClutFormat, ClutIndex, ClutTable, TexFormat};
pub use func::{add_secondary, TexFunc, TexFuncState};
pub use lod::{tex_log2, Lod, LodMode};

use crate::cmd::{op, reg};
use crate::geom::{Fragment, Quad};
use crate::mem::Memory;
use crate::regs::Regs;
pub use filter::SamplerRule;
use filter::{Axis, Level};
use format::{Format, LevelSrc};
use std::sync::Arc;

/// Expand `$m!(FormatType)` for the format once.
macro_rules! dispatch_format {
    ($fmt:expr, $m:ident) => {
        match $fmt {
            TexFormat::Rgb565 => $m!(format::F565),
            TexFormat::Rgba5551 => $m!(format::F5551),
            TexFormat::Rgba4444 => $m!(format::F4444),
            TexFormat::Rgba8888 => $m!(format::F8888),
            TexFormat::Clut4 => $m!(format::FClut4),
            TexFormat::Clut8 => $m!(format::FClut8),
            TexFormat::Clut16 => $m!(format::FClut16),
            TexFormat::Clut32 => $m!(format::FClut32),
            TexFormat::Dxt1 => $m!(dxt::FDxt1),
            TexFormat::Dxt3 => $m!(dxt::FDxt3),
            TexFormat::Dxt5 => $m!(dxt::FDxt5),
            TexFormat::Invalid(_) => $m!(format::FInvalid),
        }
    };
}

// After `dispatch_format!`, which the shaders use.
mod shader;
pub use shader::QuadShader;

/// The last palette decoded and the CLUT bytes and format it came from. Draw states are
/// rebuilt whenever any register changes, but the CLUT rarely does: 21763 test-drive
/// decoded 10 435 palettes (35 M of 1 787 M instructions, all on the serial front end)
/// from a handful of CLUT loads. A 1 KiB compare replaces the decode.
#[derive(Default)]
pub struct PaletteMemo {
    last: Option<DecodedPalette>,
    empty: Option<Arc<[[u8; 4]]>>,
    /// The last CLUT table built, with the palette and index transform it was built from.
    table: Option<BuiltTable>,
}

/// A CLUT table and the palette and index transform it was built from.
struct BuiltTable {
    palette: Arc<[[u8; 4]]>,
    clut: ClutIndex,
    table: Arc<ClutTable>,
}

/// A palette and the CLUT bytes and format it was decoded from.
struct DecodedPalette {
    format: ClutFormat,
    clut: Box<[u8; 1024]>,
    palette: Arc<[[u8; 4]]>,
}

impl PaletteMemo {
    /// `clut` decoded as `format`, shared with the previous call when both are the same.
    pub fn get(&mut self, format: ClutFormat, clut: &[u8; 1024]) -> Arc<[[u8; 4]]> {
        if let Some(d) = &self.last {
            if d.format == format && *d.clut == *clut {
                return d.palette.clone();
            }
        }
        let palette: Arc<[[u8; 4]]> = format.decode_palette(clut).into();
        self.last = Some(DecodedPalette { format, clut: Box::new(*clut), palette: palette.clone() });
        palette
    }

    /// The CLUT4/CLUT8 table of `palette` under `clut`, shared with the previous call when
    /// both are the same.
    pub fn table(&mut self, palette: &Arc<[[u8; 4]]>, clut: ClutIndex) -> Arc<ClutTable> {
        if let Some(b) = &self.table {
            if Arc::ptr_eq(&b.palette, palette) && b.clut == clut {
                return b.table.clone();
            }
        }
        let table = Arc::new(ClutTable::new(palette, clut));
        self.table = Some(BuiltTable { palette: palette.clone(), clut, table: table.clone() });
        table
    }

    /// The palette of a format without a CLUT.
    pub fn empty(&mut self) -> Arc<[[u8; 4]]> {
        self.empty.get_or_insert_with(|| Arc::from(Vec::new())).clone()
    }
}

/// One mip level's registers, decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LevelInfo {
    /// (TEXADDRn & 0xFFFFF0) | (TEXBUFWIDTHn bits 16–19 << 24) [PP GPUState.h getTextureAddress].
    pub addr: u32,
    /// Row stride in texels (16-byte rounding and the 0 rule applied).
    pub bufw: u32,
    /// 2^(TEXSIZEn bits 0–3), 2^(bits 8–11): up to 32768; only 0..=511 is addressable.
    pub width: u32,
    pub height: u32,
    /// The address is in RAM or VRAM.
    pub valid: bool,
}

/// All texture state for one draw, decoded once.
#[derive(Debug, Clone)]
pub struct TextureState {
    pub format: TexFormat,
    pub clut_format: ClutFormat,
    pub clut_index: ClutIndex,
    /// The CLUT cache as it was when the draw was issued, decoded to RGBA
    /// (512 entries for 16-bit palettes, 256 for 32-bit; empty for non-CLUT formats).
    pub palette: Arc<[[u8; 4]]>,
    /// CLUT4/CLUT8: `palette` through `clut_index` for each texel value ([`ClutTable`]).
    pub clut_table: Option<Arc<ClutTable>>,
    /// False only for CLUT4 with mipmaps and TEXMODE bit 8: level n then uses entries
    /// offset by 16·n [PP FuncId.cpp useSharedClut].
    pub shared_clut: bool,
    pub levels: [LevelInfo; 8],
    /// Highest usable level: TEXMODE bits 16–18 when TEXFILTER enables mipmaps (bit 2),
    /// else 0 [PP ComputeSamplerID].
    pub max_level: u8,
    /// Some level 0..=max_level has an invalid address.
    pub any_invalid: bool,
    pub swizzle: bool,
    pub clamp_s: bool,
    pub clamp_t: bool,
    /// TEXFILTER bit 0 (minify linear), bit 1 (linear between mips), bit 8 (magnify linear).
    pub min_linear: bool,
    pub mip_linear: bool,
    pub mag_linear: bool,
    pub lod_mode: LodMode,
    /// TEXLEVEL bits 16–23, signed, in 1/16 levels.
    pub lod_bias: i32,
    pub lod_slope: f32,
    pub func: TexFuncState,
    /// Through mode: fragment s, t are texels and are divided by the level-0 size here.
    pub through: bool,
    /// The sampler arithmetic (decided per draw by the model; see [`SamplerRule`]).
    pub sampler: SamplerRule,
    /// Factors that turn fragment s, t into normalised coordinates.
    s_scale: f32,
    t_scale: f32,
}

impl TextureState {
    /// Decode the texture registers. `clut` is the 1 KiB CLUT cache at draw time;
    /// `through` is the through-mode bit of the vertex type.
    pub fn decode(regs: &Regs, clut: &[u8; 1024], through: bool) -> TextureState {
        Self::decode_with(regs, clut, through, &mut PaletteMemo::default())
    }

    /// [`TextureState::decode`], taking the palette from `palettes` when the CLUT bytes
    /// and palette format are those it decoded last.
    pub fn decode_with(regs: &Regs, clut: &[u8; 1024], through: bool, palettes: &mut PaletteMemo) -> TextureState {
        let format = TexFormat::from_bits(regs.get(reg::TEXFORMAT).format());
        let filter = regs.get(reg::TEXFILTER);
        let texmode = regs.get(reg::TEXMODE);
        let max_level = if filter.mipmaps() { texmode.max_level() as u8 } else { 0 };
        let mut levels = [LevelInfo::default(); 8];
        for (i, l) in levels.iter_mut().enumerate() {
            let bw = regs.get(reg::TEXBUFWIDTH0.at(i));
            let size = regs.get(reg::TEXSIZE0.at(i));
            let addr = regs.get(reg::TEXADDR0.at(i)).low() | bw.high();
            *l = LevelInfo {
                addr,
                bufw: format.bufw(bw.width()),
                width: 1 << size.width_log2(),
                height: 1 << size.height_log2(),
                valid: is_valid_texture_address(addr),
            };
        }
        let any_invalid = levels[..=max_level as usize].iter().any(|l| !l.valid);
        let clutformat = regs.get(reg::CLUTFORMAT);
        let clut_format = ClutFormat::from_bits(clutformat.palette());
        let palette = if format.is_clut() { palettes.get(clut_format, clut) } else { palettes.empty() };
        let clut_index = ClutIndex::from_clutformat(clutformat, clut_format);
        let clut_table =
            matches!(format, TexFormat::Clut4 | TexFormat::Clut8).then(|| palettes.table(&palette, clut_index));
        let texfunc = regs.get(reg::TEXFUNC);
        let level = regs.get(reg::TEXLEVEL);
        let wrap = regs.get(reg::TEXWRAP);
        let (w0, h0) = (levels[0].width as f32, levels[0].height as f32);
        TextureState {
            format,
            clut_format,
            clut_index,
            palette,
            clut_table,
            shared_clut: format != TexFormat::Clut4 || max_level == 0 || texmode.separate_cluts() == 0,
            levels,
            max_level,
            any_invalid,
            swizzle: texmode.swizzle() != 0,
            clamp_s: wrap.clamp_s() != 0,
            clamp_t: wrap.clamp_t() != 0,
            min_linear: filter.min() & 1 != 0,
            mip_linear: filter.min() & 2 != 0,
            mag_linear: filter.mag() != 0,
            lod_mode: LodMode::from_bits(level.mode()),
            lod_bias: level.bias_4_4(),
            lod_slope: regs.float(op::TEXLODSLOPE),
            func: TexFuncState {
                func: TexFunc::from_bits(texfunc.func()),
                rgba: texfunc.rgba() != 0,
                doubling: texfunc.doubling() != 0,
                env: regs.rgb(op::TEXENVCOLOR),
            },
            through,
            sampler: SamplerRule::Hardware,
            // "For levels > 0, mipmapping is always based on level 0" [PP DrawTriangleSlice].
            s_scale: if through { 1.0 / w0 } else { 1.0 },
            t_scale: if through { 1.0 / h0 } else { 1.0 },
        }
    }

    /// The bytes sampling may read: per level that can be sampled, `(addr, len)` from the
    /// level's address. Texel coordinates are at most `(size − 1) & 511` (`filter`), read
    /// through the linear, swizzled and DXT block layouts (`format`: `offset`,
    /// `dxt_block`); the largest of the three, plus one 16-byte read. A superset; checked
    /// by `read_ranges_hold_every_texel`.
    pub fn read_ranges(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        let bits = u64::from(self.format.bits_per_texel());
        let top = (self.max_level as usize + 1).min(7);
        self.levels[..=top].iter().filter(move |_| bits > 0).map(move |l| {
            let (umax, vmax) = (u64::from(l.width.wrapping_sub(1) & 511), u64::from(l.height.wrapping_sub(1) & 511));
            let bufw = u64::from(l.bufw);
            let linear = vmax * bufw * bits / 8 + umax * bits / 8;
            let swizzled = (vmax >> 3) * bufw * bits + ((umax * bits / 8) >> 4) * 128 + 127;
            let dxt = ((vmax >> 2) * (bufw >> 2) + (umax >> 2)) * 16;
            let len = linear.max(swizzled).max(dxt) + 16;
            (l.addr, u32::try_from(len).unwrap_or(u32::MAX))
        })
    }

    /// Slope-mode LOD: the sampler needs the clip w ([`sample_quad_w`]).
    pub fn needs_w(&self) -> bool {
        self.lod_mode == LodMode::Slope
    }

    /// The same state sampled under `rule`.
    pub fn with_sampler(mut self, rule: SamplerRule) -> TextureState {
        self.sampler = rule;
        self
    }

    /// Fragment s, t to normalised coordinates (divides by the level-0 size in through mode).
    #[inline]
    pub fn normalise(&self, s: f32, t: f32) -> (f32, f32) {
        (s * self.s_scale, t * self.t_scale)
    }

    /// True if the texture stage outputs 0 for this level choice: PPSSPP's x86 JIT checks
    /// its texture pointers (for `level` and, with mipmaps, `level + 1`) whenever some
    /// level's address is invalid, and returns 0 before the texture function
    /// [PP SamplerX86.cpp CompileNearest/CompileLinear "Early exit on !srcPtr"].
    fn null_output(&self, level: u8) -> bool {
        if !self.any_invalid || matches!(self.format, TexFormat::Invalid(_)) {
            return false;
        }
        let l = level as usize;
        let ok = |i: usize| self.levels.get(i).is_some_and(|x| x.valid);
        if self.max_level == 0 {
            !ok(0)
        } else if l + 1 > self.max_level as usize {
            // Pointers past the last level are null in PPSSPP's freshly built state;
            // guess: past level 7 (outside its array) counts as non-null.
            !ok(l) || l + 1 < 8
        } else {
            !ok(l) || !ok(l + 1)
        }
    }

    fn level<'a>(&'a self, mem: &'a Memory, i: usize) -> Level<'a> {
        let info = self.levels.get(i).copied().unwrap_or_default();
        let clut_level = if self.shared_clut { 0 } else { 16 * i as u32 };
        Level {
            src: LevelSrc::new(
                mem,
                info.addr,
                info.bufw,
                self.swizzle,
                &self.palette,
                self.clut_index,
                clut_level,
                self.clut_table.as_deref(),
            ),
            u: Axis::new(info.width, self.clamp_s).with_rule(self.sampler),
            v: Axis::new(info.height, self.clamp_t).with_rule(self.sampler),
        }
    }
}

/// Level selection from derivatives of *normalised* coordinates (see
/// [`TextureState::normalise`]) and clip w (slope mode only). Points use ds = dt = 0.
pub fn lod(st: &TextureState, ds: f32, dt: f32, w: f32) -> Lod {
    lod::lod_from(st, ds, dt, w)
}

/// Sample one fragment at fragment coordinates (s, t) (texels in through mode) with a
/// level choice from [`lod`]. `None`: the texture stage outputs 0 (invalid address).
pub fn sample(st: &TextureState, mem: &Memory, s: f32, t: f32, lod: Lod) -> Option<[u8; 4]> {
    let (s, t) = st.normalise(s, t);
    let mut out = [[0u8; 4]; 4];
    sample_n(st, mem, &[s; 4], &[t; 4], 1, lod, &mut out).then_some(out[0])
}

/// Sample the four fragments of a quad. The LOD uses `ds = s[1] − s[0]`, `dt = t[2] − t[0]`.
/// Slope-mode LOD needs the clip w: use [`sample_quad_w`] (this passes 0). An invalid
/// texture address gives all zeros here; [`sample_quad_w`] reports it instead.
pub fn sample_quad(st: &TextureState, mem: &Memory, quad: &Quad) -> [[u8; 4]; 4] {
    sample_quad_w(st, mem, quad, 0.0).unwrap_or([[0; 4]; 4])
}

/// [`sample_quad`] with the clip w for slope-mode LOD (PPSSPP: triangles interpolate it at
/// the quad's first pixel, sprites use the second vertex's w). `None` when the texture stage
/// outputs 0 for this quad (see [`shade_quad`]).
pub fn sample_quad_w(st: &TextureState, mem: &Memory, quad: &Quad, w: f32) -> Option<[[u8; 4]; 4]> {
    let mut s = [0f32; 4];
    let mut t = [0f32; 4];
    for i in 0..4 {
        (s[i], t[i]) = st.normalise(quad.s[i], quad.t[i]);
    }
    let lod = lod::lod_from(st, s[1] - s[0], t[2] - t[0], w);
    let mut out = [[0u8; 4]; 4];
    sample_n(st, mem, &s, &t, quad.mask, lod, &mut out).then_some(out)
}

/// The whole texture stage for a quad: sample, texture function with each fragment's
/// primary colour, secondary colour added, clamped. Uncovered fragments are skipped.
pub fn shade_quad(st: &TextureState, mem: &Memory, quad: &Quad, w: f32) -> [[u8; 4]; 4] {
    let tex = sample_quad_w(st, mem, quad, w);
    let mut out = [[0u8; 4]; 4];
    for (i, o) in out.iter_mut().enumerate() {
        *o = stage(st, &quad.frag(i), tex.map(|t| t[i]));
    }
    out
}

/// The texture stage for one fragment (points, lines) with a given level choice.
pub fn shade_fragment(st: &TextureState, mem: &Memory, f: &Fragment, lod: Lod) -> [u8; 4] {
    stage(st, f, sample(st, mem, f.s, f.t, lod))
}

#[inline]
fn stage(st: &TextureState, f: &Fragment, texel: Option<[u8; 4]>) -> [u8; 4] {
    match texel {
        Some(t) => stage_texel(st, &st.func, f, t),
        None => func::add_secondary([0; 4], f.color1),
    }
}

/// The texture function `fs` (the draw's, or a shader's with the function fixed) and the
/// secondary colour for a fragment that sampled `texel`.
#[inline(always)]
fn stage_texel(st: &TextureState, fs: &TexFuncState, f: &Fragment, texel: [u8; 4]) -> [u8; 4] {
    if f.color0_indefinite != 0 && st.sampler != SamplerRule::PpssppCpp {
        func::add_secondary(func::apply_indefinite(fs, f.color0, f.color0_indefinite, texel), f.color1)
    } else {
        func::add_secondary(func::apply(fs, f.color0, texel), f.color1)
    }
}

/// TEXFUNC applied to primitive colour and texel, then the secondary colour added and
/// clamped (§11).
pub fn texture_function(st: &TextureState, prim: [u8; 4], secondary: [u8; 3], texel: [u8; 4]) -> [u8; 4] {
    func::add_secondary(func::apply(&st.func, prim, texel), secondary)
}

/// One texel at integer coordinates with no wrap, clamp or filtering (PPSSPP's
/// `SampleFetch`). PPSSPP's 1:1 through-mode sprite fast path (`RasterizerRectangle.cpp`
/// `RectangleFastPath`/`DrawSprite`) reads texels this way; an invalid address gives 0
/// [PP SamplerX86.cpp CompileFetch].
pub fn fetch_texel(st: &TextureState, mem: &Memory, level: usize, u: u32, v: u32) -> [u8; 4] {
    if !st.levels.get(level).is_some_and(|l| l.valid) && !matches!(st.format, TexFormat::Invalid(_)) {
        return [0; 4];
    }
    let l = st.level(mem, level);
    macro_rules! run {
        ($f:ty) => {
            <$f>::texel(&l.src, u, v)
        };
    }
    dispatch_format!(st.format, run)
}

/// Decode a whole level to RGBA8 rows (row-major, width × height). Sizes are capped at 512
/// because texel coordinates never exceed 511 [HW textures/size]. An invalid address or a
/// level above 7 gives zeros / an empty vector.
pub fn decode_level(st: &TextureState, mem: &Memory, level: usize) -> Vec<[u8; 4]> {
    let Some(info) = st.levels.get(level) else {
        return Vec::new();
    };
    let (w, h) = (info.width.min(512), info.height.min(512));
    let mut out = vec![[0u8; 4]; (w * h) as usize];
    if !info.valid {
        return out;
    }
    let l = st.level(mem, level);
    match st.format {
        TexFormat::Clut8 => clut_rows::<8>(&l.src, w, &mut out),
        TexFormat::Clut4 => clut_rows::<4>(&l.src, w, &mut out),
        _ => texel_rows(st.format, &l.src, w, h, &mut out),
    }
    out
}

/// [`decode_level`] texel by texel (`Format::texel`), the reference for every format.
fn texel_rows(format: TexFormat, src: &format::LevelSrc, w: u32, h: u32, out: &mut [[u8; 4]]) {
    macro_rules! run {
        ($f:ty) => {
            for v in 0..h {
                for u in 0..w {
                    out[(v * w + u) as usize] = <$f>::texel(src, u, v);
                }
            }
        };
    }
    dispatch_format!(format, run);
}

/// CLUT4/CLUT8 rows 16 bytes at a time: a run of 16 bytes starting at a multiple of 16 is
/// contiguous in both layouts (a swizzle tile row is 16 bytes), so its offset is taken
/// once per run instead of per texel. Same texels as [`texel_rows`] (`clut_rows_equal_texels`);
/// the report decodes 512x512 CLUT textures with it.
fn clut_rows<const BITS: u32>(src: &format::LevelSrc, w: u32, out: &mut [[u8; 4]]) {
    let per = (128 / BITS) as usize;
    if w == 0 {
        return;
    }
    for (v, row) in out.chunks_exact_mut(w as usize).enumerate() {
        for (k, run) in row.chunks_mut(per).enumerate() {
            let bytes = src.bytes::<16>(src.offset::<BITS>((k * per) as u32, v as u32));
            for (i, o) in run.iter_mut().enumerate() {
                // CLUT4: low nibble = even texel, as `FClut4::texel`.
                let raw = if BITS == 8 { bytes[i] } else { (bytes[i / 2] >> ((i & 1) * 4)) & 15 };
                *o = src.lookup(raw as u32);
            }
        }
    }
}

/// The level choice shared by every quad of a draw, when the registers fix it: a single
/// level (no mipmaps) with the same filter for magnifying and minifying. Then the
/// per-quad LOD of [`sample_quad_w`] cannot vary, and fragments can be textured one by one
/// ([`shade_span`]) with the same result.
pub fn constant_lod(st: &TextureState) -> Option<Lod> {
    (st.max_level == 0 && st.min_linear == st.mag_linear).then_some(Lod {
        level: 0,
        frac: 0,
        linear: st.mag_linear,
        detail: 0,
    })
}

/// The texture stage for a run of fragments sharing primary colour `prim` and secondary
/// colour `secondary` (a flat-shaded rectangle row), at fragment coordinates `coords`
/// (texels in through mode), with the level choice `lod` from [`constant_lod`]. Equals
/// [`shade_quad`] lane by lane; format, filter and texture function are matched once per
/// run (`shader::span_fn`).
pub fn shade_span(
    st: &TextureState,
    mem: &Memory,
    lod: Lod,
    prim: [u8; 4],
    secondary: [u8; 3],
    coords: &[(f32, f32)],
    out: &mut [[u8; 4]],
) {
    if st.null_output(lod.level) {
        out.fill(func::add_secondary([0; 4], secondary));
        return;
    }
    let l = st.level(mem, lod.level as usize);
    macro_rules! run {
        ($f:ty) => {
            shader::span_fn::<$f>(st, lod.linear)(st, &l, prim, secondary, coords, out)
        };
    }
    dispatch_format!(st.format, run)
}

/// The colour [`shade_span`] gives every fragment whatever its coordinates, when it cannot
/// depend on them: the level is one texel wide and high (both axes wrap and clamp every
/// index to texel 0, so all nearest and bilinear taps read it and four equal taps filter
/// back to it), or the stage outputs 0. `None` otherwise. commands-basic magnifies a 1x1
/// texture over 460x252 pixels; with this the rows are fills.
pub fn uniform_span(st: &TextureState, mem: &Memory, lod: Lod, prim: [u8; 4], secondary: [u8; 3]) -> Option<[u8; 4]> {
    // The axes `TextureState::level` samples with, without building the level's source
    // (this runs for every textured rectangle and band).
    let info = st.levels.get(lod.level as usize).copied().unwrap_or_default();
    let one_texel = Axis::new(info.width, st.clamp_s).max == 0 && Axis::new(info.height, st.clamp_t).max == 0;
    if !one_texel && !st.null_output(lod.level) {
        return None;
    }
    let mut out = [[0u8; 4]];
    shade_span(st, mem, lod, prim, secondary, &[(0.0, 0.0)], &mut out);
    Some(out[0])
}

/// Sample fragments whose bit is set in `mask` (normalised s, t). Returns false when the
/// texture stage outputs 0.
fn sample_n(
    st: &TextureState,
    mem: &Memory,
    s: &[f32; 4],
    t: &[f32; 4],
    mask: u8,
    lod: Lod,
    out: &mut [[u8; 4]; 4],
) -> bool {
    if st.null_output(lod.level) {
        return false;
    }
    macro_rules! run {
        ($f:ty) => {
            sample_fmt::<$f>(st, mem, s, t, mask, lod, out)
        };
    }
    dispatch_format!(st.format, run);
    true
}

fn sample_fmt<F: Format>(
    st: &TextureState,
    mem: &Memory,
    s: &[f32; 4],
    t: &[f32; 4],
    mask: u8,
    lod: Lod,
    out: &mut [[u8; 4]; 4],
) {
    let l0 = st.level(mem, lod.level as usize);
    sample_levels::<F>(st, mem, &l0, s, t, mask, lod, out);
}

/// One fragment of level `l`, bilinear or nearest. Always inlined: as a closure in
/// [`sample_levels`] it stayed a call per fragment and level (21763's mipmapped draws).
#[inline(always)]
fn filter_one<F: Format>(l: &Level, s: f32, t: f32, linear: bool) -> [u8; 4] {
    if linear {
        filter::bilinear::<F>(l, s, t)
    } else {
        filter::nearest::<F>(l, s, t)
    }
}

/// [`sample_fmt`] with the level `lod.level` already resolved (`l0`); the next level is
/// resolved here when the LOD blends two.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn sample_levels<F: Format>(
    st: &TextureState,
    mem: &Memory,
    l0: &Level,
    s: &[f32; 4],
    t: &[f32; 4],
    mask: u8,
    lod: Lod,
    out: &mut [[u8; 4]; 4],
) {
    let l1 = (lod.frac != 0).then(|| st.level(mem, lod.level as usize + 1));
    let frac = lod.frac as u32;
    for i in 0..4 {
        if mask & (1 << i) == 0 {
            continue;
        }
        let c0 = filter_one::<F>(l0, s[i], t[i], lod.linear);
        out[i] = match &l1 {
            Some(l1) => filter::mip_blend(c0, filter_one::<F>(l1, s[i], t[i], lod.linear), frac),
            None => c0,
        };
    }
}
