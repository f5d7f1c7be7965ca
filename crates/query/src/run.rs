//! Running queries over a demo: the one way in ([`Query::run`] and its
//! [`RunOptions`]).
//!
//! A run parses the demo once with the collectors of every table asked for,
//! checks the names the query uses against what the demo declares, and
//! returns the tables with the parser's final state ([`Parsed`]). A demo
//! that ends early (a truncated file, a cut compressed stream or broadcast
//! fragment) is an error, or, with [`RunOptions::keep_cut`], gives the
//! tables of everything before the cut with the cut beside them.

use std::path::Path;
use std::sync::Arc;

use gamewire_source2::stream::StreamParser;
use gamewire_source2::{DemoError, DemoParser, DemoState, SendTableCache, Visitor};

use crate::events::EventsCollector;
use crate::input::{DemoInput, DemoSource, DemoStream, InputCut, InputError};
use crate::spool::SpooledTable;
use crate::table::{Column, Table};
use crate::ticks::TicksCollector;
use crate::{Collectors, Query, QueryError, TableKind};

/// How a query runs.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Send tables shared with other runs: demos of a game build whose send
    /// tables the cache holds skip building them (a batch of demos, a
    /// process that reads demo after demo). `None`: built for this demo.
    pub send_table_cache: Option<Arc<SendTableCache>>,
    /// Keep the tables of a demo that ends early (everything before the
    /// cut, the cut in [`Parsed::cut`]) instead of failing with the cut.
    /// Any other parse error is an error either way.
    pub keep_cut: bool,
    /// Let the parser build the send tables on a helper thread while it
    /// reads on (on by default, unless the process turned the helper off;
    /// a process that parses one demo and exits is faster without).
    pub helper_thread: bool,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            send_table_cache: None,
            keep_cut: false,
            helper_thread: true,
        }
    }
}

/// Where a demo ended early.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Cut {
    /// The input was cut (a compressed stream, a broadcast fragment); the
    /// demo before it parsed to its end.
    #[error("{0}")]
    Input(InputCut),
    /// The demo itself ends early (located: frame, byte offset, tick).
    #[error("{0}")]
    Demo(DemoError),
    /// Both: the input was cut, and the demo before it ends inside a frame.
    #[error("{input}; then {demo}")]
    Both {
        /// The input's cut.
        input: InputCut,
        /// The parse's cut.
        demo: DemoError,
    },
}

impl Cut {
    /// The cut of an input cut at `input` whose demo ends early at `demo`
    /// (`None` when neither was cut).
    pub fn of(input: Option<InputCut>, demo: Option<DemoError>) -> Option<Cut> {
        match (input, demo) {
            (Some(input), Some(demo)) => Some(Cut::Both { input, demo }),
            (Some(input), None) => Some(Cut::Input(input)),
            (None, Some(demo)) => Some(Cut::Demo(demo)),
            (None, None) => None,
        }
    }

    /// The first cut met: the input's, else the demo's.
    pub fn first(&self) -> &(dyn std::error::Error + 'static) {
        match self {
            Cut::Input(c) | Cut::Both { input: c, .. } => c,
            Cut::Demo(d) => d,
        }
    }
}

/// Why a parse failed, located ([`RunOptions::parse_located`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ParseFailure {
    /// The data does not start a Source 2 demo (its magic, its file header).
    #[error("{0}")]
    NotADemo(DemoError),
    /// The parse stopped on an error that is not a cut.
    #[error("{error}")]
    Stopped {
        /// The parser's error.
        error: DemoError,
        /// The state at the error: everything parsed before it (its
        /// `tick` is the last tick read).
        state: Box<DemoState>,
    },
    /// A demo read as a stream could not be read on (a read error, a
    /// compressed demo above the decompressed limit, a compressed stream
    /// damaged before the demo's first bytes): the error a demo read whole
    /// gives before its parse.
    #[error("{0}")]
    Input(InputError),
}

impl From<ParseFailure> for QueryError {
    fn from(failure: ParseFailure) -> Self {
        match failure {
            ParseFailure::NotADemo(e) | ParseFailure::Stopped { error: e, .. } => {
                QueryError::Demo(e)
            }
            ParseFailure::Input(e) => QueryError::Input(e),
        }
    }
}

