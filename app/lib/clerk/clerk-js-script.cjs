// Clerk's clerk-js loader, required (not imported) so that the bundle shares
// the copy Clerk's React SDK brings: @clerk/remix is CommonJS, so its SDK
// takes @clerk/shared's CommonJS build, and an import would add the ES one.
// (A named export, so that an import of this module sees it.)
exports.loadClerkJsScript = require("@clerk/shared/loadClerkJsScript").loadClerkJsScript;
