// Preloaded into every process the tests start (NODE_OPTIONS=--require …):
// a connection to anything but loopback is refused and reported on stderr,
// where the test harness looks for it and fails the test.
const net = require("node:net");

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost|::ffff:127\.\d+\.\d+\.\d+)$/i;
const MARK = "NETWORK GUARD: blocked connection to";

function hostOf(args) {
  const [first] = args;
  if (Array.isArray(first)) return hostOf(first);
  if (first && typeof first === "object") return first.path ? "unix" : (first.host ?? "localhost");
  if (typeof first === "string" && Number.isNaN(Number(first))) return "unix";
  return typeof args[1] === "string" ? args[1] : "localhost";
}

const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function guardedConnect(...args) {
  const host = hostOf(args);
  if (host !== "unix" && !LOOPBACK.test(host)) {
    process.stderr.write(`${MARK} ${host}\n`);
    if (process.env.NETWORK_GUARD_LOG) require("node:fs").appendFileSync(process.env.NETWORK_GUARD_LOG, `${host}\n`);
    const error = new Error(`${MARK} ${host}`);
    process.nextTick(() => this.destroy(error));
    return this;
  }
  return connect.apply(this, args);
};

module.exports = { MARK };
