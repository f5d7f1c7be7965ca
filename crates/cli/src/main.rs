//! `gamewire`: the command line over the gamewire crates.
//!
//! Each family of subcommands lives in its own module; `main` only parses the
//! arguments, dispatches, and turns an error into a one-line message and exit
//! code 1.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod entities;
mod error;
mod events;
mod info;
mod many;
mod messages;
mod output;
mod read;
mod tables;
mod tg;
mod ticks;
mod tw;
mod tw_connect;

/// Read and write the bit-packed binary data of game networking.
#[derive(Debug, Parser)]
#[command(name = "gamewire", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Source 2 demo: header, file info, counts, string tables, players, classes.
    Info(info::InfoArgs),
    /// Source 2 demo: the serializers as a tree (class → fields, model, decoder).
    Schema(info::SchemaArgs),
    /// Source 2 demo: game events as JSON Lines or CSV.
    Events(events::EventsArgs),
    /// Source 2 demo: the full state of the entities at a tick.
    Entities(entities::EntitiesArgs),
    /// Source 2 demo: user messages and protobuf game events (chat, text, rank
    /// updates, round reports, bullets, ...) decoded to JSON.
    Messages(messages::MessagesArgs),
    /// Source 2 demo (CS2, Deadlock, Dota 2): one row per player per tick with the props asked for.
    Ticks(ticks::TicksArgs),
    /// Star Trek: Bridge Commander TGBufferStream: CF16 and field-list decoding.
    Tg(tg::TgArgs),
    /// Teeworlds 0.7: decode datagrams and pcaps, join a server.
    Tw(tw::TwArgs),
    /// Analyst tables: `table` (one demo) and `batch` (many demos).
    #[command(flatten)]
    Tables(tables::TablesCommand),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result: Result<(), error::CliError> = match cli.command {
        Command::Info(args) => info::info(args),
        Command::Schema(args) => info::schema(args),
        Command::Events(args) => events::events(args),
        Command::Messages(args) => messages::messages(args),
        Command::Entities(args) => entities::entities(args),
        Command::Ticks(args) => ticks::ticks(args),
        Command::Tg(args) => tg::run(args),
        Command::Tw(args) => tw::run(args),
        Command::Tables(cmd) => tables::run(cmd),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
