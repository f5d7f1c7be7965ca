//! The checks a scenario passes before anything is written.
//!
//! Two passes. The first reads the scenario as written: every name a key
//! refers to is a listed player, every weapon and item is one CS2 has
//! (`items`), every time is a finite number inside its round and no later
//! than the next one (time never runs backwards), names and steam ids are
//! unique, the round results are consistent (a `bomb_defused` round is won
//! by the counter-terrorists). The second plays the match through the same
//! state machine that writes the frames (`simulate`) and stops at the first
//! event the match at that moment forbids: a dead player acting or being
//! killed, a purchase without the money, a plant without the bomb, a
//! defuse with no bomb planted, a grenade the thrower does not carry.
//!
//! A problem is reported with the dotted key path of the value at fault
//! (`rounds[2].events[5].victim`); `load` adds the line.

use std::collections::HashSet;

use crate::items::{item, ItemKind, NON_ITEM_WEAPONS};
use crate::scenario::{Action, Event, Key, Round, Scenario, Winner};

/// A problem found in a scenario: where (key path) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The dotted key path of the offending value.
    pub key: String,
    /// What is wrong.
    pub message: String,
}

pub(crate) fn problem(key: impl Into<String>, message: impl Into<String>) -> Problem {
    Problem {
        key: key.into(),
        message: message.into(),
    }
}

/// The tables a scenario's `expected` section may name (gamewire's).
pub const TABLES: &[&str] = &[
    "events",
    "ticks",
    "players",
    "chat",
    "grenades",
    "rounds",
    "kills",
    "damages",
    "purchases",
    "user_commands",
    "shots",
    "bomb",
    "smokes",
    "infernos",
    "flashes",
    "footsteps",
    "item_drops",
    "skins",
    "updated_fields",
    "header",
];

/// Round-end reasons a scenario may name: name, `CSRoundEndReason` number
/// (as `round_end` sends it), the winner it implies, and the message.
pub const REASONS: &[(&str, i32, Option<Winner>, &str)] = &[
    (
        "bomb_exploded",
        1,
        Some(Winner::T),
        "#SFUI_Notice_Target_Bombed",
    ),
    (
        "bomb_defused",
        7,
        Some(Winner::Ct),
        "#SFUI_Notice_Bomb_Defused",
    ),
    ("t_killed", 8, Some(Winner::Ct), "#SFUI_Notice_CTs_Win"),
    (
        "ct_killed",
        9,
        Some(Winner::T),
        "#SFUI_Notice_Terrorists_Win",
    ),
    ("draw", 10, Some(Winner::Draw), "#SFUI_Notice_Round_Draw"),
    (
        "target_saved",
        12,
        Some(Winner::Ct),
        "#SFUI_Notice_Target_Saved",
    ),
    (
        "t_surrender",
        17,
        Some(Winner::Ct),
        "#SFUI_Notice_Terrorists_Surrender",
    ),
    (
        "ct_surrender",
        18,
        Some(Winner::T),
        "#SFUI_Notice_CTs_Surrender",
    ),
];

/// Hit group names and their numbers (`player_hurt`'s `hitgroup`).
pub const HITGROUPS: &[(&str, i64)] = &[
    ("generic", 0),
    ("head", 1),
    ("chest", 2),
    ("stomach", 3),
    ("left_arm", 4),
    ("right_arm", 5),
    ("left_leg", 6),
    ("right_leg", 7),
    ("neck", 8),
    ("gear", 10),
];

/// The most players a scenario may list (CS2's player slots).
pub const MAX_PLAYERS: usize = 64;

/// Checks a scenario: as written, then played through.
pub fn check(s: &Scenario) -> Result<(), Problem> {
    check_written(s)?;
    crate::simulate::dry_run(s)
}

/// The longest time a scenario may name, seconds (a day): every tick then
/// fits the demo's 32-bit ticks.
pub const MAX_SECONDS: f64 = 86_400.0;

fn finite_nonneg(key: String, v: f64) -> Result<(), Problem> {
    if v.is_finite() && (0.0..=MAX_SECONDS).contains(&v) {
        Ok(())
    } else {
        Err(problem(
            key,
            format!("must be a number of seconds from 0 to {MAX_SECONDS}, not {v}"),
        ))
    }
}

