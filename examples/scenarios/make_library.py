#!/usr/bin/env python3
"""Writes the scenario library (the `.toml` files beside this script).

Each scenario is described here in a few lines of Python: the players, and per round the
winner, the timing, the movement keys and the events, as `docs/scenarios.md` defines them. The
script writes the scenario file and, from the same description, the tables the demo must give
(`[expected]`): it keeps its own account of the match (who is alive, health and armor after
each hit, scores, sides after the half-time switch, when each round starts and ends), as
`docs/scenarios.md` states the rules, so the expected rows are an independent statement of
what the scenario means, not a copy of what the synthesizer writes.

    python3 examples/scenarios/make_library.py        # rewrites every .toml here

Times in the scenarios are seconds after the round's start; a tick is
`round_start + round(t * tick_rate)`, moved to the next written tick when `frame_interval`
is more than 1.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

HERE = Path(__file__).resolve().parent

# Hit groups as the tables name them.
HITGROUPS = {"head", "chest", "stomach", "left_arm", "right_arm", "left_leg", "right_leg",
             "generic", "neck"}

# What a side's players start a half with (docs/scenarios.md): knife and pistol.
PISTOL = {"T": "glock", "CT": "usp_silencer"}
KNIFE = {"T": "knife_t", "CT": "knife"}

# Round-end reasons: name -> CS2's number (CSRoundEndReason).
REASONS = {"target_bombed": 1, "bomb_exploded": 1, "bomb_defused": 7, "ct_killed": 8,
           "t_killed": 9, "draw": 10, "target_saved": 12, "t_surrender": 17,
           "ct_surrender": 18}


def toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        r = repr(v)
        return r if ("." in r or "e" in r or "inf" in r or "nan" in r) else r + ".0"
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{toml_key(k)} = {toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(v)


def toml_key(k: str) -> str:
    return k if k.replace("_", "").replace("-", "").isalnum() else json.dumps(k)


def toml_rows(name: str, rows: list) -> str:
    if not rows:
        return f"{toml_key(name)} = []\n"
    return f"{toml_key(name)} = [\n" + "".join(f"  {toml_value(r)},\n" for r in rows) + "]\n"


class Player:
    def __init__(self, name, team, steamid=0, bot=False, connected=True):
        self.name, self.team, self.steamid, self.bot = name, team, steamid, bot
        self.connected = connected
        self.slot = 0


class Scenario:
    """A match: players, rounds, and the account of it that gives the expected tables."""

    def __init__(self, name, title, *, map="de_mirage", players, frame_interval=1,
                 tick_rate=64, start_tick=1, rules=None, teams=None, tables=None,
                 tick_samples=()):
        self.name, self.title, self.map = name, title, map
        self.players = players
        for i, p in enumerate(players):
            p.slot = i
        self.by_name = {p.name: p for p in players}
        self.frame_interval, self.tick_rate, self.start_tick = frame_interval, tick_rate, start_tick
        self.rules = dict(max_rounds=24, overtime_max_rounds=6, freeze_time=15.0,
                          restart_delay=7.0, bomb_timer=40.0)
        self.rules.update(rules or {})
        self.rules_given = rules or {}
        self.teams = teams
        self.rounds = []
        # The tables this scenario states (all by default).
        self.tables = tables
        # (round index, seconds) at which the ticks table is stated.
        self.tick_samples = list(tick_samples)

    def round(self, winner, end, *, reason=None, freeze_time=None, restart_delay=None,
              bomb=None, players=None, events=()):
        r = dict(winner=winner, end=float(end))
        if reason is not None:
            r["reason"] = reason
        if freeze_time is not None:
            r["freeze_time"] = float(freeze_time)
        if restart_delay is not None:
            r["restart_delay"] = float(restart_delay)
        if bomb is not None:
            r["bomb"] = bomb
        r["players"] = players or {}
        r["events"] = [dict(e) for e in events]
        self.rounds.append(r)
        return r

    # --- time ---------------------------------------------------------------------------

    def snap(self, tick: int) -> int:
        """The written tick an event of `tick` lands on."""
        f = self.frame_interval
        first = self.start_tick
        return first + -(-(tick - first) // f) * f

    def ticks_of(self, seconds: float) -> int:
        return int(math.floor(seconds * self.tick_rate + 0.5))

    # --- the account ---------------------------------------------------------------------

    def sides(self, index: int) -> dict:
        """Each player's side in round `index` (0-based): the start side, switched after
        regulation's half, and after each overtime half."""
        half = self.rules["max_rounds"] // 2
        ot = self.rules["overtime_max_rounds"]
        switches = 0
        if index >= half:
            switches += 1
        if index >= 2 * half:
            switches += (index - 2 * half) // (ot // 2)
        out = {}
        for p in self.players:
            side = p.team
            if switches % 2 and side in ("T", "CT"):
                side = "CT" if side == "T" else "T"
            out[p.name] = side
        return out

    def expected(self) -> dict:
        team_no = {"T": 2, "CT": 3, "spectator": 1}
        rows = {k: [] for k in ("kills", "damages", "rounds", "smokes", "infernos", "flashes",
                                "bomb", "purchases", "chat", "players", "ticks")}
        kills = {p.name: 0 for p in self.players}
        deaths = {p.name: 0 for p in self.players}
        assists = {p.name: 0 for p in self.players}
        damage = {p.name: 0 for p in self.players}
        armor = {p.name: 0 for p in self.players}
        alive_prev = {p.name: True for p in self.players}
        connected = {p.name: p.connected for p in self.players}
        team_of = {}
        start = self.start_tick
        positions_at = []  # (tick, name, pos, health, team) samples for ticks
        for i, r in enumerate(self.rounds):
            sides = self.sides(i)
            for p in self.players:
                if connected[p.name]:
                    team_of[p.name] = team_no[sides[p.name]]
            freeze = r.get("freeze_time", self.rules["freeze_time"])
            delay = r.get("restart_delay", self.rules["restart_delay"])
            end_tick = start + self.ticks_of(r["end"])
            health = {}
            for p in self.players:
                rp = r["players"].get(p.name, {})
                health[p.name] = rp.get("health", 100)
                if "armor" in rp:
                    armor[p.name] = rp["armor"]
                elif not alive_prev[p.name] or i == 0:
                    armor[p.name] = 0 if "armor" not in rp else rp["armor"]
            alive = {p.name: connected[p.name] for p in self.players}
            # The bomb's carrier: the round's `bomb`, else the first living terrorist.
            carrier = r.get("bomb")
            if carrier is None:
                carrier = next((p.name for p in self.players
                                if alive[p.name] and sides[p.name] == "T"), None)
            carrier = carrier or None
            samples = sorted(sec for (ri, sec) in self.tick_samples if ri == i)

            def sample(sec):
                tick = self.snap(start + self.ticks_of(sec))
                for p in self.players:
                    if not connected[p.name]:
                        continue
                    row = dict(tick=tick, name=p.name)
                    pos = position(r["players"].get(p.name, {}).get("keys", []), sec)
                    if alive[p.name] and pos is not None:
                        row.update(X=pos[0], Y=pos[1], Z=pos[2])
                    row.update(team_num=team_of[p.name], health=max(health[p.name], 0),
                               is_alive=alive[p.name])
                    positions_at.append(row)

            for e in r["events"]:
                secs = e["tick"] / self.tick_rate if "tick" in e else e["t"]
                while samples and samples[0] < secs:
                    sample(samples.pop(0))
                t = start + (e["tick"] if "tick" in e else self.ticks_of(e["t"]))
                tick = self.snap(t)
                kind = e["type"]
                if kind == "damage":
                    v, a = e["victim"], e.get("attacker")
                    health[v] -= e["dmg_health"]
                    armor[v] -= e.get("dmg_armor", 0)
                    if a:
                        damage[a] += e["dmg_health"]
                    rows["damages"].append(dict(
                        tick=tick, attacker_name=a, victim_name=v,
                        weapon=short(e["weapon"]), dmg_health=e["dmg_health"],
                        dmg_armor=e.get("dmg_armor", 0), health=health[v], armor=armor[v],
                        hitgroup=e.get("hitgroup", "chest")))
                elif kind == "kill":
                    v, a = e["victim"], e.get("attacker")
                    last = health[v]
                    armor[v] -= e.get("dmg_armor", 0)
                    hit = e.get("hitgroup", "head" if e.get("headshot") else "chest")
                    if a:
                        damage[a] += last
                    rows["damages"].append(dict(
                        tick=tick, attacker_name=a, victim_name=v, weapon=short(e["weapon"]),
                        dmg_health=last, dmg_armor=e.get("dmg_armor", 0), health=0,
                        armor=armor[v], hitgroup=hit))
                    health[v] = 0
                    alive[v] = False
                    if v == carrier:
                        # The carrier drops the bomb where they die.
                        rows["bomb"].append(dict(tick=tick, action="dropped", name=v))
                        carrier = None
                    deaths[v] += 1
                    if a:
                        kills[a] += 1
                    if e.get("assister"):
                        assists[e["assister"]] += 1
                    rows["kills"].append(dict(
                        tick=tick, attacker_name=a, victim_name=v,
                        assister_name=e.get("assister"),
                        attacker_team=team_of.get(a) if a else None,
                        victim_team=team_of[v], weapon=short(e["weapon"]),
                        headshot=bool(e.get("headshot", False)),
                        wallbang=bool(e.get("wallbang", False) or e.get("penetrated", 0) > 0),
                        thrusmoke=bool(e.get("thrusmoke", False)),
                        noscope=bool(e.get("noscope", False)),
                        attackerblind=bool(e.get("attackerblind", False)),
                        dmg_health=last, hitgroup=hit))
                elif kind == "purchase":
                    rows["purchases"].append(dict(tick=tick, name=e["player"],
                                                  weapon=purchase_name(e["item"])))
                    if e["item"] in ("kevlar", "assaultsuit"):
                        armor[e["player"]] = 100
                elif kind == "throw":
                    flight = e.get("flight", 1.5)
                    det = self.snap(t + self.ticks_of(flight))
                    g = e["grenade"]
                    x, y, z = e["to"]
                    if g == "smokegrenade":
                        dur = e.get("duration", 20.0)
                        rows["smokes"].append(dict(
                            start_tick=det,
                            end_tick=self.snap(t + self.ticks_of(flight) + self.ticks_of(dur)),
                            thrower_name=e["player"], thrower_team=team_of[e["player"]],
                            x=x, y=y, z=z))
                    elif g in ("molotov", "incgrenade"):
                        dur = e.get("duration", 7.0)
                        rows["infernos"].append(dict(
                            start_tick=det,
                            end_tick=self.snap(t + self.ticks_of(flight) + self.ticks_of(dur)),
                            thrower_name=e["player"], thrower_team=team_of[e["player"]],
                            x=x, y=y, z=z))
                    elif g == "flashbang":
                        for b in e.get("blinds", []):
                            rows["flashes"].append(dict(
                                tick=det, attacker_name=e["player"], victim_name=b["player"],
                                victim_team=team_of[b["player"]],
                                blind_duration=float(b["duration"])))
                elif kind in BOMB_ACTIONS:
                    if kind == "bomb_pickup":
                        carrier = e["player"]
                    elif kind in ("bomb_drop", "plant"):
                        carrier = None
                    row = dict(tick=tick, action=BOMB_ACTIONS[kind])
                    if "player" in e:
                        row["name"] = e["player"]
                    rows["bomb"].append(row)
                elif kind == "chat":
                    rows["chat"].append(dict(tick=tick, name=e["player"], text=e["text"],
                                             all_chat=e.get("all", True)))
                elif kind == "disconnect":
                    if e["player"] == carrier and alive[e["player"]]:
                        rows["bomb"].append(dict(tick=tick, action="dropped", name=carrier))
                        carrier = None
                    connected[e["player"]] = False
                    alive[e["player"]] = False
                elif kind == "connect":
                    connected[e["player"]] = True
                    side = e.get("team", sides[e["player"]])
                    team_of[e["player"]] = team_no[side]
                elif kind == "takeover":
                    # The human drives the bot's pawn, with its health and armor.
                    h, b = e["player"], e["bot"]
                    health[h], armor[h], alive[h] = health[b], armor[b], True
                    alive[b] = False
            winner = r["winner"]
            reason = r.get("reason") or default_reason(r)
            rows["rounds"].append(dict(
                round=i + 1, start_tick=self.snap(start),
                freeze_end_tick=self.snap(start + self.ticks_of(freeze)),
                end_tick=self.snap(end_tick),
                winner_side=None if winner == "draw" else winner, reason_name=reason))
            for sec in samples:
                sample(sec)
            alive_prev = alive
            start = end_tick + self.ticks_of(delay)
        for p in self.players:
            rows["players"].append(dict(
                name=p.name, steamid=p.steamid, team=team_of.get(p.name, team_no[p.team]),
                kills_total=kills[p.name], deaths_total=deaths[p.name],
                assists_total=assists[p.name], damage_total=damage[p.name]))
        rows["ticks"] = positions_at
        if not self.tick_samples:
            del rows["ticks"]
        # Nulls are not stated: a column a row leaves out is not compared.
        out = {}
        for k, v in rows.items():
            if self.tables is not None and k not in self.tables:
                continue
            out[k] = [{c: x for c, x in row.items() if x is not None} for row in v]
        return out

    # --- writing ---------------------------------------------------------------------------

    def toml(self) -> str:
        out = [f"# {self.title}\n#\n# Written by make_library.py beside this file (edit there "
               "and run it again).\n\n"]
        out.append(f"map = {toml_value(self.map)}\n")
        if self.tick_rate != 64:
            out.append(f"tick_rate = {self.tick_rate}\n")
        if self.frame_interval != 1:
            out.append(f"frame_interval = {self.frame_interval}\n")
        if self.start_tick != 1:
            out.append(f"start_tick = {self.start_tick}\n")
        if self.teams:
            out.append(f"teams = {toml_value(self.teams)}\n")
        if self.rules_given:
            out.append(f"rules = {toml_value(self.rules_given)}\n")
        out.append("\n")
        for p in self.players:
            d = dict(name=p.name)
            if p.steamid:
                d["steamid"] = p.steamid
            d["team"] = p.team
            if p.bot:
                d["bot"] = True
            if not p.connected:
                d["connected"] = False
            out.append("[[players]]\n" + "".join(f"{k} = {toml_value(v)}\n" for k, v in d.items())
                       + "\n")
        for i, r in enumerate(self.rounds):
            out.append(f"[[rounds]]  # round {i + 1}\n")
            for k in ("winner", "reason", "end", "freeze_time", "restart_delay", "bomb"):
                if k in r:
                    out.append(f"{k} = {toml_value(r[k])}\n")
            out.append(toml_rows("events", r["events"]))
            for name, rp in r["players"].items():
                out.append(f"[rounds.players.{toml_key(name)}]\n")
                for k, v in rp.items():
                    if k == "keys":
                        out.append(toml_rows("keys", v))
                    else:
                        out.append(f"{k} = {toml_value(v)}\n")
            out.append("\n")
        out.append("# The tables the demo must give (rows in order; columns not listed are not "
                   "compared).\n[expected]\n")
        for name, rows in self.expected().items():
            out.append(toml_rows(name, rows))
        return "".join(out)


