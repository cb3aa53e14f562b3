"""The replay page (``smsim replay TRACE --html OUT``, ``smsim play --html OUT``): one
self-contained HTML file of a whole game (no server, no network, no file beside it), drawn by its
own script from the data of ``play.replay.replay_game``.

Each step (the start, then after each turn) shows the turn that led to it (each roll's dice and
the dice rolled again, the use of the dice, the cells placed, the wall bonuses, the swords and
the attacks), every seat's city drawn as the board is (SVG: towers at the corners, walls on the
outer ring, crates, houses, churches by size, persons by letter; this turn's cells outlined), its
coins, logs, VP earned, cannons lost, defence and score were the game to end, the pirate track
with the attacks to come, and above them the game's course: each seat's score round by round,
and with a win-probability model (``smsim winprob``) each seat's chance of winning.
Step with the arrow keys, Home and End or the buttons; jump with the slider; the address's
fragment (``#step-12``) names the step, so a position can be shared.
"""

from __future__ import annotations

import html
import json
from typing import Any

import numpy as np
import pandas as pd

from smsim.play.replay import round_steps, vp_by_round
from smsim.rules import Rules
from smsim.studies.winprob import Positions, WinProbModel, win_probabilities

SEAT_COLOURS = ("#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3")
"""One colour a seat, in the course chart and on its card."""

CELL_LOOK = {
    ".": ("#ffffff", "", "#000"),
    "+": ("#4d4d4d", "", "#fff"),
    "#": ("#8c6d46", "", "#fff"),
    "C": ("#e0a458", "C", "#000"),
    "H": ("#c44e52", "H", "#fff"),
    **{str(k): ("#9ecae1", str(k), "#000") for k in range(1, 6)},
    **{ch: ("#a1d99b", ch, "#000") for ch in "cspamjn"},
}
"""How a cell of the board text format is drawn: (fill, letter, letter colour), as the report's
picture of a median game draws it (``plots.CITY_LOOK``)."""

STYLE = """
body{font-family:system-ui,sans-serif;margin:1em 2em;color:#222;max-width:1400px}
h1{font-size:1.3em;margin:0 0 .3em}
#controls{position:sticky;top:0;background:#fff;padding:.4em 0;border-bottom:1px solid #ddd;z-index:2}
#controls button{font-size:1em;min-width:2.6em}
#slider{width:40%;vertical-align:middle}
#where{font-weight:bold;margin-left:1em}
.row{display:flex;flex-wrap:wrap;gap:1em;align-items:flex-start}
.card{border:1px solid #ccc;border-radius:6px;padding:.5em;min-width:230px}
.card h3{margin:.1em 0 .3em;font-size:1em}
.card.mover{box-shadow:0 0 0 3px #f2c14e}
.stats td{padding:0 .5em 0 0;font-size:.9em}
.die{display:inline-block;width:4.2em;text-align:center;border:1px solid #999;border-radius:4px;margin:1px;
     font-size:.85em;padding:1px 0;background:#fafafa}
.die.again{background:#ffe9a8}
.die.used{background:#cde6c4;font-weight:bold}
#turn{min-width:420px}
#turn p{margin:.25em 0}
.pirates td{width:1.2em;height:1.2em;border:1px solid #999;text-align:center;font-size:.75em}
.pirates td.crossed{background:#555;color:#fff}
.pirates th{font-weight:normal;font-size:.8em;padding-right:.4em;text-align:right}
#end table{border-collapse:collapse}#end td,#end th{border:1px solid #ccc;padding:2px 6px}
.hint{color:#666;font-size:.85em}
.moves{border-collapse:collapse;font-size:.85em;margin-bottom:.4em}.moves td,.moves th{border:1px solid #ddd;padding:1px 5px}
.moves tr.pick{background:#fff3c4}.moves tr.best td:first-child{font-weight:bold}
.worse{color:#b00020;font-weight:bold}
#costly{margin:.5em 0}
"""  # noqa: E501 (CSS as the browser gets it)

