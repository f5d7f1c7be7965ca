//! One full parse per file with a visitor on entities and game events, as
//! `compare/` times against source2-demo, without the peer in the process:
//! for instruction counts (`valgrind --tool=callgrind`) of our side alone.
//! `cargo run --release -p gamewire-source2 --example fullparse -- FILE...`
#![allow(clippy::unwrap_used, clippy::expect_used)]

use gamewire_source2::{
    parse_with, DemoState, Entity, EntityChange, FieldPath, GameEvent, Interests, Visitor,
};

#[derive(Default)]
struct Counts {
    entities: u64,
    events: u64,
}

impl Visitor for Counts {
    fn interests(&self) -> Interests {
        Interests {
            entities: true,
            game_events: true,
            ..Interests::NONE
        }
    }
    fn on_entity(&mut self, _: &DemoState, _: EntityChange, _: &Entity, _: &[FieldPath]) {
        self.entities += 1;
    }
    fn on_game_event(&mut self, _: &DemoState, _: &GameEvent) {
        self.events += 1;
    }
}

fn main() {
    for path in std::env::args().skip(1) {
        let data = std::fs::read(&path).expect("read");
        let mut counts = Counts::default();
        let (state, err) = parse_with(&data, &mut counts).expect("parse");
        println!(
            "{path}: last tick {}, {} entity changes, {} game events, error: {}",
            state.tick,
            counts.entities,
            counts.events,
            err.map_or_else(|| "none".into(), |e| e.to_string())
        );
    }
}