BOMB_ACTIONS = {"plant_begin": "beginplant", "plant_abort": "abortplant", "plant": "planted",
                "defuse_begin": "begindefuse", "defuse_abort": "abortdefuse",
                "defuse": "defused", "explode": "exploded", "bomb_drop": "dropped",
                "bomb_pickup": "pickup"}


def short(weapon: str) -> str:
    return "knife" if weapon.startswith("knife") or weapon == "bayonet" else weapon


def purchase_name(item: str) -> str:
    return item


def default_reason(r) -> str:
    kinds = {e["type"] for e in r["events"]}
    if "explode" in kinds:
        return "bomb_exploded"
    if "defuse" in kinds:
        return "bomb_defused"
    return {"T": "ct_killed", "CT": "t_killed", "draw": "draw"}[r["winner"]]


def position(keys, sec):
    """A player's position at `sec` from the round's keys (linear between keys)."""
    keyed = [(k.get("t", 0.0), k["pos"]) for k in keys if "pos" in k]
    if not keyed:
        return None
    if sec <= keyed[0][0]:
        return keyed[0][1]
    for (t0, p0), (t1, p1) in zip(keyed, keyed[1:]):
        if t0 <= sec <= t1:
            f = (sec - t0) / (t1 - t0) if t1 > t0 else 1.0
            return [a + (b - a) * f for a, b in zip(p0, p1)]
    return keyed[-1][1]


