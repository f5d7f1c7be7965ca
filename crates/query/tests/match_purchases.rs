//! The `purchases` table of the CS2 corpus demos. None holds an
//! `item_purchase` event (current builds do not send it), so the table is
//! read from the buyers' sellback lists
//! (`m_pBuyServices.m_vecSellbackPurchaseEntries`). It is checked against
//! what the game counts apart from that list: a player has a purchase row
//! at a tick exactly when the controller's
//! `m_pInGameMoneyServices.m_iTotalCashSpent` rises at that tick. On
//! `cs2/14011.dem` (a deathmatch clip) four bots buy, and the rows are
//! written out; the other clips have no buy.

use std::collections::{BTreeMap, BTreeSet};
use std::error::Error;
use std::path::{Path, PathBuf};

use gamewire_query::{Cell, Query, Table, TableKind};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

fn cell(t: &Table, column: &str, row: usize) -> Result<Cell> {
    Ok(t.column(column)
        .ok_or_else(|| format!("{}: no column {column}", t.name))?
        .cell(row))
}

fn int(c: &Cell) -> Option<i64> {
    match c {
        Cell::Int(v) => Some(*v),
        Cell::UInt(v) => i64::try_from(*v).ok(),
        _ => None,
    }
}

/// (tick, slot) of every rise of a player's total cash spent.
fn cash_rises(ticks: &Table) -> Result<BTreeSet<(i64, i64)>> {
    let mut last: BTreeMap<i64, i64> = BTreeMap::new();
    let mut out = BTreeSet::new();
    for r in 0..ticks.rows() {
        let (Some(tick), Some(slot)) =
            (int(&cell(ticks, "tick", r)?), int(&cell(ticks, "slot", r)?))
        else {
            continue;
        };
        let Some(spent) = int(&cell(ticks, "total_cash_spent", r)?) else {
            continue;
        };
        if let Some(before) = last.insert(slot, spent) {
            if spent > before {
                out.insert((tick, slot));
            }
        }
    }
    Ok(out)
}

#[test]
fn purchases_are_read_from_the_buyers_state() -> Result<()> {
    let demos: Vec<PathBuf> = gamewire_corpus::source2_demos()?
        .into_iter()
        .filter(|p| p.parent().and_then(Path::file_name) == Some("cs2".as_ref()))
        .collect();
    if demos.len() < 5 {
        return Err(format!("expected the 5 CS2 corpus demos, found {demos:?}").into());
    }
    let query = Query {
        tables: vec![TableKind::Purchases, TableKind::Ticks, TableKind::Events],
        player_props: vec!["total_cash_spent".to_string()],
        ..Query::default()
    };
    for demo in &demos {
        let name = demo.display();
        let data = std::fs::read(demo)?;
        let tables = query.run(&data)?.tables;
        let table = |n: &str| {
            tables
                .iter()
                .find(|t| t.name == n)
                .ok_or_else(|| format!("{name}: no {n} table"))
        };
        let (purchases, ticks, events) = (table("purchases")?, table("ticks")?, table("events")?);
        let event_names = events.column("event_name").ok_or("no event_name")?;
        if (0..events.rows()).any(|r| event_names.cell(r) == Cell::Str("item_purchase".into())) {
            return Err(format!("{name}: holds item_purchase events").into());
        }
        let mut rows = BTreeSet::new();
        let mut listed = Vec::new();
        for r in 0..purchases.rows() {
            let tick = int(&cell(purchases, "tick", r)?).ok_or("a row without tick")?;
            let slot = int(&cell(purchases, "slot", r)?).ok_or("a row without slot")?;
            if cell(purchases, "loadout", r)? != Cell::Null {
                return Err(format!("{name}: row {r} has a loadout").into());
            }
            rows.insert((tick, slot));
            listed.push((
                tick,
                cell(purchases, "name", r)?,
                cell(purchases, "weapon", r)?,
                cell(purchases, "weapon_class", r)?,
            ));
        }
        let rises = cash_rises(ticks)?;
        if rows != rises {
            return Err(format!(
                "{name}: purchase rows at (tick, slot) {rows:?}, cash spent rises at {rises:?}"
            )
            .into());
        }
        println!("{name}: {} purchases", purchases.rows());
        if demo.ends_with("14011.dem") {
            let s = |v: &str| Cell::Str(v.to_string());
            let want = vec![
                (77, s("Miguel"), s("awp"), s("weapon_awp")),
                (369, s("Adonis"), s("awp"), s("weapon_awp")),
                (375, s("Mayer"), s("ak47"), s("weapon_ak47")),
                (381, s("Maru"), s("awp"), s("weapon_awp")),
            ];
            if listed != want {
                return Err(format!("{name}: {listed:?}").into());
            }
        } else if !listed.is_empty() {
            return Err(format!("{name}: no buy expected, read {listed:?}").into());
        }
    }
    Ok(())
}
