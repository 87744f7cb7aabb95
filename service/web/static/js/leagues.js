// The Leagues page: the player's leagues (each with its link to copy or share, its members, and
// what its owner may change), creating one, and joining one from its invite link.
// The server decides everything (who may see, rename, remove); names are always drawn as text.
import { api, ApiError, request, token } from "./api.js";
import { announce, initStatus, setStatus } from "./announcer.js";
import { fill, h } from "./dom.js";
import { num, t } from "./i18n.js";
import { linkBox } from "./share.js";

// The server's refusals, by code, in the page's language.
const REFUSALS = {
  league_name_empty: "leagueNameEmpty", league_name_too_long: "leagueNameTooLong",
  league_name_control: "leagueNameControl", league_name_invisible: "leagueNameInvisible",
  league_name_unassigned: "leagueNameUnassigned", nickname_not_held: "nickNotHeld",
  league_name_mark_first: "leagueNameMarkFirst", nickname_mark_first: "nickMarkFirst",
  nickname_empty: "nickEmpty", nickname_too_long: "nickTooLong", nickname_control: "nickControl",
  nickname_invisible: "nickInvisible", nickname_unassigned: "nickUnassigned",
  nickname_mixed_script: "nickMixedScript", nickname_taken: "nicknameTaken",
  too_many_leagues: "tooManyLeagues", league_full: "leagueFull", unknown_league: "leagueGone",
  not_league_owner: "notLeagueOwner", too_many_requests: "leaguesTooFast",
};

export function refusal(e) {
  if (e instanceof ApiError && REFUSALS[e.code]) return t(REFUSALS[e.code]);
  return e instanceof ApiError ? t("errorGeneric", { message: e.message }) : t("offline");
}

const fullUrl = (path) => new URL(path, location.origin).href;

// The player's nickname, if the server knows one (null without a token or a name).
async function myNickname() {
  if (!api.hasToken()) return null;
  try {
    return (await api.get("/players/me")).nickname || null;
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) token.clear(); // a token the server forgot
    return null;
  }
}

// A league shows a member by the nickname of their verified game (the server's rule): a player
// with none yet is told so, rather than asked for a name a league cannot give them.
function nameNote(known) {
  return known ? null : h("p", { class: "note" }, t("leagueNoNameYet"));
}

// How a member is drawn: their nickname, or that they have none yet.
const shownName = (nickname) => nickname || t("noNameYet");

// A form whose submit sends `send()`; its error line says the server's refusal.
function form(children, submitLabel, send, { primary = true } = {}) {
  const error = h("p", { class: "error", role: "alert" });
  const button = h("button", { type: "submit", class: primary ? "btn primary" : "btn" }, submitLabel);
  const el = h("form", { class: "league-form", novalidate: true }, children, h("p", {}, button), error);
  el.addEventListener("submit", async (e) => {
    e.preventDefault();
    error.textContent = "";
    button.disabled = true;
    try {
      await send(error);
    } catch (err) {
      error.textContent = refusal(err);
      const bad = el.querySelector("input:not([readonly])");
      if (bad) bad.focus();
    } finally {
      button.disabled = false;
    }
  });
  return el;
}

// A button that asks `question` first, then does `run()`; a refusal is said in the status line.
function action(label, question, run, extra = {}) {
  return h("button", { type: "button", class: "btn", ...extra, onclick: async () => {
    if (!confirm(question)) return;
    try {
      await run();
    } catch (e) {
      setStatus(refusal(e));
    }
  } }, label);
}

class LeaguesPage {
  constructor(data) {
    this.invite = data.invite || "";
    this.list = document.getElementById("league-list");
    this.createBox = document.getElementById("league-create");
    this.inviteBox = document.getElementById("league-invite");
    this.nickname = null;
    this.open = new URLSearchParams(location.search).get("league");
  }

  async start() {
    initStatus(document.getElementById("league-status"));
    this.nickname = await myNickname();
    this.drawCreate();
    if (this.invite) await this.drawInvite();
    await this.refresh();
  }