SCRIPT = r"""
const D = JSON.parse(document.getElementById('data').textContent);
const N = D.steps.length - 1;
const P = D.header.players;
const LOOK = D.look, COLOURS = D.colours;
let k = 0;
const $ = id => document.getElementById(id);
function esc(s){return String(s).replace(/[&<>"]/g, c => ({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c]));}
function cellsOf(turn){
  const out = new Set();
  if(!turn) return out;
  const add = rc => { if(rc) out.add(rc[0]*7 + rc[1]); };
  (turn.cells||[]).forEach(add); (turn.houses||[]).forEach(add);
  (turn.bonuses||[]).forEach(b => { add(b.cell); (b.houses||[]).forEach(add); });
  return out;
}
function city(letters, fresh){
  let s = '<svg class="city" viewBox="0 0 7 7" width="168" height="168" role="img">';
  for(let i = 0; i < 49; i++){
    const ch = letters[i], look = LOOK[ch] || ['#fff', ch, '#000'];
    const r = Math.floor(i/7), c = i % 7;
    s += `<g data-cell="${i}" data-letter="${esc(ch)}"><rect x="${c}" y="${r}" width="1" height="1" fill="${look[0]}"` +
         ` stroke="${fresh.has(i) ? '#d62728' : '#bbb'}" stroke-width="${fresh.has(i) ? 0.12 : 0.03}"/>`;
    if(look[1]) s += `<text x="${c+0.5}" y="${r+0.68}" font-size="0.55" text-anchor="middle" fill="${look[2]}"` +
                     ` font-weight="bold">${esc(look[1])}</text>`;
    s += '</g>';
  }
  return s + '</svg>';
}
function dice(turn){
  if(!turn) return '<p class="hint">The start: no die rolled yet. Step on with the right arrow key.</p>';
  let s = '';
  const u = turn.use;
  turn.rolls.forEach((roll, i) => {
    const again = i < turn.rerolled.length ? turn.rerolled[i] : 0;
    const last = i === turn.rolls.length - 1;
    let shown = u ? u.dice - u.rotated : 0;  // the dice showing the symbol that were used (the first ones)
    s += `<p>roll ${i+1}: ` + roll.map((f, d) => {
      const used = last && u && f === u.symbol && shown-- > 0;
      const cls = !last && (again >> d) & 1 ? 'die again' : (used ? 'die used' : 'die');
      return `<span class="${cls}">${esc(f)}</span>`;}).join('') +
      (!last ? ` <span class="hint">${again ? 'rolled again: the yellow dice' : 'kept all'}</span>` : '') + '</p>';
  });
  const plural = {log: 'logs', crate: 'crates', wall: 'walls', cross: 'crosses', head: 'heads'};
  s += '<p><b>' + (u ? `used ${u.dice} ${esc(u.dice > 1 ? plural[u.symbol] || u.symbol : u.symbol)}` + (u.rotated ? ` (${u.rotated} turned, ${turn.rotation_cost} coins)` : '') +
       (u.person ? `: a ${esc(u.person)}` : '') + (turn.delivery_cost ? `, delivery ${turn.delivery_cost} coins` : '')
       : 'no die used') + '</b>';
  if((turn.cells||[]).length) s += ' at ' + turn.cells.map(rc => `(${rc[0]},${rc[1]})`).join(' ');
  if((turn.houses||[]).length) s += `; ${turn.houses.length} house${turn.houses.length > 1 ? 's' : ''}`;
  s += '</p>';
  (turn.bonuses||[]).forEach(b => { s += `<p>wall bonus, ${esc(b.side)} side: ${esc(b.kind)} ${b.amount}` +
    (b.person ? ` (a ${esc(b.person)})` : '') + '</p>'; });
  if(turn.swords) s += `<p>${turn.swords} sword${turn.swords > 1 ? 's' : ''} marked on the pirate track</p>`;
  (turn.attacks||[]).forEach(a => { s += `<p><b>pirate attack</b> of strength ${a.strength}: ` +
    (a.lost.length ? 'seats ' + a.lost.map(x => x + 1).join(', ') + ' lose a cannon' : 'every seat holds') + '</p>'; });
  return s;
}
function pct(x){ return (100 * x).toFixed(1); }
function decisions(turn){
  if(!turn || !D.values || !turn.decisions) return '';  // traces older than the decision numbers lack them
  let s = '';
  for(let d = turn.decisions[0]; d < turn.decisions[1]; d++){
    const v = D.values[String(d)];
    if(!v) continue;
    if(v.method === 'exact'){  // a keep, judged by the exact keep under a stated value of the uses
      s += `<p class="decision" data-decision="${d}"><b>decision ${d}, keep</b>: ${esc(v.pick)}, expecting ` +
           `${v.pick_value.toFixed(2)} VP by ${esc(v.model)}'s values; the exact keep ` +
           (v.regret > 0 ? `${esc(v.best)}, ${v.best_value.toFixed(2)} (the pick ${v.regret.toFixed(2)} VP below` +
            (v.worse ? ': <span class="worse">an error</span>)' : ')') : 'is the pick') + '</p>';
      continue;
    }
    const best = v.candidates[0], pick = v.candidates.find(c => c.pick), model = v.method === 'learned';
    const said = c => model ? (c.value === null ? 'not weighed' : c.value.toFixed(3)) : pct(c.win) + '%';
    s += `<details class="decision" data-decision="${d}"${v.worse || v.candidates.length <= 6 ? ' open' : ''}><summary>` +
         `<b>decision ${d}, ${esc(v.kind.toLowerCase())}</b>: the pick ${model ? 'scores' : 'wins'} ${said(pick)}, the best ${said(best)}` +
         (v.worse ? ` <span class="worse">${model ? 'the pick is a point or more below the best' : 'the pick is significantly worse than the best move'}</span>` : '') +
         ` (${v.candidates.length} moves)</summary><table class="moves">` +
         (model ? `<tr><th>move</th><th>${esc(v.model)}'s value</th></tr>` : '<tr><th>move</th><th>win % [95%]</th><th>VP [95%]</th><th>playouts</th></tr>');
    v.candidates.forEach((c, i) => {
      s += `<tr class="${c.pick ? 'pick' : ''}${i === 0 ? ' best' : ''}"><td>${esc(c.move)}${c.pick ? ' &larr; the pick' : ''}</td>` +
           (model ? `<td>${said(c)}</td></tr>` :
           `<td>${pct(c.win)} [${pct(c.win_lo)}, ${pct(c.win_hi)}]</td><td>${c.vp.toFixed(1)} [${c.vp_lo.toFixed(1)}, ${c.vp_hi.toFixed(1)}]</td>` +
           `<td>${c.playouts}</td></tr>`);
    });
    s += '</table></details>';
  }
  const how = D.values_method === 'learned' ? `by ${esc(D.values_model)}'s model (win share plus a tenth of the VP margin)` : 'by playouts';
  return s ? `<h3>Decisions: every legal move valued ${how}; each keep judged by the exact keep</h3>` + s : '';
}
function costly(){
  if(!D.costly) return '';
  let s = '<h3>The costliest decisions</h3>';
  if(!D.costly.length) return s + '<p class="hint">No pick was significantly worse than the best move found.</p>';
  for(let seat = 0; seat < P; seat++){
    const mine = D.costly.filter(c => c.seat === seat);
    if(!mine.length) continue;
    s += `<p style="color:${COLOURS[seat]}"><b>seat ${seat+1}</b></p><ul>` + mine.slice(0, 5).map(c =>
      `<li><a href="#step-${c.step}">step ${c.step}</a>, decision ${c.decision} (${esc(c.kind.toLowerCase())}): ` +
      `${esc(c.pick)} instead of ${esc(c.best)}, ` + (c.cost === null ? 'a move the model does not weigh' :
      D.values_method === 'learned' ? `${c.cost.toFixed(3)} below it by the model` : `about ${pct(c.cost)} points of win probability`) +
      '</li>').join('') + '</ul>';
  }
  return s;
}
function pirates(crossed){
  const rows = D.header.pirate_strengths, per = D.header.row_boxes;
  let s = '<table class="pirates">';
  rows.forEach((strength, r) => {
    s += `<tr><th>attack ${r+1}, strength ${strength}</th>`;
    for(let b = 0; b < per; b++){ const i = r*per + b; s += `<td class="${i < crossed ? 'crossed' : ''}">${i < crossed ? '&#x2694;' : ''}</td>`; }
    s += '</tr>';
  });
  return s + '</table>';
}
const W = 480, H = 150, LEFT = 34, BOTTOM = 22;
function chart(series, label, fixedTop){
  const rounds = series.length;
  let top = fixedTop || 1; if(!fixedTop) series.forEach(r => r.forEach(v => { top = Math.max(top, v); }));
  const x = r => LEFT + (W - LEFT - 8) * (rounds > 1 ? r / (rounds - 1) : 0);
  const y = v => H - BOTTOM - (H - BOTTOM - 8) * v / top;
  let s = `<svg class="course" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}"><text x="${LEFT + 6}" y="12" font-size="11">${label}</text>`;
  s += `<text x="${LEFT - 4}" y="${y(top) + 4}" font-size="10" text-anchor="end">${fixedTop ? '100%' : top}</text>`;
  s += `<text x="${LEFT - 4}" y="${y(0) + 4}" font-size="10" text-anchor="end">0</text>`;
  for(let seat = 0; seat < P; seat++){
    const pts = series.map((r, i) => `${x(i).toFixed(1)},${y(r[seat]).toFixed(1)}`).join(' ');
    s += `<polyline fill="none" stroke="${COLOURS[seat]}" stroke-width="2" points="${pts}"/>`;
  }
  s += `<line x1="${LEFT}" y1="${H-BOTTOM}" x2="${W-8}" y2="${H-BOTTOM}" stroke="#999"/>`;
  s += `<text x="${W/2}" y="${H-4}" font-size="11" text-anchor="middle">round (${rounds - 1} in all)</text>`;
  s += `<line class="now" x1="0" y1="8" x2="0" y2="${H-BOTTOM}" stroke="#d62728" stroke-dasharray="3,2"/>`;
  return s + '</svg>';
}
function show(i){
  k = Math.max(0, Math.min(N, i|0));
  const step = D.steps[k], turn = step.turn, fresh = cellsOf(turn);
  $('where').textContent = k === 0 ? `start (step 0 of ${N})` :
    `step ${k} of ${N}: round ${turn.round + 1}, seat ${turn.seat + 1}'s turn`;
  $('slider').value = k;
  $('turn').innerHTML = '<h3>' + (turn ? `Round ${turn.round + 1}, seat ${turn.seat + 1}` : 'Before the first roll') + '</h3>' + dice(turn) + decisions(turn);
  $('pirates').innerHTML = '<h3>Pirates</h3>' + pirates(step.pirate_boxes);
  let cards = '';
  step.seats.forEach((seat, s) => {
    cards += `<div class="card${turn && turn.seat === s ? ' mover' : ''}" id="seat-${s}" data-seat="${s}">` +
      `<h3 style="color:${COLOURS[s]}">seat ${s+1}: ${esc(D.header.policies[s])}</h3>` + city(seat.city, turn && turn.seat === s ? fresh : new Set()) +
      `<table class="stats"><tr><td>coins</td><td data-field="coins">${seat.coins}</td><td>logs</td><td data-field="logs">${seat.logs}</td></tr>` +
      `<tr><td>VP earned</td><td data-field="vp">${seat.vp}</td><td>defence</td><td data-field="defence">${seat.defence}</td></tr>` +
      `<tr><td>cannons lost</td><td data-field="cannons_lost">${seat.cannons_lost}</td><td>score now</td><td data-field="score">${seat.score}</td></tr></table></div>`;
  });
  $('seats').innerHTML = cards;
  const round = turn ? turn.round + (turn.seat + 1) / P : 0;
  const rounds = D.course.length;
  const xx = LEFT + (W - LEFT - 8) * (rounds > 1 ? Math.min(round, rounds - 1) / (rounds - 1) : 0);
  document.querySelectorAll('.now').forEach(line => { line.setAttribute('x1', xx); line.setAttribute('x2', xx); });
  $('end').style.display = k === N ? 'block' : 'none';
  if(location.hash !== '#step-' + k) history.replaceState(null, '', '#step-' + k);
}
document.addEventListener('keydown', e => {
  if(e.target && e.target.id === 'slider') return;
  const go = {ArrowRight: k + 1, ArrowLeft: k - 1, Home: 0, End: N, PageDown: k + 10, PageUp: k - 10}[e.key];
  if(go !== undefined){ e.preventDefault(); show(go); }
});
$('first').onclick = () => show(0); $('prev').onclick = () => show(k - 1);
$('next').onclick = () => show(k + 1); $('last').onclick = () => show(N);
$('slider').max = N; $('slider').oninput = e => show(+e.target.value);
$('costly').innerHTML = costly(); $('costly').style.display = D.costly ? 'block' : 'none';
$('chart').innerHTML = chart(D.course, 'score were the game to end') +
  (D.wp ? chart(D.wp, 'win probability (' + D.wp_model + ')', 1) : '');
window.addEventListener('hashchange', () => { const m = /^#step-(\d+)$/.exec(location.hash); if(m && +m[1] !== k) show(+m[1]); });
const m = /^#step-(\d+)$/.exec(location.hash);
show(m ? +m[1] : 0);
"""  # noqa: E501 (the script as the browser gets it)