/// What a run gives.
#[derive(Debug)]
pub struct Parsed<T = Vec<Table>> {
    /// The tables, in the order of the query (for a cut demo, everything
    /// before the cut).
    pub tables: T,
    /// The parser's state at the end (or at the cut).
    pub state: DemoState,
    /// Where the demo ended early, when it did and the run keeps cut demos.
    pub cut: Option<Cut>,
}

impl Query {
    /// These options.
    pub fn with_options(mut self, options: RunOptions) -> Self {
        self.options = options;
        self
    }

    /// Shares the send tables of `cache` ([`RunOptions::send_table_cache`]).
    pub fn with_send_table_cache(mut self, cache: Arc<SendTableCache>) -> Self {
        self.options.send_table_cache = Some(cache);
        self
    }

    /// Keeps the tables of a demo cut short ([`RunOptions::keep_cut`]).
    pub fn keeping_cut(mut self, keep: bool) -> Self {
        self.options.keep_cut = keep;
        self
    }

    /// Turns the parser's helper thread on or off
    /// ([`RunOptions::helper_thread`]).
    pub fn with_helper_thread(mut self, on: bool) -> Self {
        self.options.helper_thread = on;
        self
    }

    /// Computes the tables in one pass over a demo held in memory (not
    /// compressed: see [`crate::input`] for files). A parse error (not a
    /// demo, a corrupt demo, a truncated one unless the options keep it)
    /// an option no table uses ([`Query::validate`]), an unknown event/prop
    /// name, or a tick set beyond the demo's last tick is an error.
    pub fn run(&self, data: &[u8]) -> Result<Parsed, QueryError> {
        let mut parsed = self.options.run_queries(std::slice::from_ref(self), data)?;
        Ok(Parsed {
            tables: parsed.tables.pop().unwrap_or_default(),
            state: parsed.state,
            cut: parsed.cut,
        })
    }

    /// [`Query::run`] on a demo read by the input stage; the input's cut
    /// comes first in [`Parsed::cut`] (or is the error when the options do
    /// not keep cut demos).
    pub fn run_input(&self, input: &DemoInput) -> Result<Parsed, QueryError> {
        let mut parsed = self
            .options
            .run_queries_on(std::slice::from_ref(self), input)?;
        Ok(Parsed {
            tables: parsed.tables.pop().unwrap_or_default(),
            state: parsed.state,
            cut: parsed.cut,
        })
    }

    /// Reads a demo (a file, compressed too, `-` for standard input, or a
    /// broadcast directory: [`crate::input::open`]) and runs the query on
    /// it.
    pub fn run_path(&self, path: &Path) -> Result<Parsed, QueryError> {
        self.run_source(&mut crate::input::open_source(path)?)
    }

    /// [`Query::run_input`] on a demo in memory or read as a stream
    /// ([`crate::input::open_source`]): the same tables, cut and errors
    /// either way.
    pub fn run_source(&self, source: &mut DemoSource) -> Result<Parsed, QueryError> {
        let mut parsed = self
            .options
            .run_queries_source(std::slice::from_ref(self), source)?;
        Ok(Parsed {
            tables: parsed.tables.pop().unwrap_or_default(),
            state: parsed.state,
            cut: parsed.cut,
        })
    }

    /// [`Query::run_source`] for the `events` table, its rows kept in a
    /// temporary file (in `spool_dir`, else the system's temporary folder)
    /// while the demo is parsed instead of in memory, so that the memory
    /// does not grow with the demo: the table comes back as a
    /// [`SpooledTable`] to write ([`SpooledTable::write`]), the same bytes
    /// as the whole table. `None` when the query has no `events` table;
    /// its other tables are not made.
    pub fn run_events_spooled(
        &self,
        source: &mut DemoSource,
        spool_dir: Option<&Path>,
    ) -> Result<Parsed<Option<SpooledTable>>, QueryError> {
        let mut collectors = Collectors::new(self);
        collectors.spool_events(spool_dir);
        self.options.run_source_with(
            std::slice::from_ref(self),
            source,
            collectors,
            |c, state| c.finish_events_spooled(state),
        )
    }
}

impl RunOptions {
    /// Several queries in one pass over a demo (the parser decodes what any
    /// of them needs): per query, its tables, in order. Each query's own
    /// options are not read; these are.
    pub fn run_queries(
        &self,
        queries: &[Query],
        data: &[u8],
    ) -> Result<Parsed<Vec<Vec<Table>>>, QueryError> {
        self.run_queries_with(queries, data)
    }

