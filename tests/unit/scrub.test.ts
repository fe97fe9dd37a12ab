import { describe, expect, it } from "vitest";
import { scrub, scrubbedError } from "~/lib/analytics/scrub";

// Each row: what an error's text may say, what PostHog may receive instead, and
// the part that must be gone (checked on its own, so a row whose expected text
// is wrong still cannot hide a leak).
type Row = [what: string, text: string, scrubbed: string, secret: string];

const CLERK_PREFIXES = ["user", "sess", "org", "orginv", "orgmem", "client", "inv", "sia", "sua", "idn", "img", "ins"];

const emails: Row[] = [
  ["a Unicode local part", "No user josé@example.com found", "No user [email] found", "josé"],
  ["a Unicode local part and domain", "JOSÉ.Núñez+tag@Exämple.COM left", "[email] left", "Núñez"],
  ["a percent-encoded @", "lookup failed for user%40example.com", "lookup failed for [email]", "user%40example"],
  ["a percent-encoded + and @", "no user%2Btag%40example.com here", "no [email] here", "user%2Btag"],
  ["a double-encoded @", "no ada%2540example.com here", "no [email] here", "ada%2540"],
  ["encoded quotes around an encoded email", "q=%22ada%40example.com%22", "q=%22[email]%22", "ada%40"],
  ["an apostrophe in the local part", "Invite o'brien@example.com failed", "Invite [email] failed", "brien"],
  ["a typographic apostrophe", "Invite o’brien@example.com failed", "Invite [email] failed", "brien"],
  ["an apostrophe and an IDN domain", "d'artagnan@exämple.fr", "[email]", "artagnan"],
  ["an IDN domain", "ada@exämple.de bounced", "[email] bounced", "ada@"],
  ["a punycode domain", "ada@xn--exmple-cua.de bounced", "[email] bounced", "ada@"],
  ["a percent-encoded IDN domain", "ada@ex%C3%A4mple.de bounced", "[email] bounced", "ada@"],
  ["a JSON-escaped Unicode local part", String.raw`{"email":"jos\u00e9@example.com"}`, '{"email":"[email]"}', "jos"],
  ["underscores, digits and subdomains", "ada_lovelace-1@mail.example.co.uk", "[email]", "ada_lovelace"],
  ["an email in angle brackets", "From: Ada <ada@example.com>", "From: Ada <[email]>", "ada@"],
  ["a mailto: link", "href mailto:ada@example.com", "href mailto:[email]", "ada@"],
  ["an email after =", "email=ada@example.com", "email=[email]", "ada@"],
  ["an email in single quotes", "no user 'ada@example.com'", "no user '[email]'", "ada@"],
  ["an email after an escaped newline", String.raw`line\nada@example.com`, String.raw`line\n[email]`, "ada@"],
  ["an email in a path", "GET /users/ada@example.com/profile", "GET /users/[email]/profile", "ada@"],
  ["a percent-encoded @ and dot", "no user ada%40example%2Ecom found", "no user [email] found", "ada%40"],
  ["lowercase escapes", "q=grace%40mail%2eexample%2ecom&page=2", "q=[email]&page=2", "grace%40"],
  ["only the dot encoded", "invite ada@example%2Ecom failed", "invite [email] failed", "ada@"],
  ["an uppercase address encoded", "to ADA%40EXAMPLE%2ECOM", "to [email]", "ADA%40"],
  ["a double-encoded @ and dot", "no ada%2540example%252Ecom here", "no [email] here", "ada%2540"],
  ["every character encoded", "to %61%64%61%40%65%78%61%6D%70%6C%65%2E%63%6F%6D sent", "to [email] sent", "%61%64%61"],
  ["a JSON-escaped @ and dot", String.raw`"ada\u0040example\u002ecom"`, '"[email]"', "ada"],
  ["an HTML-escaped @", "mail ada&#64;example.com bounced", "mail [email] bounced", "ada&#64;"],
  ["an HTML hex-escaped @ and dot", "mail ada&#x40;example&#x2E;com bounced", "mail [email] bounced", "ada&#x40;"],
  ["a named HTML @", "mail ada&commat;example&period;com bounced", "mail [email] bounced", "ada&commat;"],
  ["a full-width @", "no user ada＠example.com", "no user [email]", "ada＠"],
  ["a full-width @ and dot", "no user 山田＠例え．jp", "no user [email]", "山田"],
  ["an ideographic full stop", "no user ada@example。com", "no user [email]", "ada@"],
];

