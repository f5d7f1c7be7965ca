//! Every kind of scenario error: the message, the key path of the value at
//! fault, and the line.

use gamewire_synth::{load, ScenarioFormat, SynthErrorKind};

type Res = Result<(), Box<dyn std::error::Error>>;

/// Two players a side, then `rounds` (TOML text appended as written).
fn toml_with(rounds: &str) -> String {
    format!(
        r#"map = "de_inferno"

[[players]]
name = "alice"
steamid = 76561198000000001
team = "T"

[[players]]
name = "bob"
steamid = 76561198000000002
team = "T"

[[players]]
name = "carol"
steamid = 76561198000000003
team = "CT"

[[players]]
name = "dave"
team = "CT"
bot = true
{rounds}"#
    )
}

/// A round won by the Ts with these events (each a TOML table body).
fn round_with(events: &[&str]) -> String {
    let mut s = String::from("\n[[rounds]]\nwinner = \"T\"\nend = 60\n");
    for e in events {
        s.push_str("\n[[rounds.events]]\n");
        s.push_str(e);
        s.push('\n');
    }
    s
}

/// The line, key and message of the error `text` gives.
fn error_of(text: &str, format: ScenarioFormat) -> Result<(Option<usize>, String, String), String> {
    match load(text, format) {
        Ok(_) => Err("the scenario was accepted".to_string()),
        Err(e) => match e.kind {
            SynthErrorKind::Scenario { line, key, message } => Ok((line, key, message)),
            other => Err(format!("not a scenario error: {other}")),
        },
    }
}

/// The 1-based line of the first line of `text` that contains `needle`
/// at or after line `from`.
fn line_of(text: &str, needle: &str, from: usize) -> Option<usize> {
    text.lines()
        .enumerate()
        .skip(from.saturating_sub(1))
        .find(|(_, l)| l.contains(needle))
        .map(|(i, _)| i + 1)
}

fn check(text: &str, format: ScenarioFormat, key: &str, message: &str, line_needle: &str) -> Res {
    let (line, k, m) = error_of(text, format)?;
    assert_eq!(k, key, "key; message: {m}");
    assert!(m.contains(message), "message `{m}` lacks `{message}`");
    let expected = line_of(text, line_needle, 1);
    assert_eq!(line, expected, "line of `{line_needle}`; message: {m}");
    Ok(())
}

#[test]
fn the_base_scenario_loads() -> Res {
    let s = load(&toml_with(&round_with(&[])), ScenarioFormat::Toml)?;
    assert_eq!(s.players.len(), 4);
    Ok(())
}

#[test]
fn toml_syntax_error() -> Res {
    let text = toml_with("\n[[rounds]]\nwinner = \"T\nend = 60\n");
    let (line, _, m) = error_of(&text, ScenarioFormat::Toml)?;
    assert_eq!(line, line_of(&text, "winner = \"T", 1));
    assert!(!m.is_empty());
    Ok(())
}

#[test]
fn json_syntax_error() -> Res {
    let text = "{\n  \"map\": \"de_nuke\",\n  \"players\": [\n    {\"name\": \"a\" \"team\": \"T\"}\n  ]\n}\n";
    let (line, _, m) = error_of(text, ScenarioFormat::Json)?;
    assert_eq!(line, Some(4));
    assert!(m.contains("expected"), "{m}");
    Ok(())
}

#[test]
fn unknown_key() -> Res {
    let text = toml_with(&round_with(&[])).replace("end = 60", "end = 60\nwiner = \"CT\"");
    check(
        &text,
        ScenarioFormat::Toml,
        "rounds[0].winer",
        "unknown field `winer`",
        "winer",
    )
}

#[test]
fn wrong_type() -> Res {
    let text = toml_with(&round_with(&[])).replace("end = 60", "end = \"sixty\"");
    check(
        &text,
        ScenarioFormat::Toml,
        "rounds[0].end",
        "invalid type",
        "end = \"sixty\"",
    )
}

#[test]
fn missing_required_key() -> Res {
    let text = toml_with(&round_with(&[])).replace("map = \"de_inferno\"\n", "");
    let (_, key, m) = error_of(&text, ScenarioFormat::Toml)?;
    assert_eq!(key, "");
    assert!(m.contains("missing field `map`"), "{m}");
    Ok(())
}

