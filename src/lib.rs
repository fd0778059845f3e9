//! The psprender application library: built-in GE scenes (demo and golden images).
//! The command-line interface lives in `main.rs`.

pub mod conformance;
pub mod decode;
pub mod kh2;
pub mod output;
pub mod pam;
pub mod pmo;
pub mod pmp;
pub mod popcap;
pub mod scene;
pub mod scenes;
pub mod shared;
pub mod synth;
pub mod tim2;
pub mod viewer;
