//! Data that flows between GE stages: decoded vertices, clip-space vertices,
//! screen-space vertices in 12.4 fixed point, and fragments.
//!
//! ```text
//! memory --vertex--> Vertex --transform--> ClipVertex --clip/screen--> ScreenVertex
//!        --raster--> Fragment (2x2 quads) --texture, pixel--> framebuffer
//! ```
use crate::cmd::fields::VType;

/// A screen coordinate in 1/16 pixel units (the GE's 12.4 fixed point), relative to the
/// drawing offset. The constructors name their rounding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct SubPixel(pub i32);

impl SubPixel {
    /// Pixels per unit.
    pub const ONE: i32 = 16;

    /// From a raw 12.4 value.
    #[inline]
    pub const fn from_raw(v: i32) -> Self {
        SubPixel(v)
    }

    /// From whole pixels (exact).
    #[inline]
    pub const fn from_pixels(p: i32) -> Self {
        SubPixel(p * 16)
    }

    /// `trunc(16·v)`: truncation toward zero of a value in pixels
    /// (through-mode positions, PPSSPP `TransformUnit::ReadVertex`).
    #[inline]
    pub fn from_f32_trunc(v: f32) -> Self {
        SubPixel((v * 16.0) as i32)
    }

    /// `trunc(16·v + bias)`: the transform-mode snap, where `bias` is in 1/16 units
    /// (PPSSPP `ClipToScreenInternal` adds 0.375 before truncating; ge-reference.md §4.2).
    #[inline]
    pub fn from_f32_biased_trunc(v: f32, bias: f32) -> Self {
        SubPixel((v * 16.0 + bias) as i32)
    }

    /// `ceil(16·v)`: any fraction of a 1/16 step rounds up (the PSP's rectangle corners,
    /// see `transform::rectangle_corner`).
    #[inline]
    pub fn from_f32_ceil(v: f32) -> Self {
        SubPixel((v * 16.0).ceil() as i32)
    }

    /// The pixel this coordinate lies in (`>> 4`, floor).
    #[inline]
    pub const fn pixel(self) -> i32 {
        self.0 >> 4
    }

    /// The 1/16 fraction (0..15).
    #[inline]
    pub const fn frac(self) -> i32 {
        self.0 & 15
    }
}

/// One vertex as the GE's vertex reader produces it: morph-blended and normalised
/// (ge-reference.md §2.3), before skinning and transform. In through mode, `pos` holds
/// screen pixels (x, y) and the unsigned depth (z), and `uv` holds texels.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Vertex {
    pub pos: [f32; 3],
    pub normal: [f32; 3],
    pub uv: [f32; 2],
    /// RGBA; for a colourless vertex format this is MATERIALAMBIENT + MATERIALALPHA.
    pub color: [u8; 4],
    /// Skinning weights; `weights[j]` pairs with bone slot `j`.
    pub weights: [f32; 8],
}

/// A transformed vertex in homogeneous clip space with its lit colours and generated
/// texture coordinates (transform mode only).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ClipVertex {
    /// Clip coordinates (x, y, z, w) = P·V·W·(skinned position).
    pub clip: [f32; 4],
    /// Texture coordinates after TEXSCALE/OFFSET or texgen: (s, t, q). q is 1 except
    /// with texture-matrix projection.
    pub stq: [f32; 3],
    /// Primary colour (lit or vertex colour), RGBA.
    pub color0: [u8; 4],
    /// Secondary (specular) colour, RGB; zero unless LIGHTMODE separates specular.
    pub color1: [u8; 3],
    /// Per-vertex fog factor (1 = no fog), unclamped.
    pub fog: f32,
    /// The hardware model's x, y, w for the viewport mapping: world, view and projection
    /// applied one after the other, each cut to float24 (`transform::ScreenSnap`); `None`
    /// in the PPSSPP model and for immediate-mode vertices (the viewport maps `clip`).
    pub xyw24: Option<[f32; 3]>,
}

/// A vertex in drawing coordinates, ready for rasterization.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ScreenVertex {
    /// 12.4 fixed point, relative to the drawing offset (OFFSETX/Y already subtracted).
    pub x: SubPixel,
    pub y: SubPixel,
    /// Depth in 0..65535 units, kept as float for interpolation.
    pub z: f32,
    /// Clip-space w (1 in through mode); texture coordinates are interpolated
    /// perspective-correctly using it in transform mode.
    pub w: f32,
    /// Texture coordinates: normalised (transform mode) or texels (through mode).
    pub s: f32,
    pub t: f32,
    pub q: f32,
    pub color0: [u8; 4],
    pub color1: [u8; 3],
    pub fog: f32,
    /// The vertex the GE received first for this triangle (a list's first, a strip's
    /// oldest, a fan's centre): the PSP's colour planes start there
    /// ([`crate::raster::ColourPlane`]). Set by primitive assembly on its copies.
    pub first: bool,
}