  drawCreate() {
    const name = h("input", { type: "text", id: "new-league-name", name: "name", maxlength: 200, required: true,
      autocomplete: "off", "aria-describedby": "new-league-help" });
    fill(this.createBox, form([
      h("p", { class: "field" }, h("label", { for: "new-league-name" }, t("leagueName")), name,
        h("span", { id: "new-league-help", class: "note" }, t("leagueNameHelp"))),
      nameNote(this.nickname),
    ], t("createLeague"), async () => {
      const league = await api.post("/leagues", { name: name.value });
      name.value = "";
      this.drawCreate();
      this.open = league.league_id;
      announce(t("leagueCreated", { name: league.name }));
      setStatus(t("leagueCreated", { name: league.name }));
      await this.refresh(league);
    }));
  }

  // The invite link's page: what it leads to, and joining.
  async drawInvite() {
    const box = this.inviteBox;
    box.hidden = false;
    let seen;
    try {
      seen = await api.get(`/leagues/invites/${encodeURIComponent(this.invite)}`);
    } catch (e) {
      fill(box, h("h2", { id: "league-invite-title" }, t("inviteTitle")),
        h("p", { class: "error", role: "alert" }, e instanceof ApiError && e.status === 404 ? t("inviteInvalid") : refusal(e)));
      return;
    }
    const title = h("h2", { id: "league-invite-title" }, t("inviteTo", { name: seen.name }));
    const size = h("p", {}, t("leagueMembers", { n: num(seen.members) }));
    if (seen.member) {
      fill(box, title, size, h("p", {}, t("alreadyMember")));
      this.open = seen.league_id;
      return;
    }
    if (seen.full) {
      fill(box, title, size, h("p", { class: "error" }, t("leagueFull")));
      return;
    }
    fill(box, title, size, form([nameNote(this.nickname)], t("joinLeague"), async () => {
      const league = await api.post("/leagues/join", { invite: this.invite });
      history.replaceState(null, "", `/leagues?league=${encodeURIComponent(league.league_id)}`);
      this.invite = "";
      fill(box, h("h2", { id: "league-invite-title", tabindex: "-1" }, t("joined", { name: league.name })),
        h("p", { class: "links" }, h("a", { href: `/leaderboard?league=${encodeURIComponent(league.league_id)}` },
          t("seeLeagueBoard")), " · ", h("a", { href: "/" }, t("todayChallenge"))));
      this.open = league.league_id;
      this.drawCreate();
      announce(t("joined", { name: league.name }));
      await this.refresh(league);
      box.querySelector("h2").focus();
    }));
  }

  async refresh(fresh = null) {
    this.list.setAttribute("aria-busy", "true");
    let leagues = [];
    if (api.hasToken()) {
      try {
        leagues = (await api.get("/players/me/leagues")).leagues;
      } catch (e) {
        fill(this.list, h("p", { class: "error", role: "alert" }, refusal(e)));
        this.list.removeAttribute("aria-busy");
        return;
      }
    }
    this.list.removeAttribute("aria-busy");
    if (!leagues.length) {
      fill(this.list, h("p", {}, t("noLeagues")));
      return;
    }
    const items = leagues.map((lg) => this.card(lg, fresh && fresh.league_id === lg.league_id ? fresh : null));
    fill(this.list, h("ul", { class: "league-cards" }, items));
  }

  // One league: its name and size; opened, its link, members and actions (read when opened).
  card(summary, detail) {
    const id = summary.league_id;
    const body = h("div", { class: "league-body" });
    const panel = h("details", { class: "league-card", "data-league": id },
      h("summary", {}, h("span", { class: "league-name" }, summary.name), " ",
        h("span", { class: "note" }, t("leagueMembers", { n: num(summary.members) })),
        summary.owner ? h("span", { class: "badge" }, t("ownerBadge")) : null),
      body);
    let loaded = false;
    const load = async (known) => {
      loaded = true;
      try {
        this.drawDetail(body, known || await api.get(`/leagues/${encodeURIComponent(id)}`), panel);
      } catch (e) {
        fill(body, h("p", { class: "error", role: "alert" }, refusal(e)));
      }
    };
    panel.addEventListener("toggle", () => { if (panel.open && !loaded) load(); });
    if (this.open === id) {
      panel.open = true;
      load(detail);
    }
    return h("li", {}, panel);
  }

