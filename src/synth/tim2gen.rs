//! Procedural TIM2 textures in every kind BBS models use (ge-reference §18.3).
//!
//! The picture is the same for every kind, so renders can be compared across kinds: a
//! background of coloured cells, a white "F" glyph in the left half (asymmetric both ways,
//! so a mirrored or flipped mapping is obvious) and corner markers: top-left red, top-right
//! green, bottom-left blue, bottom-right yellow. With `holes`, the background cells of one
//! checkerboard colour get alpha 0 (for texture-alpha tests).
//!
//! 8-bit kinds give each background cell its own palette entry (15 rows × 16 columns), so a
//! CLUT read in the wrong order (CSM1 shuffle not undone, or undone when it must not be)
//! visibly scrambles the cells. 4-bit kinds use 8 background colours.

use crate::tim2::{Picture, Tim2};

/// The TIM2 image/CLUT combinations the generator can write.
#[allow(non_camel_case_types)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TexKind {
    /// 4-bit indexed, 16-colour 16-bit (5551) CLUT.
    Clut4_16,
    /// 4-bit indexed, 16-colour 32-bit CLUT.
    Clut4_32,
    /// 8-bit indexed, 256-colour 16-bit CLUT, linear order (CLUT type bit 7 set).
    Clut8_16,
    /// 8-bit indexed, 256-colour 32-bit CLUT, linear order (CLUT type bit 7 set).
    Clut8_32,
    /// 8-bit indexed, 256-colour 16-bit CLUT stored in CSM1 order (bit 7 clear).
    Clut8_16_csm1,
    /// 8-bit indexed, 256-colour 32-bit CLUT stored in CSM1 order (bit 7 clear), as in the
    /// OpenKh sample `bbs-dummy.pmo`.
    Clut8_32_csm1,
    /// 16-bit direct colour, A1B5G5R5.
    Direct5551,
    /// 32-bit direct colour, A8B8G8R8.
    Direct8888,
}

impl TexKind {
    pub const ALL: [TexKind; 8] = [
        TexKind::Clut4_16,
        TexKind::Clut4_32,
        TexKind::Clut8_16,
        TexKind::Clut8_32,
        TexKind::Clut8_16_csm1,
        TexKind::Clut8_32_csm1,
        TexKind::Direct5551,
        TexKind::Direct8888,
    ];

    /// TIM2 (image type, CLUT type).
    pub fn types(self) -> (u8, u8) {
        match self {
            TexKind::Clut4_16 => (4, 1),
            TexKind::Clut4_32 => (4, 3),
            TexKind::Clut8_16 => (5, 0x81),
            TexKind::Clut8_32 => (5, 0x83),
            TexKind::Clut8_16_csm1 => (5, 1),
            TexKind::Clut8_32_csm1 => (5, 3),
            TexKind::Direct5551 => (1, 0),
            TexKind::Direct8888 => (3, 0),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            TexKind::Clut4_16 => "clut4_16",
            TexKind::Clut4_32 => "clut4_32",
            TexKind::Clut8_16 => "clut8_16",
            TexKind::Clut8_32 => "clut8_32",
            TexKind::Clut8_16_csm1 => "clut8_16_csm1",
            TexKind::Clut8_32_csm1 => "clut8_32_csm1",
            TexKind::Direct5551 => "direct5551",
            TexKind::Direct8888 => "direct8888",
        }
    }
}

const WHITE: [u8; 4] = [255, 255, 255, 255];
const MARKERS: [[u8; 4]; 4] = [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255], [255, 255, 0, 255]];
const CLEAR: [u8; 4] = [0, 0, 0, 0];

/// What a pixel shows.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Px {
    /// Background cell (column 0..16, row 0..15).
    Cell(u32, u32),
    Glyph,
    /// Corner marker 0..4 (TL, TR, BL, BR).
    Marker(usize),
    Hole,
}

