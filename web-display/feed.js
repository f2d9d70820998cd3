// The /ws feed: subscribe, keep the last version of each topic, resume after a drop with backoff and jitter.
export class Feed {
  constructor(topics, onMessage, onState, onError = null, extra = null) {
    this.topics = topics;
    this.extra = extra;  // more keys for the subscribe request, e.g. {token} for the referee topic
    this.onMessage = onMessage;
    this.onState = onState;
    this.onError = onError;  // optional: the hub refused a request, e.g. an unknown topic
    this.versions = {};
    this.attempt = 0;
    this.connect();
  }

  connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${scheme}://${location.host}/ws`);
    this.onState("connecting");
    ws.onopen = () => {
      this.attempt = 0;
      this.onState("open");
      // batch: arrays, one per delivery, with the latest change of each thing watched (the hub picks the pace)
      ws.send(JSON.stringify({ subscribe: this.topics, resume: this.versions, batch: true, ...this.extra }));
    };
    ws.onmessage = (event) => {
      const parsed = JSON.parse(event.data);
      for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
        if (message.error) {
          console.warn("boardcast:", message.error);
          if (this.onError) this.onError(message);
          continue;
        }
        this.versions[message.topic] = Math.max(this.versions[message.topic] || 0, message.version);
        this.onMessage(message);
      }
    };
    this.ws = ws;
    ws.onclose = () => {
      if (this.stopped) return;
      this.onState("closed");
      const delay = Math.min(30000, 500 * 2 ** this.attempt++) * (0.8 + Math.random() * 0.4);
      setTimeout(() => this.connect(), delay);
    };
  }

  /** Close for good (a referee signing out): no reconnect. */
  stop() {
    this.stopped = true;
    if (this.ws) this.ws.close();
  }
}

/** Show the link to the hub in a page's indicator: "open" reads as connected (on a match page "Live" is the
 * match's status, not the link's), the other states by their own name. */
export function showConnection(node, state, texts) {
  node.className = `conn conn-${state}`;
  node.textContent = state === "open" ? texts.connected : texts[state];
}
