export { loadClerkJsScript, type LoadClerkJsScriptOptions } from "@clerk/shared/loadClerkJsScript";