# --- the players -------------------------------------------------------------------------------

def ten(t_names, ct_names, first_id=76561198000000001, bots=()):
    players = []
    sid = first_id
    for n in t_names:
        bot = n in bots
        players.append(Player(n, "T", 0 if bot else sid, bot=bot))
        sid += 1
    for n in ct_names:
        bot = n in bots
        players.append(Player(n, "CT", 0 if bot else sid, bot=bot))
        sid += 1
    return players


T5 = ["Ash", "Birch", "Cedar", "Dogwood", "Elm"]
CT5 = ["Fir", "Ginkgo", "Hazel", "Ivy", "Juniper"]

# Spawns on de_mirage's layout (feet, world units): terrorists in the east, counter-terrorists
# in the west.
T_SPAWN = [[1216.0, -160.0 + 48 * i, -160.0] for i in range(5)]
CT_SPAWN = [[-1664.0, -1888.0 + 48 * i, -168.0] for i in range(5)]
A_SITE = [-320.0, -2080.0, -176.0]
B_SITE = [-2080.0, 288.0, -160.0]
MID = [-400.0, -560.0, -168.0]


def spawn_keys(names_t, names_ct, moves=None):
    """Every player stands at spawn through the freeze time; `moves` adds keys per name."""
    out = {}
    for i, n in enumerate(names_t):
        out[n] = {"keys": [{"t": 0.0, "pos": T_SPAWN[i], "yaw": 180.0}]}
    for i, n in enumerate(names_ct):
        out[n] = {"keys": [{"t": 0.0, "pos": CT_SPAWN[i], "yaw": 0.0}]}
    for n, keys in (moves or {}).items():
        out[n]["keys"].extend(keys)
    return out


