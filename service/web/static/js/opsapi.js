// The ops API as the /ops page calls it: the operator's token lives in this tab's sessionStorage
// only and goes as a Bearer token (it names the operator in the audit log); no call is made without
// one, and a refused one (401/403) is thrown as Refused so that the page forgets it and asks again.
const TOKEN_KEY = "manille.ops.token";

const session = {
  get(key) { try { return sessionStorage.getItem(key) || ""; } catch { return ""; } },
  set(key, value) { try { if (value) sessionStorage.setItem(key, value); else sessionStorage.removeItem(key); } catch { /* tab only */ } },
};

export class Refused extends Error {}
class OpsError extends Error {
  constructor(status, body) {
    super((body && body.message) || `HTTP ${status}`);
    this.status = status;
    this.code = (body && body.error) || `http_${status}`;
  }
}

let tokenInMemory = "";

export const savedToken = () => tokenInMemory || session.get(TOKEN_KEY);
export function keepToken(tk) {
  tokenInMemory = tk;
  session.set(TOKEN_KEY, tk);
}
export function forgetToken() {
  tokenInMemory = "";
  session.set(TOKEN_KEY, "");
}

export async function ops(method, path, body) {
  const tk = savedToken();
  if (!tk) throw new Refused("no token");
  const headers = { Accept: "application/json", Authorization: `Bearer ${tk}` };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const resp = await fetch(`/api/v1/ops${path}`, {
    method, headers, cache: "no-store", body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data = null;
  try { data = await resp.json(); } catch { /* not JSON */ }
  // a 403 about the decision (a reviewer's token, an appeal of one's own decision) keeps the token
  if (resp.status === 401 || (resp.status === 403 && (!data || data.error === "ops_forbidden"))) {
    throw new Refused((data && data.message) || "token refused");
  }
  if (!resp.ok) throw new OpsError(resp.status, data);
  return data;
}