const clerkIds: Row[] = CLERK_PREFIXES.flatMap((prefix): Row[] => [
  [`${prefix}_ after %22`, `id=%22${prefix}_2abcDEF9xyz%22`, `id=%22${prefix}_[id]%22`, "2abcDEF9xyz"],
  [`${prefix}_ after %2F`, `/orgs%2F${prefix}_2abcDEF9xyz`, `/orgs%2F${prefix}_[id]`, "2abcDEF9xyz"],
  [`${prefix}_ after =`, `filter=${prefix}_2abcDEF9xyz`, `filter=${prefix}_[id]`, "2abcDEF9xyz"],
]);

const clerkIdsMore: Row[] = [
  ["a double-encoded Clerk id", "%252Forg_2abcDEF9xyz", "%252Forg_[id]", "2abcDEF9xyz"],
  ["a Clerk id in JSON", '{"id":"user_2abcDEF9xyz"}', '{"id":"user_[id]"}', "2abcDEF9xyz"],
  [
    "a Clerk id in escaped JSON",
    String.raw`{\"id\":\"user_2abcDEF9xyz\"}`,
    String.raw`{\"id\":\"user_[id]\"}`,
    "2abcDEF9xyz",
  ],
  ["a Clerk id after \\u0022", String.raw`\u0022user_2abcDEF9xyz`, String.raw`\u0022user_[id]`, "2abcDEF9xyz"],
  ["a Clerk id after an escaped newline", String.raw`line\nuser_2abcDEF9xyz`, String.raw`line\nuser_[id]`, "2abcDEF9"],
  [
    "Clerk ids in a URL's path",
    "https://app.example.com/orgs/org_2abcDEF9xyz/members/orgmem_2zzzYYY",
    "https://app.example.com/orgs/org_[id]/members/orgmem_[id]",
    "2abcDEF9xyz",
  ],
  ["a Clerk id in brackets", "[user_2abcDEF9xyz]", "[user_[id]]", "2abcDEF9xyz"],
];

const fragments: Row[] = [
  [
    "an access token in a fragment",
    "at https://app.example.com/callback#access_token=abc123&state=x",
    "at https://app.example.com/callback",
    "abc123",
  ],
  [
    "an id token in a path's fragment",
    "load /sso-callback#id_token=xyz789 failed",
    "load /sso-callback failed",
    "xyz789",
  ],
  ["a hash route", "at https://app.example.com/#/orgs/hidden", "at https://app.example.com/", "hidden"],
  ["any fragment after a path", "GET /orgs/acme#members-private", "GET /orgs/acme", "members-private"],
  ["a fragment after a query", "https://x.example/cb?code=1#access_token=abc123", "https://x.example/cb", "abc123"],
  ["a fragment inside parentheses", "(https://x.example/a.js#frag-secret)", "(https://x.example/a.js)", "frag-secret"],
  ["a fragment after a file name", "page.html#token-secret failed", "page.html failed", "token-secret"],
];