#[test]
fn unknown_event_type() -> Res {
    let text = toml_with(&round_with(&["t = 20\ntype = \"kil\"\nvictim = \"bob\""]));
    check(
        &text,
        ScenarioFormat::Toml,
        "rounds[0].events[0]",
        "unknown variant `kil`",
        "[[rounds.events]]",
    )
}

#[test]
fn unknown_player() -> Res {
    let text = toml_with(&round_with(&[
        "t = 20\ntype = \"kill\"\nattacker = \"alice\"\nvictim = \"erin\"\nweapon = \"glock\"",
    ]));
    check(
        &text,
        ScenarioFormat::Toml,
        "rounds[0].events[0].victim",
        "unknown player `erin`",
        "victim = \"erin\"",
    )
}

#[test]
fn unknown_player_in_json() -> Res {
    let text = r#"{
  "map": "de_nuke",
  "players": [
    {"name": "alice", "steamid": 76561198000000001, "team": "T"},
    {"name": "carol", "steamid": 76561198000000003, "team": "CT"}
  ],
  "rounds": [
    {"winner": "T", "end": 60, "events": [
      {"t": 20, "type": "kill", "attacker": "alice", "victim": "erin", "weapon": "glock"}
    ]}
  ]
}
"#;
    check(
        text,
        ScenarioFormat::Json,
        "rounds[0].events[0].victim",
        "unknown player `erin`",
        "\"victim\": \"erin\"",
    )
}

#[test]
fn kill_of_a_dead_player() -> Res {
    let text = toml_with(&round_with(&[
        "t = 20\ntype = \"kill\"\nattacker = \"carol\"\nvictim = \"bob\"\nweapon = \"usp_silencer\"",
        "t = 21\ntype = \"kill\"\nattacker = \"dave\"\nvictim = \"bob\"\nweapon = \"usp_silencer\"",
    ]));
    let (line, key, m) = error_of(&text, ScenarioFormat::Toml)?;
    assert_eq!(key, "rounds[0].events[1].victim");
    assert!(m.contains("`bob` is already dead"), "{m}");
    let first = line_of(&text, "victim = \"bob\"", 1).ok_or("no first victim")?;
    assert_eq!(line, line_of(&text, "victim = \"bob\"", first + 1));
    Ok(())
}

#[test]
fn a_dead_player_acting() -> Res {
    let text = toml_with(&round_with(&[
        "t = 20\ntype = \"kill\"\nattacker = \"carol\"\nvictim = \"bob\"\nweapon = \"usp_silencer\"",
        "t = 21\ntype = \"kill\"\nattacker = \"bob\"\nvictim = \"carol\"\nweapon = \"glock\"",
    ]));
    check(
        &text,
        ScenarioFormat::Toml,
        "rounds[0].events[1].attacker",
        "`bob` is dead and cannot kill",
        "attacker = \"bob\"",
    )
}

#[test]
fn a_dead_player_buying() -> Res {
    let text = toml_with(&round_with(&[
        "t = 20\ntype = \"kill\"\nattacker = \"carol\"\nvictim = \"bob\"\nweapon = \"usp_silencer\"",
        "t = 21\ntype = \"purchase\"\nplayer = \"bob\"\nitem = \"p250\"",
    ]));
    check(
        &text,
        ScenarioFormat::Toml,
        "rounds[0].events[1].player",
        "`bob` is dead and cannot buy",
        "player = \"bob\"",
    )
}

#[test]
fn time_running_backwards() -> Res {
    let text = toml_with(&round_with(&[
        "t = 20\ntype = \"chat\"\nplayer = \"bob\"\ntext = \"a\"",
        "t = 19.5\ntype = \"chat\"\nplayer = \"bob\"\ntext = \"b\"",
    ]));
    check(
        &text,
        ScenarioFormat::Toml,
        "rounds[0].events[1].t",
        "time runs backwards",
        "t = 19.5",
    )
}