    /// [`RunOptions::run_queries`], the demo parsed by `parse`.
    fn run_queries_with(
        &self,
        queries: &[Query],
        data: impl DemoData,
    ) -> Result<Parsed<Vec<Vec<Table>>>, QueryError> {
        // One query: its collectors alone, without a fan-out in between.
        if let [query] = queries {
            return self.run_with(queries, data, Collectors::new(query), |c, state| {
                vec![c.finish(state)]
            });
        }
        let fanout = Fanout(queries.iter().map(Collectors::new).collect());
        self.run_with(queries, data, fanout, |f, state| {
            f.0.into_iter().map(|c| c.finish(state)).collect()
        })
    }

    /// One pass with `visitor`, the names checked, `finish` turning the
    /// visitor into the tables.
    fn run_with<V: Visitor, T>(
        &self,
        queries: &[Query],
        data: impl DemoData,
        mut visitor: V,
        finish: impl FnOnce(V, &DemoState) -> T,
    ) -> Result<Parsed<T>, QueryError> {
        for q in queries {
            q.validate()?;
        }
        let (state, cut) = self.parse_keeping_cut(data, &mut visitor)?;
        for q in queries {
            q.check_names(&state)?;
            q.check_ticks(state.tick)?;
        }
        if let (Some(cut), false) = (&cut, self.keep_cut) {
            return Err(QueryError::Demo(cut.clone()));
        }
        let tables = finish(visitor, &state);
        Ok(Parsed {
            tables,
            state,
            cut: Cut::of(None, cut),
        })
    }

    /// [`RunOptions::run_queries`] on a demo read by the input stage.
    pub fn run_queries_on(
        &self,
        queries: &[Query],
        input: &DemoInput,
    ) -> Result<Parsed<Vec<Vec<Table>>>, QueryError> {
        if let [query] = queries {
            return self.run_input_with(queries, input, Collectors::new(query), |c, state| {
                vec![c.finish(state)]
            });
        }
        let fanout = Fanout(queries.iter().map(Collectors::new).collect());
        self.run_input_with(queries, input, fanout, |f, state| {
            f.0.into_iter().map(|c| c.finish(state)).collect()
        })
    }

    /// [`RunOptions::run_queries_on`] with `visitor`, `finish` turning it
    /// into the tables.
    fn run_input_with<V: Visitor, T>(
        &self,
        queries: &[Query],
        input: &DemoInput,
        visitor: V,
        finish: impl FnOnce(V, &DemoState) -> T,
    ) -> Result<Parsed<T>, QueryError> {
        if let (Some(cut), false) = (&input.cut, self.keep_cut) {
            return Err(InputError::Cut(cut.clone()).into());
        }
        let parsed = self.run_with(queries, &input.bytes, visitor, finish)?;
        let demo = match parsed.cut {
            Some(Cut::Demo(d)) => Some(d),
            _ => None,
        };
        Ok(Parsed {
            tables: parsed.tables,
            state: parsed.state,
            cut: Cut::of(input.cut.clone(), demo),
        })
    }

    /// [`RunOptions::run_queries_on`] on a demo in memory or read as a
    /// stream ([`crate::input::open_source`]): the same tables, cut and
    /// errors either way. A stream's input cut is known once it has been
    /// read; an error of its reading (a read error, a demo above the
    /// decompressed limit) comes before any parse error, as it does for a
    /// demo read whole.
    pub fn run_queries_source(
        &self,
        queries: &[Query],
        source: &mut DemoSource,
    ) -> Result<Parsed<Vec<Vec<Table>>>, QueryError> {
        if let [query] = queries {
            return self.run_source_with(queries, source, Collectors::new(query), |c, state| {
                vec![c.finish(state)]
            });
        }
        let fanout = Fanout(queries.iter().map(Collectors::new).collect());
        self.run_source_with(queries, source, fanout, |f, state| {
            f.0.into_iter().map(|c| c.finish(state)).collect()
        })
    }