fn classify(x: u32, y: u32, w: u32, h: u32, holes: bool) -> Px {
    // Fractions in 1/64 of the picture.
    let (fx, fy) = (x * 64 / w, y * 64 / h);
    let m = 8;
    let corner = match (fx < m, fx >= 64 - m, fy < m, fy >= 64 - m) {
        (true, _, true, _) => Some(0),
        (_, true, true, _) => Some(1),
        (true, _, _, true) => Some(2),
        (_, true, _, true) => Some(3),
        _ => None,
    };
    if let Some(c) = corner {
        return Px::Marker(c);
    }
    let stem = (16..22).contains(&fx) && (14..50).contains(&fy);
    let top = (16..40).contains(&fx) && (14..20).contains(&fy);
    let mid = (16..34).contains(&fx) && (29..35).contains(&fy);
    if stem || top || mid {
        return Px::Glyph;
    }
    let (cx, cy) = (x * 16 / w, y * 15 / h);
    if holes && (x * 4 / w + y * 4 / h) % 2 == 1 {
        return Px::Hole;
    }
    Px::Cell(cx, cy)
}

/// Background cell colour: red grows to the right, green downwards, blue alternates.
fn cell_rgba(cx: u32, cy: u32) -> [u8; 4] {
    [(40 + cx * 13) as u8, (40 + cy * 14) as u8, if (cx + cy).is_multiple_of(2) { 200 } else { 90 }, 255]
}

/// 4-bit background colour of a cell: 8 colours in 2 rows × 4 columns of blocks.
fn cell4(cx: u32, cy: u32) -> u8 {
    ((cx / 4) + 4 * ((cy * 2 / 15) % 2)) as u8
}

fn rgba(p: Px) -> [u8; 4] {
    match p {
        Px::Cell(cx, cy) => cell_rgba(cx, cy),
        Px::Glyph => WHITE,
        Px::Marker(i) => MARKERS[i],
        Px::Hole => CLEAR,
    }
}

fn palette4() -> Vec<[u8; 4]> {
    let mut p: Vec<[u8; 4]> = (0..8).map(|i| cell_rgba(i % 4 * 4 + 1, i / 4 * 8 + 2)).collect();
    p.push(WHITE); // 8
    p.extend(MARKERS); // 9..=12
    p.push(CLEAR); // 13
    p.push([0, 0, 0, 255]);
    p.push([128, 128, 128, 255]);
    p
}

fn index4(p: Px) -> u8 {
    match p {
        Px::Cell(cx, cy) => cell4(cx, cy),
        Px::Glyph => 8,
        Px::Marker(i) => 9 + i as u8,
        Px::Hole => 13,
    }
}

/// 8-bit palette: entries 0..240 are the cells (row-major), 240 white, 241..=244 markers,
/// 245 transparent, the rest grey.
fn palette8() -> Vec<[u8; 4]> {
    let mut p: Vec<[u8; 4]> = (0..240).map(|i| cell_rgba(i % 16, i / 16)).collect();
    p.push(WHITE);
    p.extend(MARKERS);
    p.push(CLEAR);
    p.resize(256, [128, 128, 128, 255]);
    p
}

fn index8(p: Px) -> u8 {
    match p {
        Px::Cell(cx, cy) => (cy * 16 + cx) as u8,
        Px::Glyph => 240,
        Px::Marker(i) => 241 + i as u8,
        Px::Hole => 245,
    }
}

fn rgba5551(c: [u8; 4]) -> [u8; 2] {
    let [r, g, b, a] = c.map(u16::from);
    ((r >> 3) | (g >> 3) << 5 | (b >> 3) << 10 | (a >> 7) << 15).to_le_bytes()
}

/// CSM1 entry order: index bits 3 and 4 exchanged (an involution) [tim2.rs `clut_linear`;
/// OpenKh `Tm2.cs` `SortClut`].
fn csm1(i: usize) -> usize {
    (i & !0x18) | ((i & 0x08) << 1) | ((i & 0x10) >> 1)
}