const authorization: Row[] = [
  ["Basic", "Authorization: Basic dXNlcjpwYXNz", "Authorization: Basic [credentials]", "dXNlcjpwYXNz"],
  ["Bearer", "authorization: Bearer abc.def.ghi sent", "authorization: Bearer [credentials] sent", "abc.def"],
  ["Token", "Authorization: Token abc123", "Authorization: Token [credentials]", "abc123"],
  [
    "Digest and its parameters",
    'Authorization: Digest username="ada", realm="x", response="6629fae4" then 401',
    "Authorization: Digest [credentials] then 401",
    "ada",
  ],
  ["no scheme", "Authorization: s3cr3t-value", "Authorization: [credentials]", "s3cr3t"],
  [
    "form-encoded",
    "authorization=Basic%20dXNlcjpwYXNz&next=1",
    "authorization=Basic%20[credentials]&next=1",
    "dXNlcjpwYXNz",
  ],
  [
    "in JSON",
    '{"authorization":"Basic dXNlcjpwYXNz","accept":"*/*"}',
    '{"authorization":"Basic [credentials]","accept":"*/*"}',
    "dXNlcjpwYXNz",
  ],
  [
    "Digest in JSON",
    String.raw`{"authorization":"Digest username=\"ada\", response=\"66\""}`,
    '{"authorization":"Digest [credentials]"}',
    "ada",
  ],
  [
    "in escaped JSON",
    String.raw`{\"authorization\":\"Bearer abc123\"}`,
    String.raw`{\"authorization\":\"Bearer [credentials]\"}`,
    "abc123",
  ],
  ["as Node prints headers", "{ authorization: 'Token abc123' }", "{ authorization: 'Token [credentials]' }", "abc123"],
  [
    "Proxy-Authorization",
    "Proxy-Authorization: Basic dXNlcjpwYXNz",
    "Proxy-Authorization: Basic [credentials]",
    "dXNl",
  ],
  ["an unclosed quote", 'authorization: "Bearer abc123', 'authorization: "Bearer [credentials]', "abc123"],
  [
    "one header of several",
    "Authorization: Bearer abc123\nAccept: */*",
    "Authorization: Bearer [credentials]\nAccept: */*",
    "abc123",
  ],
  [
    "a Set-Cookie header",
    "Set-Cookie: __session=abc123; Path=/; HttpOnly",
    "Set-Cookie: [credentials]; HttpOnly",
    "abc123",
  ],
  [
    "a space before the colon",
    '{ "Authorization" : "Bearer abc123" }',
    '{ "Authorization" : "Bearer [credentials]" }',
    "abc123",
  ],
  ["a Cookie header", "cookie: __session=abc123; __client_uat=17", "cookie: [credentials]", "abc123"],
];

const bareSchemes: Row[] = [
  [
    "a bare Bearer token",
    "token was Bearer eyJhbGciOiJIUzI1NiJ9 rejected",
    "token was Bearer [credentials] rejected",
    "eyJhbGciOiJIUzI1NiJ9",
  ],
  ["an opaque Bearer token", "Bearer abc123 rejected", "Bearer [credentials] rejected", "abc123"],
  ["a bare Basic", "Basic dXNlcjpwYXNz", "Basic [credentials]", "dXNlcjpwYXNz"],
  [
    "Basic with padding in a sentence",
    "retry with Basic YWRhOmh1bnRlcjI= failed",
    "retry with Basic [credentials] failed",
    "YWRhOmh1bnRlcjI",
  ],
  ["a lowercase bearer", "sent bearer 9f8e7d6c5b4a", "sent bearer [credentials]", "9f8e7d6c5b4a"],
  ["a form-encoded Bearer", "h=Bearer%20abc123&x=1", "h=Bearer%20[credentials]&x=1", "abc123"],
  ["Bearer in JSON", '{"h":"Bearer abc123"}', '{"h":"Bearer [credentials]"}', "abc123"],
  ["Negotiate", "Negotiate YIIGhgYJKoZIhvcS failed", "Negotiate [credentials] failed", "YIIGhgYJKoZIhvcS"],
];

