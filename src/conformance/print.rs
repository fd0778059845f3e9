//! How each pspautotests readback test prints what it read back, transcribed from the
//! test sources (hrydgard/pspautotests `tests/gpu/<group>/<name>.cpp`, cited per printer).
//!
//! A printer turns the sequence of [`Capture`]s of one test into the value text of each
//! printed entry (what follows `title: `). The titles themselves are the test's own
//! strings (its parameters, not GPU output) and come from the reference transcript; see
//! [`super::transcript`].

use thiserror::Error;

/// What one readback showed the test program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capture {
    /// The bytes the CPU copied (`readback_size` bytes from `readback_src`).
    pub bytes: Vec<u8>,
    /// Colour framebuffer format (0 = 565, 1 = 5551, 2 = 4444, 3 = 8888).
    pub fb_format: u32,
    /// Pixel (0,0) of the colour buffer when the readback was of the depth buffer
    /// (depth/precision copies both); `None` when not known (PPSSPP's `readback.bin` holds
    /// only the depth buffer).
    pub color0: Option<u32>,
}

impl Capture {
    fn u32_at(&self, index: usize) -> Option<u32> {
        let b = self.bytes.get(index * 4..index * 4 + 4)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn u16_at(&self, index: usize) -> Option<u16> {
        let b = self.bytes.get(index * 2..index * 2 + 2)?;
        Some(u16::from_le_bytes([b[0], b[1]]))
    }
    /// 32-bit pixel (x, y) of a 512-wide buffer.
    fn px(&self, x: usize, y: usize) -> Result<u32, PrintError> {
        self.u32_at(y * 512 + x).ok_or(PrintError::OutOfRange { x, y, len: self.bytes.len() })
    }
}

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum PrintError {
    #[error("unknown readback test {0:?}")]
    UnknownTest(String),
    #[error("{entries} printed entries need {need} readbacks, the archive has {have}")]
    Count { entries: usize, need: usize, have: usize },
    #[error("pixel ({x},{y}) lies outside the {len}-byte readback")]
    OutOfRange { x: usize, y: usize, len: usize },
    #[error("the colour buffer was not captured with this depth readback")]
    NoColor,
}

/// The printing routine a test uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Printer {
    /// `checkpoint("%s: COLOR=%08x", reason, readDispBuffer())`: pixel (0,0), raw ABGR
    /// [filtering/linear.cpp, nearest.cpp, mipmaplinear.cpp, texfunc/*.cpp displayBuffer].
    Color,
    /// `"%06x"` of `buf[0] & 0x00FFFFFF` [clut/*.cpp, texcolors/rgb*.cpp, textures/mipmap.cpp].
    Rgb,
    /// Two readbacks per entry, `"%06x / %06x"` of `copybuf[0] & 0xFFFFFF`, alpha hidden
    /// then exposed [texcolors/dxt1.cpp testDrawingBox].
    RgbPair,
    /// The precision scan [filtering/precision*.cpp displayBuffer]; `through` = the 2D
    /// variants, whose not-found colour is an uninitialised local.
    Precision { through: bool },
    /// Four rows of four pixels per block [dither/dither.cpp draw + printRow].
    Dither,
    /// Low byte of colour pixel (0,0) [depth/precision.cpp displayBuffer,
    /// `DISPLAY_DEPTH_VALUES = false`].
    DepthColor,
    /// `DRAW=1` when any visible pixel is 0xFFFFFF in its low 24 bits [clipping/guardband.cpp].
    Guardband,
    /// Counts of drawn pixels [clipping/homogeneous.cpp drawTR, drawWithW, drawLinearW].
    Homogeneous,
    /// 2x2 pixels on two lines [textures/rotate.cpp displayBuffer].
    Rotate,
    /// Corner and centre pixels [textures/size.cpp testTextureFormat].
    Size,
}