#[test]
fn keyframe_time_running_backwards() -> Res {
    let text = toml_with(&format!(
        "{}\n[rounds.players.alice]\nkeys = [\n  {{ t = 5, pos = [0.0, 0.0, 0.0] }},\n  {{ tick = 100, pos = [1.0, 0.0, 0.0] }},\n]\n",
        round_with(&[])
    ));
    check(
        &text,
        ScenarioFormat::Toml,
        "rounds[0].players.alice.keys[1].tick",
        "time runs backwards: tick 100 of the round comes after tick 320",
        "tick = 100",
    )
}

#[test]
fn event_after_the_round() -> Res {
    let text = toml_with(&round_with(&[
        "t = 90\ntype = \"chat\"\nplayer = \"bob\"\ntext = \"late\"",
    ]));
    check(
        &text,
        ScenarioFormat::Toml,
        "rounds[0].events[0].t",
        "after the round's end",
        "t = 90",
    )
}

#[test]
fn time_out_of_range() -> Res {
    let text = toml_with(&round_with(&[])).replace("end = 60", "end = 1e300");
    check(
        &text,
        ScenarioFormat::Toml,
        "rounds[0].end",
        "must be a number of seconds from 0 to 86400",
        "end = 1e300",
    )
}

#[test]
fn both_t_and_tick() -> Res {
    let text = toml_with(&round_with(&[
        "t = 20\ntick = 30\ntype = \"chat\"\nplayer = \"bob\"\ntext = \"a\"",
    ]));
    check(
        &text,
        ScenarioFormat::Toml,
        "rounds[0].events[0]",
        "not both",
        "[[rounds.events]]",
    )
}

#[test]
fn unknown_weapon() -> Res {
    let text = toml_with(&round_with(&[
        "t = 20\ntype = \"kill\"\nattacker = \"alice\"\nvictim = \"carol\"\nweapon = \"ak74\"",
    ]));
    check(
        &text,
        ScenarioFormat::Toml,
        "rounds[0].events[0].weapon",
        "unknown weapon `ak74`",
        "weapon = \"ak74\"",
    )
}

#[test]
fn weapon_not_carried() -> Res {
    let text = toml_with(&round_with(&[
        "t = 20\ntype = \"kill\"\nattacker = \"alice\"\nvictim = \"carol\"\nweapon = \"ak47\"",
    ]));
    check(
        &text,
        ScenarioFormat::Toml,
        "rounds[0].events[0].weapon",
        "`alice` does not carry `ak47`",
        "weapon = \"ak47\"",
    )
}

#[test]
fn unknown_item() -> Res {
    let text = toml_with(&round_with(&[
        "t = 16\ntype = \"purchase\"\nplayer = \"alice\"\nitem = \"helmet\"",
    ]));
    check(
        &text,
        ScenarioFormat::Toml,
        "rounds[0].events[0].item",
        "unknown item `helmet`",
        "item = \"helmet\"",
    )
}

#[test]
fn purchase_without_money() -> Res {
    let text = toml_with(&round_with(&[
        "t = 16\ntype = \"purchase\"\nplayer = \"alice\"\nitem = \"ak47\"",
    ]));
    check(
        &text,
        ScenarioFormat::Toml,
        "rounds[0].events[0].item",
        "a purchase without the money: `alice` has $800, `ak47` costs $2700",
        "item = \"ak47\"",
    )
}

#[test]
fn plant_without_the_bomb() -> Res {
    let text = toml_with(&round_with(&[
        "t = 30\ntype = \"plant\"\nplayer = \"bob\"\nsite = \"A\"",
    ]));
    check(
        &text,
        ScenarioFormat::Toml,
        "rounds[0].events[0].player",
        "a plant without the bomb: `bob` does not carry it",
        "player = \"bob\"",
    )
}

#[test]
fn defuse_without_a_planted_bomb() -> Res {
    let text = toml_with(&round_with(&[
        "t = 30\ntype = \"defuse\"\nplayer = \"carol\"",
    ]))
    .replace("winner = \"T\"", "winner = \"CT\"");
    check(
        &text,
        ScenarioFormat::Toml,
        "rounds[0].events[0].player",
        "no bomb is planted",
        "player = \"carol\"",
    )
}

#[test]
fn damage_that_kills() -> Res {
    let text = toml_with(&round_with(&[
        "t = 20\ntype = \"damage\"\nattacker = \"alice\"\nvictim = \"carol\"\nweapon = \"glock\"\ndmg_health = 100",
    ]));
    check(
        &text,
        ScenarioFormat::Toml,
        "rounds[0].events[0].dmg_health",
        "a hit that kills is a `kill` event",
        "dmg_health = 100",
    )
}