/// One pixel's worth of interpolated attributes, produced by the rasterizer.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Fragment {
    /// Drawing coordinates in whole pixels.
    pub x: i32,
    pub y: i32,
    /// Interpolated 16-bit depth.
    pub z: u16,
    pub color0: [u8; 4],
    /// Bit i set: channel i of the primary colour interpolated to NaN or ±∞ (the weight
    /// sum of a zero-area triangle is 0), which `CVTPS2DQ` turns into
    /// `i32::MIN`; `color0[i]` then holds 0, the value the pixel stage clamps it to, but
    /// the sampler JIT's texture function sees -32768 [PP Rasterizer.cpp `InterpolateI`].
    pub color0_indefinite: u8,
    pub color1: [u8; 3],
    /// Fog factor, 0 (all fog colour) .. 255 (no fog).
    pub fog: u8,
    /// Final texture coordinates (already divided by q / w): normalised in transform
    /// mode, texels in through mode.
    pub s: f32,
    pub t: f32,
}

/// A 2x2 block of fragments at (x, y), (x+1, y), (x, y+1), (x+1, y+1) (lane order), its
/// attributes kept as lanes (one array per attribute), as the rasterizer's SIMD lanes
/// compute them and the texture and pixel stages read them: no per-fragment struct is
/// built on the way. All four lanes carry interpolated attributes (for texture LOD);
/// `mask` bit i says whether lane i is covered and must be drawn. [`Quad::frag`] gives
/// one lane as a [`Fragment`] (the reference stages, tests). Measured against four
/// `Fragment`s (callgrind, whole `frametests --bench --runs 1 --threads 1`, PPSSPP model):
/// 15826 hot pixel 122.3 -> 110.9 M instructions, 16131 146.2 -> 140.2 M, 21763
/// 1 174.5 -> 1 120.6 M.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Quad {
    /// Drawing coordinates of lane 0 in whole pixels; lane i lies at
    /// (x + (i & 1), y + (i >> 1)).
    pub x: i32,
    pub y: i32,
    /// Interpolated 16-bit depth per lane.
    pub z: [u16; 4],
    /// Primary colour per lane, RGBA.
    pub color0: [[u8; 4]; 4],
    /// [`Fragment::color0_indefinite`] per lane.
    pub color0_indefinite: [u8; 4],
    /// Secondary colour per lane, RGB in bytes 0..3; byte 3 is 0.
    pub color1: [[u8; 4]; 4],
    /// Fog factor per lane, 0 (all fog colour) .. 255 (no fog).
    pub fog: [u8; 4],
    /// Final texture coordinates per lane ([`Fragment::s`], [`Fragment::t`]).
    pub s: [f32; 4],
    pub t: [f32; 4],
    pub mask: u8,
    /// Clip-space w for slope-mode LOD, one value per quad: triangles interpolate it at
    /// the first lane, rectangles use the second vertex's, lines and points their pixel's
    /// [PP Rasterizer.cpp DrawTriangleSlice/DrawLine/DrawPoint, DrawRectangle `v1.clipw`].
    pub w: f32,
}

impl Quad {
    /// The quad of four fragments at lane positions (lane i at fragment 0's position plus
    /// (i & 1, i >> 1); the other fragments' x and y are not read).
    pub fn from_frags(frags: [Fragment; 4], mask: u8, w: f32) -> Quad {
        debug_assert!(
            (0..4).all(|i| (frags[i].x, frags[i].y) == (frags[0].x + (i & 1) as i32, frags[0].y + (i >> 1) as i32)),
            "fragments off the quad grid: {frags:?}"
        );
        Quad {
            x: frags[0].x,
            y: frags[0].y,
            z: frags.map(|f| f.z),
            color0: frags.map(|f| f.color0),
            color0_indefinite: frags.map(|f| f.color0_indefinite),
            color1: frags.map(|f| [f.color1[0], f.color1[1], f.color1[2], 0]),
            fog: frags.map(|f| f.fog),
            s: frags.map(|f| f.s),
            t: frags.map(|f| f.t),
            mask,
            w,
        }
    }

    /// Lane `i` (0..4) as a fragment.
    #[inline]
    pub fn frag(&self, i: usize) -> Fragment {
        let c1 = self.color1[i];
        Fragment {
            x: self.x + (i & 1) as i32,
            y: self.y + (i >> 1) as i32,
            z: self.z[i],
            color0: self.color0[i],
            color0_indefinite: self.color0_indefinite[i],
            color1: [c1[0], c1[1], c1[2]],
            fog: self.fog[i],
            s: self.s[i],
            t: self.t[i],
        }
    }