impl Printer {
    pub fn for_test(name: &str) -> Result<Printer, PrintError> {
        Ok(match name {
            "filtering-linear" | "filtering-nearest" | "filtering-mipmaplinear" => Printer::Color,
            n if n.starts_with("texfunc-") => Printer::Color,
            "filtering-precisionlinear2d" | "filtering-precisionnearest2d" => Printer::Precision { through: true },
            "filtering-precisionlinear3d" | "filtering-precisionnearest3d" => Printer::Precision { through: false },
            "texcolors-dxt1" | "texcolors-dxt3" | "texcolors-dxt5" => Printer::RgbPair,
            "texcolors-rgb565" | "texcolors-rgba4444" | "texcolors-rgba5551" => Printer::Rgb,
            "clut-address" | "clut-masks" | "clut-offset" | "clut-shifts" | "textures-mipmap" => Printer::Rgb,
            "dither-dither" => Printer::Dither,
            "depth-precision" => Printer::DepthColor,
            "clipping-guardband" => Printer::Guardband,
            "clipping-homogeneous" => Printer::Homogeneous,
            "textures-rotate" => Printer::Rotate,
            "textures-size" => Printer::Size,
            other => return Err(PrintError::UnknownTest(other.to_owned())),
        })
    }

    /// Physical output lines per printed entry.
    pub fn lines_per_entry(self) -> usize {
        if self == Printer::Rotate {
            2
        } else {
            1
        }
    }

    /// Readbacks needed for `entries` printed entries.
    pub fn readbacks_for(self, entries: usize) -> usize {
        match self {
            Printer::RgbPair => entries * 2,
            Printer::Dither => entries.div_ceil(4),
            // The "Initial" entry reads the CPU's own copy of the cleared buffer
            // (clearDispBuffer leaves bufDirty false), so no readback and no dump.
            Printer::Precision { .. } => entries.saturating_sub(1),
            _ => entries,
        }
    }

    /// The value text of each entry (`titles[i]` is entry i's title), from `captures` in
    /// readback order. An entry whose value cannot be formed is an `Err`.
    pub fn print(self, titles: &[&str], captures: &[Capture]) -> Result<Vec<Result<String, PrintError>>, PrintError> {
        let need = self.readbacks_for(titles.len());
        if need != captures.len() {
            return Err(PrintError::Count { entries: titles.len(), need, have: captures.len() });
        }
        Ok(titles.iter().enumerate().map(|(i, title)| self.entry(i, title, captures)).collect())
    }

    fn entry(self, i: usize, title: &str, c: &[Capture]) -> Result<String, PrintError> {
        match self {
            Printer::Color => Ok(format!("COLOR={:08x}", c[i].px(0, 0)?)),
            Printer::Rgb => Ok(format!("{:06x}", c[i].px(0, 0)? & 0xFF_FFFF)),
            Printer::RgbPair => {
                Ok(format!("{:06x} / {:06x}", c[2 * i].px(0, 0)? & 0xFF_FFFF, c[2 * i + 1].px(0, 0)? & 0xFF_FFFF))
            }
            Printer::Precision { through } => {
                if i == 0 {
                    // clearDispBuffer(0x44444444) then displayBuffer("Initial") on the CPU copy.
                    let cleared =
                        Capture { bytes: 0x4444_4444u32.to_le_bytes().repeat(512 * 272), fb_format: 3, color0: None };
                    precision(&cleared, through)
                } else {
                    precision(&c[i - 1], through)
                }
            }
            Printer::Dither => dither(&c[i / 4], i / 4, i % 4),
            Printer::DepthColor => Ok(format!("{:02x}", c[i].color0.ok_or(PrintError::NoColor)? & 0xFF)),
            Printer::Guardband => {
                let mut found = false;
                for y in 0..272 {
                    for x in 0..480 {
                        found |= c[i].px(x, y)? & 0xFF_FFFF == 0xFF_FFFF;
                    }
                }
                Ok(format!("DRAW={}", u8::from(found)))
            }
            Printer::Homogeneous => homogeneous(&c[i], i),
            Printer::Rotate => {
                let p = |x, y| c[i].px(x, y).map(|v| v & 0xFF_FFFF);
                // indent = strlen(reason) + 2 + 4: the 4 is the "[r] " prefix of line one,
                // which continuation lines do not carry.
                let indent = title.len() + 6;
                Ok(format!("{:06x} {:06x}\n{:indent$}{:06x} {:06x}", p(0, 0)?, p(1, 0)?, "", p(0, 1)?, p(1, 1)?))
            }
            Printer::Size => size(&c[i], i),
        }
    }
}