const secretFields: Row[] = [
  ["an API key header in JSON", '{"x-api-key":"abc123"}', '{"x-api-key":"[credentials]"}', "abc123"],
  ["a password", "password=hunter2 for ada", "password=[credentials] for ada", "hunter2"],
  ["a client secret", "clientSecret=abc123&x=1", "clientSecret=[credentials]&x=1", "abc123"],
  ["an access token in JSON", '{"access_token": "abc123"}', '{"access_token": "[credentials]"}', "abc123"],
  ["a refresh token", "refreshToken: 'abc123'", "refreshToken: '[credentials]'", "abc123"],
  ["a secret in the environment", "CLERK_SECRET_KEY=abc123", "CLERK_SECRET_KEY=[credentials]", "abc123"],
  ["a pass field", "pass=hunter2 for ada", "pass=[credentials] for ada", "hunter2"],
  ["a pwd field in a query", "x=1&pwd=hunter2&next=2", "x=1&pwd=[credentials]&next=2", "hunter2"],
  ["a ticket field", "redeem ticket=ST-1a2b3c failed", "redeem ticket=[credentials] failed", "ST-1a2b3c"],
  ["Clerk's ticket parameter", "__clerk_ticket=abc123&x=1", "__clerk_ticket=[credentials]&x=1", "abc123"],
  ["pass in JSON", '{"pass":"hunter2","user":"ada"}', '{"pass":"[credentials]","user":"ada"}', "hunter2"],
  ["a ticket in JSON", '{"ticket":"abc123"}', '{"ticket":"[credentials]"}', "abc123"],
  ["pass in the environment", "DB_PASS=hunter2", "DB_PASS=[credentials]", "hunter2"],
  ["a camelCase pass", "{ dbPass: 'hunter2' }", "{ dbPass: '[credentials]' }", "hunter2"],
  ["pwd in the environment", "MYSQL_PWD=hunter2", "MYSQL_PWD=[credentials]", "hunter2"],
  ["a passphrase", "passphrase: 'correct horse'", "passphrase: '[credentials]'", "correct horse"],
  ["a private key", '{"privateKey":"MIIEvQIBADANBg"}', '{"privateKey":"[credentials]"}', "MIIEvQ"],
  ["a session id cookie", "PHPSESSID=abc123; path=/", "PHPSESSID=[credentials]; path=/", "abc123"],
  ["a session id field", "sessionid=abc123 expired", "sessionid=[credentials] expired", "abc123"],
  [
    "a URL's auth as Node prints it",
    "{ auth: 'ada:hunter2', host: 'x' }",
    "{ auth: '[credentials]', host: 'x' }",
    "hunter2",
  ],
  ["npm's _auth", "_auth=YWRhOmh1bnRlcjI=", "_auth=[credentials]", "YWRhOmh1bnRlcjI"],
  ["a percent-encoded query", "next=%2Fcb%3Fpassword%3Dhunter2", "next=%2Fcb%3Fpassword%3D[credentials]", "hunter2"],
  ["an encoded pwd", "next=%2Fcb%3Fpwd%3Dhunter2", "next=%2Fcb%3Fpwd%3D[credentials]", "hunter2"],
];

