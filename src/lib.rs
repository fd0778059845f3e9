//! The psprender application library: built-in GE scenes (demo and golden images).
//! The command-line interface lives in `main.rs`.

pub mod scenes;