/// [filtering/precisionlinear2d.cpp displayBuffer]: TL pixel, then the first pixel down
/// the left column and along the top row that differs from it.
fn precision(c: &Capture, through: bool) -> Result<String, PrintError> {
    let tl = c.px(0, 0)?;
    // Not found: 3D initialises red/black to tl; 2D leaves them uninitialised, and both
    // the PSP and PPSSPP print 00000000 there (the one such line, "Initial").
    let unset = if through { 0 } else { tl };
    let (mut left, mut red) = (-1, unset);
    for y in 1..272 {
        let v = c.px(0, y)?;
        if v != tl {
            (left, red) = (y as i32, v);
            break;
        }
    }
    let (mut top, mut black) = (-1, unset);
    for x in 1..480 {
        let v = c.px(x, 0)?;
        if v != tl {
            (top, black) = (x as i32, v);
            break;
        }
    }
    Ok(format!("COLOR={tl:08x}, left={left}, {red:08x}, top={top}, {black:08x}"))
}

/// (xoff, yoff) of each `draw` call in dither.cpp's main, in order.
const DITHER_OFFSETS: [(usize, usize); 39] = {
    let mut t = [(0, 0); 39];
    let mut i = 15;
    while i < 18 {
        t[i] = (1, 1); // "Offset +1/+1"
        t[i + 3] = (476, 268); // "Offset +476/+268"
        t[i + 6] = (1, 1); // "Offset +1/+1 + stencil"
        i += 1;
    }
    t
};

fn dither(c: &Capture, block: usize, row: usize) -> Result<String, PrintError> {
    let (xoff, yoff) = DITHER_OFFSETS.get(block).copied().unwrap_or((0, 0));
    let y = row + yoff;
    if c.fb_format == 3 {
        let v: Vec<String> = (0..4)
            .map(|k| c.u32_at(512 * y + xoff + k).map(|v| format!("{v:08x}")))
            .collect::<Option<_>>()
            .ok_or(PrintError::OutOfRange { x: xoff, y, len: c.bytes.len() })?;
        return Ok(v.join(" "));
    }
    let raw: Vec<u16> = (0..4)
        .map(|k| c.u16_at(512 * y + xoff + k))
        .collect::<Option<_>>()
        .ok_or(PrintError::OutOfRange { x: xoff, y, len: c.bytes.len() })?;
    // from565 / from5551 / from4444 in dither.cpp: plain shifts, no bit replication.
    let f = c.fb_format;
    let wide: Vec<String> = raw
        .iter()
        .map(|&v| {
            let v = u32::from(v);
            let w = match f {
                0 => ((v & 0x001F) << 3) | ((v & 0x07E0) << 5) | ((v & 0xF800) << 8),
                1 => ((v & 0x001F) << 3) | ((v & 0x03E0) << 6) | ((v & 0x7C00) << 9) | ((v & 0x8000) << 16),
                _ => ((v & 0x000F) << 4) | ((v & 0x00F0) << 8) | ((v & 0x0F00) << 12) | ((v & 0xF000) << 16),
            };
            format!("{w:08x}")
        })
        .collect();
    let narrow: Vec<String> = raw.iter().map(|v| format!("{v:04x}")).collect();
    Ok(format!("{} / {}", narrow.join(" "), wide.join(" ")))
}

