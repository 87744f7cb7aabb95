// The run loop: open or resume a run, animate what the server narrates, play, retry, finish.
import { api, ApiError, isTransient, limitedFor, sleep, token } from "./api.js";
import { announce, setStatus } from "./announcer.js";
import { Auction, callName, contractText } from "./auction.js";
import { store } from "./dom.js";
import { cardNameInSentence, suitName } from "./cards.js";
import { num, seatName, t, teamName } from "./i18n.js";
import { Hand } from "./hand.js";
import { Picker, variantOf } from "./picker.js";
import { Scoreboard } from "./scoreboard.js";
import { pace } from "./settings.js";
import { Seats } from "./table.js";
import { TrickArea } from "./trick.js";


export class Game {
  constructor(ctx) {
    this.ctx = ctx;
    this.me = null;
    this.run = null;
    this.busy = false;
    this.epoch = 0; // a new game started meanwhile: what was being drawn of the old one stops
    this.lastTrick = null;
    this.seats = new Seats(document.getElementById("felt"));
    this.trick = new TrickArea(document.getElementById("trick"));
    this.banner = document.getElementById("banner");
    this.score = new Scoreboard(document.getElementById("scores"));
    this.hand = new Hand(document.getElementById("hand"), document.getElementById("reasons"),
      document.getElementById("hint"), {
        onPlay: (card) => this.play(card),
        onRefuse: (card, why) => announce(why),
      });
    this.auction = new Auction(document.getElementById("auction"), { onCall: (call) => this.call(call) });
    this.picker = ctx.mode === "random"
      ? new Picker(document.querySelector(".table-head"), { onStart: () => this.restart() }) : null;
  }

  get storeKey() {
    return this.ctx.mode === "archive" ? `manille.archive.${this.ctx.day}` : "manille.free";
  }

  async start() {
    try {
      await this.open();
    } catch (e) {
      if (!(e instanceof ApiError && e.status === 401)) return this.failed(e);
      token.clear(); // a token the server no longer knows: start afresh with a new one
      try {
        await this.open();
      } catch (e2) {
        this.failed(e2);
      }
    }
  }

  failed(e) {
    console.warn(e);
    if (e instanceof ApiError && e.code === "too_many_requests") {
      setStatus(t("tooMany", { minutes: Math.max(1, Math.ceil((e.body.retry_after || 60) / 60)) }));
      return;
    }
    setStatus(e instanceof ApiError && e.status < 500 ? t("errorGeneric", { message: e.message })
      : t("offline"));
  }

  async open() {
    if (this.ctx.mode === "ranked") {
      if (api.hasToken()) {
        try {
          this.me = await api.get("/players/me");
        } catch (e) {
          if (!(e instanceof ApiError && e.status === 401)) throw e;
          token.clear(); // the server no longer knows this token: start afresh
        }
      }
      const today = this.me && this.me.today;
      if (today && today.run_id) return this.resume(await api.get(`/runs/${today.run_id}`));
      let run;
      try {
        run = await api.post("/runs", {});
      } catch (e) {
        if (e.code !== "already_played" || !e.body.run_id) throw e;
        return this.resume(await api.get(`/runs/${e.body.run_id}`));
      }
      return this.begin(run);
    }
    const saved = store.get(this.storeKey);
    if (saved) {
      try {
        const run = await api.get(`/runs/${saved}`);
        if (run.status === "playing") return this.resume(run);
      } catch (e) {
        if (isTransient(e)) throw e;
      }
    }
    return this.fresh();
  }

  async fresh() {
    const body = this.ctx.mode === "archive" ? { date: this.ctx.day } : { kind: "random" };
    const variant = this.picker && this.picker.chosen;
    if (variant && variant.rules !== "muette-1") Object.assign(body, { rules: variant.rules, target: variant.target });
    const run = await api.post("/runs", body);
    store.set(this.storeKey, run.run_id);
    return this.begin(run);
  }

  // A new run: the server narrates the first deal up to the player's first turn.
  async begin(run) {
    this.run = run;
    this.terms(run);
    this.busy = true;
    await this.animate(run.events, run);
    this.busy = false;
    return this.settled();
  }

  resume(run) {
    this.run = run;
    this.terms(run);
    this.render(run.view);
    this.lastTrick = run.view.last_trick;
    return this.settled();
  }

  async settled() {
    const run = this.run;
    if (run.status === "finished") {
      const { showEnd } = await import("./endgame.js");
      return showEnd(this, run);
    }
    if (run.view.to_move !== 0) return;
    if (this.calling(run.view)) {
      announce(t("yourCall"));
      if (!document.activeElement || document.activeElement === document.body
          || this.hand.el.contains(document.activeElement)) this.auction.focus();
    } else {
      announce(t("yourTurn"));
    }
  }

  // What the run is played under: the game's target, the variant in the picker.
  terms(run) {
    this.score.setTarget(run.target || 40);
    if (this.picker) this.picker.select(variantOf(run));
  }

