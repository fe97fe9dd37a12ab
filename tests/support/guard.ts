// The network guard every process the tests start runs under: the emulator package's.
export { isLoopbackUrl, NETWORK_GUARD_MARK, NETWORK_GUARD_PATH } from "clerk-emulator/testing";
