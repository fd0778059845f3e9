//! The GE register file: 256 raw 24-bit arguments, plus the matrix memories that the
//! *MATRIXDATA commands fill.
//!
//! Stage code never reads these raw bits directly: each stage decodes what it needs
//! once per draw into an immutable typed state (`transform::TransformState`,
//! `texture::TextureState`, `pixel::PixelState`, ...). Multi-field registers are read
//! through their command-table row's typed decoder (`regs.get(reg::ZTEST)`, see
//! [`crate::cmd::fields`]); the accessors here cover whole-argument formats (enable bit,
//! float24, RGB).

/// float24: the 24-bit argument shifted left by 8 and reinterpreted as an IEEE single
/// (ge-reference.md conventions; PPSSPP `GPU.h` `getFloat24`).
#[inline]
pub fn float24(arg: u32) -> f32 {
    f32::from_bits((arg & 0x00FF_FFFF) << 8)
}

/// Inverse of [`float24`]: the argument that carries `f` (low 8 mantissa bits dropped).
#[inline]
pub fn to_float24(f: f32) -> u32 {
    f.to_bits() >> 8
}

/// Bit 0 of an ENABLE-style argument.
#[inline]
pub const fn enable_bit(arg: u32) -> bool {
    arg & 1 != 0
}

/// An RGB argument as `[r, g, b]` (R in bits 0–7).
#[inline]
pub const fn rgb_bytes(arg: u32) -> [u8; 3] {
    [arg as u8, (arg >> 8) as u8, (arg >> 16) as u8]
}

/// 256 raw command arguments (24 bits each). Index = command number. (`Debug` names the
/// non-zero registers through the command table, [`crate::cmd`].)
#[derive(Clone, PartialEq, Eq)]
pub struct Regs {
    pub raw: [u32; 256],
}

impl Default for Regs {
    fn default() -> Self {
        Regs { raw: [0; 256] }
    }
}

impl Regs {
    /// The 24-bit argument last written to `op`.
    #[inline]
    pub fn arg(&self, op: u8) -> u32 {
        self.raw[op as usize]
    }

    /// Bit 0 of an ENABLE-style register.
    #[inline]
    pub fn enabled(&self, op: u8) -> bool {
        enable_bit(self.raw[op as usize])
    }

    /// The register as a float24.
    #[inline]
    pub fn float(&self, op: u8) -> f32 {
        float24(self.raw[op as usize])
    }

    /// An RGB register as `[r, g, b]`.
    #[inline]
    pub fn rgb(&self, op: u8) -> [u8; 3] {
        rgb_bytes(self.raw[op as usize])
    }

    #[inline]
    pub fn set(&mut self, op: u8, arg: u32) {
        self.raw[op as usize] = arg & 0x00FF_FFFF;
    }
}

/// The matrix memories. World, view and texgen are 4x3 (12 floats, stored as four
/// 3-component columns: X axis, Y axis, Z axis, translation), projection is 4x4
/// column-major, bones are eight 4x3 matrices (ge-reference.md §3, §4.1).
#[derive(Clone, Debug, PartialEq)]
pub struct Matrices {
    pub world: [f32; 12],
    pub view: [f32; 12],
    pub proj: [f32; 16],
    pub tgen: [f32; 12],
    pub bones: [f32; 96],
    /// Write indices of the *MATRIXNUMBER/*MATRIXDATA pairs.
    pub world_index: u32,
    pub view_index: u32,
    pub proj_index: u32,
    pub tgen_index: u32,
    pub bone_index: u32,
}

impl Default for Matrices {
    fn default() -> Self {
        Matrices {
            world: [0.0; 12],
            view: [0.0; 12],
            proj: [0.0; 16],
            tgen: [0.0; 12],
            bones: [0.0; 96],
            world_index: 0,
            view_index: 0,
            proj_index: 0,
            tgen_index: 0,
            bone_index: 0,
        }
    }
}

/// 4x3 identity in GE element order.
pub const IDENTITY_4X3: [f32; 12] = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0];
/// 4x4 identity.
pub const IDENTITY_4X4: [f32; 16] = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float24_drops_low_mantissa_bits() {
        assert_eq!(float24(0x3F8000), 1.0);
        assert_eq!(float24(0x43F000), 480.0);
        assert_eq!(float24(to_float24(0.1)), f32::from_bits(0.1f32.to_bits() & !0xFF));
    }

    #[test]
    fn colours_and_masking() {
        let mut r = Regs::default();
        r.set(0xDB, 0xABFF_8006);
        assert_eq!(r.arg(0xDB), 0x00FF_8006, "24-bit arguments");
        r.set(0x55, 0x00_30_20_10);
        assert_eq!(r.rgb(0x55), [0x10, 0x20, 0x30]);
    }
}
