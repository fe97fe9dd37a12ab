// Every Clerk API answer of a test file's servers, checked against Clerk's spec after each test.
import "clerk-emulator/contract/setup";