    /// [`RunOptions::run_queries_source`] with `visitor`, `finish` turning
    /// it into the tables.
    fn run_source_with<V: Visitor, T>(
        &self,
        queries: &[Query],
        source: &mut DemoSource,
        visitor: V,
        finish: impl FnOnce(V, &DemoState) -> T,
    ) -> Result<Parsed<T>, QueryError> {
        let stream = match source {
            DemoSource::Memory(input) => {
                return self.run_input_with(queries, input, visitor, finish)
            }
            DemoSource::Stream(stream) => stream,
        };
        let parsed = if queries.iter().all(|q| q.validate().is_ok()) {
            self.run_with(queries, &mut *stream, visitor, finish)
        } else {
            // The input's errors and cut come first: read it to learn them.
            stream.drain();
            match stream.take_error() {
                Some(e) => Err(e.into()),
                None => self.run_with(queries, &mut *stream, visitor, finish),
            }
        };
        if let (Some(cut), false) = (stream.cut(), self.keep_cut) {
            return Err(InputError::Cut(cut.clone()).into());
        }
        let parsed = parsed?;
        let demo = match parsed.cut {
            Some(Cut::Demo(d)) => Some(d),
            _ => None,
        };
        Ok(Parsed {
            tables: parsed.tables,
            state: parsed.state,
            cut: Cut::of(stream.cut().cloned(), demo),
        })
    }

    /// Parses a demo with any visitor: the final state and, when the demo
    /// ends early, the cut (the visitor holds everything before it). Any
    /// other parse error is an error; [`RunOptions::keep_cut`] is not read.
    /// The demo: bytes in memory, or a stream ([`DemoData`]).
    pub fn parse_keeping_cut<V: Visitor>(
        &self,
        data: impl DemoData,
        visitor: &mut V,
    ) -> Result<(DemoState, Option<DemoError>), QueryError> {
        self.parse_located(data, visitor).map_err(QueryError::from)
    }

    /// [`RunOptions::parse_keeping_cut`] whose error says where the parse
    /// stopped: before the first frame (not a demo), or later, with the
    /// state parsed up to the error.
    pub fn parse_located<V: Visitor>(
        &self,
        data: impl DemoData,
        visitor: &mut V,
    ) -> Result<(DemoState, Option<DemoError>), ParseFailure> {
        data.parse_located_with(self, visitor)
    }

    /// [`RunOptions::parse_located`] on bytes in memory.
    fn parse_bytes<V: Visitor>(
        &self,
        data: &[u8],
        visitor: &mut V,
    ) -> Result<(DemoState, Option<DemoError>), ParseFailure> {
        let mut parser = self.parser(data).map_err(ParseFailure::NotADemo)?;
        match parser.run_keeping_cut(visitor) {
            Ok(cut) => Ok((parser.state, cut)),
            Err(error) => Err(ParseFailure::Stopped {
                error,
                state: Box::new(parser.state),
            }),
        }
    }

    /// [`RunOptions::parse_located`] on a stream: the frames are read
    /// through the stream decoder's bounded buffer and applied as they
    /// come ([`StreamParser`]). The same state, callbacks, cut and errors
    /// as the bytes parsed in memory.
    fn parse_stream<V: Visitor>(
        &self,
        stream: &mut DemoStream,
        visitor: &mut V,
    ) -> Result<(DemoState, Option<DemoError>), ParseFailure> {
        let mut parser = StreamParser::new();
        if let Some(cache) = &self.send_table_cache {
            parser = parser.with_send_table_cache(Arc::clone(cache));
        }
        let result = parser.run(stream, visitor);
        if result.is_err() {
            // What the input holds after (a read error, a demo above the
            // limit, a cut before the demo's first bytes) comes first.
            stream.drain();
        }
        if let Some(e) = stream.take_error() {
            return Err(ParseFailure::Input(e));
        }
        if let Some(cut) = stream.cut_before_demo() {
            return Err(ParseFailure::Input(InputError::Cut(cut)));
        }
        let header_read = parser.header_read();
        match result {
            Ok(()) => Ok((parser.into_state(), None)),
            Err(error) if !header_read => Err(ParseFailure::NotADemo(error)),
            Err(error) if error.is_truncation() => Ok((parser.into_state(), Some(error))),
            Err(error) => Err(ParseFailure::Stopped {
                error,
                state: Box::new(parser.into_state()),
            }),
        }
    }