/// One row of the homogeneous test's scan: which drawing routine made the entry.
#[derive(Debug, Clone, Copy)]
enum Scan {
    /// drawTR, SIDE_TOP: nonzero pixels along row `128 - (int)(64 * yf)`.
    Top { yf: f32 },
    /// drawTR, SIDE_RIGHT: nonzero pixels down column `255 + (int)(128 * xf)`, rows 0..512.
    Right { xf: f32 },
    /// drawWithW: nonzero pixels along row 64.
    Row64,
    /// drawLinearW: all nonzero pixels, and the first one's x and y.
    Full,
}

/// homogeneous.cpp main: 6 drawTR per side and clamp setting (xf, yf pattern
/// 1/1, 2/1, 1/2, 1/1, 1/1, 1/1), 12 drawWithW, 10 drawLinearW.
fn homogeneous_scan(i: usize) -> Option<Scan> {
    const XF: [f32; 6] = [1.0, 2.0, 1.0, 1.0, 1.0, 1.0];
    const YF: [f32; 6] = [1.0, 1.0, 2.0, 1.0, 1.0, 1.0];
    match i {
        0..=11 => Some(Scan::Top { yf: YF[i % 6] }),
        12..=23 => Some(Scan::Right { xf: XF[i % 6] }),
        24..=35 => Some(Scan::Row64),
        36..=45 => Some(Scan::Full),
        _ => None,
    }
}

fn homogeneous(c: &Capture, i: usize) -> Result<String, PrintError> {
    let nonzero = |x: usize, y: usize| c.u32_at(y * 512 + x).is_some_and(|v| v != 0);
    let count_row = |y: usize| (0..512).filter(|&x| nonzero(x, y)).count();
    Ok(match homogeneous_scan(i).ok_or(PrintError::Count { entries: i + 1, need: i + 1, have: 46 })? {
        Scan::Top { yf } => count_row((128 - (64.0 * yf) as i32) as usize).to_string(),
        // Rows 272..511 lie past the test's 512x272 copy (it reads beyond its buffer);
        // guess: zero there, as both the PSP and PPSSPP print the same counts.
        Scan::Right { xf } => {
            let x = (255 + (128.0 * xf) as i32) as usize;
            (0..512).filter(|&y| nonzero(x, y)).count().to_string()
        }
        Scan::Row64 => count_row(64).to_string(),
        Scan::Full => {
            let (mut px, mut first) = (0, None);
            for y in 0..272 {
                for x in 0..512 {
                    if nonzero(x, y) {
                        first.get_or_insert((x as i32, y as i32));
                        px += 1;
                    }
                }
            }
            let (x0, y0) = first.unwrap_or((-1, -1));
            format!("{px} ({x0},{y0})")
        }
    })
}

