// The table narrates what the server says happened (the events of a run's answer) at the chosen
// pace: deals dealt, calls said and the contract they settle, cards played, tricks taken, deals
// and the game scored; each is drawn and announced. A new game started meanwhile (game.epoch
// moves on) stops it at once: nothing of an abandoned game is drawn or said after.
import { announce } from "./announcer.js";
import { sleep } from "./api.js";
import { cardNameInSentence, suitName } from "./cards.js";
import { callName, contractText } from "./contract.js";
import { num, seatName, t, teamName } from "./i18n.js";
import { pace } from "./settings.js";

// Plays `events` of `run` on `game`'s table; `own` is the player's card (or "call:…") already shown.
// `ahead`: the milliseconds the player has already waited for the answer past their own card's
// move, taken off the first beat: the bots' time to decide is hidden in the pace, and shows only
// when it is longer than that beat.
export async function narrate(game, events, run, own = null, ahead = 0) {
  const st = game.shown || { points: [0, 0], totals: [0, 0], plays: [] };
  let waited = own !== null;
  // the player has played to the trick on the table: its other cards come at the quicker beat
  let seen = (st.plays || []).some((p) => p.seat === 0);
  const epoch = game.epoch;
  const beat = (ms) => {
    const wait = Math.max(0, ms - ahead);
    ahead = 0;
    return sleep(wait);
  };
  for (const ev of events) {
    if (epoch !== game.epoch) return;
    const p = pace();
    if (ev.type === "deal_start") {
      Object.assign(st, { deal: ev.deal, dealer: ev.dealer, turned: ev.turned, holder: ev.dealer,
        points: [0, 0], plays: [] });
      game.banner.hidden = true;
      game.trick.clear();
      game.seats.setDealer(ev.dealer);
      game.seats.setTurned(ev.turned, ev.dealer);
      game.seats.setCounts([8, 8, 8, 8]);
      game.calls = [];
      game.carry = ev.carry || 1;
      game.seats.clearCalls();
      game.score.update({ deal: ev.deal, trump: ev.trump, points: st.points, totals: st.totals });
      if (ev.deal === run.view.deal) game.hand.render(run.view.hand);
      game.inAuction(ev.turned === null);
      if (ev.turned === null) { // rules with an auction: the trump is called
        game.score.setContract(null);
        announce(t("dealStartsCalling", { n: num(ev.deal + 1), dealer: seatName(ev.dealer), you: ev.dealer === 0,
          factor: ev.carry > 1 ? num(ev.carry) : null }));
      } else {
        announce(t("dealStarts", { n: num(ev.deal + 1), dealer: seatName(ev.dealer),
          card: cardNameInSentence(ev.turned), trump: suitName(ev.trump), you: ev.dealer === 0 }));
      }
    } else if (ev.type === "call") {
      if (ev.seat === 0 && `call:${ev.call}` === own) {
        own = null; // already on the table since it was chosen
        continue;
      }
      game.seats.setTurn(ev.seat);
      if (waited) await beat(p.card);
      if (epoch !== game.epoch) return;
      waited = true;
      game.calls.push({ seat: ev.seat, call: ev.call });
      game.showCalls();
      announce(ev.call === "pass" ? t("passes", { seat: seatName(ev.seat) })
        : t("says", { seat: seatName(ev.seat), call: callName(ev.call) }));
    } else if (ev.type === "contract") {
      game.seats.setTurn(null);
      game.inAuction(false);
      game.showCalls(ev.contract, ev.factor);
      announce(t("contractIs", { text: contractText(ev.contract, ev.factor, game.rules) }));
    } else if (ev.type === "play") {
      st.plays.push({ seat: ev.seat, card: ev.card });
      if (ev.seat === 0) seen = true;
      if (ev.seat === 0 && ev.card === own) {
        own = null;
        continue;
      }
      game.seats.setTurn(ev.seat);
      const wait = waited ? (seen ? p.follow : p.card) : 0;
      if (wait) await beat(wait);
      if (epoch !== game.epoch) return;
      waited = true;
      // the card shown, and the beat waited for it (tests/web reads them)
      if (ev.seat !== 0) performance.mark("bot-card", { detail: { seat: ev.seat, wait, seen } });
      game.hand.remove(ev.card);
      await game.trick.place(ev.seat, ev.card, p.move);
      if (epoch !== game.epoch) return;
      game.seats.played(ev.seat);
      if (ev.seat === st.holder && ev.card === st.turned) {
        st.holder = null;
        game.seats.setTurned(null, null);
      }
      announce(t("plays", { seat: seatName(ev.seat), card: cardNameInSentence(ev.card) }));
    } else if (ev.type === "trick") {
      seen = false;
      game.seats.setTurn(null);
      game.seats.clearCalls();
      st.points[ev.team === "us" ? 0 : 1] += ev.points;
      game.lastTrick = { deal: ev.deal, plays: st.plays, winner: ev.winner, points: ev.points };
      st.plays = [];
      game.trick.markWinner(ev.winner);
      game.score.update({ points: st.points });
      announce(t("takesTrick", { seat: seatName(ev.winner), n: ev.points, you: ev.winner === 0 }));
      await beat(p.look);
      if (epoch !== game.epoch) return;
      await game.trick.collect(ev.winner, p.slide);
    } else if (ev.type === "deal_end") {
      st.totals = ev.totals.slice();
      game.score.update({ points: ev.points, totals: ev.totals });
      const team = ev.scored[0] > 0 ? 0 : 1;
      let text = t("dealEnds", { n: num(ev.deal + 1), us: num(ev.points[0]), them: num(ev.points[1]),
        team: teamName(team), scored: num(ev.scored[team]), side: team });
      if (ev.factor > 1 && ev.scored[team] > 0) text += ` (${t("factor", { n: num(ev.factor) })})`;
      if (ev.carry > 1) text += ` ${t("tieCarry", { n: num(ev.carry) })}`;
      game.banner.textContent = text;
      game.banner.hidden = false;
      announce(text);
      await beat(p.dealPause);
      if (epoch !== game.epoch) return;
    } else if (ev.type === "game_end") {
      const won = ev.winner === "us";
      announce(t(won ? "gameWon" : "gameLost", { us: num(ev.totals[0]), them: num(ev.totals[1]) }));
    }
  }
  if (epoch !== game.epoch) return;
  game.render(run.view);
  if (run.status !== "finished") game.banner.hidden = true;
}
