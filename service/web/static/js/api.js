// One door to /api/v1: the player token, JSON, typed errors, retries of transient failures.
const TOKEN_KEY = "manille.token";

export const token = {
  get() {
    try { return localStorage.getItem(TOKEN_KEY); } catch { return null; }
  },
  set(value) {
    try { localStorage.setItem(TOKEN_KEY, value); } catch { /* private mode: token lives for the page only */ }
    memory = value;
  },
  clear() {
    try { localStorage.removeItem(TOKEN_KEY); } catch { /* ignore */ }
    memory = null;
  },
};
let memory = null;

export class ApiError extends Error {
  constructor(status, body) {
    super((body && body.message) || `HTTP ${status}`);
    this.status = status;
    this.code = (body && body.error) || `http_${status}`;
    this.body = body || {};
  }
}

export class NetworkError extends Error {
  constructor(cause) {
    super("network unreachable");
    this.cause = cause;
  }
}

export const isTransient = (e) => e instanceof NetworkError || (e instanceof ApiError && e.status >= 500);
// A rate limit (the service's or the proxy's): seconds until it has room, else null.
export const limitedFor = (e) => (e instanceof ApiError && e.status === 429
  ? Math.max(1, Number(e.body.retry_after) || 1) : null);
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function once(method, path, body) {
  const headers = { Accept: "application/json" };
  const tk = token.get() || memory;
  if (tk) headers["X-Player-Token"] = tk;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let resp;
  try {
    resp = await fetch(`/api/v1${path}`, {
      method, headers, cache: "no-store",
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
    throw new NetworkError(e);
  }
  let data = null;
  try { data = await resp.json(); } catch { /* a proxy's HTML error page */ }
  if (!resp.ok) throw new ApiError(resp.status, data);
  if (data && data.player_token) token.set(data.player_token);
  return data;
}

// GETs are safe to repeat (also after a short rate limit: a polling page must not stop); a POST is
// retried only where the server makes it idempotent (plays).
export async function request(method, path, body, { retries = method === "GET" ? 3 : 0 } = {}) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await once(method, path, body);
    } catch (e) {
      const limited = limitedFor(e);
      if (attempt >= retries || !(isTransient(e) || (limited !== null && limited <= 10))) throw e;
      await sleep(limited !== null ? limited * 1000 : 400 * 2 ** attempt);
    }
  }
}

export const api = {
  get: (path, options) => request("GET", path, undefined, options),
  post: (path, body, options) => request("POST", path, body, options),
  hasToken: () => Boolean(token.get() || memory),
};