/// The checks that need no play-through.
pub fn check_written(s: &Scenario) -> Result<(), Problem> {
    if s.map.trim().is_empty() {
        return Err(problem("map", "the map name is empty"));
    }
    if !(1..=1024).contains(&s.tick_rate) {
        return Err(problem("tick_rate", "must be 1 to 1024 ticks per second"));
    }
    if !(1..=1024).contains(&s.frame_interval) {
        return Err(problem("frame_interval", "must be 1 to 1024 ticks"));
    }
    if s.start_tick < 0 || s.start_tick > 1 << 24 {
        return Err(problem("start_tick", "must be 0 to 16777216"));
    }
    let r = &s.rules;
    if r.max_rounds < 2 || !r.max_rounds.is_multiple_of(2) {
        return Err(problem("rules.max_rounds", "must be an even number ≥ 2"));
    }
    if r.overtime_max_rounds < 2 || !r.overtime_max_rounds.is_multiple_of(2) {
        return Err(problem(
            "rules.overtime_max_rounds",
            "must be an even number ≥ 2",
        ));
    }
    for (k, v) in [
        ("start_money", r.start_money),
        ("overtime_start_money", r.overtime_start_money),
        ("max_money", r.max_money),
    ] {
        if v < 0 {
            return Err(problem(format!("rules.{k}"), "must be ≥ 0"));
        }
    }
    for (k, v) in [
        ("freeze_time", r.freeze_time),
        ("round_time", r.round_time),
        ("restart_delay", r.restart_delay),
        ("bomb_timer", r.bomb_timer),
    ] {
        finite_nonneg(format!("rules.{k}"), v)?;
    }
    check_players(s)?;
    for (i, round) in s.rounds.iter().enumerate() {
        check_round(s, i, round)?;
    }
    for (name, rows) in &s.expected {
        if !TABLES.contains(&name.as_str()) {
            return Err(problem(
                format!("expected.{name}"),
                format!("unknown table `{name}` (tables: {})", TABLES.join(", ")),
            ));
        }
        let _ = rows;
    }
    Ok(())
}

fn check_players(s: &Scenario) -> Result<(), Problem> {
    if s.players.is_empty() {
        return Err(problem("players", "the match has no player"));
    }
    if s.players.len() > MAX_PLAYERS {
        return Err(problem(
            "players",
            format!("{} players; CS2 has {MAX_PLAYERS} slots", s.players.len()),
        ));
    }
    let mut names = HashSet::new();
    let mut ids = HashSet::new();
    for (i, p) in s.players.iter().enumerate() {
        if p.name.is_empty() {
            return Err(problem(format!("players[{i}].name"), "the name is empty"));
        }
        if !names.insert(p.name.as_str()) {
            return Err(problem(
                format!("players[{i}].name"),
                format!("duplicate player name `{}`", p.name),
            ));
        }
        if p.bot && p.steamid != 0 {
            return Err(problem(
                format!("players[{i}].steamid"),
                format!("`{}` is a bot; a bot's steam id is 0", p.name),
            ));
        }
        if !p.bot && p.steamid == 0 {
            return Err(problem(
                format!("players[{i}].steamid"),
                format!("`{}` is human and needs a steam id (bots have 0)", p.name),
            ));
        }
        if p.steamid != 0 && !ids.insert(p.steamid) {
            return Err(problem(
                format!("players[{i}].steamid"),
                format!("duplicate steam id {}", p.steamid),
            ));
        }
    }
    Ok(())
}

/// The player named, or a problem at `key`.
pub(crate) fn player_index(s: &Scenario, key: &str, name: &str) -> Result<usize, Problem> {
    s.players
        .iter()
        .position(|p| p.name == name)
        .ok_or_else(|| problem(key, format!("unknown player `{name}`")))
}