#[test]
fn unknown_hitgroup() -> Res {
    let text = toml_with(&round_with(&[
        "t = 20\ntype = \"damage\"\nattacker = \"alice\"\nvictim = \"carol\"\nweapon = \"glock\"\ndmg_health = 10\nhitgroup = \"toe\"",
    ]));
    check(
        &text,
        ScenarioFormat::Toml,
        "rounds[0].events[0].hitgroup",
        "unknown hit group `toe`",
        "hitgroup = \"toe\"",
    )
}

#[test]
fn grenade_not_carried() -> Res {
    let text = toml_with(&round_with(&[
        "t = 20\ntype = \"throw\"\nplayer = \"alice\"\ngrenade = \"smokegrenade\"\nto = [1.0, 2.0, 3.0]",
    ]));
    check(
        &text,
        ScenarioFormat::Toml,
        "rounds[0].events[0].grenade",
        "`alice` does not carry `smokegrenade`",
        "grenade = \"smokegrenade\"",
    )
}

#[test]
fn blinding_a_dead_player() -> Res {
    let mut text = toml_with(&round_with(&[
        "t = 16\ntype = \"purchase\"\nplayer = \"alice\"\nitem = \"flashbang\"",
        "t = 17\ntype = \"kill\"\nattacker = \"alice\"\nvictim = \"dave\"\nweapon = \"glock\"",
        "t = 18\ntype = \"throw\"\nplayer = \"alice\"\ngrenade = \"flashbang\"\nto = [1.0, 2.0, 3.0]\nblinds = [{ player = \"carol\", duration = 2.0 }, { player = \"dave\", duration = 1.0 }]",
    ]));
    text.push('\n');
    check(
        &text,
        ScenarioFormat::Toml,
        "rounds[0].events[2].blinds[1].player",
        "`dave` is dead when the flashbang detonates",
        "blinds = ",
    )
}

#[test]
fn duplicate_names() -> Res {
    let text = toml_with(&round_with(&[])).replace("name = \"bob\"", "name = \"alice\"");
    let (line, key, m) = error_of(&text, ScenarioFormat::Toml)?;
    assert_eq!(key, "players[1].name");
    assert!(m.contains("duplicate player name `alice`"), "{m}");
    let first = line_of(&text, "name = \"alice\"", 1).ok_or("no alice")?;
    assert_eq!(line, line_of(&text, "name = \"alice\"", first + 1));
    Ok(())
}

#[test]
fn duplicate_steam_ids() -> Res {
    let text = toml_with(&round_with(&[]))
        .replace("steamid = 76561198000000003", "steamid = 76561198000000001");
    let (line, key, m) = error_of(&text, ScenarioFormat::Toml)?;
    assert_eq!(key, "players[2].steamid");
    assert!(m.contains("duplicate steam id 76561198000000001"), "{m}");
    let first = line_of(&text, "steamid = 76561198000000001", 1).ok_or("no id")?;
    assert_eq!(
        line,
        line_of(&text, "steamid = 76561198000000001", first + 1)
    );
    Ok(())
}

#[test]
fn human_without_steam_id() -> Res {
    // The key is absent: the line is its table's.
    let text = toml_with(&round_with(&[])).replace("steamid = 76561198000000002\n", "");
    let (line, key, m) = error_of(&text, ScenarioFormat::Toml)?;
    assert_eq!(key, "players[1].steamid");
    assert!(m.contains("`bob` is human and needs a steam id"), "{m}");
    let bob = line_of(&text, "name = \"bob\"", 1).ok_or("no bob")?;
    assert_eq!(line, Some(bob - 1));
    Ok(())
}

#[test]
fn reason_contradicts_winner() -> Res {
    let text =
        toml_with(&round_with(&[])).replace("end = 60", "end = 60\nreason = \"bomb_defused\"");
    check(
        &text,
        ScenarioFormat::Toml,
        "rounds[0].winner",
        "a `bomb_defused` round is won by CT, not T",
        "winner = \"T\"",
    )
}

