//! `gamewire`: the command line over the gamewire crates.
//!
//! Each family of subcommands lives in its own module; `main` only parses the
//! arguments, dispatches, and turns an error into a one-line message and exit
//! code 1.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod tg;
mod tw;

/// Read and write the bit-packed binary data of game networking.
#[derive(Debug, Parser)]
#[command(name = "gamewire", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Star Trek: Bridge Commander TGBufferStream: CF16 and field-list decoding.
    Tg(tg::TgArgs),
    /// Teeworlds 0.7: decode datagrams and pcaps, join a server.
    Tw(tw::TwArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result: Result<(), String> = match cli.command {
        Command::Tg(args) => tg::run(args),
        Command::Tw(args) => tw::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
