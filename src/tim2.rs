//! TIM2 (`.tm2`) textures as embedded in BBS PMO/PMP files (ge-reference §18.3).
//!
//! Layout: a 16-byte file header ("TIM2", version, format, picture count, 8 reserved bytes;
//! with format != 0 the pictures start at 128), then per picture a 0x30-byte header (total,
//! CLUT and image sizes, header size, CLUT colour count, picture format, mip-map count, CLUT
//! type, image type, width, height, GsTex0/1, GsRegs, GsClut), the rest of the header (mip-map
//! / user data, kept raw), the image data and the CLUT.
//!
//! Pixel and CLUT byte order is the GE's (R in the low byte). With CLUT type bit 7 clear and
//! 256 colours the CLUT is in the PS2 "CSM1" order: entries 8-15 and 16-23 of every 32-entry
//! block are swapped; [`Picture::clut_linear`] undoes that (the GE has no such mode).

use thiserror::Error;

pub const MAGIC: &[u8; 4] = b"TIM2";
const FILE_HEADER: usize = 16;
const PICTURE_HEADER: usize = 0x30;
/// Largest width/height accepted (the GE itself stops at 512; PS2 at 1024).
pub const MAX_DIM: u16 = 4096;

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum Tim2Error {
    #[error("TIM2 truncated at offset {offset:#x}: {what} needs {need} bytes, {have} available")]
    Truncated { offset: usize, what: &'static str, need: usize, have: usize },
    #[error("TIM2 bad magic at offset {offset:#x}: {} (expected \"TIM2\")", crate::output::magic_text(found))]
    BadMagic { offset: usize, found: [u8; 4] },
    #[error("TIM2 absurd {what} {value} at offset {offset:#x}")]
    Absurd { offset: usize, what: &'static str, value: u64 },
    #[error("TIM2 picture at offset {offset:#x}: total size {total} != header {header} + image {image} + CLUT {clut}")]
    SizeMismatch { offset: usize, total: u32, header: u32, image: u32, clut: u32 },
    #[error("TIM2 picture at offset {offset:#x}: image data holds {have} bytes, {width}x{height} type {image_type} needs {need}")]
    ImageTooSmall { offset: usize, width: u16, height: u16, image_type: u8, need: usize, have: usize },
    #[error("TIM2 picture at offset {offset:#x}: indexed image type {image_type} with CLUT type {clut_type:#x}")]
    BadClut { offset: usize, image_type: u8, clut_type: u8 },
    #[error("TIM2 picture cannot be written: {what}")]
    Unwritable { what: &'static str },
}

/// A parsed TIM2 file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tim2 {
    pub version: u8,
    /// 0: headers 16-byte aligned (pictures start at 16); otherwise pictures start at 128.
    pub format: u8,
    pub reserved: [u8; 8],
    pub pictures: Vec<Picture>,
}

/// One TIM2 picture; sizes in the header are derived from the vectors when writing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Picture {
    pub clut_colors: u16,
    pub picture_format: u8,
    pub mipmaps: u8,
    /// Low bits: 1 = 16-bit 5551, 2 = 24-bit, 3 = 32-bit; bit 7 set = linear order, clear = CSM1.
    pub clut_type: u8,
    /// 1 = 16-bit 5551, 2 = 24-bit, 3 = 32-bit, 4 = 4-bit indexed, 5 = 8-bit indexed.
    pub image_type: u8,
    pub width: u16,
    pub height: u16,
    pub gs_tex0: u64,
    pub gs_tex1: u64,
    pub gs_regs: u32,
    pub gs_clut: u32,
    /// Header bytes after the fixed 0x30 (mip-map header, user data), raw.
    pub ext_header: Vec<u8>,
    /// Image data (all mip levels), raw.
    pub image: Vec<u8>,
    /// CLUT data as stored (possibly CSM1 order), raw.
    pub clut: Vec<u8>,
}

pub(crate) mod le {
    //! Bounds-checked little-endian reads; `None` when out of range.
    pub fn bytes<const N: usize>(b: &[u8], off: usize) -> Option<[u8; N]> {
        b.get(off..off.checked_add(N)?).map(|s| s.try_into().unwrap())
    }
    pub fn u16(b: &[u8], off: usize) -> Option<u16> {
        bytes::<2>(b, off).map(u16::from_le_bytes)
    }
    pub fn u32(b: &[u8], off: usize) -> Option<u32> {
        bytes::<4>(b, off).map(u32::from_le_bytes)
    }
    pub fn u64(b: &[u8], off: usize) -> Option<u64> {
        bytes::<8>(b, off).map(u64::from_le_bytes)
    }
    pub fn f32(b: &[u8], off: usize) -> Option<f32> {
        u32(b, off).map(f32::from_bits)
    }
}

/// Bits per pixel of an image type (None for unknown types).
pub fn bits_per_pixel(image_type: u8) -> Option<u32> {
    match image_type {
        1 => Some(16),
        2 => Some(24),
        3 => Some(32),
        4 => Some(4),
        5 => Some(8),
        _ => None,
    }
}

/// Bytes per CLUT entry of a CLUT type (None for unknown types).
pub fn clut_entry_size(clut_type: u8) -> Option<usize> {
    match clut_type & 7 {
        1 => Some(2),
        2 => Some(3),
        3 => Some(4),
        _ => None,
    }
}

fn need(b: &[u8], off: usize, n: usize, what: &'static str) -> Result<(), Tim2Error> {
    if off.checked_add(n).is_some_and(|e| e <= b.len()) {
        Ok(())
    } else {
        Err(Tim2Error::Truncated { offset: off, what, need: n, have: b.len().saturating_sub(off) })
    }
}

fn expand5(v: u16) -> u8 {
    let v = (v & 31) as u8;
    (v << 3) | (v >> 2)
}

/// One colour in a direct/CLUT encoding to RGBA8 (GE byte order, 5-bit replication, 1-bit alpha 0/255).
fn to_rgba(bytes: &[u8], entry: usize) -> [u8; 4] {
    match entry {
        2 => {
            let v = u16::from_le_bytes([bytes[0], bytes[1]]);
            [expand5(v), expand5(v >> 5), expand5(v >> 10), if v & 0x8000 != 0 { 255 } else { 0 }]
        }
        3 => [bytes[0], bytes[1], bytes[2], 255],
        _ => [bytes[0], bytes[1], bytes[2], bytes[3]],
    }
}

impl Tim2 {
    /// Parse a stand-alone TIM2 file.
    pub fn parse(bytes: &[u8]) -> Result<Tim2, Tim2Error> {
        Self::parse_at(bytes, 0).map(|(t, _)| t)
    }

    /// Parse the TIM2 that starts at `base` in `file`; errors name absolute offsets in `file`.
    /// Returns the TIM2 and its length in bytes.
    pub fn parse_at(file: &[u8], base: usize) -> Result<(Tim2, usize), Tim2Error> {
        need(file, base, FILE_HEADER, "TIM2 file header")?;
        let magic = le::bytes::<4>(file, base).unwrap();
        if &magic != MAGIC {
            return Err(Tim2Error::BadMagic { offset: base, found: magic });
        }
        let version = file[base + 4];
        let format = file[base + 5];
        let count = le::u16(file, base + 6).unwrap();
        let reserved = le::bytes::<8>(file, base + 8).unwrap();
        let mut p = base + if format == 0 { FILE_HEADER } else { 128 };
        // Each picture needs at least its 0x30-byte header.
        let room = file.len().saturating_sub(p);
        if usize::from(count) * PICTURE_HEADER > room {
            return Err(Tim2Error::Absurd { offset: base + 6, what: "picture count", value: count.into() });
        }
        let mut pictures = Vec::with_capacity(count.into());
        for _ in 0..count {
            let (pic, len) = Picture::parse_at(file, p)?;
            pictures.push(pic);
            p += len;
        }
        Ok((Tim2 { version, format, reserved, pictures }, p - base))
    }

    /// Serialise (the inverse of [`Tim2::parse`]).
    pub fn to_bytes(&self) -> Result<Vec<u8>, Tim2Error> {
        let count = u16::try_from(self.pictures.len()).map_err(|_| Tim2Error::Unwritable { what: "picture count" })?;
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        out.push(self.version);
        out.push(self.format);
        out.extend_from_slice(&count.to_le_bytes());
        out.extend_from_slice(&self.reserved);
        if self.format != 0 {
            out.resize(128, 0);
        }
        for pic in &self.pictures {
            pic.write(&mut out)?;
        }
        Ok(out)
    }
}

impl Picture {
    fn parse_at(file: &[u8], p: usize) -> Result<(Picture, usize), Tim2Error> {
        need(file, p, PICTURE_HEADER, "TIM2 picture header")?;
        let total = le::u32(file, p).unwrap();
        let clut_size = le::u32(file, p + 4).unwrap();
        let image_size = le::u32(file, p + 8).unwrap();
        let header_size = le::u16(file, p + 12).unwrap();
        let sum = u64::from(clut_size) + u64::from(image_size) + u64::from(header_size);
        if sum != u64::from(total) {
            return Err(Tim2Error::SizeMismatch {
                offset: p,
                total,
                header: header_size.into(),
                image: image_size,
                clut: clut_size,
            });
        }
        if usize::from(header_size) < PICTURE_HEADER {
            return Err(Tim2Error::Absurd { offset: p + 12, what: "picture header size", value: header_size.into() });
        }
        need(file, p, total as usize, "TIM2 picture")?;
        let pic = Picture {
            clut_colors: le::u16(file, p + 14).unwrap(),
            picture_format: file[p + 16],
            mipmaps: file[p + 17],
            clut_type: file[p + 18],
            image_type: file[p + 19],
            width: le::u16(file, p + 20).unwrap(),
            height: le::u16(file, p + 22).unwrap(),
            gs_tex0: le::u64(file, p + 24).unwrap(),
            gs_tex1: le::u64(file, p + 32).unwrap(),
            gs_regs: le::u32(file, p + 40).unwrap(),
            gs_clut: le::u32(file, p + 44).unwrap(),
            ext_header: file[p + PICTURE_HEADER..p + usize::from(header_size)].to_vec(),
            image: file[p + usize::from(header_size)..p + usize::from(header_size) + image_size as usize].to_vec(),
            clut: file[p + usize::from(header_size) + image_size as usize..p + total as usize].to_vec(),
        };
        pic.check(p)?;
        Ok((pic, total as usize))
    }

    fn check(&self, p: usize) -> Result<(), Tim2Error> {
        for (v, o, what) in [(self.width, 20, "width"), (self.height, 22, "height")] {
            if v == 0 || v > MAX_DIM {
                return Err(Tim2Error::Absurd { offset: p + o, what, value: v.into() });
            }
        }
        let Some(bpp) = bits_per_pixel(self.image_type) else {
            return Err(Tim2Error::Absurd { offset: p + 19, what: "image type", value: self.image_type.into() });
        };
        let need = self.row_bytes(bpp) * usize::from(self.height);
        if self.image.len() < need {
            return Err(Tim2Error::ImageTooSmall {
                offset: p,
                width: self.width,
                height: self.height,
                image_type: self.image_type,
                need,
                have: self.image.len(),
            });
        }
        if self.is_indexed() {
            let Some(es) = clut_entry_size(self.clut_type) else {
                return Err(Tim2Error::BadClut {
                    offset: p + 18,
                    image_type: self.image_type,
                    clut_type: self.clut_type,
                });
            };
            if usize::from(self.clut_colors) * es > self.clut.len() {
                return Err(Tim2Error::Absurd {
                    offset: p + 14,
                    what: "CLUT colour count",
                    value: self.clut_colors.into(),
                });
            }
        }
        Ok(())
    }

    fn row_bytes(&self, bpp: u32) -> usize {
        (usize::from(self.width) * bpp as usize).div_ceil(8)
    }

    fn write(&self, out: &mut Vec<u8>) -> Result<(), Tim2Error> {
        let header = PICTURE_HEADER + self.ext_header.len();
        let header16 = u16::try_from(header).map_err(|_| Tim2Error::Unwritable { what: "header size" })?;
        let total = header + self.image.len() + self.clut.len();
        let total = u32::try_from(total).map_err(|_| Tim2Error::Unwritable { what: "picture size" })?;
        out.extend_from_slice(&total.to_le_bytes());
        out.extend_from_slice(&(self.clut.len() as u32).to_le_bytes());
        out.extend_from_slice(&(self.image.len() as u32).to_le_bytes());
        out.extend_from_slice(&header16.to_le_bytes());
        out.extend_from_slice(&self.clut_colors.to_le_bytes());
        out.extend_from_slice(&[self.picture_format, self.mipmaps, self.clut_type, self.image_type]);
        out.extend_from_slice(&self.width.to_le_bytes());
        out.extend_from_slice(&self.height.to_le_bytes());
        out.extend_from_slice(&self.gs_tex0.to_le_bytes());
        out.extend_from_slice(&self.gs_tex1.to_le_bytes());
        out.extend_from_slice(&self.gs_regs.to_le_bytes());
        out.extend_from_slice(&self.gs_clut.to_le_bytes());
        out.extend_from_slice(&self.ext_header);
        out.extend_from_slice(&self.image);
        out.extend_from_slice(&self.clut);
        Ok(())
    }

    /// A single-level picture with no GS register images or extra header bytes;
    /// `clut_colors` is taken from the CLUT length.
    pub fn new(image_type: u8, clut_type: u8, width: u16, height: u16, image: Vec<u8>, clut: Vec<u8>) -> Picture {
        let es = clut_entry_size(clut_type).unwrap_or(1);
        Picture {
            clut_colors: u16::try_from(clut.len() / es).unwrap_or(u16::MAX),
            picture_format: 0,
            mipmaps: 1,
            clut_type,
            image_type,
            width,
            height,
            gs_tex0: 0,
            gs_tex1: 0,
            gs_regs: 0,
            gs_clut: 0,
            ext_header: Vec::new(),
            image,
            clut,
        }
    }

    pub fn is_indexed(&self) -> bool {
        matches!(self.image_type, 4 | 5)
    }

    /// True when the CLUT is stored in CSM1 order and must be un-shuffled (bit 7 clear, 256 colours).
    pub fn clut_is_csm1_shuffled(&self) -> bool {
        self.clut_type & 0x80 == 0 && self.clut_colors == 256
    }

    /// The CLUT bytes (`clut_colors` entries) in linear index order: entry i is the colour of index i.
    pub fn clut_linear(&self) -> Vec<u8> {
        let Some(es) = clut_entry_size(self.clut_type) else {
            return Vec::new();
        };
        let n = usize::from(self.clut_colors).min(self.clut.len() / es);
        let raw = &self.clut[..n * es];
        if !self.clut_is_csm1_shuffled() {
            return raw.to_vec();
        }
        let mut out = raw.to_vec();
        for i in 0..n {
            // Exchange index bits 3 and 4.
            let j = (i & !0x18) | ((i & 0x08) << 1) | ((i & 0x10) >> 1);
            out[i * es..(i + 1) * es].copy_from_slice(&raw[j * es..(j + 1) * es]);
        }
        out
    }

    /// The palette as RGBA8 in linear index order.
    pub fn palette(&self) -> Vec<[u8; 4]> {
        let Some(es) = clut_entry_size(self.clut_type) else {
            return Vec::new();
        };
        self.clut_linear().chunks_exact(es).map(|c| to_rgba(c, es)).collect()
    }

    /// Palette index of every pixel of the first mip level (row-major), for indexed images.
    /// 4-bit images hold the first pixel in the low nibble.
    pub fn indices(&self) -> Option<Vec<u8>> {
        let bpp = bits_per_pixel(self.image_type)?;
        let row = self.row_bytes(bpp);
        let (w, h) = (usize::from(self.width), usize::from(self.height));
        match self.image_type {
            5 => Some((0..h).flat_map(|y| self.image[y * row..y * row + w].iter().copied()).collect()),
            4 => Some(
                (0..h)
                    .flat_map(|y| (0..w).map(move |x| (y, x)))
                    .map(|(y, x)| (self.image[y * row + x / 2] >> ((x & 1) * 4)) & 15)
                    .collect(),
            ),
            _ => None,
        }
    }

    /// Every pixel of the first mip level as RGBA8 (row-major). Indices past the CLUT give 0.
    pub fn rgba(&self) -> Vec<[u8; 4]> {
        if let Some(idx) = self.indices() {
            let pal = self.palette();
            return idx.iter().map(|&i| pal.get(usize::from(i)).copied().unwrap_or([0; 4])).collect();
        }
        let Some(bpp) = bits_per_pixel(self.image_type) else {
            return Vec::new();
        };
        let es = bpp as usize / 8;
        let row = self.row_bytes(bpp);
        let (w, h) = (usize::from(self.width), usize::from(self.height));
        (0..h)
            .flat_map(|y| (0..w).map(move |x| y * row + x * es))
            .map(|o| to_rgba(&self.image[o..o + es], es))
            .collect()
    }
}

/// Test fixture shared by the PMO and PMP tests: a one-picture TIM2 file holding a
/// 4-bit indexed image with a 16-colour 32-bit CLUT.
#[cfg(test)]
pub(crate) fn clut4_test_file(width: u16, height: u16, image: Vec<u8>, clut: Vec<u8>) -> Vec<u8> {
    Tim2 {
        version: 4,
        format: 0,
        reserved: [0; 8],
        pictures: vec![Picture { clut_colors: 16, ..Picture::new(4, 3, width, height, image, clut) }],
    }
    .to_bytes()
    .expect("a valid TIM2")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn picture(image_type: u8, clut_type: u8, w: u16, h: u16, colors: u16) -> Picture {
        let bpp = bits_per_pixel(image_type).unwrap();
        let n = (usize::from(w) * bpp as usize).div_ceil(8) * usize::from(h);
        let es = clut_entry_size(clut_type).unwrap_or(0);
        let image = (0..n).map(|i| (i * 7) as u8).collect();
        let clut = (0..usize::from(colors) * es).map(|i| (i * 13 + 1) as u8).collect();
        Picture { clut_colors: colors, gs_tex0: 0x1234, ..Picture::new(image_type, clut_type, w, h, image, clut) }
    }

    fn sample() -> Tim2 {
        Tim2 {
            version: 4,
            format: 0,
            reserved: [0; 8],
            pictures: vec![
                picture(5, 3, 16, 16, 256),
                picture(4, 1, 8, 4, 16),
                picture(1, 0, 4, 4, 0),
                picture(2, 0, 3, 2, 0),
                picture(3, 0, 4, 2, 0),
                picture(5, 0x82, 4, 4, 256),
            ],
        }
    }

    #[test]
    fn round_trip_all_types() {
        let t = sample();
        let b = t.to_bytes().unwrap();
        assert_eq!(Tim2::parse(&b).unwrap(), t);
        let mut t128 = t.clone();
        t128.format = 1;
        let b = t128.to_bytes().unwrap();
        assert_eq!(&b[16..128], &[0u8; 112][..]);
        assert_eq!(Tim2::parse(&b).unwrap(), t128);
    }

    #[test]
    fn csm1_unshuffle_swaps_8_15_with_16_23() {
        let mut p = picture(5, 3, 16, 16, 256);
        p.clut = (0..256u32).flat_map(|i| [i as u8, 0, 0, 255]).collect();
        let pal = p.palette();
        for blk in 0..8 {
            for k in 0..32 {
                let want = match k {
                    8..=15 => k + 8,
                    16..=23 => k - 8,
                    _ => k,
                };
                assert_eq!(pal[blk * 32 + k][0] as usize, blk * 32 + want);
            }
        }
        // Linear flag (bit 7) and 16-colour CLUTs are not shuffled.
        p.clut_type = 0x83;
        assert_eq!(p.palette()[8][0], 8);
        let mut q = picture(4, 3, 8, 4, 16);
        q.clut = (0..16u32).flat_map(|i| [i as u8, 0, 0, 255]).collect();
        assert_eq!(q.palette()[8][0], 8);
    }

    /// ge-reference §18.3: on the dummy's 512x512 CLUT8 texture the un-shuffled palette gives
    /// a much smoother image than the CLUT read in stored order.
    #[test]
    fn sample_csm1_unshuffle_makes_the_dummy_texture_coherent() {
        let Some(b) = crate::pmo::tests::sample("bbs-dummy.pmo") else {
            return;
        };
        let t = Tim2::parse(&b[0x2300..]).unwrap();
        let p = &t.pictures[0];
        assert!(p.clut_is_csm1_shuffled());
        let roughness = |pic: &Picture| {
            let px = pic.rgba();
            let w = usize::from(pic.width);
            let (mut sum, mut n) = (0u64, 0u64);
            for (i, pair) in px.windows(2).enumerate() {
                if (i + 1) % w != 0 {
                    sum += (0..3).map(|c| u64::from(pair[0][c].abs_diff(pair[1][c]))).sum::<u64>();
                    n += 3;
                }
            }
            sum as f64 / n as f64
        };
        let mut raw = p.clone();
        raw.clut_type |= 0x80;
        let (good, bad) = (roughness(p), roughness(&raw));
        assert!(good < bad * 0.8, "un-shuffled {good} vs stored order {bad}");
        assert!(p.palette().iter().all(|c| c[3] == 0 || c[3] == 255));
    }

    #[test]
    fn pixel_decoding() {
        let mut p = picture(1, 0, 2, 1, 0);
        p.image = vec![0x1f, 0x80, 0xe0, 0x03];
        assert_eq!(p.rgba(), vec![[255, 0, 0, 255], [0, 255, 0, 0]]);
        let mut p = picture(4, 3, 2, 1, 16);
        p.image = vec![0x21];
        p.clut = (0..16u32).flat_map(|i| [i as u8, 1, 2, 3]).collect();
        assert_eq!(p.indices().unwrap(), vec![1, 2]);
        assert_eq!(p.rgba(), vec![[1, 1, 2, 3], [2, 1, 2, 3]]);
        let mut p = picture(2, 0, 1, 1, 0);
        p.image = vec![9, 8, 7];
        assert_eq!(p.rgba(), vec![[9, 8, 7, 255]]);
    }

    #[test]
    fn truncated_and_bad_input_errors_never_panic() {
        let b = sample().to_bytes().unwrap();
        for n in 0..b.len() {
            let e = Tim2::parse(&b[..n]).unwrap_err();
            assert!(e.to_string().contains("offset 0x"), "{e}");
        }
        let mut bad = b.clone();
        bad[0] = b'X';
        assert!(matches!(Tim2::parse(&bad), Err(Tim2Error::BadMagic { offset: 0, .. })));
        let mut bad = b.clone();
        bad[6] = 0xff;
        bad[7] = 0xff;
        assert!(matches!(Tim2::parse(&bad), Err(Tim2Error::Absurd { offset: 6, .. })));
        let mut bad = b.clone();
        bad[16] ^= 1; // total size
        assert!(matches!(Tim2::parse(&bad), Err(Tim2Error::SizeMismatch { offset: 16, .. })));
        let mut bad = b.clone();
        bad[16 + 19] = 9; // image type
        assert!(matches!(Tim2::parse(&bad), Err(Tim2Error::Absurd { offset: 35, .. })));
        let mut bad = b;
        bad[16 + 20] = 0;
        bad[16 + 21] = 0; // width 0
        assert!(matches!(Tim2::parse(&bad), Err(Tim2Error::Absurd { offset: 36, .. })));
    }
}