def go(t, pos, yaw=None, pitch=None):
    k = {"t": float(t), "pos": [float(x) for x in pos]}
    if yaw is not None:
        k["yaw"] = float(yaw)
    if pitch is not None:
        k["pitch"] = float(pitch)
    return k


def ev(t, type_, **kw):
    d = {"t": float(t), "type": type_}
    d.update(kw)
    return d


# --- the library ---------------------------------------------------------------------------------

def pistol_round() -> Scenario:
    s = Scenario("pistol_round",
                 "A pistol round: armor bought at 800, pistols only, the terrorists win by "
                 "eliminating the counter-terrorists.",
                 players=ten(T5, CT5), tick_samples=[(0, 15.0), (0, 25.0)])
    s.round("T", 45.0, players=spawn_keys(T5, CT5, {
        "Ash": [go(15, T_SPAWN[0]), go(25, MID, 200.0)],
        "Fir": [go(15, CT_SPAWN[0]), go(25, [-420.0, -900.0, -168.0], 80.0)],
    }), events=[
        ev(2, "purchase", player="Ash", item="kevlar"),
        ev(2.5, "purchase", player="Fir", item="kevlar"),
        ev(3, "purchase", player="Ginkgo", item="deagle"),
        ev(27, "damage", attacker="Fir", victim="Ash", weapon="usp_silencer", dmg_health=35,
           dmg_armor=12, hitgroup="chest"),
        ev(28, "kill", attacker="Ash", victim="Fir", weapon="glock", headshot=True),
        ev(31, "kill", attacker="Birch", victim="Ginkgo", weapon="glock", assister="Cedar"),
        ev(34, "kill", attacker="Hazel", victim="Dogwood", weapon="usp_silencer"),
        ev(36, "kill", attacker="Elm", victim="Hazel", weapon="glock", headshot=True),
        ev(40, "kill", attacker="Ash", victim="Ivy", weapon="glock"),
        ev(44, "kill", attacker="Cedar", victim="Juniper", weapon="glock", wallbang=True),
    ])
    return s


