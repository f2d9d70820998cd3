// The /ws feed: subscribe, keep the last version of each topic, resume after a drop with backoff and jitter.
export class Feed {
  constructor(topics, onMessage, onState, onError = null) {
    this.topics = topics;
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
      ws.send(JSON.stringify({ subscribe: this.topics, resume: this.versions }));
    };
    ws.onmessage = (event) => {
      const message = JSON.parse(event.data);
      if (message.error) {
        console.warn("boardcast:", message.error);
        if (this.onError) this.onError(message);
        return;
      }
      this.versions[message.topic] = message.version;
      this.onMessage(message);
    };
    ws.onclose = () => {
      this.onState("closed");
      const delay = Math.min(30000, 500 * 2 ** this.attempt++) * (0.8 + Math.random() * 0.4);
      setTimeout(() => this.connect(), delay);
    };
  }
}
