// HTTP and WebSocket client for docs/protocol.md.

export async function api(method, path, body) {
  const res = await fetch(path, {
    method,
    headers: body ? { "Content-Type": "application/json" } : {},
    // a string is sent as it is (an exported record read from a file), anything else as JSON
    body: body ? (typeof body === "string" ? body : JSON.stringify(body)) : undefined,
  });
  let data = null;
  try { data = await res.json(); } catch { data = null; }
  if (!res.ok) {
    const err = new Error((data && data.error && data.error.message) || res.statusText);
    err.code = (data && data.error && data.error.code) || `http_${res.status}`;
    throw err;
  }
  return data;
}

/** One websocket to the server (a table, the lobby); reconnects by itself until closed. */
export class Socket {
  constructor(path, onMessage, onStatus) {
    this.path = path;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.closed = false;
    this.retry = 0;
    this.queue = [];
    this.open();
  }

  open() {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    // the session cookie identifies this browser; nothing about it goes in the URL
    const url = `${proto}://${location.host}${this.path}`;
    const ws = new WebSocket(url);
    this.ws = ws;
    ws.onopen = () => {
      this.retry = 0;
      this.onStatus("open");
      for (const m of this.queue.splice(0)) ws.send(JSON.stringify(m));
    };
    ws.onmessage = (e) => {
      let msg;
      try { msg = JSON.parse(e.data); } catch { return; }
      this.onMessage(msg);
    };
    ws.onclose = (e) => {
      if (this.closed) return;
      this.onStatus("closed", e.code);
      const delay = Math.min(4000, 300 * 2 ** this.retry++);
      setTimeout(() => { if (!this.closed) this.open(); }, delay);
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