  // Whether the player is to call (rules with an auction), not to play a card.
  calling(view) {
    return view.to_move === 0 && Boolean(view.legal_calls && view.legal_calls.length);
  }

  render(view) {
    this.seats.setDealer(view.dealer);
    this.seats.setTurned(view.turned_holder !== null ? view.turned : null, view.turned_holder);
    this.seats.setCounts(view.counts);
    this.seats.setTurn(view.to_move);
    this.trick.show(view.trick.plays);
    this.score.update(view);
    this.hand.render(view.hand, view.legal, view.unplayable, view.to_move === 0 && !this.calling(view));
    this.auction.show(this.calling(view) ? view.legal_calls : []);
    if (view.calls) {
      this.score.setContract(view.contract, view.factor);
      this.seats.clearCalls();
      // what each seat said stays beside it until the first trick is taken
      if (!view.tricks.length) for (const c of view.calls) this.seats.setCall(c.seat, callName(c.call));
    }
    this.shown = {
      deal: view.deal, dealer: view.dealer, turned: view.turned, holder: view.turned_holder,
      points: view.points.slice(), totals: view.totals.slice(), plays: view.trick.plays.slice(),
    };
  }

  // Plays the server's events at the chosen pace; `own` is the player's card already shown.
  async animate(events, run, own = null) {
    const st = this.shown || { points: [0, 0], totals: [0, 0], plays: [] };
    let waited = own !== null;
    const epoch = this.epoch;
    for (const ev of events) {
      if (epoch !== this.epoch) return;
      const p = pace();
      if (ev.type === "deal_start") {
        Object.assign(st, { deal: ev.deal, dealer: ev.dealer, turned: ev.turned, holder: ev.dealer,
          points: [0, 0], plays: [] });
        this.banner.hidden = true;
        this.trick.clear();
        this.seats.setDealer(ev.dealer);
        this.seats.setTurned(ev.turned, ev.dealer);
        this.seats.setCounts([8, 8, 8, 8]);
        this.seats.clearCalls();
        this.score.update({ deal: ev.deal, trump: ev.trump, points: st.points, totals: st.totals });
        if (ev.deal === run.view.deal) this.hand.render(run.view.hand);
        if (ev.turned === null) { // rules with an auction: the trump is called
          this.score.setContract(null);
          announce(t("dealStartsCalling", { n: num(ev.deal + 1), dealer: seatName(ev.dealer), you: ev.dealer === 0,
            factor: ev.carry > 1 ? num(ev.carry) : null }));
        } else {
          announce(t("dealStarts", { n: num(ev.deal + 1), dealer: seatName(ev.dealer),
            card: cardNameInSentence(ev.turned), trump: suitName(ev.trump), you: ev.dealer === 0 }));
        }
      } else if (ev.type === "call") {
        this.seats.setCall(ev.seat, callName(ev.call));
        if (ev.seat === 0 && `call:${ev.call}` === own) {
          own = null;
          continue;
        }
        this.seats.setTurn(ev.seat);
        if (waited) await sleep(p.card);
        waited = true;
        announce(t("says", { seat: seatName(ev.seat), call: callName(ev.call) }));
      } else if (ev.type === "contract") {
        this.seats.setTurn(null);
        this.score.setContract(ev.contract, ev.factor);
        announce(t("contractIs", { text: contractText(ev.contract, ev.factor) }));
      } else if (ev.type === "play") {
        st.plays.push({ seat: ev.seat, card: ev.card });
        if (ev.seat === 0 && ev.card === own) {
          own = null;
          continue;
        }
        this.seats.setTurn(ev.seat);
        if (waited) await sleep(p.card);
        waited = true;
        this.hand.remove(ev.card);
        await this.trick.place(ev.seat, ev.card, p.move);
        this.seats.played(ev.seat);
        if (ev.seat === st.holder && ev.card === st.turned) {
          st.holder = null;
          this.seats.setTurned(null, null);
        }
        announce(t("plays", { seat: seatName(ev.seat), card: cardNameInSentence(ev.card) }));
      } else if (ev.type === "trick") {
        this.seats.setTurn(null);
        this.seats.clearCalls();
        st.points[ev.team === "us" ? 0 : 1] += ev.points;
        this.lastTrick = { deal: ev.deal, plays: st.plays, winner: ev.winner, points: ev.points };
        st.plays = [];
        this.trick.markWinner(ev.winner);
        this.score.update({ points: st.points });
        announce(t("takesTrick", { seat: seatName(ev.winner), n: ev.points, you: ev.winner === 0 }));
        await sleep(p.look);
        await this.trick.collect(ev.winner, p.slide);
      } else if (ev.type === "deal_end") {
        st.totals = ev.totals.slice();
        this.score.update({ points: ev.points, totals: ev.totals });
        const team = ev.scored[0] > 0 ? 0 : 1;
        let text = t("dealEnds", { n: num(ev.deal + 1), us: num(ev.points[0]), them: num(ev.points[1]),
          team: teamName(team), scored: num(ev.scored[team]), side: team });
        if (ev.factor > 1 && ev.scored[team] > 0) text += ` (${t("factor", { n: num(ev.factor) })})`;
        if (ev.carry > 1) text += ` ${t("tieCarry", { n: num(ev.carry) })}`;
        this.banner.textContent = text;
        this.banner.hidden = false;
        announce(text);
        await sleep(p.dealPause);
      } else if (ev.type === "game_end") {
        const won = ev.winner === "us";
        announce(t(won ? "gameWon" : "gameLost", { us: num(ev.totals[0]), them: num(ev.totals[1]) }));
      }
    }
    this.render(run.view);
    if (run.status !== "finished") this.banner.hidden = true;
  }