    /// The four lanes as fragments.
    pub fn frags(&self) -> [Fragment; 4] {
        std::array::from_fn(|i| self.frag(i))
    }
}

/// GE primitive types (PRIM bits 16–18).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PrimType {
    Points = 0,
    Lines = 1,
    LineStrip = 2,
    Triangles = 3,
    TriangleStrip = 4,
    TriangleFan = 5,
    Rectangles = 6,
    /// Type 7: continue the previous primitive.
    Continue = 7,
}

impl PrimType {
    /// From the 3-bit PRIM type field; bit 19 and above are ignored, so "prim 8" draws as
    /// points [HW `primitives/invalidprim`].
    pub fn from_bits(v: u32) -> PrimType {
        match v & 7 {
            0 => PrimType::Points,
            1 => PrimType::Lines,
            2 => PrimType::LineStrip,
            3 => PrimType::Triangles,
            4 => PrimType::TriangleStrip,
            5 => PrimType::TriangleFan,
            6 => PrimType::Rectangles,
            _ => PrimType::Continue,
        }
    }
}

/// Numeric attribute formats (texcoord, normal, position, weight fields of VTYPE).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NumFormat {
    None = 0,
    /// u8 / s8
    Byte = 1,
    /// u16 / s16
    Short = 2,
    Float = 3,
}

impl NumFormat {
    pub fn from_bits(v: u32) -> NumFormat {
        match v & 3 {
            0 => NumFormat::None,
            1 => NumFormat::Byte,
            2 => NumFormat::Short,
            _ => NumFormat::Float,
        }
    }
}

/// Vertex colour formats (VTYPE bits 2–4). Values 1–3 are invalid on the GE.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ColorFormat {
    None,
    /// 1–3: PPSSPP reads nothing for these (no bytes consumed).
    Invalid(u8),
    Rgb565,
    Rgba5551,
    Rgba4444,
    Rgba8888,
}

/// Index formats (VTYPE bits 11–12).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IndexFormat {
    None = 0,
    U8 = 1,
    U16 = 2,
    /// "Invalid" in the SDK but works on hardware [HW `primitives/indices`].
    U32 = 3,
}

impl IndexFormat {
    /// Bytes per index (0 for none).
    pub fn size(self) -> u32 {
        match self {
            IndexFormat::None => 0,
            IndexFormat::U8 => 1,
            IndexFormat::U16 => 2,
            IndexFormat::U32 => 4,
        }
    }
}

/// The fields of a VERTEXTYPE (0x12) argument (ge-reference.md §2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VertexType {
    pub raw: u32,
    pub texcoord: NumFormat,
    pub color: ColorFormat,
    pub normal: NumFormat,
    pub position: NumFormat,
    pub weight: NumFormat,
    pub index: IndexFormat,
    /// 1..=8
    pub weight_count: u8,
    /// 1..=8
    pub morph_count: u8,
    pub through: bool,
}

impl VertexType {
    pub fn from_bits(v: u32) -> VertexType {
        let t = VType(v);
        let color = match t.color() {
            0 => ColorFormat::None,
            4 => ColorFormat::Rgb565,
            5 => ColorFormat::Rgba5551,
            6 => ColorFormat::Rgba4444,
            7 => ColorFormat::Rgba8888,
            n => ColorFormat::Invalid(n as u8),
        };
        let index = match t.index() {
            0 => IndexFormat::None,
            1 => IndexFormat::U8,
            2 => IndexFormat::U16,
            _ => IndexFormat::U32,
        };
        VertexType {
            raw: v & 0x00FF_FFFF,
            texcoord: NumFormat::from_bits(t.texcoord()),
            color,
            normal: NumFormat::from_bits(t.normal()),
            position: NumFormat::from_bits(t.position()),
            weight: NumFormat::from_bits(t.weight()),
            index,
            weight_count: (t.weight_count() + 1) as u8,
            morph_count: (t.morph_count() + 1) as u8,
            through: t.through() != 0,
        }
    }

    pub fn has_color(&self) -> bool {
        !matches!(self.color, ColorFormat::None | ColorFormat::Invalid(_))
    }
    pub fn has_texcoord(&self) -> bool {
        self.texcoord != NumFormat::None
    }
    pub fn has_normal(&self) -> bool {
        self.normal != NumFormat::None
    }
    pub fn has_weights(&self) -> bool {
        self.weight != NumFormat::None
    }
}