    /// Checks that `data` starts a Source 2 demo (its magic and file
    /// header), without parsing it.
    pub fn check(&self, data: &[u8]) -> Result<(), QueryError> {
        self.parser(data).map(drop).map_err(QueryError::from)
    }

    /// The parser of a run: every run constructs its parser here.
    fn parser<'a>(&self, data: &'a [u8]) -> Result<DemoParser<'a>, DemoError> {
        let mut parser = DemoParser::new(data)?.with_helper_thread(self.helper_thread);
        if let Some(cache) = &self.send_table_cache {
            parser = parser.with_send_table_cache(Arc::clone(cache));
        }
        Ok(parser)
    }
}

/// A demo a run parses: bytes in memory (`&[u8]`, `&Vec<u8>`, a
/// [`DemoInput`]'s bytes) or a stream read as it is parsed (`&mut
/// DemoStream`, `&mut DemoSource`). [`RunOptions::parse_located`] and the
/// runs take any of them; the results are the same.
pub trait DemoData {
    /// Parses the demo with `visitor` under `options`
    /// ([`RunOptions::parse_located`]).
    fn parse_located_with<V: Visitor>(
        self,
        options: &RunOptions,
        visitor: &mut V,
    ) -> Result<(DemoState, Option<DemoError>), ParseFailure>;
}

/// Bytes in memory: `&[u8]`, `&Vec<u8>`, `&[u8; N]`...
impl<T: AsRef<[u8]> + ?Sized> DemoData for &T {
    fn parse_located_with<V: Visitor>(
        self,
        options: &RunOptions,
        visitor: &mut V,
    ) -> Result<(DemoState, Option<DemoError>), ParseFailure> {
        options.parse_bytes(self.as_ref(), visitor)
    }
}

impl DemoData for &mut DemoStream {
    fn parse_located_with<V: Visitor>(
        self,
        options: &RunOptions,
        visitor: &mut V,
    ) -> Result<(DemoState, Option<DemoError>), ParseFailure> {
        options.parse_stream(self, visitor)
    }
}

/// A demo in memory is parsed from its bytes (its input cut is not read:
/// see [`DemoSource::cut`]); a stream as it is read.
impl DemoData for &mut DemoSource {
    fn parse_located_with<V: Visitor>(
        self,
        options: &RunOptions,
        visitor: &mut V,
    ) -> Result<(DemoState, Option<DemoError>), ParseFailure> {
        match self {
            DemoSource::Memory(input) => options.parse_bytes(&input.bytes, visitor),
            DemoSource::Stream(stream) => options.parse_stream(stream, visitor),
        }
    }
}

/// Several queries' collectors fed by one pass: the parser decodes the
/// union of what they need, and every callback goes to each (one query:
/// its collectors alone).
struct Fanout(Vec<Collectors>);

impl Visitor for Fanout {
    fn interests(&self) -> gamewire_source2::Interests {
        self.0
            .iter()
            .fold(gamewire_source2::Interests::NONE, |any, c| {
                any.union(c.interests())
            })
    }
    fn wants_class(&self, class_name: &str) -> bool {
        self.0.iter().any(|c| c.wants_class(class_name))
    }
    fn wants_string_table(&self, name: &str) -> bool {
        self.0.iter().any(|c| c.wants_string_table(name))
    }
    fn on_tick_start(&mut self, state: &DemoState, tick: i32) {
        self.0.iter_mut().for_each(|c| c.on_tick_start(state, tick));
    }
    fn on_tick_end(&mut self, state: &DemoState, tick: i32) {
        self.0.iter_mut().for_each(|c| c.on_tick_end(state, tick));
    }
    fn on_entity(
        &mut self,
        state: &DemoState,
        change: gamewire_source2::EntityChange,
        entity: &gamewire_source2::Entity,
        paths: &[gamewire_source2::FieldPath],
    ) {
        for c in &mut self.0 {
            c.on_entity(state, change, entity, paths);
        }
    }
    fn on_packet_entities(&mut self, state: &DemoState) {
        self.0.iter_mut().for_each(|c| c.on_packet_entities(state));
    }
    fn on_game_event(&mut self, state: &DemoState, event: &gamewire_source2::gameevent::GameEvent) {
        self.0
            .iter_mut()
            .for_each(|c| c.on_game_event(state, event));
    }
    fn on_user_message(&mut self, state: &DemoState, message: &gamewire_source2::UserMessage<'_>) {
        for c in &mut self.0 {
            c.on_user_message(state, message);
        }
    }
    fn on_user_command(&mut self, state: &DemoState, command: &gamewire_source2::UserCommand) {
        for c in &mut self.0 {
            c.on_user_command(state, command);
        }
    }
    fn on_string_table(
        &mut self,
        state: &DemoState,
        table: &gamewire_source2::stringtable::StringTable,
        changed: &[usize],
    ) {
        for c in &mut self.0 {
            c.on_string_table(state, table, changed);
        }
    }
}

