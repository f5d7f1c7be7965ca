//! Helpers shared by the test files.
#![allow(dead_code)]

pub mod demos;
pub mod events;
