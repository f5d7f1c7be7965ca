//! `gamewire`: the command line over the gamewire crates.
//!
//! Each family of subcommands lives in its own module; `main` only parses the
//! arguments, dispatches, and turns an error into a one-line message and its
//! exit status ([`error::EXIT_POLICY`]).

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod batch;
mod broadcast;
mod edit;
mod entities;
mod error;
mod events;
mod follow;
mod info;
mod many;
mod messages;
mod output;
mod plot;
mod props;
mod read;
mod stats;
mod synth;
mod tables;
mod tg;
mod ticks;
mod tw;
mod tw_connect;
mod user_commands;
mod view;

/// Read and write the bit-packed binary data of game networking.
#[derive(Debug, Parser)]
#[command(
    name = "gamewire",
    version,
    about,
    long_about = LONG_ABOUT,
    after_long_help = error::EXIT_POLICY
)]
struct Cli {
    /// A demo cut short is an error (exit status 1) instead of a warning;
    /// its rows up to the cut are still written.
    #[arg(long, global = true)]
    strict: bool,
    /// Live input (an `http://` or `https://` broadcast, or a demo read
    /// with `--follow`): seconds without a new fragment or new bytes after
    /// which the demo is taken as ended, cut short (default 30).
    #[arg(long, global = true, value_name = "SECONDS", value_parser = read::parse_idle_timeout)]
    idle_timeout: Option<std::time::Duration>,
    /// Live broadcasts: how often a failed request is retried before the
    /// read fails (default 5).
    #[arg(long, global = true, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=1000))]
    retries: Option<u32>,
    #[command(subcommand)]
    command: Command,
}

/// `gamewire --help`: what the commands share.
const LONG_ABOUT: &str = "\
Read and write the bit-packed binary data of game networking: Source 2 demos
(CS2, Deadlock, Dota 2), Teeworlds 0.7 traffic, Bridge Commander streams.

Every command that writes rows (table, events, ticks, messages, props, batch)
writes CSV unless told otherwise: --format csv|jsonl|parquet, or -o FILE whose
extension (.csv, .jsonl, .ndjson, .parquet) picks the format. Parquet is not
written to a terminal. `events` is `table events` and `ticks` is `table ticks`.

rewrite, cut and anonymize write a new demo (IN OUT): OUT is written to a
temporary file in its folder and renamed when complete.

synth writes a CS2 demo from a scenario file (SCENARIO OUT; docs/scenarios.md).

Every Source 2 command takes --sample in place of a demo path: the short CS2
match that ships inside gamewire (`gamewire table kills --sample`,
`gamewire info --sample`).";

#[derive(Debug, Subcommand)]
enum Command {
    /// Source 2 demo: header, file info, counts, string tables, players, classes.
    Info(info::InfoArgs),
    /// Source 2 demo: the serializers as a tree (class → fields, model, decoder).
    Schema(info::SchemaArgs),
    /// Source 2 demos: the `events` table (`table events`), or `--list` the
    /// event names.
    Events(events::EventsArgs),
    /// Source 2 demo: the full state of the entities at a tick.
    Entities(entities::EntitiesArgs),
    /// Source 2 demo: user messages and protobuf game events (chat, text, rank
    /// updates, round reports, bullets, ...) decoded to JSON.
    Messages(messages::MessagesArgs),
    /// Source 2 demos (CS2, Deadlock, Dota 2): the `ticks` table (`table
    /// ticks`), one row per player per tick with the props asked for.
    Ticks(tables::RowArgs),
    /// Source 2 demo: the props `--props` accepts (friendly names and raw
    /// paths), with their class, path and type.
    Props(props::PropsArgs),
    /// Star Trek: Bridge Commander TGBufferStream: CF16 and field-list decoding.
    Tg(tg::TgArgs),
    /// Teeworlds 0.7: decode datagrams and pcaps, join a server.
    Tw(tw::TwArgs),
    /// Source 2 demo: decode every frame and write it again from the
    /// decoded model into a new demo.
    Rewrite(edit::RewriteArgs),
    /// Source 2 demo: the ticks A..B (or a CS2 round) as a demo of their
    /// own, starting from the full state at A.
    Cut(edit::CutArgs),
    /// Source 2 demo: every player name and id replaced by keyed
    /// pseudonyms; chat and voice dropped.
    Anonymize(edit::AnonymizeArgs),
    /// Source 2 demo: written as the folder of an HTTP broadcast
    /// (`sync.json`, `0/start.bin`, then `<n>/full.bin` and `<n>/delta.bin`
    /// per fragment of `--fragment-seconds`), which every command reads.
    Broadcast(broadcast::BroadcastArgs),
    /// CS2: a demo written from a scenario file (`.toml` or `.json`):
    /// players, movement, kills, damage, rounds, bomb, grenades, chat.
    Synth(synth::SynthArgs),
    /// Source 2 demo: a picture (PNG or SVG) of player positions, trails,
    /// a heatmap, kills or grenades, in world coordinates.
    Plot(plot::PlotArgs),
    /// Source 2 demo: a full parse (every entity field, string table, game
    /// event, user message) and what the demo holds, with the speed it was
    /// read at.
    Stats(stats::StatsArgs),
    /// Source 2 demo: the web replay viewer served on 127.0.0.1 with the
    /// demo; prints the address to open.
    View(view::ViewArgs),
    /// Analyst tables: `table` (one demo) and `batch` (many demos).
    #[command(flatten)]
    Tables(tables::TablesCommand),
}

fn main() -> ExitCode {
    let cli = Cli::parse_from(read::sample_args(std::env::args_os()));
    let strict = cli.strict;
    read::set_live_options(cli.idle_timeout, cli.retries);
    let result: Result<(), error::CliError> = match cli.command {
        Command::Info(args) => info::info(args),
        Command::Schema(args) => info::schema(args),
        Command::Events(args) => events::events(args),
        Command::Messages(args) => messages::messages(args),
        Command::Entities(args) => entities::entities(args),
        Command::Ticks(args) => tables::write_one_table(gamewire_query::TableKind::Ticks, &args),
        Command::Props(args) => props::props(args),
        Command::Tg(args) => tg::run(args),
        Command::Tw(args) => tw::run(args),
        Command::Rewrite(args) => edit::rewrite(args),
        Command::Cut(args) => edit::cut(args),
        Command::Anonymize(args) => edit::anonymize(args),
        Command::Broadcast(args) => broadcast::broadcast(args),
        Command::Synth(args) => synth::synth(args),
        Command::Plot(args) => plot::plot(args),
        Command::Stats(args) => stats::stats(args),
        Command::View(args) => view::view(args),
        Command::Tables(cmd) => tables::run(cmd),
    };
    match result {
        Ok(()) if strict && read::cut_seen() => {
            eprintln!("error: a demo was cut short (--strict)");
            ExitCode::FAILURE
        }
        Ok(()) => ExitCode::SUCCESS,
        // Standard output closed under the command (`| head`): done.
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