def eco_round() -> Scenario:
    s = Scenario("eco_round",
                 "An eco round: the terrorists lost the pistol round and save (pistols only); "
                 "the counter-terrorists buy rifles and armor and win.",
                 players=ten(T5, CT5), rules={"economy": False})
    s.round("CT", 30.0, players=spawn_keys(T5, CT5), events=[
        ev(4, "kill", attacker="Fir", victim="Ash", weapon="usp_silencer"),
        ev(8, "kill", attacker="Ginkgo", victim="Birch", weapon="usp_silencer"),
        ev(10, "kill", attacker="Hazel", victim="Cedar", weapon="usp_silencer"),
        ev(12, "kill", attacker="Ivy", victim="Dogwood", weapon="usp_silencer"),
        ev(14, "kill", attacker="Juniper", victim="Elm", weapon="usp_silencer"),
    ], freeze_time=2.0, restart_delay=3.0)
    buys = [ev(1.0, "purchase", player=n, item="assaultsuit") for n in CT5] + \
           [ev(1.5, "purchase", player=n, item="m4a1") for n in CT5]
    s.round("CT", 40.0, players=spawn_keys(T5, CT5, {
        n: [go(15, CT_SPAWN[i]), go(25, [-900.0, -1500.0 + 40 * i, -168.0], 30.0)]
        for i, n in enumerate(CT5)} | {
        n: [go(15, T_SPAWN[i]), go(25, [-200.0, -1200.0 + 40 * i, -168.0], 210.0)]
        for i, n in enumerate(T5)}), events=buys + [
        ev(26, "damage", attacker="Ash", victim="Fir", weapon="glock", dmg_health=22,
           dmg_armor=8, hitgroup="stomach"),
        ev(27, "kill", attacker="Fir", victim="Ash", weapon="m4a1", headshot=True),
        ev(28, "kill", attacker="Ginkgo", victim="Birch", weapon="m4a1"),
        ev(29, "kill", attacker="Cedar", victim="Hazel", weapon="glock", headshot=True),
        ev(31, "kill", attacker="Ivy", victim="Cedar", weapon="m4a1"),
        ev(33, "kill", attacker="Juniper", victim="Dogwood", weapon="m4a1"),
        ev(38, "kill", attacker="Fir", victim="Elm", weapon="m4a1", assister="Ginkgo"),
    ], freeze_time=15.0)
    s.rounds[0]["players"].update({n: {"money": 800} for n in T5 + CT5})
    s.rounds[1]["players"].update({n: dict(s.rounds[1]["players"][n], money=1400) for n in T5})
    s.rounds[1]["players"].update({n: dict(s.rounds[1]["players"][n], money=5000) for n in CT5})
    return s


def plant_and_defuse() -> Scenario:
    s = Scenario("plant_and_defuse",
                 "The bomb: picked up after a drop, planted at A, a defuse begun and aborted, "
                 "then defused with a kit; the counter-terrorists win by the defuse.",
                 players=ten(T5, CT5), tick_samples=[(0, 40.0)])
    s.round("CT", 75.0, bomb="Ash", players=spawn_keys(T5, CT5, {
        "Ash": [go(15, T_SPAWN[0]), go(30, [0.0, -1600.0, -168.0], 220.0), go(40, A_SITE)],
        "Birch": [go(15, T_SPAWN[1]), go(30, [40.0, -1600.0, -168.0]), go(40, [-280.0, -2000.0, -176.0])],
        "Fir": [go(15, CT_SPAWN[0]), go(50, [-400.0, -2000.0, -176.0], 0.0), go(62, A_SITE)],
    }), events=[
        ev(3, "purchase", player="Fir", item="defuser"),
        ev(20, "bomb_drop", player="Ash"),
        ev(22, "bomb_pickup", player="Ash"),
        ev(41, "plant_begin", player="Ash", site="A"),
        ev(44.25, "plant", player="Ash", site="A"),
        ev(52, "kill", attacker="Fir", victim="Ash", weapon="usp_silencer", headshot=True),
        ev(55, "kill", attacker="Fir", victim="Birch", weapon="usp_silencer"),
        ev(58, "kill", attacker="Ginkgo", victim="Cedar", weapon="usp_silencer"),
        ev(60, "kill", attacker="Hazel", victim="Dogwood", weapon="usp_silencer"),
        ev(62, "defuse_begin", player="Fir"),
        ev(63, "defuse_abort", player="Fir"),
        ev(64, "kill", attacker="Ivy", victim="Elm", weapon="usp_silencer"),
        ev(65, "defuse_begin", player="Fir"),
        ev(70, "defuse", player="Fir"),
    ])
    return s