/// Whether a table's rows are complete the moment the parse makes them, so
/// that a run fed as the demo arrives ([`FollowRun`]) can hand them on at
/// once: `events` (a row per game event, at the event), `ticks` (a row
/// per player when the tick's entities are read), `chat`, `user_commands`,
/// `combat_log` (a row per message), `kills`, `damages` and `purchases`
/// (a row per event; `purchases` read from the buyers' state when a demo
/// has no purchase events are only known at the end). The other tables are
/// complete only when the demo ends: a round's row waits for its end, a
/// player's row holds the stats as last seen, a grenade's row its whole
/// flight, a smoke or a fire its expiry, `header` the demo's length;
/// [`FollowRun`] gives them whole at the end.
pub fn rows_arrive_complete(kind: TableKind) -> bool {
    use TableKind::*;
    matches!(
        kind,
        Events | Ticks | Chat | UserCommands | CombatLog | Kills | Damages | Purchases
    )
}

/// The rows of `table`, leaving it empty with the same columns.
fn take_rows(table: &mut Table) -> Table {
    let empty = Table {
        name: table.name.clone(),
        columns: table
            .columns
            .iter()
            .map(|(n, c)| (n.clone(), Column::new(c.kind())))
            .collect(),
    };
    std::mem::replace(table, empty)
}

impl Collectors {
    /// The rows of the tables whose rows arrive complete
    /// ([`rows_arrive_complete`]) made since the last call, taken out of
    /// the collectors, each typed as the whole table types it; `query` is
    /// the query the collectors were made for. The order is the query's;
    /// a table with no new rows is absent.
    fn take_complete_rows(&mut self, query: &Query, state: &DemoState) -> Vec<Table> {
        let mut out: Vec<Table> = Vec::new();
        if let Some(events) = &mut self.events {
            let fresh = EventsCollector::new(
                query.events.clone(),
                &query.player_props,
                &query.other_props,
            );
            // A row of `events` reads the event and the state at it; the
            // collector's other state is the columns seen, which the new
            // table declares for its own rows.
            out.push(std::mem::replace(events, fresh).finish(state));
        }
        if let Some(ticks) = &mut self.ticks {
            let mut batch = TicksCollector::new(&query.player_props, None);
            batch.rows.rows = std::mem::take(&mut ticks.rows.rows);
            out.push(batch.finish(state));
        }
        let tables = [
            self.chat.as_mut().map(|c| &mut c.table),
            self.user_commands.as_mut().map(|c| &mut c.table),
            self.combat_log.as_mut().map(|c| &mut c.table),
            self.matches.kills.as_mut(),
            self.matches.damages.as_mut(),
            self.matches.purchases.as_mut(),
        ];
        out.extend(tables.into_iter().flatten().map(take_rows));
        out.retain(|t| t.rows() > 0);
        let mut ordered = Vec::with_capacity(out.len());
        for k in &self.order {
            if let Some(i) = out.iter().position(|t| t.name == k.name()) {
                ordered.push(out.swap_remove(i));
            }
        }
        ordered
    }
}

/// A query run on a demo fed as it arrives (a file still being written, a
/// broadcast read over the network: [`crate::follow`]). The bytes go into
/// a [`StreamParser`] ([`FollowRun::push`]) that keeps its state; the rows
/// completed so far come out with [`FollowRun::take_new`], and
/// [`FollowRun::finish`] gives the rest: every row appears once, and all
/// the rows taken, in order, are the rows of [`Query::run`] on the whole
/// demo.
pub struct FollowRun {
    query: Query,
    parser: StreamParser,
    collectors: Collectors,
    /// The query's names were checked against the demo (before the first
    /// rows are given).
    names_checked: bool,
}