  async play(card) {
    const run = this.run;
    if (this.busy || !run || run.status !== "playing" || run.view.to_move !== 0 || this.calling(run.view)) return;
    this.busy = true;
    const turn = run.turn;
    this.hand.remove(card);
    this.hand.lock();
    this.seats.setTurn(null);
    if (card === run.view.turned && run.view.turned_holder === 0) this.seats.setTurned(null, null);
    this.shown.plays = run.view.trick.plays.slice();
    announce(t("youPlay", { card: cardNameInSentence(card) }));
    const placed = this.trick.place(0, card, pace().move);
    const started = performance.now();
    let next;
    try {
      next = await this.send(turn, { card });
    } catch (e) {
      // wrong_turn or a refused card: the server's state is the truth, redraw from it.
      console.warn(e);
      try {
        this.run = await api.get(`/runs/${run.run_id}`);
        this.render(this.run.view);
        announce(e.code === "illegal_card" ? t("cannotPlay") : t("resynced"));
      } catch (e2) {
        this.failed(e2);
      }
      this.busy = false;
      return this.settled();
    }
    performance.measure("play-rtt", { start: started, end: performance.now() });
    await placed;
    if (this.run !== run) return; // a new game was started meanwhile
    this.run = next;
    await this.animate(next.events, next, card);
    this.busy = false;
    return this.settled();
  }

  // The player's call: said at once on the table, then sent; the answer narrates the bots'.
  async call(call) {
    const run = this.run;
    if (this.busy || !run || run.status !== "playing" || !this.calling(run.view)) return;
    this.busy = true;
    const turn = run.turn;
    this.auction.lock();
    this.seats.setTurn(null);
    this.seats.setCall(0, callName(call));
    announce(t("youSay", { call: callName(call) }));
    let next;
    try {
      next = await this.send(turn, { call });
    } catch (e) {
      console.warn(e); // refused (illegal_call, wrong_turn): redraw from the server's state
      try {
        this.run = await api.get(`/runs/${run.run_id}`);
        this.render(this.run.view);
        announce(t("resynced"));
      } catch (e2) {
        this.failed(e2);
      }
      this.busy = false;
      return this.settled();
    }
    if (this.run !== run) return; // a new game was started meanwhile
    this.run = next;
    this.auction.hide();
    await this.animate(next.events, next, `call:${call}`);
    this.busy = false;
    return this.settled();
  }

  // Retries the same turn and action (`{card}` or `{call}`) until the server answers: it answers a
  // repeat, never plays twice. A limit on plays (no person meets it; a shared address might) is
  // waited out, then the action goes.
  async send(turn, action) {
    let delay = 500;
    for (;;) {
      try {
        const answer = await api.post(`/runs/${this.run.run_id}/plays`, { turn, ...action });
        setStatus("");
        return answer;
      } catch (e) {
        const limited = limitedFor(e);
        if (limited !== null) {
          setStatus(t("playsTooFast", { seconds: num(limited) }));
          await sleep(limited * 1000);
          continue;
        }
        if (!isTransient(e)) {
          setStatus("");
          throw e;
        }
        setStatus(t("reconnecting"));
        await sleep(delay);
        delay = Math.min(delay * 2, 8000);
      }
    }
  }

  async restart() {
    this.epoch += 1;
    this.busy = false;
    this.run = null;
    this.shown = null;
    this.lastTrick = null;
    this.banner.hidden = true;
    this.trick.clear();
    this.score.update({ points: [0, 0], totals: [0, 0] });
    this.auction.hide();
    this.seats.clearCalls();
    document.getElementById("end").hidden = true;
    document.getElementById("review").hidden = true;
    const analysis = document.getElementById("analysis");
    if (analysis) {
      analysis.hidden = true;
      delete analysis.dataset.key;
      analysis.replaceChildren();
    }
    document.getElementById("play-area").hidden = false;
    try {
      await this.fresh();
      // the "Play again" button that had the focus is gone (a first call has taken it already)
      if (!this.auction.el.contains(document.activeElement)) this.hand.focus();
    } catch (e) {
      this.failed(e);
    }
  }
}