def clutch_1v3() -> Scenario:
    s = Scenario("clutch_1v3",
                 "A 1-versus-3 clutch: four counter-terrorists fall, the last one kills the "
                 "three remaining terrorists, one through smoke, one while blind, one with a "
                 "no-scope AWP shot.",
                 players=ten(T5, CT5), tick_samples=[(0, 15.0), (0, 30.0)])
    players = spawn_keys(T5, CT5, {
        "Juniper": [go(15, CT_SPAWN[4]), go(30, MID, 90.0, 5.0),
                    go(50, [-380.0, -700.0, -168.0], 110.0)],
    })
    players["Juniper"]["money"] = 5000
    s.round("CT", 60.0, players=players, events=[
        ev(2, "purchase", player="Juniper", item="awp"),
        ev(3, "purchase", player="Ash", item="smokegrenade"),
        ev(3.5, "purchase", player="Birch", item="flashbang"),
        ev(20, "kill", attacker="Ash", victim="Fir", weapon="glock"),
        ev(21, "kill", attacker="Birch", victim="Ginkgo", weapon="glock", headshot=True),
        ev(23, "kill", attacker="Ash", victim="Hazel", weapon="glock"),
        ev(24, "kill", attacker="Ivy", victim="Cedar", weapon="usp_silencer"),
        ev(25, "kill", attacker="Dogwood", victim="Ivy", weapon="glock"),
        ev(26, "kill", attacker="Juniper", victim="Elm", weapon="awp"),
        ev(28, "throw", player="Ash", grenade="smokegrenade", to=[-400.0, -800.0, -168.0],
           flight=1.0, duration=18.0),
        ev(35, "kill", attacker="Juniper", victim="Ash", weapon="awp", thrusmoke=True),
        ev(40, "throw", player="Birch", grenade="flashbang", to=[-390.0, -650.0, -100.0],
           flight=1.0, blinds=[{"player": "Juniper", "duration": 2.5}]),
        ev(41.5, "kill", attacker="Juniper", victim="Birch", weapon="awp", attackerblind=True),
        ev(48, "damage", attacker="Dogwood", victim="Juniper", weapon="glock", dmg_health=40,
           hitgroup="left_leg"),
        ev(49, "kill", attacker="Juniper", victim="Dogwood", weapon="awp", noscope=True),
    ])
    return s


def disconnect_reconnect() -> Scenario:
    s = Scenario("disconnect_reconnect",
                 "A player disconnects in the middle of round 1 and reconnects during round 2, "
                 "playing again from round 3.",
                 players=ten(T5, CT5), rules={"freeze_time": 3.0, "restart_delay": 3.0},
                 tables=["kills", "rounds", "damages", "players", "chat"])
    s.round("CT", 20.0, players=spawn_keys(T5, CT5), events=[
        ev(5, "chat", player="Elm", text="brb", all=False),
        ev(6, "disconnect", player="Elm"),
        ev(10, "kill", attacker="Fir", victim="Ash", weapon="usp_silencer"),
        ev(11, "kill", attacker="Fir", victim="Birch", weapon="usp_silencer"),
        ev(12, "kill", attacker="Ginkgo", victim="Cedar", weapon="usp_silencer"),
        ev(13, "kill", attacker="Hazel", victim="Dogwood", weapon="usp_silencer"),
    ])
    s.round("T", 20.0, players=spawn_keys(T5[:4], CT5), events=[
        ev(8, "connect", player="Elm"),
        ev(9, "chat", player="Elm", text="back"),
        ev(12, "kill", attacker="Ash", victim="Fir", weapon="glock"),
        ev(13, "kill", attacker="Ash", victim="Ginkgo", weapon="glock"),
        ev(14, "kill", attacker="Birch", victim="Hazel", weapon="glock"),
        ev(15, "kill", attacker="Cedar", victim="Ivy", weapon="glock"),
        ev(16, "kill", attacker="Dogwood", victim="Juniper", weapon="glock"),
    ])
    s.round("T", 20.0, players=spawn_keys(T5, CT5), events=[
        ev(10, "kill", attacker="Elm", victim="Fir", weapon="glock"),
        ev(11, "kill", attacker="Elm", victim="Ginkgo", weapon="glock"),
        ev(12, "kill", attacker="Ash", victim="Hazel", weapon="glock"),
        ev(13, "kill", attacker="Ash", victim="Ivy", weapon="glock"),
        ev(14, "kill", attacker="Birch", victim="Juniper", weapon="glock"),
    ])
    return s


def bot_takeover() -> Scenario:
    bots = ["BotKeith", "BotNorm"]
    t_names = ["Ash", "Birch", "Cedar", "Dogwood", "BotKeith"]
    ct_names = ["Fir", "Ginkgo", "Hazel", "Ivy", "BotNorm"]
    s = Scenario("bot_takeover",
                 "Bots: a dead human takes over a living bot of their side; the hits the bot's "
                 "pawn takes and the kills the human makes with it name the human.",
                 players=ten(t_names, ct_names, bots=bots),
                 rules={"freeze_time": 3.0}, tables=["kills", "rounds", "damages", "players"])
    s.round("T", 30.0, players=spawn_keys(t_names, ct_names), events=[
        ev(6, "kill", attacker="Fir", victim="Ash", weapon="usp_silencer"),
        ev(8, "takeover", player="Ash", bot="BotKeith"),
        ev(12, "kill", attacker="Ash", victim="Fir", weapon="glock"),
        ev(14, "damage", attacker="Ginkgo", victim="Ash", weapon="usp_silencer",
           dmg_health=30, hitgroup="stomach"),
        ev(15, "kill", attacker="Ash", victim="Ginkgo", weapon="glock"),
        ev(16, "kill", attacker="BotNorm", victim="Birch", weapon="usp_silencer"),
        ev(18, "kill", attacker="Cedar", victim="BotNorm", weapon="glock"),
        ev(20, "kill", attacker="Dogwood", victim="Hazel", weapon="glock"),
        ev(22, "kill", attacker="Dogwood", victim="Ivy", weapon="glock"),
    ])
    return s