/// The round's end reason: `(name, number, message)`.
pub fn reason_of(round: &Round) -> Option<(&'static str, i32, &'static str)> {
    let name = match &round.reason {
        Some(n) => n.as_str(),
        None => {
            let has = |f: fn(&Action) -> bool| round.events.iter().any(|e| f(&e.action));
            if has(|a| matches!(a, Action::Explode {})) {
                "bomb_exploded"
            } else if has(|a| matches!(a, Action::Defuse { .. })) {
                "bomb_defused"
            } else {
                match round.winner {
                    Winner::T => "ct_killed",
                    Winner::Ct => "t_killed",
                    Winner::Draw => "draw",
                }
            }
        }
    };
    REASONS
        .iter()
        .find(|r| r.0 == name)
        .map(|&(n, num, _, msg)| (n, num, msg))
}

/// An event's or key's time as a tick offset from the round's start.
pub(crate) fn offset_ticks(
    t: Option<f64>,
    tick: Option<i64>,
    tick_rate: u32,
    key: &str,
) -> Result<i64, Problem> {
    match (t, tick) {
        (Some(_), Some(_)) => Err(problem(key, "give `t` (seconds) or `tick`, not both")),
        (None, None) => Err(problem(key, "needs a time: `t` (seconds) or `tick`")),
        (Some(t), None) => {
            if !t.is_finite() || !(0.0..=MAX_SECONDS).contains(&t) {
                return Err(problem(
                    format!("{key}.t"),
                    format!("must be seconds from 0 to {MAX_SECONDS}, not {t}"),
                ));
            }
            Ok(seconds_to_ticks(t, tick_rate))
        }
        (None, Some(k)) => {
            let max = seconds_to_ticks(MAX_SECONDS, tick_rate);
            if !(0..=max).contains(&k) {
                return Err(problem(
                    format!("{key}.tick"),
                    format!("must be 0 to {max}"),
                ));
            }
            Ok(k)
        }
    }
}

/// `round(seconds × tick_rate)`.
pub fn seconds_to_ticks(seconds: f64, tick_rate: u32) -> i64 {
    (seconds * f64::from(tick_rate)).round() as i64
}

fn known_weapon(key: String, name: &str) -> Result<(), Problem> {
    match item(name) {
        Some(d) if d.kind != ItemKind::Equipment => Ok(()),
        _ if NON_ITEM_WEAPONS.contains(&name) => Ok(()),
        _ => Err(problem(key, format!("unknown weapon `{name}`"))),
    }
}

fn known_hitgroup(key: String, name: &Option<String>) -> Result<(), Problem> {
    match name {
        Some(n) if !HITGROUPS.iter().any(|h| h.0 == n) => Err(problem(
            key,
            format!(
                "unknown hit group `{n}` (hit groups: {})",
                HITGROUPS.iter().map(|h| h.0).collect::<Vec<_>>().join(", ")
            ),
        )),
        _ => Ok(()),
    }
}

