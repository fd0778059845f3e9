//! Which sampler PPSSPP ran: its x86 JIT or its C++ fallback.
//!
//! PPSSPP compiles a sampler function per `SamplerID` only while it holds a binner: when a
//! state is created (`BinManager::UpdateState` → `ComputeRasterizerState`), and for every
//! queued ID whenever the binner flushes (`BinManager::Flush` → `Sampler::FlushJit`; a new
//! pixel function also flushes, with reason "compile"). Samplers requested without a
//! binner come from its state optimizations: when every colour a state has drawn is white
//! (alpha 255 too if the texture alpha is used), MODULATE is turned into REPLACE, at drain
//! time for the whole state (`OptimizePendingStates`) and in `DrawRectangle` for the flat
//! colour of v1 (`OptimizeFlatRasterizerState`) [PP `Rasterizer.cpp`
//! DetectStateOptimizations, ApplyStateOptimizations]. If that REPLACE ID was never
//! compiled, `Sampler::GetLinearFunc(id, nullptr)` queues it and returns the C++
//! `SampleLinear`, whose bilinear coordinates truncate instead of rounding
//! [PP `Sampler.cpp` SamplerJitCache::GetByID, GetLinearFunc]. Evidence: Patlabor (17061)
//! draw 51, an RGBA4444 modulate sprite whose REPLACE ID is new, matches the reference only
//! with truncated bilinear weights, while draws 60–78 (whose REPLACE ID draws 42–49 had
//! compiled) match only with the JIT's rounding; modelling this takes eight frame dumps to
//! MSE 0 or near it.
//!
//! Approximations: a state's colours are judged up to the end of the current PRIM (PPSSPP
//! judges them at its drains, whose timing depends on its queue and threads); a state lasts
//! while its sampler key and [`PixelState`] stay the same (PPSSPP: until a pixel, sampler
//! or raster register changes); pixel-function IDs are approximated by [`PixelState`]
//! equality; `overReadSafe` is not in the key; the per-thread "last function" caches
//! (`lastLinear_` can keep returning the fallback on one thread after compilation) are not
//! modelled.

use crate::draw::binned::DrawState;
use crate::pixel::PixelState;
use crate::texture::{ClutFormat, TexFormat, TexFunc, TextureState};

/// The fields of PPSSPP's `SamplerID::fullKey` that our texture state determines
/// [PP `FuncId.cpp` ComputeSamplerID].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SamplerKey {
    format: TexFormat,
    /// Palette format and whether mask ≠ 0xFF, shift ≠ 0, start ≠ 0 (CLUT formats only).
    clut: Option<(ClutFormat, bool, bool, bool)>,
    clamp_s: bool,
    clamp_t: bool,
    swizzle: bool,
    shared_clut: bool,
    invalid_ptr: bool,
    standard_bufw: bool,
    w0_shift: u32,
    h0_shift: u32,
    func: TexFunc,
    texture_alpha: bool,
    doubling: bool,
    mips: bool,
}

impl SamplerKey {
    pub fn new(t: &TextureState) -> SamplerKey {
        let bits = t.format.bits_per_texel();
        let is_dxt = matches!(t.format, TexFormat::Dxt1 | TexFormat::Dxt3 | TexFormat::Dxt5);
        let standard_bufw = t.levels[..=t.max_level as usize].iter().all(|l| {
            // "We use a 16 byte minimum for all small bufws, so allow those as standard."
            bits != 0 && l.width.max(128 / bits) == l.bufw && !(is_dxt && l.width != l.bufw)
        });
        let ci = t.clut_index;
        SamplerKey {
            format: t.format,
            clut: t.format.is_clut().then_some((t.clut_format, ci.mask != 0xFF, ci.shift != 0, ci.offset != 0)),
            clamp_s: t.clamp_s,
            clamp_t: t.clamp_t,
            swizzle: t.swizzle,
            shared_clut: t.shared_clut,
            invalid_ptr: t.any_invalid,
            standard_bufw,
            w0_shift: t.levels[0].width.trailing_zeros(),
            h0_shift: t.levels[0].height.trailing_zeros(),
            func: t.func.func,
            texture_alpha: t.func.rgba,
            doubling: t.func.doubling,
            mips: t.max_level != 0,
        }
    }
}

/// PPSSPP's sampler and pixel JIT caches, as far as they decide which sampler runs.
#[derive(Default)]
pub struct JitCache {
    samplers: Vec<SamplerKey>,
    queue: Vec<SamplerKey>,
    pixels: Vec<PixelState>,
    /// The state whose vertex flags are being accumulated (a PPSSPP state lives while
    /// its pixel and sampler IDs stay the same), and whether all its colours were white.
    flags_key: Option<(SamplerKey, PixelState)>,
    state_white: bool,
}

impl JitCache {
    fn compile_queue(&mut self) {
        for k in std::mem::take(&mut self.queue) {
            if !self.samplers.contains(&k) {
                self.samplers.push(k);
            }
        }
    }