const keys: Row[] = [
  ["a PostHog personal key", "PostHog refused phx_abcDEF123456ghi", "PostHog refused [key]", "abcDEF"],
  ["a PostHog project key", "key phc_abcDEF123456ghi", "key [key]", "abcDEF"],
  ["a PostHog secure key", "key phs_abcDEF123456ghi", "key [key]", "abcDEF"],
  ["a PostHog key after %22", "%22phc_abcDEF123456ghi%22", "%22[key]%22", "abcDEF"],
  ["a Svix signing secret", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw invalid", "[key] invalid", "MfKQ9r8"],
  ["a signing secret with base64 symbols", "secret whsec_ab+c/d= bad", "secret [key] bad", "ab+c"],
  ["a live secret key", "Clerk refused sk_live_abc123", "Clerk refused [key]", "abc123"],
  ["a test secret key", "Clerk refused sk_test_abc123", "Clerk refused [key]", "abc123"],
  ["a live publishable key", "pk_live_Y2xlcmsuZXhhbXBsZS5jb20k", "[key]", "Y2xl"],
  ["a test publishable key", "pk_test_Y2xlcmsuZXhhbXBsZS5jb20k", "[key]", "Y2xl"],
  ["a restricted key", "rk_live_abc123", "[key]", "abc123"],
  ["a secret key after %22", "%22sk_live_abc123%22", "%22[key]%22", "abc123"],
  ["a secret key after =", "key=sk_test_abc123", "key=[key]", "abc123"],
  ["a JWT after %22", "%22eyJhbGciOi.eyJzdWIiOi.c2lnbmF0dXJl%22", "%22[token]%22", "eyJzdWIiOi"],
  ["a JWT after %20", "Bearer%20eyJhbGciOi.eyJzdWIiOi.c2lnbmF0dXJl", "Bearer%20[token]", "eyJzdWIiOi"],
];

const urlCredentials: Row[] = [
  [
    "a Redis password",
    "connect redis://:pw@redis:6379 failed",
    "connect redis://[credentials]@redis:6379 failed",
    "pw",
  ],
  ["a user and password", "GET https://user:pass@host/ failed", "GET https://[credentials]@host/ failed", "pass"],
  ["Postgres", "postgres://u:p@h/db refused", "postgres://[credentials]@h/db refused", "u:p"],
  [
    "an email as the user name",
    "postgres://ada@example.com:s3cret@db.example.com:5432/app",
    "postgres://[credentials]@db.example.com:5432/app",
    "s3cret",
  ],
  ["an @ in the password", "https://ada:p@ss@example.com/x", "https://[credentials]@example.com/x", "p@ss"],
  [
    "a TLS Redis URL",
    "rediss://default:pw123@cache.example.com:6380",
    "rediss://[credentials]@cache.example.com:6380",
    "pw123",
  ],
  ["a user name only", "https://ada@example.com/x", "https://[credentials]@example.com/x", "ada"],
  [
    "a percent-encoded URL",
    "next=https%3A%2F%2Fuser%3Apass%40host%2Fpath",
    "next=https%3A%2F%2F[credentials]%40host%2Fpath",
    "pass",
  ],
  ["in JSON", '{"url":"amqp://guest:gu3st@rabbit/vhost"}', '{"url":"amqp://[credentials]@rabbit/vhost"}', "gu3st"],
  [
    "a slash in the password",
    "connect redis://u:s3cret/pass@host failed",
    "connect redis://[credentials]@host failed",
    "s3cret",
  ],
  [
    "a base64 password, no user",
    "redis://:ab/cd+ef==@cache:6379 refused",
    "redis://[credentials]@cache:6379 refused",
    "ab/cd",
  ],
  ["a ? in the password", "redis://u:s3c?ret@host:6379 down", "redis://[credentials]@host:6379 down", "s3c"],
  ["a # in the password", "amqp://u:pa#ss@rabbit/vhost", "amqp://[credentials]@rabbit/vhost", "u:pa"],
  [
    "an email as the user, a slash in the password",
    "postgres://ada@example.com:s3/cret@db.example.com/app",
    "postgres://[credentials]@db.example.com/app",
    "s3/",
  ],
  [
    "a percent-encoded URL, a slash in the password",
    "next=https%3A%2F%2Fu%3As3cret%2Fpass%40host%2Fpath",
    "next=https%3A%2F%2F[credentials]%40host%2Fpath",
    "s3cret",
  ],
  [
    "a double-encoded URL",
    "next=https%253A%252F%252Fuser%253Apass%2540host%252Fx",
    "next=https%253A%252F%252F[credentials]%2540host%252Fx",
    "pass",
  ],
];

describe("scrub: what an error's text may not carry", () => {
  describe.each([
    ["emails", emails],
    ["Clerk ids, every prefix", clerkIds],
    ["Clerk ids, more encodings", clerkIdsMore],
    ["URL fragments", fragments],
    ["Authorization and similar headers", authorization],
    ["credentials without a header's name", bareSchemes],
    ["fields named as secrets", secretFields],
    ["keys and tokens", keys],
    ["credentials in URLs", urlCredentials],
  ])("%s", (_group, rows) => {
    it.each(rows)("%s", (_what, text, scrubbed, secret) => {
      expect(scrub(text)).not.toContain(secret);
      expect(scrub(text)).toBe(scrubbed);
    });
  });
});

describe("scrub: what stays, for debugging", () => {
  it.each([
    "at foo (file:///app/build/server.js:12:34)",
    "    at loader (/app/build/index.js:120:14)",
    "at node:internal/process/task_queues:95:5",
    "at async Promise.all (index 0)",
    "at http://localhost:3000/build/_shared/chunk-ABC123.js:1:2345",
    "at Object.<anonymous> (/app/node_modules/@clerk/backend/dist/index.js:1:2)",
    "at new ClerkAPIResponseError (/app/node_modules/@clerk/shared/dist/error.mjs:40:9)",
    "at Foo.#bar (/app/build/index.js:3:4)",
    "at #refresh (/app/build/index.js:3:4)",
    "loader@http://localhost:3000/build/routes/orgs.$slug-ABC123.js:12:34",
    "@https://app.example.com/build/entry.client-XYZ.js:1:99",
    "/app/node_modules/.pnpm/@remix-run+node@2.9.0_typescript@5.4.5/node_modules/@remix-run/node/dist/index.js:12:3",
    "react-dom@18.2.0",
    "php_errors and phase_two",
    "at getUserProfile (/app/app/lib/clerk/backend-calls.server.ts:51:5)",
    "at get_user_profile (/app/x.js:1:2)",
    "HTTP 503 Service Unavailable",
    "Request failed with status 401 Unauthorized",
    "Unexpected token < in JSON at position 0",
    "Unexpected token : in JSON at position 12",
    "Cannot read properties of undefined (reading 'token')",
    "Authorization header missing",
    "missing process.env.CLERK_SECRET_KEY",
    "session_token missing",
    "user_id is required",
    "connect ECONNREFUSED 127.0.0.1:6379",
    "connect ECONNREFUSED ::1:5432",
    "redis://redis:6379 is unreachable",
    "https://example.com/orgs/acme/members",
    "Issue #38: see the docs",
    "routes/orgs.$slug._index",
    "Hydration failed because the initial UI does not match what was rendered on the server.",
    "TypeError: fetch failed",
    "timed out after 3000 ms",
    "http://localhost:3000/users/{id} not found",
    "GET http://localhost:3000/orgs/acme@2 failed",
    "Basic auth failed",
    "bearer token missing",
    "sent Bearer undefined",
    "HTTP Basic Authentication required",
    "expected a Bearer token-based scheme.",
    'WWW-Authenticate: Basic realm="app"',
    'WWW-Authenticate: Bearer error="invalid_token", error_description="expired"',
    "bypass=true",
    "compass: north",
    "requireAuth: true",
    "passport=verified",
  ])("%s", (text) => {
    expect(scrub(text)).toBe(text);
  });

  it("keeps a stack's frames while scrubbing its message", () => {
    const stack = [
      "Error: no member o'brien@example.com in %2Forg_2abcDEF9xyz (Authorization: Bearer abc123)",
      "    at loader (file:///app/build/server.js:12:34)",
      "    at async Promise.all (index 0)",
      "    at node:internal/process/task_queues:95:5",
    ].join("\n");
    expect(scrub(stack)).toBe(
      [
        "Error: no member [email] in %2Forg_[id] (Authorization: Bearer [credentials])",
        "    at loader (file:///app/build/server.js:12:34)",
        "    at async Promise.all (index 0)",
        "    at node:internal/process/task_queues:95:5",
      ].join("\n"),
    );
  });

  it("changes nothing it already scrubbed", () => {
    const all = [
      emails,
      clerkIds,
      clerkIdsMore,
      fragments,
      authorization,
      bareSchemes,
      secretFields,
      keys,
      urlCredentials,
    ].flat();
    for (const [, text] of all) expect(scrub(scrub(text))).toBe(scrub(text));
  });

  // An error's text can hold what a person typed: a long run must not make a rule backtrack for seconds.
  it.each(["a", "a'", "a.", "a-", "/", "%2B", String.raw`\u0040`, "eyJ.", "a@a", "x.y#"])(
    "takes linear time on a long run of %j",
    (unit) => {
      const long = unit.repeat(Math.ceil(50_000 / unit.length));
      const started = performance.now();
      scrub(long);
      expect(performance.now() - started).toBeLessThan(1000);
    },
  );

  it("scrubs a thrown string and an Error's stack", () => {
    expect(scrubbedError("failed for josé@example.com").message).toBe("failed for [email]");
    const error = new Error("redis://:pw@redis:6379 refused");
    expect(scrubbedError(error).stack).toContain("redis://[credentials]@redis:6379 refused");
    expect(scrubbedError(error).stack).toContain("scrub.test.ts");
  });
});