  drawDetail(body, league, panel) {
    const id = encodeURIComponent(league.league_id);
    const redraw = (next) => {
      panel.querySelector(".league-name").textContent = next.name;
      this.drawDetail(body, next, panel);
    };
    const parts = [
      linkBox({ url: fullUrl(league.invite_url), id: `invite-${league.league_id}`, label: t("inviteLink"),
        title: t("shareLeagueTitle", { name: league.name }), text: t("shareLeagueText", { name: league.name }) }),
      h("p", { class: "links" }, h("a", { href: `/leaderboard?league=${id}` }, t("seeLeagueBoard"))),
      this.roster(league, redraw),
    ];
    if (league.owner) parts.push(this.ownerTools(league, redraw));
    parts.push(h("p", {}, action(t("leaveLeague"),
      t(league.owner ? "leaveOwnerConfirm" : "leaveConfirm", { name: league.name }), async () => {
        await api.post(`/leagues/${id}/leave`);
        this.gone(t("left", { name: league.name }));
      })));
    fill(body, parts);
  }

  // A league left or deleted: said, and the list drawn again without it.
  async gone(said) {
    announce(said);
    setStatus(said);
    this.open = null;
    await this.refresh();
  }

  roster(league, redraw) {
    const rows = league.roster.map((m) => {
      const nick = shownName(m.nickname);
      const who = [h("span", { class: "nick" }, nick)];
      if (m.owner) who.push(" ", h("span", { class: "badge" }, t("ownerBadge")));
      if (m.me) who.push(" ", h("span", { class: "note" }, t("youMark")));
      // a member is removed by their handle: two may show one name, or none
      const remove = league.owner && !m.me ? action(t("removeMember"), t("removeConfirm", { nick }), async () => {
        redraw(await request("DELETE", `/leagues/${encodeURIComponent(league.league_id)}/members/${encodeURIComponent(m.member)}`));
        announce(t("memberRemoved", { nick }));
      }, { class: "btn small", "aria-label": t("removeMemberNamed", { nick }) }) : null;
      return h("li", {}, who, remove ? " " : null, remove);
    });
    return h("details", { class: "roster" }, h("summary", {}, t("membersList", { n: num(league.members) })),
      h("ul", {}, rows));
  }

  ownerTools(league, redraw) {
    const id = encodeURIComponent(league.league_id);
    const fieldId = `rename-${league.league_id}`;
    const name = h("input", { type: "text", id: fieldId, maxlength: 200, required: true, value: league.name,
      autocomplete: "off" });
    return h("div", { class: "owner-tools" },
      h("h3", {}, t("ownerTools")),
      form([h("p", { class: "field" }, h("label", { for: fieldId }, t("renameLeague")), name)], t("rename"), async () => {
        const next = await request("PATCH", `/leagues/${id}`, { name: name.value });
        announce(t("renamed", { name: next.name }));
        redraw(next);
      }, { primary: false }),
      h("p", { class: "links" },
        action(t("newLink"), t("newLinkConfirm"), async () => {
          redraw(await api.post(`/leagues/${id}/invite`));
          announce(t("newLinkMade"));
        }), " ",
        action(t("deleteLeague"), t("deleteConfirm", { name: league.name }), async () => {
          await request("DELETE", `/leagues/${id}`);
          this.gone(t("deleted", { name: league.name }));
        }, { class: "btn danger" })),
      h("p", { class: "note" }, t("newLinkHelp")));
  }
}

export function startLeagues(data) {
  return new LeaguesPage(data).start();
}
