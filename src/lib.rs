//! The psprender application library: BBS/PopCap asset decoding, the scene builder, the
//! synthetic assets (demo and golden images), the viewer and the conformance harness.
//! The command-line interface lives in `main.rs`.

pub mod conformance;
pub mod debugger;
pub mod decode;
pub mod fuzzing;
pub mod gltf;
pub mod kh2;
pub mod output;
pub mod pam;
pub mod pmo;
pub mod pmp;
pub mod popcap;
pub mod scene;
pub mod shared;
pub mod synth;
pub mod tim2;
pub mod viewer;