impl std::fmt::Debug for FollowRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FollowRun")
            .field("tick", &self.parser.state().tick)
            .field("offset", &self.parser.decoder().offset())
            .finish_non_exhaustive()
    }
}

impl FollowRun {
    /// A run of `query` waiting for the demo's first bytes; an option no
    /// table uses is an error ([`Query::validate`]).
    pub fn new(query: &Query) -> Result<FollowRun, QueryError> {
        query.validate()?;
        let mut parser = StreamParser::new();
        if let Some(cache) = &query.options.send_table_cache {
            parser = parser.with_send_table_cache(Arc::clone(cache));
        }
        Ok(FollowRun {
            query: query.clone(),
            parser,
            collectors: Collectors::new(query),
            names_checked: false,
        })
    }

    /// Takes in the next bytes of the demo and applies every frame they
    /// complete (a frame cut by the end of the bytes waits for the next).
    /// A demo that is not one, or a frame that does not parse, is an error.
    pub fn push(&mut self, bytes: &[u8]) -> Result<(), QueryError> {
        self.parser
            .push(bytes, &mut self.collectors)
            .map_err(QueryError::Demo)
    }

    /// Whether the demo's `DEM_Stop` frame was read: the demo is complete.
    pub fn reached_stop(&self) -> bool {
        self.parser.state().reached_stop
    }

    /// The state so far.
    pub fn state(&self) -> &DemoState {
        self.parser.state()
    }

    /// The demo bytes taken in.
    pub fn bytes_read(&self) -> u64 {
        self.parser.decoder().offset() + self.parser.decoder().pending() as u64
    }

    /// Bytes the frame decoder holds (a frame being completed): bounded by
    /// the largest frame, whatever the length of the demo.
    pub fn buffered_bytes(&self) -> usize {
        self.parser.decoder().buffered_bytes()
    }

    /// The rows completed since the last call, of the tables whose rows
    /// arrive complete ([`rows_arrive_complete`]), in the query's order; a
    /// table with no new rows is absent. The query's names are checked
    /// against the demo before the first rows are given (an unknown prop
    /// or event name is the error [`Query::run`] gives); until the demo has
    /// declared them, rows wait.
    pub fn take_new(&mut self) -> Result<Vec<Table>, QueryError> {
        if !self.names_checked {
            let state = self.parser.state();
            // The send tables, the classes (which one is a player's) and,
            // for events asked for by name, the event list: the signon
            // declares them before any row can be made. A query that reads
            // no entity and no prop (chat, user commands, the combat log)
            // has nothing to wait for but its event names.
            let needs = self.query.interests();
            let schema = needs.entities || needs.send_tables;
            let declared = (!schema || (state.send_tables.is_some() && !state.classes.is_empty()))
                && (self.query.events.is_none()
                    || state.event_descriptors.names().next().is_some());
            if !declared {
                return Ok(Vec::new());
            }
            self.query.check_names(state)?;
            self.names_checked = true;
        }
        Ok(self
            .collectors
            .take_complete_rows(&self.query, self.parser.state()))
    }

    /// The input has ended: the rows not taken yet of every table (the
    /// tables complete only at the end whole), the final state, and the
    /// cut when the demo ended before its `DEM_Stop` (with
    /// [`RunOptions::keep_cut`] of the query; otherwise the cut is the
    /// error). The names and ticks are checked as [`Query::run`] checks
    /// them.
    pub fn finish(mut self) -> Result<Parsed, QueryError> {
        let ended = self.parser.finish_keeping_cut(&mut self.collectors);
        let header_read = self.parser.header_read();
        let cut = match ended {
            // Not even a file header: not a demo.
            Ok(Some(cut)) if !header_read => return Err(QueryError::Demo(cut)),
            Ok(cut) => cut,
            Err(e) => return Err(QueryError::Demo(e)),
        };
        let state = self.parser.into_state();
        self.query.check_names(&state)?;
        self.query.check_ticks(state.tick)?;
        if let (Some(cut), false) = (&cut, self.query.options.keep_cut) {
            return Err(QueryError::Demo(cut.clone()));
        }
        let tables = self.collectors.finish(&state);
        Ok(Parsed {
            tables,
            state,
            cut: Cut::of(None, cut),
        })
    }
}
