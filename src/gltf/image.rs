//! Textures as PNG: each [`GeTexture`] is loaded into a GE exactly as the scene builder loads
//! it (TEXFORMAT, TEXADDR0/TEXBUFWIDTH0/TEXSIZE0, CLUTFORMAT + LOADCLUT) and read back texel by
//! texel through the GE's own texture decoder (`ge::texture::decode_level`), so the PNG holds
//! what the GE samples: CLUT applied, 5551 expanded the GE's way, 24-bit pictures opaque. The
//! power-of-two padding the GE needs is cropped off: the PNG is the TIM2 picture's own size,
//! so the decoded UVs address it unchanged (texel = u · picture width either way).

use super::GltfError;
use crate::scene::texture::GeTexture;
use ge::cmd::op;
use ge::list::ListBuilder;

/// RGBA8 rows (width × height, row-major) of `t` as the GE's texture unit decodes them.
pub fn ge_texels(ge: &mut ge::Ge, t: &GeTexture) -> Result<Vec<[u8; 4]>, GltfError> {
    let mut l = ListBuilder::new();
    let addr = l.add_data(&t.data);
    l.cmd(op::TEXFORMAT, t.format)
        .cmd(op::TEXADDR0, addr & 0xFF_FFF0)
        .cmd(op::TEXBUFWIDTH0, ((addr >> 8) & 0x0F_0000) | t.bufw)
        .cmd(op::TEXSIZE0, t.log2w | (t.log2h << 8));
    if let Some((clut, fmt)) = &t.clut {
        l.cmd(op::CLUTFORMAT, fmt | (0xFF << 8)).clut(clut);
    }
    l.cmd(op::TEXFLUSH, 0).finish();
    l.run(ge).map_err(|e| GltfError::Ge(e.to_string()))?;
    let st = ge::texture::TextureState::decode(&ge.state.regs, &ge.state.clut, false);
    let level = ge::texture::decode_level(&st, &ge.mem, 0);
    let pw = 1usize << t.log2w;
    let (w, h) = (usize::from(t.width), usize::from(t.height));
    if level.len() < pw * h {
        return Err(GltfError::Ge(format!("texture level of {} texels, expected {pw}x{h}", level.len())));
    }
    Ok((0..h).flat_map(|y| level[y * pw..y * pw + w].iter().copied()).collect())
}

/// PNG bytes (RGBA8) of `w` × `h` texels.
pub fn encode_png(texels: &[[u8; 4]], w: u32, h: u32) -> Result<Vec<u8>, GltfError> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, w, h);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let mut wr = enc.write_header().map_err(|e| GltfError::Png(e.to_string()))?;
        let flat: Vec<u8> = texels.iter().flatten().copied().collect();
        wr.write_image_data(&flat).map_err(|e| GltfError::Png(e.to_string()))?;
    }
    Ok(out)
}

/// Whether any texel is not fully opaque, and whether any is fully transparent.
pub fn alpha_use(texels: &[[u8; 4]]) -> (bool, bool) {
    (texels.iter().any(|t| t[3] != 0xFF), texels.iter().any(|t| t[3] == 0))
}