def half_time_switch() -> Scenario:
    s = Scenario("half_time_switch",
                 "The side switch at half time in a short match (MR2: 4 rounds): after round 2 "
                 "the terrorists play as counter-terrorists and the other way round.",
                 players=ten(T5, CT5),
                 rules={"max_rounds": 4, "freeze_time": 2.0, "restart_delay": 2.0},
                 tables=["kills", "rounds", "players", "ticks"],
                 tick_samples=[(1, 1.0), (2, 1.0)])
    for i in range(4):
        sides_t = T5 if i < 2 else CT5
        sides_ct = CT5 if i < 2 else T5
        winner = ["T", "CT", "T", "T"][i]
        first_t, first_ct = sides_t[0], sides_ct[0]
        kill = (ev(8, "kill", attacker=first_t, victim=first_ct, weapon="glock")
                if winner == "T" else
                ev(8, "kill", attacker=first_ct, victim=first_t, weapon="usp_silencer"))
        s.round(winner, 12.0, reason="t_surrender" if winner == "CT" else "ct_surrender",
                players=spawn_keys(sides_t, sides_ct), events=[kill])
    return s


def full_match_overtime() -> Scenario:
    """24 rounds of regulation ending 12-12, then one overtime won 4-1: 16-13."""
    s = Scenario("full_match_overtime",
                 "A full match: 24 rounds of regulation (the sides switch after round 12) end "
                 "12-12, then overtime (MR3) is won 4-1 by the team that started as "
                 "terrorists: 16-13.",
                 players=ten(T5, CT5), frame_interval=16,
                 rules={"freeze_time": 5.0, "restart_delay": 3.0},
                 teams={"t": "Oakwood", "ct": "Pinecrest"},
                 tables=["kills", "rounds", "players"])
    # Team A (started T) wins these rounds (1-based); 12 in regulation, 4 of 5 in overtime.
    a_wins = {1, 3, 4, 6, 7, 9, 13, 14, 16, 19, 21, 24, 25, 27, 28, 29}
    for i in range(29):
        sides = s.sides(i)
        t_side = [p.name for p in s.players if sides[p.name] == "T"]
        ct_side = [p.name for p in s.players if sides[p.name] == "CT"]
        a_won = (i + 1) in a_wins
        a_is_t = sides["Ash"] == "T"
        winner = "T" if a_won == a_is_t else "CT"
        losers = ct_side if winner == "T" else t_side
        winners = t_side if winner == "T" else ct_side
        weapon = "glock" if winner == "T" else "usp_silencer"
        events = [ev(6 + 2 * k, "kill", attacker=winners[(i + k) % 5], victim=losers[k],
                     weapon=weapon, headshot=(i + k) % 3 == 0) for k in range(5)]
        s.round(winner, 18.0, players=spawn_keys(t_side, ct_side), events=events)
    return s