    /// A state was created with a binner: its pixel and sampler functions get compiled,
    /// and any compilation first flushes the binner, which compiles the queue.
    pub fn state_created(&mut self, st: &DrawState) {
        if !self.pixels.contains(&st.pixel) {
            self.pixels.push(st.pixel.clone());
            self.compile_queue();
        }
        if let Some(t) = &st.texture {
            let k = SamplerKey::new(t);
            if !self.samplers.contains(&k) {
                self.compile_queue();
                self.samplers.push(k);
            }
        }
    }

    /// The binner flushed something [PP `BinManager::Flush` → `Sampler::FlushJit`].
    pub fn flushed(&mut self) {
        self.compile_queue();
    }

    /// Decide the samplers for the primitives of one PRIM under state `st`. `counted`
    /// are the colours PPSSPP folds into the state's flags for them
    /// (`CalculateRasterStateFlags`: each primitive's last vertex, plus the others when
    /// Gouraud-shaded). `rect_v1[i]` is the flat colour of primitive `i` when it is a
    /// `DrawRectangle` sprite. Returns, per primitive, whether PPSSPP samples it with the
    /// C++ fallback: the state (all its colours white when it is drawn, approximated as
    /// "up to the end of this PRIM") or the rectangle's flat colour turns MODULATE into
    /// REPLACE and that REPLACE ID was not compiled; the ID is then queued.
    #[cfg(test)]
    pub fn fallbacks(&mut self, st: &DrawState, counted: &[[u8; 4]], rect_v1: &[Option<[u8; 4]>]) -> Vec<bool> {
        let mut out = Vec::new();
        self.fallbacks_into(st, counted.iter().copied(), rect_v1.iter().copied(), &mut out);
        out
    }

    /// Whether each shape (one `rect_v1` item each) takes the C++ fallback sampler,
    /// written to `out` (a reused buffer). `counted` and `rect_v1` are read lazily, only
    /// as far as the answer needs them: not at all unless the state modulates a texture,
    /// `counted` only while the state's colours are all white so far (19960 collected
    /// them into buffers for 71 000 shapes, about 45 instructions each).
    pub fn fallbacks_into(
        &mut self,
        st: &DrawState,
        counted: impl IntoIterator<Item = [u8; 4]>,
        rect_v1: impl ExactSizeIterator<Item = Option<[u8; 4]>>,
        out: &mut Vec<bool>,
    ) {
        out.clear();
        out.resize(rect_v1.len(), false);
        let Some(t) = &st.texture else { return };
        if t.func.func != TexFunc::Modulate {
            return;
        }
        // DetectStateOptimizations: colorFull && (!needTextureAlpha || alphaFull).
        let white = |c: &[u8; 4]| c[0] == 255 && c[1] == 255 && c[2] == 255 && (!t.func.rgba || c[3] == 255);
        let key = SamplerKey::new(t);
        if self.flags_key.as_ref().is_none_or(|(k, p)| *k != key || *p != st.pixel) {
            self.flags_key = Some((key, st.pixel.clone()));
            self.state_white = true;
        }
        self.state_white = self.state_white && counted.into_iter().all(|c| white(&c));
        let mut any = false;
        for (o, v1) in out.iter_mut().zip(rect_v1) {
            *o = self.state_white || v1.as_ref().is_some_and(white);
            any |= *o;
        }
        let mut k = key;
        k.func = TexFunc::Replace;
        if !any || self.samplers.contains(&k) {
            out.fill(false);
            return;
        }
        if !self.queue.contains(&k) {
            self.queue.push(k);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::regs::Regs;

    fn textured_state(regs: &mut Regs) -> DrawState {
        regs.set(crate::cmd::op::TEXTUREMAPENABLE, 1);
        super::super::test_state(regs, false)
    }

    #[test]
    fn white_modulate_rect_falls_back_until_compiled() {
        let mut regs = Regs::default();
        let st = textured_state(&mut regs);
        let mut jit = JitCache::default();
        jit.state_created(&st);
        // TEXFUNC 0 = modulate: the REPLACE variant was never compiled.
        let white = [255, 255, 255, 255];
        assert_eq!(jit.fallbacks(&st, &[white], &[Some(white)]), [true]);
        assert_eq!(jit.fallbacks(&st, &[white, white], &[None]), [true]);
        // A non-white primitive ends the state-wide optimization for its whole PRIM ...
        assert_eq!(jit.fallbacks(&st, &[white, [255, 254, 255, 255]], &[None, None]), [false, false]);
        assert_eq!(jit.fallbacks(&st, &[white], &[None]), [false]);
        // ... but a white rectangle is still re-optimized for its flat colour.
        assert_eq!(jit.fallbacks(&st, &[white], &[Some(white)]), [true]);
        // A flush compiles the queued REPLACE ID.
        jit.flushed();
        assert_eq!(jit.fallbacks(&st, &[white], &[Some(white)]), [false]);
    }

    #[test]
    fn replace_state_compiles_the_key() {
        let mut regs = Regs::default();
        let st = textured_state(&mut regs);
        regs.set(crate::cmd::op::TEXFUNC, 3);
        let st_replace = textured_state(&mut regs);
        let mut jit = JitCache::default();
        jit.state_created(&st_replace);
        jit.state_created(&st);
        let white = [255, 255, 255, 255];
        assert_eq!(jit.fallbacks(&st, &[white], &[Some(white)]), [false]);
    }
}
