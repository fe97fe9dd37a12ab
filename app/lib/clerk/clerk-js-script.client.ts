// Browser only (Remix leaves `.client` modules out of the server's bundle): the
// server never loads clerk-js. From @clerk/shared's ES modules, the copy Clerk's
// React SDK already brings (decision 0009); its CommonJS build, which this
// took while the browser had @clerk/remix's SDK, added 6.6 KB gzip to every
// page's first load.
export { loadClerkJsScript } from "@clerk/shared/loadClerkJsScript";