fn check_round(s: &Scenario, i: usize, round: &Round) -> Result<(), Problem> {
    let rk = format!("rounds[{i}]");
    finite_nonneg(format!("{rk}.end"), round.end)?;
    if let Some(f) = round.freeze_time {
        finite_nonneg(format!("{rk}.freeze_time"), f)?;
    }
    if let Some(d) = round.restart_delay {
        finite_nonneg(format!("{rk}.restart_delay"), d)?;
    }
    let end = seconds_to_ticks(round.end, s.tick_rate);
    if end < 1 {
        return Err(problem(
            format!("{rk}.end"),
            "the round must last at least one tick",
        ));
    }
    let delay = seconds_to_ticks(
        round.restart_delay.unwrap_or(s.rules.restart_delay),
        s.tick_rate,
    );
    let limit = end + delay;
    match reason_of(round) {
        None => {
            return Err(problem(
                format!("{rk}.reason"),
                format!(
                    "unknown round end reason `{}` (reasons: {})",
                    round.reason.as_deref().unwrap_or(""),
                    REASONS.iter().map(|r| r.0).collect::<Vec<_>>().join(", ")
                ),
            ))
        }
        Some((name, _, _)) => {
            let implied = REASONS
                .iter()
                .find(|r| r.0 == name)
                .and_then(|r| r.2)
                .unwrap_or(round.winner);
            if implied != round.winner {
                return Err(problem(
                    format!("{rk}.winner"),
                    format!(
                        "a `{name}` round is won by {}, not {}",
                        winner_name(implied),
                        winner_name(round.winner)
                    ),
                ));
            }
        }
    }
    if let Some(b) = &round.bomb {
        if !b.is_empty() {
            player_index(s, &format!("{rk}.bomb"), b)?;
        }
    }
    for (name, rp) in &round.players {
        let pk = format!("{rk}.players.{name}");
        player_index(s, &pk, name)?;
        if let Some(m) = rp.money {
            if m < 0 || m > s.rules.max_money {
                return Err(problem(
                    format!("{pk}.money"),
                    format!("must be 0 to rules.max_money ({})", s.rules.max_money),
                ));
            }
        }
        if let Some(h) = rp.health {
            if !(1..=100).contains(&h) {
                return Err(problem(format!("{pk}.health"), "must be 1 to 100"));
            }
        }
        if let Some(a) = rp.armor {
            if !(0..=100).contains(&a) {
                return Err(problem(format!("{pk}.armor"), "must be 0 to 100"));
            }
        }
        if let Some(ws) = &rp.weapons {
            for (j, w) in ws.iter().enumerate() {
                match item(w) {
                    Some(d) if d.kind != ItemKind::Equipment => {}
                    _ => {
                        return Err(problem(
                            format!("{pk}.weapons[{j}]"),
                            format!("unknown weapon `{w}`"),
                        ))
                    }
                }
            }
        }
        check_keys(s, &pk, &rp.keys, limit)?;
    }
    let mut last = 0i64;
    for (j, ev) in round.events.iter().enumerate() {
        let ek = format!("{rk}.events[{j}]");
        let at = offset_ticks(ev.t, ev.tick, s.tick_rate, &ek)?;
        if at < last {
            return Err(problem(
                time_key(&ek, ev),
                format!("time runs backwards: tick {at} of the round comes after tick {last}"),
            ));
        }
        if at > limit {
            return Err(problem(
                time_key(&ek, ev),
                format!(
                    "after the round's end: the round lasts {limit} ticks (end + restart_delay)"
                ),
            ));
        }
        last = at;
        check_action(s, &ek, &ev.action)?;
    }
    Ok(())
}

fn winner_name(w: Winner) -> &'static str {
    match w {
        Winner::T => "T",
        Winner::Ct => "CT",
        Winner::Draw => "nobody (draw)",
    }
}

/// The key of an event's time value.
pub(crate) fn time_key(ek: &str, ev: &Event) -> String {
    if ev.tick.is_some() {
        format!("{ek}.tick")
    } else {
        format!("{ek}.t")
    }
}

fn check_keys(s: &Scenario, pk: &str, keys: &[Key], limit: i64) -> Result<(), Problem> {
    let mut last = -1i64;
    for (j, k) in keys.iter().enumerate() {
        let kk = format!("{pk}.keys[{j}]");
        let at = offset_ticks(k.t, k.tick, s.tick_rate, &kk)?;
        let tk = if k.tick.is_some() {
            format!("{kk}.tick")
        } else {
            format!("{kk}.t")
        };
        if at < last {
            return Err(problem(
                tk,
                format!("time runs backwards: tick {at} of the round comes after tick {last}"),
            ));
        }
        if at > limit {
            return Err(problem(
                tk,
                format!("after the round's end: the round lasts {limit} ticks"),
            ));
        }
        last = at;
        if let Some(p) = k.pos {
            if p.iter().any(|v| !v.is_finite() || v.abs() > 16384.0) {
                return Err(problem(
                    format!("{kk}.pos"),
                    "a position is three finite numbers within ±16384",
                ));
            }
        }
        for (name, v) in [("yaw", k.yaw), ("pitch", k.pitch)] {
            if let Some(v) = v {
                if !v.is_finite() {
                    return Err(problem(format!("{kk}.{name}"), "must be a finite angle"));
                }
            }
        }
    }
    Ok(())
}