#[test]
fn unknown_reason() -> Res {
    let text = toml_with(&round_with(&[])).replace("end = 60", "end = 60\nreason = \"timeout\"");
    check(
        &text,
        ScenarioFormat::Toml,
        "rounds[0].reason",
        "unknown round end reason `timeout`",
        "reason = \"timeout\"",
    )
}

#[test]
fn bomb_carrier_not_a_terrorist() -> Res {
    let text = toml_with(&round_with(&[])).replace("end = 60", "end = 60\nbomb = \"carol\"");
    check(
        &text,
        ScenarioFormat::Toml,
        "rounds[0].bomb",
        "`carol` is not a living terrorist at the start of round 1",
        "bomb = \"carol\"",
    )
}

#[test]
fn state_for_a_player_not_in_the_round() -> Res {
    let text = toml_with(&round_with(&[])).replace(
        "team = \"CT\"\nbot = true",
        "team = \"CT\"\nbot = true\nconnected = false",
    ) + "\n[rounds.players.dave]\nmoney = 3000\n";
    check(
        &text,
        ScenarioFormat::Toml,
        "rounds[0].players.dave",
        "`dave` does not play round 1",
        "[rounds.players.dave]",
    )
}

#[test]
fn takeover_by_a_living_player() -> Res {
    let text = toml_with(&round_with(&[
        "t = 20\ntype = \"takeover\"\nplayer = \"carol\"\nbot = \"dave\"",
    ]));
    check(
        &text,
        ScenarioFormat::Toml,
        "rounds[0].events[0].player",
        "`carol` is alive; only a dead player takes over a bot",
        "player = \"carol\"",
    )
}

#[test]
fn unknown_expected_table() -> Res {
    let text = format!(
        "{}\n[[expected.killz]]\ntick = 3\n",
        toml_with(&round_with(&[]))
    );
    check(
        &text,
        ScenarioFormat::Toml,
        "expected.killz",
        "unknown table `killz`",
        "[[expected.killz]]",
    )
}

#[test]
fn error_display_names_line_and_key() -> Res {
    let text = toml_with(&round_with(&[
        "t = 20\ntype = \"kill\"\nattacker = \"alice\"\nvictim = \"erin\"\nweapon = \"glock\"",
    ]));
    let e = load(&text, ScenarioFormat::Toml)
        .err()
        .ok_or("the scenario was accepted")?;
    let line = line_of(&text, "victim = \"erin\"", 1).ok_or("no line")?;
    assert_eq!(
        e.to_string(),
        format!("scenario line {line}: rounds[0].events[0].victim: unknown player `erin`")
    );
    Ok(())
}

#[test]
fn cut_scenarios_are_errors_not_panics() -> Res {
    let toml = toml_with(&round_with(&[
        "t = 16\ntype = \"purchase\"\nplayer = \"alice\"\nitem = \"flashbang\"",
        "t = 18\ntype = \"throw\"\nplayer = \"alice\"\ngrenade = \"flashbang\"\nto = [1.0, 2.0, 3.0]\nblinds = [{ player = \"carol\", duration = 2.0 }]",
        "t = 20\ntype = \"kill\"\nattacker = \"alice\"\nvictim = \"carol\"\nweapon = \"glock\"",
    ]));
    let scenario = load(&toml, ScenarioFormat::Toml)?;
    let json = serde_json::to_string_pretty(&scenario)?;
    assert_eq!(load(&json, ScenarioFormat::Json)?, scenario);
    for (text, format) in [(&toml, ScenarioFormat::Toml), (&json, ScenarioFormat::Json)] {
        let mut cuts = 0;
        for end in (0..text.len()).filter(|&i| text.is_char_boundary(i)) {
            let Some(cut) = text.get(..end) else {
                continue;
            };
            // Every cut either reads (a whole table ends there) or names a line.
            if let Err(e) = load(cut, format) {
                match e.kind {
                    SynthErrorKind::Scenario { line, .. } => {
                        assert!(line.is_none_or(|l| l <= cut.lines().count() + 1));
                    }
                    other => return Err(format!("not a scenario error: {other}").into()),
                }
                cuts += 1;
            }
        }
        assert!(cuts > text.len() / 2, "{cuts} of {}", text.len());
    }
    Ok(())
}
