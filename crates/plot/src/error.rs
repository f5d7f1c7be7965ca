//! The error of a plot: one type for the crate, each variant a sentence.

use std::path::PathBuf;

use gamewire_query::QueryError;

use crate::{MAX_SIDE, MIN_SIDE};

/// Why a plot could not be made or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PlotError {
    /// A plot kind that does not exist.
    #[error("unknown plot kind {0:?}: positions, trails, heatmap, kills or grenades")]
    UnknownKind(String),
    /// The output's extension names no image format.
    #[error("cannot tell the image format from {}: name it .png or .svg", .0.display())]
    Format(PathBuf),
    /// A width or height outside the sizes drawn.
    #[error(
        "image size {width}x{height} is out of range: each side is {MIN_SIDE} to {MAX_SIDE} pixels"
    )]
    Size {
        /// The width asked for.
        width: u32,
        /// The height asked for.
        height: u32,
    },
    /// `--map-transform` is not three numbers with a positive scale.
    #[error("bad map transform {text:?}: {reason}")]
    Transform {
        /// The text given.
        text: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The selection holds nothing to draw.
    #[error("no {what} {selection}")]
    Empty {
        /// What the kind draws (`positions`, `kills`, `grenades`).
        what: &'static str,
        /// The selection, in words (`in ticks 100..200`, `in round 3`).
        selection: String,
    },
    /// The query over the demo failed (an unknown round, ticks beyond the
    /// demo's end, a demo that does not decode).
    #[error(transparent)]
    Query(#[from] QueryError),
    /// A table the plot reads lacks a column it needs.
    #[error("the {table} table has no column {column}")]
    MissingColumn {
        /// The table.
        table: &'static str,
        /// The column.
        column: &'static str,
    },
    /// The radar image could not be read.
    #[error("reading {}: {source}", path.display())]
    Read {
        /// The image file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The radar image is not a PNG this crate decodes, or is too large.
    #[error("{}: not a radar image gamewire can read: {reason}", path.display())]
    Radar {
        /// The image file.
        path: PathBuf,
        /// The decoder's reason.
        reason: String,
    },
    /// Drawing failed (the drawing library's error).
    #[error("drawing the plot: {0}")]
    Draw(String),
    /// The PNG encoder failed.
    #[error("encoding the PNG: {0}")]
    Encode(String),
    /// The image file could not be written.
    #[error("writing {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
}

impl PlotError {
    /// Whether the error is bad usage: an option's value, or a selection
    /// that holds nothing (as a tick out of range is).
    pub fn is_usage(&self) -> bool {
        match self {
            PlotError::UnknownKind(_)
            | PlotError::Format(_)
            | PlotError::Size { .. }
            | PlotError::Transform { .. }
            | PlotError::Empty { .. } => true,
            PlotError::Query(e) => e.is_usage(),
            _ => false,
        }
    }
}
