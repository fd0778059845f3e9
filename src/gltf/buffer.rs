//! The binary buffer and its accessors: every array the document holds is appended here,
//! 4-byte aligned (glTF §3.6.2.4: an accessor's offset must be a multiple of its component
//! size), with one buffer view per accessor so no view needs a byte stride.

use gltf::json;
use json::accessor::{ComponentType, GenericComponentType, Type};
use json::validation::Checked::Valid;
use json::validation::USize64;

/// The document being built and the bytes of its single buffer.
pub struct Builder {
    pub root: json::Root,
    pub bin: Vec<u8>,
}

/// Element types written to the buffer.
pub trait Element: Copy {
    const COMPONENT: ComponentType;
    const TYPE: Type;
    fn write(&self, out: &mut Vec<u8>);
}

impl Element for f32 {
    const COMPONENT: ComponentType = ComponentType::F32;
    const TYPE: Type = Type::Scalar;
    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
}

impl Element for u32 {
    const COMPONENT: ComponentType = ComponentType::U32;
    const TYPE: Type = Type::Scalar;
    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
}

macro_rules! vec_element {
    ($t:ty, $n:literal, $ty:expr, $comp:expr) => {
        impl Element for [$t; $n] {
            const COMPONENT: ComponentType = $comp;
            const TYPE: Type = $ty;
            fn write(&self, out: &mut Vec<u8>) {
                for c in self {
                    out.extend_from_slice(&c.to_le_bytes());
                }
            }
        }
    };
}
vec_element!(f32, 2, Type::Vec2, ComponentType::F32);
vec_element!(f32, 3, Type::Vec3, ComponentType::F32);
vec_element!(f32, 4, Type::Vec4, ComponentType::F32);
vec_element!(f32, 16, Type::Mat4, ComponentType::F32);
vec_element!(u8, 4, Type::Vec4, ComponentType::U8);
vec_element!(u16, 4, Type::Vec4, ComponentType::U16);

impl Builder {
    pub fn new() -> Builder {
        let root = json::Root {
            asset: json::Asset {
                generator: Some(format!("psprender {}", env!("CARGO_PKG_VERSION"))),
                ..Default::default()
            },
            ..Default::default()
        };
        Builder { root, bin: Vec::new() }
    }

    /// Append raw bytes (4-byte aligned) as a buffer view.
    pub fn view(&mut self, bytes: &[u8], target: Option<json::buffer::Target>) -> json::Index<json::buffer::View> {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        self.root.push(json::buffer::View {
            buffer: json::Index::new(0),
            byte_length: USize64::from(bytes.len()),
            byte_offset: Some(USize64::from(offset)),
            byte_stride: None,
            name: None,
            target: target.map(Valid),
            extensions: None,
            extras: Default::default(),
        })
    }

    /// An accessor over `items`; `bounds` adds min/max (required for POSITION and animation
    /// inputs), `normalized` marks integer colours.
    pub fn accessor<T: Element>(
        &mut self,
        items: &[T],
        target: Option<json::buffer::Target>,
        bounds: Option<(Vec<f32>, Vec<f32>)>,
        normalized: bool,
    ) -> json::Index<json::Accessor> {
        let mut bytes = Vec::with_capacity(items.len() * 16);
        for it in items {
            it.write(&mut bytes);
        }
        let view = self.view(&bytes, target);
        let json_list = |v: Vec<f32>| json::Value::from(v.into_iter().map(f64::from).collect::<Vec<f64>>());
        let (min, max) = match bounds {
            Some((lo, hi)) => (Some(json_list(lo)), Some(json_list(hi))),
            None => (None, None),
        };
        self.root.push(json::Accessor {
            buffer_view: Some(view),
            byte_offset: None,
            count: USize64::from(items.len()),
            component_type: Valid(GenericComponentType(T::COMPONENT)),
            extensions: None,
            extras: Default::default(),
            type_: Valid(T::TYPE),
            min,
            max,
            name: None,
            normalized,
            sparse: None,
        })
    }

    /// A float accessor with exact per-component min/max.
    pub fn bounded<const N: usize>(&mut self, items: &[[f32; N]]) -> json::Index<json::Accessor>
    where
        [f32; N]: Element,
    {
        let mut lo = [f32::INFINITY; N];
        let mut hi = [f32::NEG_INFINITY; N];
        for it in items {
            for k in 0..N {
                lo[k] = lo[k].min(it[k]);
                hi[k] = hi[k].max(it[k]);
            }
        }
        self.accessor(items, Some(json::buffer::Target::ArrayBuffer), Some((lo.to_vec(), hi.to_vec())), false)
    }

    /// Key times in seconds (min/max required by glTF for animation inputs).
    pub fn times(&mut self, t: &[f32]) -> json::Index<json::Accessor> {
        let lo = t.iter().copied().fold(f32::INFINITY, f32::min);
        let hi = t.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        self.accessor(t, None, Some((vec![lo], vec![hi])), false)
    }
}

/// The channels and samplers of one animation being built.
#[derive(Default)]
pub struct Tracks {
    pub channels: Vec<json::animation::Channel>,
    pub samplers: Vec<json::animation::Sampler>,
}

impl Tracks {
    /// A LINEAR sampler from key times `input` to values `output`, driving `path` of `node`.
    pub fn linear(
        &mut self,
        node: json::Index<json::Node>,
        path: json::animation::Property,
        input: json::Index<json::Accessor>,
        output: json::Index<json::Accessor>,
    ) {
        self.samplers.push(json::animation::Sampler {
            input,
            interpolation: Valid(json::animation::Interpolation::Linear),
            output,
            extensions: None,
            extras: Default::default(),
        });
        self.channels.push(json::animation::Channel {
            sampler: json::Index::new(self.samplers.len() as u32 - 1),
            target: json::animation::Target { node, path: Valid(path), extensions: None, extras: Default::default() },
            extensions: None,
            extras: Default::default(),
        });
    }
}

/// A JSON value as glTF `extras` (serialising a `serde_json::Value` cannot fail).
pub fn extras(v: serde_json::Value) -> json::Extras {
    serde_json::value::to_raw_value(&v).ok()
}
