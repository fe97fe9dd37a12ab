// The network guard every process the tests start runs under: the emulator package's.
export { isLoopbackUrl, NETWORK_GUARD_MARK, NETWORK_GUARD_PATH } from "clerk-emulator/testing";
// And a browser's: a Playwright context that refuses every request beyond loopback.
export { loopbackOnlyContext } from "clerk-emulator/testing";