/// size.cpp main: widths then heights; per section 4 formats x (16 transformed, 16
/// through); entry k of 16 uses 2^k. TL/TC/TR/CL/BL/BR are copybuf 0, 127, 255, 127*512,
/// 255*512, 255*512+255, printed as full 32-bit values with `%06x`.
fn size(c: &Capture, i: usize) -> Result<String, PrintError> {
    let k = i % 16;
    let (wf, hf) = if i < 128 { (k, 0) } else { (0, k) };
    let (tl, tc, tr) = (c.px(0, 0)?, c.px(127, 0)?, c.px(255, 0)?);
    let (cl, bl, br) = (c.px(0, 127)?, c.px(0, 255)?, c.px(255, 255)?);
    Ok(if hf == 0 {
        format!("TL={tl:06x} TC={tc:06x}, TR={tr:06x}, BR={br:06x}")
    } else if wf == 0 {
        format!("TL={tl:06x} CL={cl:06x}, BL={bl:06x}, BR={br:06x}")
    } else {
        format!("TL={tl:06x} TC={tc:06x}, TR={tr:06x}, CL={cl:06x}, BL={bl:06x}, BR={br:06x}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buffer(w: usize, h: usize, fill: u32) -> Vec<u32> {
        vec![fill; w * h]
    }

    fn capture(px: &[u32]) -> Capture {
        Capture { bytes: px.iter().flat_map(|v| v.to_le_bytes()).collect(), fb_format: 3, color0: None }
    }

    fn one(p: Printer, title: &str, caps: &[Capture], entries: usize) -> Vec<String> {
        let titles = vec![title; entries];
        p.print(&titles, caps).unwrap().into_iter().map(Result::unwrap).collect()
    }

    #[test]
    fn color_and_rgb_print_pixel_zero() {
        // filtering/linear.hardware.txt: "Even: COLOR=44000fef" is raw ABGR 0x44000fef.
        let c = capture(&[0x4400_0fef, 0x1234_5678]);
        assert_eq!(one(Printer::Color, "Even", std::slice::from_ref(&c), 1), ["COLOR=44000fef"]);
        assert_eq!(one(Printer::Rgb, "x", std::slice::from_ref(&c), 1), ["000fef"]);
        let d = capture(&[0xff80_8080]);
        assert_eq!(one(Printer::RgbPair, "x", &[c, d], 1), ["000fef / 808080"]);
    }

    #[test]
    fn counts_must_match() {
        let c = capture(&[0]);
        assert_eq!(
            Printer::RgbPair.print(&["a"], std::slice::from_ref(&c)),
            Err(PrintError::Count { entries: 1, need: 2, have: 1 })
        );
        // Precision: the first entry ("Initial") reads no dump.
        assert_eq!(Printer::Precision { through: true }.readbacks_for(74), 73);
        assert_eq!(Printer::Dither.readbacks_for(156), 39);
        assert_eq!(Printer::for_test("nope"), Err(PrintError::UnknownTest("nope".into())));
    }

    #[test]
    fn precision_scan() {
        let mut b = buffer(512, 272, 0x44ff_ffff);
        b[72 * 512] = 0x44ef_efff; // left column, row 72
        b[72] = 0x44ef_efef; // top row, column 72
        let c = capture(&b);
        // precisionlinear2d.hardware.txt "TL -> BR"
        assert_eq!(
            one(Printer::Precision { through: true }, "t", &[c.clone(), c], 3)[1],
            "COLOR=44ffffff, left=72, 44efefff, top=72, 44efefef"
        );
        let init = Printer::Precision { through: true }.print(&["Initial"], &[]).unwrap();
        assert_eq!(init[0].as_deref().unwrap(), "COLOR=44444444, left=-1, 00000000, top=-1, 00000000");
        let init = Printer::Precision { through: false }.print(&["Initial"], &[]).unwrap();
        assert_eq!(init[0].as_deref().unwrap(), "COLOR=44444444, left=-1, 44444444, top=-1, 44444444");
    }

    #[test]
    fn dither_rows_and_conversions() {
        // 16-bit 565 buffer: dither.hardware.txt "Zero matrix 565 0: 1f91 ... / 0018f088 ...".
        let mut raw = vec![0u16; 512 * 272];
        raw[..4].copy_from_slice(&[0x1f91; 4]);
        raw[512..516].copy_from_slice(&[0x0fd1, 0x8000, 0xffff, 0]);
        let c = Capture { bytes: raw.iter().flat_map(|v| v.to_le_bytes()).collect(), fb_format: 0, color0: None };
        let v = one(Printer::Dither, "t", std::slice::from_ref(&c), 4);
        assert_eq!(v[0], "1f91 1f91 1f91 1f91 / 0018f088 0018f088 0018f088 0018f088");
        assert_eq!(v[1], "0fd1 8000 ffff 0000 / 0008f888 00800000 00f8fcf8 00000000");
        // 5551: "Zero matrix 5551 0: 0fd1 ... / 0018f088"; the top bit moves to bit 31.
        let c = Capture { fb_format: 1, ..c };
        let v = one(Printer::Dither, "t", std::slice::from_ref(&c), 4);
        assert_eq!(v[1], "0fd1 8000 ffff 0000 / 0018f088 80000000 80f8f8f8 00000000");
        let c = Capture { fb_format: 2, ..c };
        assert_eq!(one(Printer::Dither, "t", &[c], 4)[1], "0fd1 8000 ffff 0000 / 00f0d010 80000000 f0f0f0f0 00000000");
    }

    #[test]
    fn dither_offsets_follow_the_source() {
        assert_eq!(DITHER_OFFSETS[14], (0, 0));
        assert_eq!(DITHER_OFFSETS[15], (1, 1));
        assert_eq!(DITHER_OFFSETS[20], (476, 268));
        assert_eq!(DITHER_OFFSETS[23], (1, 1));
        assert_eq!(DITHER_OFFSETS[24], (0, 0));
    }

    #[test]
    fn depth_guardband_rotate_size() {
        let c = Capture { bytes: vec![0; 8], fb_format: 3, color0: Some(0x1234_56ff) };
        assert_eq!(one(Printer::DepthColor, "t", &[c], 1), ["ff"]);
        let c = Capture { bytes: vec![0; 8], fb_format: 3, color0: None };
        assert_eq!(Printer::DepthColor.print(&["t"], &[c]).unwrap()[0], Err(PrintError::NoColor));

        let mut b = buffer(512, 272, 0);
        b[500] = 0x00ff_ffff; // off screen: not seen
        assert_eq!(one(Printer::Guardband, "t", &[capture(&b)], 1), ["DRAW=0"]);
        b[271 * 512 + 479] = 0x01ff_ffff;
        assert_eq!(one(Printer::Guardband, "t", &[capture(&b)], 1), ["DRAW=1"]);

        let mut b = buffer(512, 2, 0xff00_0000);
        b[0] = 0xff01_00ff;
        b[512 + 1] = 0x0001_0203;
        // title "  TL BR" (7) -> continuation indented by 13.
        assert_eq!(one(Printer::Rotate, "  TL BR", &[capture(&b)], 1), ["0100ff 000000\n             000000 010203"]);

        let mut b = buffer(512, 256, 0);
        b[0] = 0xf0_0001;
        b[127] = 0xf0_00ff;
        b[255 * 512 + 255] = 0xff00_0001; // alpha is printed: %06x of the whole value
        let c = capture(&b);
        let mut caps = vec![c; 256];
        caps[129].bytes[127 * 512 * 4] = 7;
        let v = Printer::Size.print(&vec!["t"; 256], &caps).unwrap();
        assert_eq!(v[1].as_deref().unwrap(), "TL=f00001 TC=f000ff, TR=000000, BR=ff000001");
        assert_eq!(v[128].as_deref().unwrap(), "TL=f00001 TC=f000ff, TR=000000, BR=ff000001");
        assert_eq!(v[129].as_deref().unwrap(), "TL=f00001 CL=000007, BL=000000, BR=ff000001");
    }

    #[test]
    fn homogeneous_scans() {
        let mut b = buffer(512, 272, 0);
        for x in 0..255 {
            b[64 * 512 + x] = 1; // row 64 = 128 - 64*1
        }
        for y in 100..110 {
            b[y * 512 + 383] = 1; // column 383 = 255 + 128*1
        }
        let c = capture(&b);
        let caps = vec![c; 46];
        let v = Printer::Homogeneous.print(&vec!["t"; 46], &caps).unwrap();
        let v: Vec<String> = v.into_iter().map(Result::unwrap).collect();
        assert_eq!(v[0], "255");
        assert_eq!(v[2], "0"); // yf = 2: row 0
        assert_eq!(v[12], "10");
        assert_eq!(v[13], "0"); // xf = 2: column 511
        assert_eq!(v[24], "255");
        assert_eq!(v[36], "265 (0,64)");
    }
}