def _end_table(data: dict[str, Any]) -> str:
    rows = "".join(
        f"<tr><td>seat {s['seat'] + 1}</td><td>{html.escape(str(data['header']['policies'][s['seat']]))}</td>"
        f"<td>{s['total']}</td><td>{s['earned']}</td><td>{s['church_vp']}</td><td>{s['coins']}</td><td>{s['logs']}</td>"
        f"<td>{s['cannons']}</td><td>{s['full_city']}</td><td>{s['rank']}</td><td>{'won' if s['won'] else ''}</td></tr>"
        for s in data["end"]["scores"]
    )
    return (
        "<h3>The end</h3><table><tr><th>seat</th><th>policy</th><th>total</th><th>earned</th><th>church series</th>"
        "<th>coins</th><th>logs</th><th>cannons</th><th>full city</th><th>rank</th><th></th></tr>" + rows + "</table>"
    )


def win_probability_course(data: dict[str, Any], model: WinProbModel) -> list[list[float]]:
    """Each seat's win probability under ``model`` at the start of each round (``round_steps``'s
    positions, the round snapshot's fields), and at the end its outcome: [round][seat]."""
    steps = round_steps(data)
    positions = np.array([[seat["position"] for seat in step["seats"]] for step in steps], dtype=np.int16)
    keys = pd.DataFrame({"game": 0, "round": np.arange(len(steps)), "rounds": len(steps) - 1})
    p = Positions(data["header"]["players"], keys, positions, Rules.from_dict(data["header"]["rules"]))
    return np.round(win_probabilities(model, p), 4).tolist()


