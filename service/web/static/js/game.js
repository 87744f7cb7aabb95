// The run loop: open or resume a run, animate what the server narrates, play, retry, finish.
import { api, ApiError, isTransient, limitedFor, sleep, token } from "./api.js";
import { announce, clearLog, setStatus } from "./announcer.js";
import { Auction } from "./auction.js";
import { callerOf, callName, contractSoFar, promptFor } from "./contract.js";
import { store } from "./dom.js";
import { cardNameInSentence } from "./cards.js";
import { num, t } from "./i18n.js";
import { Hand } from "./hand.js";
import { narrate } from "./narrator.js";
import { Picker, variantOf } from "./picker.js";
import { Scoreboard } from "./scoreboard.js";
import { pace } from "./settings.js";
import { Strength } from "./strength.js";
import { Seats } from "./table.js";
import { TrickArea } from "./trick.js";
import { firstVisit } from "./welcome.js";


// How long a play's answer may take before the page says the bots are thinking.
const THINKING_AFTER_MS = 600;

export class Game {
  constructor(ctx) {
    this.ctx = ctx;
    this.me = null;
    this.run = null;
    this.busy = false;
    this.epoch = 0; // a new game started meanwhile: what was being drawn of the old one stops
    this.lastTrick = null;
    this.clickedAt = null; // when the player's last card was chosen, until their next turn
    this.rules = "muette-1";
    this.calls = []; // this deal's calls so far, [{seat, call}] as the server said them
    this.carry = 1; // ×2 per 30–30 deal just before this one (parlée)
    this.felt = document.getElementById("felt");
    this.seats = new Seats(this.felt);
    this.trick = new TrickArea(document.getElementById("trick"));
    this.banner = document.getElementById("banner");
    this.score = new Scoreboard(document.getElementById("scores"));
    this.hand = new Hand(document.getElementById("hand"), document.getElementById("reasons"),
      document.getElementById("hint"), {
        onPlay: (card) => this.play(card),
        onRefuse: (card, why) => announce(why, { shown: false }), // the hand shows it
      });
    this.auction = new Auction(document.getElementById("auction"), { onCall: (call) => this.call(call) });
    this.picker = ctx.mode === "random"
      ? new Picker(document.getElementById("play-area"), { onStart: () => this.restart() }) : null;
    this.strength = this.picker && Strength.fromPage(this.picker);
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
    if (this.ctx.mode === "duel") return (await import("./duel.js")).openDuel(this);
    if (this.ctx.mode === "ranked") {
      await firstVisit();
      if (api.hasToken()) {
        try {
          this.me = await api.get("/players/me");
        } catch (e) {
          if (!(e instanceof ApiError && e.status === 401)) throw e;
          token.clear(); // the server no longer knows this token: start afresh
        }
        if (this.me && this.me.restricted) {
          (await import("./restriction.js")).showRestriction(this.me.restricted, document.getElementById("status"));
        }
      }
      const today = this.me && this.me.today;
      if (today && today.run_id) return this.resume(await api.get(`/runs/${today.run_id}`));
      let run;
      for (;;) {
        try {
          run = await api.post("/runs", {});
          break;
        } catch (e) {
          if (e instanceof ApiError && e.code === "bots_busy") {
            await this.botsBusy(e); // the first bots' turn still searched: ask again
            continue;
          }
          if (e.code !== "already_played" || !e.body.run_id) throw e;
          return this.resume(await api.get(`/runs/${e.body.run_id}`));
        }
      }
      setStatus("");
      return this.begin(run);
    }
    const saved = store.get(this.storeKey);
    if (saved) {
      try {
        const run = await api.get(`/runs/${saved}`);
        if (run.status === "playing") return this.resume(run);
        // a past day played to its end is shown finished (its result, review and analysis, "play
        // again" beside them); a free game's end is behind it: free play deals anew
        if (run.status === "finished" && this.ctx.mode === "archive") return this.resume(run);
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
    if (this.strength) body.bots = this.strength.botsFor(variant.rules);
    const epoch = this.epoch;
    let run;
    for (;;) {
      try {
        run = await api.post("/runs", body);
        break;
      } catch (e) {
        // the strongest table's bots are all busy: wait for a place, or take the club's table
        if (!(e instanceof ApiError && e.code === "bots_busy") || epoch !== this.epoch) throw e;
        const offer = e.body.offer;
        if (!offer) {
          await this.botsBusy(e);
        } else {
          const { waitTurn } = await import("./busytable.js");
          if ((await waitTurn(document.getElementById("play-area"), e.body)) === "club") body.bots = offer.bots;
        }
        if (epoch !== this.epoch) return;
      }
    }
    import("./busytable.js").then((m) => m.clearTurn());
    setStatus("");
    if (epoch !== this.epoch) return; // "New game" again meanwhile: the newer one has the table
    store.set(this.storeKey, run.run_id);
    return this.begin(run);
  }

  // A new run: the server narrates the first deal up to the player's first turn.
  async begin(run) {
    const epoch = this.epoch;
    this.run = run;
    this.terms(run);
    this.busy = true;
    await this.animate(run.events, run);
    if (epoch !== this.epoch) return; // a newer game has the table
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
      this.giveWay();
      const { showEnd } = await import("./endgame.js");
      return showEnd(this, run);
    }
    if (run.view.to_move !== 0) return;
    if (this.calling(run.view)) {
      announce(this.auction.promptText || t("yourCall"));
      if (!document.activeElement || document.activeElement === document.body
          || this.hand.el.contains(document.activeElement)) this.auction.focus();
    } else {
      announce(t("yourTurn"));
      // from the click on a card to the next turn, in the browser's performance timeline
      // (tests/web/measure_turns.py times the same wait from outside the page)
      if (this.clickedAt !== null) performance.measure("click-to-turn", { start: this.clickedAt });
      // the call button that had the focus is gone with the auction: the hand takes it (its first
      // legal card), as at a card turn after a trick
      if (this.afterCall && (!document.activeElement || document.activeElement === document.body)) this.hand.focus();
    }
    this.afterCall = false;
    this.clickedAt = null;
  }

  // Once the game is over the table gives way to the results: no empty felt, no last deal's
  // banner above them (a new game brings it back: restart).
  giveWay() {
    this.banner.hidden = true;
    document.getElementById("play-area").hidden = true;
  }

  // What the run is played under: its variant and target on the score panel and in the picker.
  terms(run) {
    this.rules = run.rules || "muette-1";
    this.score.setTerms(this.rules, run.target || 40);
    if (this.picker) this.picker.select(variantOf(run));
    if (this.strength) this.strength.select(run);
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
    const calling = this.calling(view);
    this.auction.show(calling ? view.legal_calls : [],
      calling ? promptFor(view.legal_calls, view.calls, this.rules, view.carry) : "");
    this.inAuction(Boolean(view.calls) && !view.contract);
    if (view.calls) {
      this.calls = view.calls.slice();
      this.carry = view.carry || 1;
      this.showCalls(view.contract, view.factor);
      // what each seat said stays beside it until the first trick is taken
      if (view.tricks.length) this.seats.clearCalls();
    }
    this.shown = {
      deal: view.deal, dealer: view.dealer, turned: view.turned, holder: view.turned_holder,
      points: view.points.slice(), totals: view.totals.slice(), plays: view.trick.plays.slice(),
    };
  }

  // While the trump is being called no card is on the felt: on a phone the empty trick gives its
  // room to the calls and the hand (css: .felt.in-auction).
  inAuction(on) {
    this.felt.classList.toggle("in-auction", on);
  }

  // The auction so far on the table: each seat's calls in order beside it, the caller's marked;
  // the contract in the score panel: the server's once settled (`settled`, `factor`), else the
  // one the calls so far make.
  showCalls(settled = null, factor = 1) {
    this.seats.setCalls(this.calls, callerOf(this.calls));
    if (settled) {
      this.score.setContract(settled, factor);
      return;
    }
    const so = contractSoFar(this.calls, this.rules, this.carry);
    this.score.setContract(so, so && so.factor);
  }

  // Plays the server's events at the chosen pace; `own` is the player's card (or "call:…") already
  // shown, `ahead` the time already waited for the answer past it (narrator.js).
  animate(events, run, own = null, ahead = 0) {
    return narrate(this, events, run, own, ahead);
  }

  async play(card) {
    const run = this.run;
    if (this.busy || !run || run.status !== "playing" || run.view.to_move !== 0 || this.calling(run.view)) return;
    const epoch = this.epoch;
    this.busy = true;
    this.clickedAt = performance.now();
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
    await this.animate(next.events, next, card, performance.now() - started - pace().move);
    if (epoch !== this.epoch) return;
    this.busy = false;
    return this.settled();
  }

  // The player's call: said at once on the table, then sent; the answer narrates the bots'.
  async call(call) {
    const run = this.run;
    if (this.busy || !run || run.status !== "playing" || !this.calling(run.view)) return;
    const epoch = this.epoch;
    this.busy = true;
    const turn = run.turn;
    // read before the lock: a disabled button loses the focus (Chromium moves it to the body)
    this.afterCall = this.auction.el.contains(document.activeElement);
    this.auction.lock();
    this.seats.setTurn(null);
    this.calls.push({ seat: 0, call });
    this.showCalls();
    announce(call === "pass" ? t("youPass") : t("youSay", { call: callName(call) }));
    const started = performance.now();
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
    await this.animate(next.events, next, `call:${call}`, performance.now() - started);
    if (epoch !== this.epoch) return;
    this.busy = false;
    return this.settled();
  }

  // Retries the same turn and action (`{card}` or `{call}`) until the server answers: it answers a
  // repeat, never plays twice. A limit on plays (no person meets it; a shared address might) is
  // waited out, then the action goes.
  async send(turn, action) {
    let delay = 500;
    // the bots searching a position takes a moment: said once the answer is slow in coming
    const thinking = setTimeout(() => this.thinking(true), THINKING_AFTER_MS);
    try {
      return await this.sendAgain(turn, action, delay);
    } finally {
      clearTimeout(thinking);
      this.thinking(false);
    }
  }

  // A 503 bots_busy without an offer: the bots' pool has not answered yet; said, then asked again.
  async botsBusy(e) {
    setStatus(t("botsThinking"));
    await sleep(Math.min(2, e.body.retry_after || 1) * 1000);
  }

  // The table says the bots are thinking (a status line, and the felt busy) until they answer.
  thinking(on) {
    this.felt.setAttribute("aria-busy", on ? "true" : "false");
    if (on) setStatus(t("botsThinking"));
  }

  async sendAgain(turn, action, delay) {
    for (;;) {
      try {
        const answer = await api.post(`/runs/${this.run.run_id}/plays`, { turn, ...action });
        setStatus("");
        return answer;
      } catch (e) {
        if (e instanceof ApiError && e.code === "bots_busy") {
          // the bots' pool has not answered yet: the same play again waits on the same search
          this.thinking(true);
          await this.botsBusy(e);
          continue;
        }
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
    this.clickedAt = null;
    this.run = null;
    this.shown = null;
    this.lastTrick = null;
    this.calls = [];
    clearLog(); // a new game starts a new log: no line of the abandoned one
    this.banner.hidden = true;
    this.trick.clear();
    this.score.update({ points: [0, 0], totals: [0, 0] });
    this.score.clearContract(); // no contract of the abandoned game beside the cleared bubbles
    this.inAuction(false);
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
    // "New game" is below the table: bring the table back from its top (the score panel) on
    const scores = this.score.info.closest("section");
    if (scores.getBoundingClientRect().top < 0) scores.scrollIntoView({ block: "start" });
    try {
      await this.fresh();
      // the "Play again" button that had the focus is gone (a first call has taken it already)
      if (!this.auction.el.contains(document.activeElement)) this.hand.focus();
    } catch (e) {
      this.failed(e);
    }
  }
}
