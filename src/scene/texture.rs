//! TIM2 pictures as GE textures (ge-reference §18.3): the pixel bytes keep their format
//! wherever the GE has it (CLUT4, CLUT8, 5551, 8888), so sampling, CLUT lookup and filtering
//! all happen in the GE's texture unit. Only what the GE cannot read is converted: 24-bit
//! pixels and 24-bit CLUT entries become 8888 with alpha 0xFF, and CSM1-ordered CLUTs are
//! un-shuffled ([`Picture::clut_linear`]).
//!
//! Rows are re-packed to a stride that is a multiple of 16 bytes, because the GE rounds
//! TEXBUFWIDTH down to 16 bytes (ge-reference §10.1, PP `GetTextureBufw`). Sizes that are not
//! powers of two get TEXSIZE rounded up plus a UV scale of size / 2^n (guess: how BBS maps
//! its 80×40 and 64×56 textures is unknown); the padding repeats the last column and row so
//! bilinear filtering at the edge stays clean.

use crate::tim2::{bits_per_pixel, clut_entry_size, Picture, Tim2};
use thiserror::Error;

/// GE texture formats used here (TEXFORMAT argument).
pub const TF_5551: u32 = 1;
pub const TF_8888: u32 = 3;
pub const TF_CLUT4: u32 = 4;
pub const TF_CLUT8: u32 = 5;

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum TextureError {
    #[error("TIM2 has no pictures")]
    NoPicture,
    #[error("TIM2 picture {width}x{height} exceeds the GE's 512x512 texture limit")]
    TooLarge { width: u16, height: u16 },
    #[error("TIM2 picture of size {width}x{height} is empty")]
    Empty { width: u16, height: u16 },
    #[error("TIM2 image type {0} has no GE texture format")]
    ImageType(u8),
    #[error("TIM2 CLUT type {0:#x} has no GE CLUT format")]
    ClutType(u8),
    #[error("TIM2 image data shorter than its {width}x{height} size")]
    Short { width: u16, height: u16 },
}

/// A texture ready for upload: level-0 bytes plus an optional CLUT.
#[derive(Debug, Clone, PartialEq)]
pub struct GeTexture {
    pub format: u32,
    pub width: u16,
    pub height: u16,
    pub log2w: u32,
    pub log2h: u32,
    /// Row stride in texels (TEXBUFWIDTH).
    pub bufw: u32,
    pub data: Vec<u8>,
    /// CLUT bytes in linear order and the CLUTFORMAT palette format (1 = 5551, 3 = 8888).
    pub clut: Option<(Vec<u8>, u32)>,
    /// TEXSCALEU/V: picture size over power-of-two size.
    pub uv_scale: [f32; 2],
}

fn log2_ceil(n: u16) -> u32 {
    u32::from(n).next_power_of_two().trailing_zeros()
}

impl GeTexture {
    /// Picture 0 of `tim2` as a GE texture.
    pub fn from_tim2(tim2: &Tim2) -> Result<GeTexture, TextureError> {
        Self::from_picture(tim2.pictures.first().ok_or(TextureError::NoPicture)?)
    }

    pub fn from_picture(p: &Picture) -> Result<GeTexture, TextureError> {
        let (w, h) = (p.width, p.height);
        if w == 0 || h == 0 {
            return Err(TextureError::Empty { width: w, height: h });
        }
        if w > 512 || h > 512 {
            return Err(TextureError::TooLarge { width: w, height: h });
        }
        let bpp = bits_per_pixel(p.image_type).ok_or(TextureError::ImageType(p.image_type))?;
        let (format, out_bpp) = match p.image_type {
            1 => (TF_5551, 16),
            2 | 3 => (TF_8888, 32),
            4 => (TF_CLUT4, 4),
            _ => (TF_CLUT8, 8),
        };
        let src_row = (usize::from(w) * bpp as usize).div_ceil(8);
        if p.image.len() < src_row * usize::from(h) {
            return Err(TextureError::Short { width: w, height: h });
        }
        let (log2w, log2h) = (log2_ceil(w), log2_ceil(h));
        let (pw, ph) = (1usize << log2w, 1usize << log2h);
        // Stride: at least the power-of-two width, a multiple of 16 bytes.
        let row_bytes = (pw * out_bpp).div_ceil(8).next_multiple_of(16);
        let bufw = (row_bytes * 8 / out_bpp) as u32;
        let mut data = vec![0u8; row_bytes * ph];
        for y in 0..ph {
            let sy = y.min(usize::from(h) - 1);
            let src = &p.image[sy * src_row..(sy + 1) * src_row];
            let dst = &mut data[y * row_bytes..(y + 1) * row_bytes];
            for x in 0..bufw as usize {
                let sx = x.min(usize::from(w) - 1);
                match p.image_type {
                    4 => {
                        let v = (src[sx / 2] >> ((sx & 1) * 4)) & 15;
                        dst[x / 2] |= v << ((x & 1) * 4);
                    }
                    5 => dst[x] = src[sx],
                    1 => dst[2 * x..2 * x + 2].copy_from_slice(&src[2 * sx..2 * sx + 2]),
                    2 => {
                        dst[4 * x..4 * x + 3].copy_from_slice(&src[3 * sx..3 * sx + 3]);
                        dst[4 * x + 3] = 0xFF;
                    }
                    _ => dst[4 * x..4 * x + 4].copy_from_slice(&src[4 * sx..4 * sx + 4]),
                }
            }
        }
        let clut = if p.is_indexed() { Some(Self::clut(p)?) } else { None };
        Ok(GeTexture {
            format,
            width: w,
            height: h,
            log2w,
            log2h,
            bufw,
            data,
            clut,
            uv_scale: [f32::from(w) / pw as f32, f32::from(h) / ph as f32],
        })
    }

