//! What PPSSPP's machinery attaches to the draw path's data: per draw state
//! ([`StateData`]) and per binned primitive ([`PrimFix`]). A leaf below both the draw path
//! and the machinery.

use std::borrow::Cow;
use std::sync::Arc;

use super::optimize;
use crate::pixel::PixelState;
use crate::raster::ClipRect;
use crate::regs::Regs;

/// The strips of one drain, or `None` when the queue is drawn without splitting.
pub type TaskRects = Option<Arc<[ClipRect]>>;

/// What PPSSPP's state optimizations read and accumulate for one draw state.
#[derive(Clone, Debug)]
pub struct StateData {
    pub(super) opt_in: optimize::OptInputs,
    /// The PPSSPP rasterizer state this draw belongs to; shared by consecutive draws
    /// without a pixel, sampler or rasterizer register change.
    pub(super) opt_cell: Arc<optimize::OptCell>,
}

impl StateData {
    /// `prev` is the previous draw's data, whose rasterizer state this draw continues
    /// unless `new_cell`.
    /// Decode for a draw with pixel state `pixel`; `texture`: `None` when not texturing,
    /// else whether the CLUT is shared by all levels.
    pub fn decode(
        regs: &Regs,
        clut: &[u8; 1024],
        pixel: &PixelState,
        texture: Option<bool>,
        prev: Option<&StateData>,
        new_cell: bool,
    ) -> Self {
        let opt_in = optimize::OptInputs::decode(regs, clut, pixel, texture.is_some(), texture.unwrap_or(true));
        let opt_cell = match prev {
            Some(p) if !new_cell => p.opt_cell.clone(),
            _ => Arc::default(),
        };
        StateData { opt_in, opt_cell }
    }
}

/// What a drain fixed for one binned primitive: the worker strips it is drawn in and the
/// state optimization it is drawn with. The default (hardware) is one whole draw with the
/// decoded state.
#[derive(Clone, Default)]
pub struct PrimFix {
    pub(super) strips: TaskRects,
    pub(super) opt: u32,
}

impl PrimFix {
    /// The pixel state the primitive is drawn with.
    pub fn pixel<'a>(&self, px: &'a PixelState) -> Cow<'a, PixelState> {
        match optimize::apply(px, self.opt) {
            Some(p) => Cow::Owned(p),
            None => Cow::Borrowed(px),
        }
    }

    /// The strips the primitive is drawn once in each of (`None`: drawn whole).
    pub fn strips(&self) -> Option<&[ClipRect]> {
        self.strips.as_deref()
    }

    /// The optimization bits (for traces).
    pub fn opt(&self) -> u32 {
        self.opt
    }
}