def sample() -> Scenario:
    s = Scenario("sample",
                 "The sample demo that ships with gamewire: three rounds of 5 against 5 with "
                 "kills, damage, every grenade (smoke, molotov, incendiary, HE, flash), a bomb that "
                 "explodes, a bomb that is defused, purchases and chat.",
                 players=ten(T5, CT5), frame_interval=8,
                 rules={"freeze_time": 5.0, "restart_delay": 4.0},
                 teams={"t": "Oakwood", "ct": "Pinecrest"},
                 tick_samples=[(0, 5.0), (1, 20.0), (2, 30.0)])
    # Round 1: pistol round, the terrorists win by elimination.
    s.round("T", 30.0, players=spawn_keys(T5, CT5, {
        "Ash": [go(5, T_SPAWN[0]), go(15, MID, 200.0)],
        "Birch": [go(5, T_SPAWN[1]), go(15, [-300.0, -520.0, -168.0], 200.0)],
        "Fir": [go(5, CT_SPAWN[0]), go(15, [-480.0, -900.0, -168.0], 60.0)],
        "Ginkgo": [go(5, CT_SPAWN[1]), go(15, [-520.0, -880.0, -168.0], 60.0)],
    }), events=[
        ev(1, "chat", player="Ash", text="gl hf"),
        ev(1.5, "chat", player="Fir", text="glhf"),
        ev(2, "purchase", player="Ash", item="kevlar"),
        ev(2, "purchase", player="Fir", item="kevlar"),
        ev(3, "purchase", player="Birch", item="flashbang"),
        ev(14, "throw", player="Birch", grenade="flashbang", to=[-450.0, -800.0, -100.0],
           flight=1.0, blinds=[{"player": "Fir", "duration": 2.0},
                               {"player": "Ginkgo", "duration": 1.5}]),
        ev(16, "damage", attacker="Fir", victim="Ash", weapon="usp_silencer", dmg_health=26,
           dmg_armor=9, hitgroup="chest"),
        ev(16.5, "kill", attacker="Ash", victim="Fir", weapon="glock", headshot=True,
           assister="Birch", assistedflash=True),
        ev(17, "kill", attacker="Birch", victim="Ginkgo", weapon="glock"),
        ev(20, "kill", attacker="Hazel", victim="Cedar", weapon="usp_silencer"),
        ev(22, "kill", attacker="Dogwood", victim="Hazel", weapon="glock"),
        ev(25, "kill", attacker="Elm", victim="Ivy", weapon="glock", headshot=True),
        ev(28, "kill", attacker="Ash", victim="Juniper", weapon="glock"),
    ])
    # Round 2: the terrorists plant at A; the bomb explodes.
    s.round("T", 52.0, bomb="Ash", players=spawn_keys(T5, CT5, {
        "Ash": [go(5, T_SPAWN[0]), go(12, [0.0, -1600.0, -168.0]), go(16, A_SITE, 90.0)],
        "Birch": [go(5, T_SPAWN[1]), go(12, [40.0, -1640.0, -168.0]),
                  go(16, [-280.0, -2020.0, -176.0])],
        "Cedar": [go(5, T_SPAWN[2]), go(20, [-240.0, -1980.0, -176.0], 180.0)],
        "Fir": [go(5, CT_SPAWN[0]), go(14, [-700.0, -2000.0, -176.0], 0.0)],
    }), events=[
        ev(1, "purchase", player="Cedar", item="smokegrenade"),
        ev(1, "purchase", player="Birch", item="hegrenade"),
        ev(1.5, "purchase", player="Fir", item="incgrenade"),
        ev(10, "throw", player="Cedar", grenade="smokegrenade", to=[-600.0, -1900.0, -170.0],
           flight=1.5, duration=18.0),
        ev(13, "throw", player="Birch", grenade="hegrenade", to=[-690.0, -1990.0, -170.0],
           flight=1.0),
        ev(14, "damage", attacker="Birch", victim="Fir", weapon="hegrenade", dmg_health=57,
           dmg_armor=0, hitgroup="generic"),
        ev(17, "plant_begin", player="Ash", site="A"),
        ev(20.25, "plant", player="Ash", site="A"),
        ev(21, "throw", player="Fir", grenade="incgrenade", to=[-330.0, -2070.0, -176.0],
           flight=1.25, duration=7.0),
        ev(23, "damage", attacker="Fir", victim="Cedar", weapon="inferno", dmg_health=12,
           hitgroup="generic"),
        ev(25, "kill", attacker="Cedar", victim="Fir", weapon="glock"),
        ev(30, "kill", attacker="Ginkgo", victim="Birch", weapon="usp_silencer"),
        ev(33, "kill", attacker="Ash", victim="Ginkgo", weapon="glock", thrusmoke=True),
        ev(40, "chat", player="Hazel", text="save", all=False),
        ev(60.25, "explode"),
    ])
    s.rounds[-1]["end"] = 60.25
    # Round 3: the terrorists plant at B; a counter-terrorist defuses with a kit.
    s.round("CT", 62.0, bomb="Dogwood", players=spawn_keys(T5, CT5, {
        "Dogwood": [go(5, T_SPAWN[3]), go(20, [-1800.0, 200.0, -160.0]), go(26, B_SITE, 270.0)],
        "Hazel": [go(5, CT_SPAWN[2]), go(30, [-1900.0, 100.0, -160.0], 60.0),
                  go(45, B_SITE, 90.0, 60.0)],
    }), events=[
        ev(1, "purchase", player="Hazel", item="defuser"),
        ev(1, "purchase", player="Hazel", item="m4a1"),
        ev(1.5, "purchase", player="Elm", item="molotov"),
        ev(27, "plant_begin", player="Dogwood", site="B"),
        ev(30.25, "plant", player="Dogwood", site="B"),
        ev(32, "damage", attacker="Dogwood", victim="Hazel", weapon="glock", dmg_health=18,
           hitgroup="right_arm"),
        ev(33, "kill", attacker="Hazel", victim="Dogwood", weapon="m4a1", headshot=True),
        ev(34, "throw", player="Elm", grenade="molotov", to=[-1990.0, 250.0, -160.0],
           flight=1.5, duration=7.0),
        ev(36, "kill", attacker="Ivy", victim="Ash", weapon="usp_silencer"),
        ev(38, "kill", attacker="Juniper", victim="Birch", weapon="usp_silencer", wallbang=True),
        ev(40, "kill", attacker="Cedar", victim="Juniper", weapon="glock"),
        ev(42, "kill", attacker="Ivy", victim="Cedar", weapon="usp_silencer"),
        ev(44, "kill", attacker="Ivy", victim="Elm", weapon="usp_silencer"),
        ev(45, "defuse_begin", player="Hazel"),
        ev(50, "defuse", player="Hazel"),
        ev(51, "chat", player="Hazel", text="gg"),
        ev(52, "chat", player="Elm", text="gg wp"),
    ])
    s.rounds[-1]["end"] = 50.0
    return s


LIBRARY = [pistol_round, eco_round, plant_and_defuse, clutch_1v3, full_match_overtime,
           disconnect_reconnect, bot_takeover, half_time_switch, sample]


def main() -> None:
    for make in LIBRARY:
        s = make()
        (HERE / f"{s.name}.toml").write_text(s.toml(), encoding="utf-8")
        print(f"wrote {s.name}.toml: {len(s.rounds)} rounds")


if __name__ == "__main__":
    main()