    fn clut(p: &Picture) -> Result<(Vec<u8>, u32), TextureError> {
        let es = clut_entry_size(p.clut_type).ok_or(TextureError::ClutType(p.clut_type))?;
        let linear = p.clut_linear();
        let (mut bytes, fmt) = match es {
            2 => (linear, 1),
            3 => (linear.chunks_exact(3).flat_map(|c| [c[0], c[1], c[2], 0xFF]).collect(), 3),
            4 => (linear, 3),
            _ => return Err(TextureError::ClutType(p.clut_type)),
        };
        // LOADCLUT moves whole 32-byte blocks.
        bytes.resize(bytes.len().next_multiple_of(32).max(32), 0);
        Ok((bytes, fmt))
    }

    /// Whether the texture needs clamping (padding past the picture would otherwise repeat).
    pub fn is_pow2(&self) -> bool {
        self.uv_scale == [1.0, 1.0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn picture(image_type: u8, clut_type: u8, w: u16, h: u16, image: Vec<u8>, clut: Vec<u8>, colors: u16) -> Picture {
        Picture { clut_colors: colors, ..Picture::new(image_type, clut_type, w, h, image, clut) }
    }

    #[test]
    fn clut8_csm1_is_unshuffled_and_rows_padded() {
        // 256 colours, CSM1 order: stored entry 8 holds the colour of index 16.
        let mut clut = Vec::new();
        for i in 0..256u32 {
            let j = (i & !0x18) | ((i & 0x08) << 1) | ((i & 0x10) >> 1);
            clut.extend_from_slice(&(0xFF00_0000 | j).to_le_bytes());
        }
        let image: Vec<u8> = (0..8 * 2).map(|i| i as u8).collect();
        let t = GeTexture::from_picture(&picture(5, 3, 8, 2, image, clut, 256)).unwrap();
        assert_eq!((t.format, t.log2w, t.log2h, t.bufw), (TF_CLUT8, 3, 1, 16));
        let (c, fmt) = t.clut.unwrap();
        assert_eq!(fmt, 3);
        for i in 0..256usize {
            assert_eq!(u32::from_le_bytes(c[4 * i..4 * i + 4].try_into().unwrap()), 0xFF00_0000 | i as u32);
        }
        // Row 1 starts at 16 bytes; columns 8..16 repeat texel 7.
        assert_eq!(&t.data[16..24], &[8, 9, 10, 11, 12, 13, 14, 15]);
        assert!(t.data[24..32].iter().all(|&b| b == 15));
    }

    #[test]
    fn non_pow2_clut4_and_24bit() {
        // 3x3 CLUT4 picture: rows of 2 bytes, low nibble first.
        let image = vec![0x21, 0x03, 0x54, 0x06, 0x87, 0x09];
        let clut: Vec<u8> = (0..16u8).flat_map(|i| [i, i, i]).collect();
        let t = GeTexture::from_picture(&picture(4, 2 | 0x80, 3, 3, image, clut, 16)).unwrap();
        assert_eq!((t.format, t.log2w, t.log2h, t.bufw), (TF_CLUT4, 2, 2, 32));
        assert_eq!(t.uv_scale, [0.75, 0.75]);
        // Row 0: texels 1,2,3 then repeats 3.
        assert_eq!(&t.data[0..2], &[0x21, 0x33]);
        // Row 3 repeats row 2 (7, 8, 9).
        assert_eq!(&t.data[48..50], &[0x87, 0x99]);
        let (c, fmt) = t.clut.unwrap();
        assert_eq!((fmt, c.len()), (3, 64));
        assert_eq!(&c[4 * 5..4 * 6], &[5, 5, 5, 0xFF]);
        // Direct 24-bit becomes 8888.
        let t = GeTexture::from_picture(&picture(2, 0, 1, 1, vec![1, 2, 3], vec![], 0)).unwrap();
        assert_eq!((t.format, &t.data[..4]), (TF_8888, &[1u8, 2, 3, 0xFF][..]));
    }

    #[test]
    fn rejects() {
        assert_eq!(
            GeTexture::from_picture(&picture(5, 3, 1024, 4, vec![0; 4096], vec![0; 1024], 256)),
            Err(TextureError::TooLarge { width: 1024, height: 4 })
        );
        assert_eq!(
            GeTexture::from_picture(&picture(3, 0, 4, 4, vec![0; 10], vec![], 0)),
            Err(TextureError::Short { width: 4, height: 4 })
        );
        assert_eq!(
            GeTexture::from_tim2(&Tim2 { version: 4, format: 0, reserved: [0; 8], pictures: vec![] }),
            Err(TextureError::NoPicture)
        );
    }
}