fn check_action(s: &Scenario, ek: &str, a: &Action) -> Result<(), Problem> {
    let who = |k: &str, n: &str| player_index(s, &format!("{ek}.{k}"), n).map(|_| ());
    match a {
        Action::Kill {
            attacker,
            victim,
            assister,
            weapon,
            hitgroup,
            dmg_armor,
            penetrated,
            ..
        } => {
            if let Some(n) = attacker {
                who("attacker", n)?;
            }
            who("victim", victim)?;
            if let Some(n) = assister {
                who("assister", n)?;
                if n == victim {
                    return Err(problem(
                        format!("{ek}.assister"),
                        "the victim cannot assist their own death",
                    ));
                }
            }
            known_weapon(format!("{ek}.weapon"), weapon)?;
            known_hitgroup(format!("{ek}.hitgroup"), hitgroup)?;
            if *dmg_armor < 0 {
                return Err(problem(format!("{ek}.dmg_armor"), "must be ≥ 0"));
            }
            if *penetrated < 0 {
                return Err(problem(format!("{ek}.penetrated"), "must be ≥ 0"));
            }
        }
        Action::Damage {
            attacker,
            victim,
            weapon,
            dmg_health,
            dmg_armor,
            hitgroup,
        } => {
            if let Some(n) = attacker {
                who("attacker", n)?;
            }
            who("victim", victim)?;
            known_weapon(format!("{ek}.weapon"), weapon)?;
            known_hitgroup(format!("{ek}.hitgroup"), hitgroup)?;
            if *dmg_health < 1 {
                return Err(problem(format!("{ek}.dmg_health"), "must be ≥ 1"));
            }
            if *dmg_armor < 0 {
                return Err(problem(format!("{ek}.dmg_armor"), "must be ≥ 0"));
            }
        }
        Action::Purchase { player, item: it }
        | Action::Pickup { player, item: it }
        | Action::Drop { player, item: it } => {
            who("player", player)?;
            if item(it).is_none() {
                return Err(problem(
                    format!("{ek}.item"),
                    format!("unknown item `{it}`"),
                ));
            }
        }
        Action::Throw {
            player,
            grenade,
            to,
            from,
            flight,
            duration,
            blinds,
        } => {
            who("player", player)?;
            if item(grenade).and_then(|d| d.grenade()).is_none() {
                return Err(problem(
                    format!("{ek}.grenade"),
                    format!(
                        "unknown grenade `{grenade}` (hegrenade, flashbang, smokegrenade, molotov, incgrenade, decoy)"
                    ),
                ));
            }
            for (k, p) in [("to", Some(to)), ("from", from.as_ref())] {
                if let Some(p) = p {
                    if p.iter().any(|v| !v.is_finite() || v.abs() > 16384.0) {
                        return Err(problem(
                            format!("{ek}.{k}"),
                            "a position is three finite numbers within ±16384",
                        ));
                    }
                }
            }
            if let Some(f) = flight {
                finite_nonneg(format!("{ek}.flight"), *f)?;
            }
            if let Some(d) = duration {
                finite_nonneg(format!("{ek}.duration"), *d)?;
            }
            for (j, b) in blinds.iter().enumerate() {
                player_index(s, &format!("{ek}.blinds[{j}].player"), &b.player)?;
                finite_nonneg(format!("{ek}.blinds[{j}].duration"), f64::from(b.duration))?;
            }
            if !blinds.is_empty() && grenade != "flashbang" {
                return Err(problem(format!("{ek}.blinds"), "only a flashbang blinds"));
            }
        }
        Action::BombPickup { player }
        | Action::BombDrop { player }
        | Action::PlantBegin { player, .. }
        | Action::PlantAbort { player }
        | Action::Plant { player, .. }
        | Action::DefuseBegin { player }
        | Action::DefuseAbort { player }
        | Action::Defuse { player }
        | Action::Chat { player, .. }
        | Action::Disconnect { player, .. }
        | Action::Connect { player, .. } => who("player", player)?,
        Action::Takeover { player, bot } => {
            let h = player_index(s, &format!("{ek}.player"), player)?;
            let b = player_index(s, &format!("{ek}.bot"), bot)?;
            if s.players.get(h).is_some_and(|p| p.bot) {
                return Err(problem(
                    format!("{ek}.player"),
                    format!("`{player}` is a bot; a human takes over a bot"),
                ));
            }
            if s.players.get(b).is_some_and(|p| !p.bot) {
                return Err(problem(
                    format!("{ek}.bot"),
                    format!("`{bot}` is not a bot"),
                ));
            }
        }
        Action::Explode {} => {}
    }
    Ok(())
}