def costliest(data: dict[str, Any], values: dict[int, dict[str, Any]]) -> list[dict[str, Any]]:
    """The decisions whose pick was significantly worse than the best move (``advise``'s values),
    costliest first: seat, step (the turn it was made in), decision, kind, the pick and the best
    move, and the win probability the pick gave up."""
    step_of = {
        d: k
        for k, step in enumerate(data["steps"])
        if step["turn"]
        for d in range(*step["turn"].get("decisions", (0, 0)))
    }
    out = []
    for d, v in values.items():
        if v["worse"] and v.get("method") != "exact":  # keeps are judged in VP of a stated value: not mixed in
            best, pick = v["candidates"][0], next(c for c in v["candidates"] if c["pick"])
            key = "value" if v.get("method") == "learned" else "win"  # the model's score, or the playouts' win share
            cost = None if pick[key] is None else round(best[key] - pick[key], 4)
            out.append(
                {
                    "seat": v["seat"],
                    "step": step_of.get(d, 0),
                    "decision": d,
                    "kind": v["kind"],
                    "pick": pick["move"],
                    "best": best["move"],
                    "cost": cost,
                }
            )
    return sorted(out, key=lambda c: (c["cost"] is None, -(c["cost"] or 0.0), c["decision"]))


def branch_banner(data: dict[str, Any], branch: dict[str, Any]) -> str:
    """The head of a page of a game played again with another move (``studies.advise.branch_game``):
    what was changed, and both games' outcomes side by side."""
    rows = "".join(
        f"<tr><td>seat {a['seat'] + 1}</td><td>{a['total']} (rank {a['rank']}{', won' if a['won'] else ''})</td>"
        f"<td>{b['total']} (rank {b['rank']}{', won' if b['won'] else ''})</td>"
        f"<td>{b['total'] - a['total']:+d}</td></tr>"
        for a, b in zip(branch["played"], data["end"]["scores"])
    )
    return (
        f"<div id='branch' class='card'><h3>The same dice, another choice</h3><p>This game is the one played, "
        f"played again from decision {branch['decision']} (<a href='#step-{branch['step']}'>step "
        f"{branch['step']}</a>) with <b>{html.escape(branch['move'])}</b> in place of "
        f"<b>{html.escape(branch['pick'])}</b>, on the same dice, by the same policies (a searching seat plays "
        "its base policy after it).</p><table class='moves'><tr><th>seat</th><th>as played</th><th>this way"
        f"</th><th>change</th></tr>{rows}</table></div>"
    )