/// The TIM2 picture (one picture, no mip-maps) of `kind` at `w` × `h` (each clamped to 1..=1024).
pub fn picture(kind: TexKind, w: u32, h: u32, holes: bool) -> Picture {
    let (w, h) = (w.clamp(1, 1024), h.clamp(1, 1024));
    let (image_type, clut_type) = kind.types();
    let px: Vec<Px> = (0..h).flat_map(|y| (0..w).map(move |x| classify(x, y, w, h, holes))).collect();
    let (image, palette) = match kind {
        TexKind::Clut4_16 | TexKind::Clut4_32 => {
            let row = w.div_ceil(2) as usize;
            let mut img = vec![0u8; row * h as usize];
            for (i, &p) in px.iter().enumerate() {
                let (x, y) = (i % w as usize, i / w as usize);
                // First pixel of a byte in the low nibble [tim2.rs `indices`].
                img[y * row + x / 2] |= index4(p) << ((x & 1) * 4);
            }
            (img, palette4())
        }
        TexKind::Direct5551 => (px.iter().flat_map(|&p| rgba5551(rgba(p))).collect(), Vec::new()),
        TexKind::Direct8888 => (px.iter().flat_map(|&p| rgba(p)).collect(), Vec::new()),
        _ => (px.iter().map(|&p| index8(p)).collect(), palette8()),
    };
    let shuffled = clut_type & 0x80 == 0 && palette.len() == 256;
    let stored: Vec<[u8; 4]> = (0..palette.len()).map(|i| palette[if shuffled { csm1(i) } else { i }]).collect();
    let clut: Vec<u8> = match clut_type & 7 {
        1 => stored.iter().flat_map(|&c| rgba5551(c)).collect(),
        3 => stored.iter().flat_map(|&c| c).collect(),
        _ => Vec::new(),
    };
    Picture {
        clut_colors: palette.len() as u16,
        picture_format: 0,
        mipmaps: 1,
        clut_type,
        image_type,
        width: w as u16,
        height: h as u16,
        gs_tex0: 0,
        gs_tex1: 0,
        gs_regs: 0,
        gs_clut: 0,
        ext_header: Vec::new(),
        image,
        clut,
    }
}

/// The expected RGBA of every pixel (row-major) of [`picture`], computed without any CLUT
/// (for tests of texture decoders).
pub fn expected_rgba(kind: TexKind, w: u32, h: u32, holes: bool) -> Vec<[u8; 4]> {
    let (w, h) = (w.clamp(1, 1024), h.clamp(1, 1024));
    (0..h)
        .flat_map(|y| (0..w).map(move |x| classify(x, y, w, h, holes)))
        .map(|p| {
            let c = match kind {
                TexKind::Clut4_16 | TexKind::Clut4_32 => palette4()[usize::from(index4(p))],
                _ => rgba(p),
            };
            if matches!(kind, TexKind::Clut4_16 | TexKind::Clut8_16 | TexKind::Clut8_16_csm1 | TexKind::Direct5551) {
                let e = |v: u8| (v & 0xF8) | (v >> 5);
                [e(c[0]), e(c[1]), e(c[2]), if c[3] >= 128 { 255 } else { 0 }]
            } else {
                c
            }
        })
        .collect()
}

fn file(p: Picture) -> Vec<u8> {
    Tim2 { version: 4, format: 0, reserved: [0; 8], pictures: vec![p] }
        .to_bytes()
        // One picture with a 0x30-byte header always fits the TIM2 size fields.
        .unwrap_or_default()
}

/// TIM2 file bytes of the standard test picture in `kind`, `w` × `h` (clamped to 1..=1024).
pub fn tim2_image(kind: TexKind, w: u32, h: u32) -> Vec<u8> {
    file(picture(kind, w, h, false))
}

/// [`tim2_image`] with transparent holes (alpha 0) in a 4 × 4 checkerboard of the background.
pub fn tim2_image_alpha(kind: TexKind, w: u32, h: u32) -> Vec<u8> {
    file(picture(kind, w, h, true))
}
