// HTTP and WebSocket client for docs/protocol.md.

// What the page does when the server says its session ended (an answer 401 `no_session`, a
// socket closed with 4401): account.js gives the browser a session again (a new guest, as on
// a first visit) and says so, at most so often. Returns a promise, settled once that is done.
let sessionLost = null;
export function onSessionLost(fn) { sessionLost = fn; }
function lost() {
  if (!sessionLost) return Promise.resolve();
  return Promise.resolve().then(sessionLost).catch(() => {});
}

// A browser that keeps no cookie (cookies blocked, a Secure cookie over plain http) keeps its
// session in this page instead: it asks for it with X-Canasta-Cookieless, is given the token in
// the X-Canasta-Session answer header and sends it back in that header, and on its sockets as
// a subprotocol (docs/protocol.md). Only in memory: the next load starts a new guest.
let inPage = typeof navigator !== "undefined" && navigator.cookieEnabled === false;
let pageToken = null;

/** Keep the session in the page from now on (the browser kept no cookie). */
export function keepSessionInPage() { inPage = true; }

/** Whether the page keeps its session itself. */
export function sessionInPage() { return inPage; }

// This load's first answer made a new session, and nothing has used it yet: if its next
// request finds no session, the browser kept no cookie (not: the session ended elsewhere).
let fresh = false;
export function noteSessionMade(created) { fresh = !!created; }
/** Whether the session was just made and not used yet (asked once: it is no longer after). */
export function takeFreshSession() { const was = fresh; fresh = false; return was; }

export async function api(method, path, body) {
  const headers = body ? { "Content-Type": "application/json" } : {};
  if (inPage) {
    headers["X-Canasta-Cookieless"] = "1";
    if (pageToken) headers["X-Canasta-Session"] = pageToken;
  }
  const res = await fetch(path, {
    method,
    headers,
    // a string is sent as it is (an exported record read from a file), anything else as JSON
    body: body ? (typeof body === "string" ? body : JSON.stringify(body)) : undefined,
  });
  const given = inPage && res.headers.get("X-Canasta-Session");
  if (given) pageToken = given;
  let data = null;
  try { data = await res.json(); } catch { data = null; }
  if (!res.ok) {
    const err = new Error((data && data.error && data.error.message) || res.statusText);
    err.code = (data && data.error && data.error.code) || `http_${res.status}`;
    // not awaited: the caller may be the one giving the page its session again
    if (res.status === 401 && err.code === "no_session") lost();
    throw err;
  }
  return data;
}

// Reconnecting waits 300 ms, doubled after each close up to 4 s. The wait starts again from
// 300 ms only after a socket stayed open STABLE_MS: a server that accepts a socket and closes
// it at once (whatever the code) is asked again less and less often, never in a tight loop.
const FIRST_WAIT_MS = 300;
const LONGEST_WAIT_MS = 4000;
const STABLE_MS = 5000;
const SESSION_ENDED = 4401;

/** One websocket to the server (a table, the lobby); reconnects by itself until closed. */
export class Socket {
  constructor(path, onMessage, onStatus) {
    this.path = path;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.closed = false;
    this.retry = 0;
    this.queue = [];
    this.openedAt = null;
    this.sessionAsked = false;  // a 4401 made the page ask for a session, and no message came since
    this.open();
  }

  open() {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    // the session cookie identifies this browser (or the page's token, as a subprotocol);
    // nothing about it goes in the URL
    const url = `${proto}://${location.host}${this.path}`;
    const ws = pageToken ? new WebSocket(url, ["canasta", `canasta.session.${pageToken}`]) : new WebSocket(url);
    this.ws = ws;
    this.openedAt = null;
    ws.onopen = () => {
      this.openedAt = Date.now();
      this.onStatus("open");
      for (const m of this.queue.splice(0)) ws.send(JSON.stringify(m));
    };
    ws.onmessage = (e) => {
      let msg;
      try { msg = JSON.parse(e.data); } catch { return; }
      // the 4401 close that follows is answered here (below), not by the page's modules
      if (msg && msg.type === "error" && msg.code === "no_session") return;
      this.sessionAsked = false;  // the server knew the session this socket was opened with
      this.onMessage(msg);
    };
    ws.onclose = (e) => {
      if (ws !== this.ws || this.closed) return;
      this.onStatus("closed", e.code);
      if (this.openedAt !== null && Date.now() - this.openedAt >= STABLE_MS) {
        this.retry = 0;
        this.sessionAsked = false;
      }
      const delay = Math.min(LONGEST_WAIT_MS, FIRST_WAIT_MS * 2 ** this.retry++);
      // The session this socket was opened with ended: the page gets one again (once until the
      // server answers the socket: a browser that keeps no cookie makes no stream of guests),
      // and the socket reopens with whatever session the cookie holds then.
      // (asked again at the longest wait: an ask that failed, offline, is not the last one)
      const ask = e.code === SESSION_ENDED && (!this.sessionAsked || delay === LONGEST_WAIT_MS);
      if (ask) this.sessionAsked = true;
      setTimeout(async () => {
        if (this.closed) return;
        if (ask) await lost();
        if (!this.closed && ws === this.ws) this.open();
      }, delay);
    };
  }

  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
    else this.queue.push(msg);
  }

  close() {
    this.closed = true;
    if (this.ws) this.ws.close();
  }

  /** Reopen at once, with the current session cookie. */
  reconnect() {
    if (this.closed || !this.ws) return;
    this.retry = 0;
    this.ws.close();
  }
}

/** The socket of one table. */
export class TableSocket extends Socket {
  constructor(tableId, onMessage, onStatus) {
    // the page keeps the hand's history and the last state: only what changed comes
    super(`/ws/tables/${encodeURIComponent(tableId)}?history=delta&state=patch`, onMessage, onStatus);
    this.tableId = tableId;
  }
}