def replay_page(
    data: dict[str, Any],
    model: WinProbModel | None = None,
    model_name: str = "",
    values: dict[int, dict[str, Any]] | None = None,
    branch: dict[str, Any] | None = None,
) -> str:
    """The replay page of one game (``play.replay.replay_game``'s data), as one HTML string; with a
    win-probability ``model`` (``smsim winprob``), each seat's chance round by round beside its
    score; with ``values`` (by decision number: ``studies.advise.game_values``, decisions valued by
    playouts, or ``learned_values``, by the learned model; ``keep_values``, keeps judged by the
    exact keep), each turn's decisions with every legal move's value, the pick and the best, and
    the costliest decisions of each seat listed first (keeps apart: their unit is another); with
    ``branch``, ``data`` is a game played again with another move (``branch_banner``)."""
    h = data["header"]
    title = (
        f"Saint Malo, game {h['game']} of seed {h['seed']}: {h['players']} players "
        f"({', '.join(map(str, h['policies']))})"
    )
    payload = {**data, "course": vp_by_round(data), "look": CELL_LOOK, "colours": SEAT_COLOURS}
    if model is not None:
        payload.update(wp=win_probability_course(data, model), wp_model=model_name or "model")
    if values is not None:
        moves = [v for v in values.values() if v.get("method") != "exact"]
        payload.update(
            values={str(d): v for d, v in values.items()},
            costly=costliest(data, values),
            values_method=next((v.get("method", "search") for v in moves), "search"),
            values_model=next((v.get("model", "") for v in moves), ""),
        )
    # </script> can never close the data early: "<" is written as its escape inside the JSON
    blob = json.dumps(payload, separators=(",", ":")).replace("<", "\\u003c")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>{STYLE}</style></head><body>
<h1>{html.escape(title)}{" played again" if branch else ""}</h1>
{branch_banner(data, branch) if branch else ""}
<div id="controls"><button id="first" title="the start (Home)">&laquo;</button><button id="prev" title="back (left arrow)">&lsaquo;</button>
<button id="next" title="on (right arrow)">&rsaquo;</button><button id="last" title="the end (End)">&raquo;</button>
<input type="range" id="slider" min="0" value="0" aria-label="step"><span id="where"></span>
<span class="hint"> &larr; &rarr; step, Home/End, PageUp/PageDown ten; the address names the step</span></div>
<div id="costly" class="card" style="display:none"></div>
<div class="row"><div id="chart"></div><div id="pirates" class="card"></div></div>
<div class="row"><div id="turn" class="card"></div></div>
<div class="row" id="seats"></div>
<div id="end" class="card" style="display:none">{_end_table(data)}</div>
<script type="application/json" id="data">{blob}</script>
<script>{SCRIPT}</script>
</body></html>
"""  # noqa: E501 (the page as the browser gets it)


__all__ = ["replay_page"]
