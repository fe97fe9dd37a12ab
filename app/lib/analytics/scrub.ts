/**
 * The scrubbing rules of everything sent to PostHog, on the server and in the
 * browser alike: error messages, stack frames and page URLs.
 */

// Pieces of the rules below. Text reaches an error in many encodings (percent-
// encoded once or twice, JSON-escaped), so "where a word starts" must see
// through them: `\b` alone fails after `%22` or `\n`, whose last character is
// a word character.
const HEX2 = "[0-9A-Fa-f]{2}";
const START = String.raw`(?:(?<![A-Za-z0-9_])|(?<=%(?:25)*${HEX2}|\\[nrt]|\\u[0-9A-Fa-f]{4}))`;
// What an email's local part may hold: anything but separators, %XX escapes
// except encoded separators, and \uXXXX escapes. The lookbehind starts it only
// where a run starts, so an address goes whole (and a long run costs linear time).
const LOCAL_PLAIN = String.raw`[^\s"'‘’${"`"}<>()[\]{},;:/\\=?@＠#&|%]`;
const ENCODED_SEPARATOR = "(?:40|2[023689CF]|3[A-F]|5[BCD]|7[BCD])";
const LOCAL_CHAR = String.raw`(?:${LOCAL_PLAIN}|%(?!(?:25)*${ENCODED_SEPARATOR})${HEX2}|\\u[0-9A-Fa-f]{4})`;
const LOCAL_START = String.raw`(?:(?<!${LOCAL_PLAIN}['’]?|[%\\])|(?<=%(?:25)*${ENCODED_SEPARATOR}|\\[nrt]))`;
const LOCAL = String.raw`${LOCAL_START}${LOCAL_CHAR}+(?:['’]${LOCAL_CHAR}+)*`;
// An @ and a dot as text may spell them: percent-encoded, JSON- or HTML-escaped,
// full-width (as a Japanese keyboard types them); IDNA reads the ideographic stops as dots.
const AT = String.raw`(?:@|%(?:25)*40|\\u0040|&#0*64;|&#[Xx]0*40;|&commat;|＠)`;
const DOT = String.raw`(?:\.|%(?:25)*2[Ee]|\\u002[Ee]|&#0*46;|&#[Xx]0*2[Ee];|&period;|[。．｡])`;
// Domains may be Unicode (IDN) or percent-encoded, any letter, digit or byte of
// them; the last label must start with a letter, so versions (`react-dom@18.2.0`)
// are not addresses.
const ENCODED_LETTER = "%(?:25)*(?:[89A-Fa-f][0-9A-Fa-f]|[46][1-9A-Fa-f]|[57][0-9Aa])";
const LABEL_CHAR = String.raw`(?:[\p{L}\p{N}\p{M}-]|${ENCODED_LETTER}|%(?:25)*(?:3[0-9]|2[Dd]))`;
const DOMAIN = String.raw`(?:${LABEL_CHAR}+${DOT})+(?:\p{L}|${ENCODED_LETTER})${LABEL_CHAR}*`;
// A header or field value: quoted (to its closing quote, escapes included) or bare.
const QUOTED = String.raw`(\\?["'])((?:(?!\2)(?:\\.|[^\r\n]))*)(\2?)`;
// A closing parenthesis right after it is the text's, not the value's.
const BARE_TOKEN = String.raw`[^\s"'${"`"},;&\\]*[^\s"'${"`"},;&\\)]`;
const PARAM = String.raw`[\w-]+=(?:"[^"\r\n]*"|[^\s,;"]*)`;
// A header's bare value: a word and a token (`Bearer abc`, `whatever s3cret`), or parameters (`Digest a="b", c="d"`, `a=1; b=2`).
const HEADER_VALUE = String.raw`(?:[A-Za-z][\w.-]*[ \t]+)?(?:${PARAM}(?:[ \t]*[,;][ \t]*${PARAM})*|${BARE_TOKEN})`;
const FIELD_END = String.raw`(?:\\?["'][ \t]*)?(?:[:=]|%(?:25)*3[Dd])[ \t]*`;

// A URL's scheme, plain or percent-encoded once or twice, and the parts of its userinfo.
const SCHEME = String.raw`(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*(?::\/\/|%(?:25)*3A%(?:25)*2F%(?:25)*2F))`;
const USERINFO_CHAR = String.raw`(?:(?!%(?:25)*(?:2F|3F|23))[^\s/?#"'${"`"}<>\\])`;
const USER_CHAR = String.raw`(?:(?!%(?:25)*(?:2F|3F|23|3A))[^\s/?#:[\]"'${"`"}<>\\])`;
// `host:6379/` is a port; `u:s3cret/pass@` a password.
const PORT = String.raw`\d*(?:[/?#\s"'${"`"}<>()[\]{},;\\]|%(?:25)*(?:2F|3F|23)|$)`;
// Anything but the start of another URL, which would make a run of them cost quadratic time.
const PASSWORD_CHAR = String.raw`(?:(?!:\/\/|%(?:25)*3A%(?:25)*2F%(?:25)*2F)[^\s"'${"`"}<>\\])`;

// A credential after its scheme's name (token68, form-encoded too); a plain word
// after it (`Basic auth`, `Bearer undefined`, `token-based`) is the text's, and so
// is a challenge's parameter (`Basic realm="app"`, `Bearer error="invalid_token"`).
const TOKEN68_CHAR = String.raw`(?:[\w.~+/-]|%(?:25)*${HEX2})`;
const WORD = "(?:[A-Z]?[a-z]{1,24}|[A-Z]{1,24})";
const NOT_A_CREDENTIAL = String.raw`${WORD}(?:-${WORD})*[.,]?(?!${TOKEN68_CHAR}|=)|[a-z]+(?:_[a-z]+)*=(?=\\?"|[A-Za-z])`;
const AUTH_SCHEME = "(?:[Bb]earer|BEARER|[Bb]asic|BASIC|[Nn]egotiate|NEGOTIATE|NTLM)";

/** A header value's scheme stays when it is a known one (it helps debugging); anything else could be the secret. */
function credentials(value: string): string {
  const scheme = /^(?:Basic|Bearer|Digest|Token|Negotiate|NTLM|HOBA|Mutual|DPoP|ApiKey|OAuth|Hawk)(?:[ \t]+|%20)/i.exec(
    value,
  );
  return `${scheme?.[0] ?? ""}[credentials]`;
}

/** A field whose name matches `name` (a pattern, no groups): its value, quoted or bare, goes. */
function secretField(name: string, flags: string): [RegExp, string] {
  return [new RegExp(String.raw`(${name}${FIELD_END})(?:${QUOTED}|${BARE_TOKEN})`, flags), "$1$2[credentials]$4"];
}

// What personal data or secrets an error's text may carry, and what stands in for it. Order matters.
const PLACEHOLDERS: [RegExp, string | ((match: string, ...groups: string[]) => string)][] = [
  // A URL's user and password, before the email rule can take `pass@host` and leave the user.
  // A password may hold `/`, `?` or `#` unencoded, so after `user:` the userinfo runs to the
  // run's last @: a path's @ after it (`/@scope/pkg`) goes too, which beats leaking the rest.
  [
    new RegExp(
      String.raw`${SCHEME}(?:${USER_CHAR}*(?::|%(?:25)*3A)(?!${PORT})${PASSWORD_CHAR}*|${USERINFO_CHAR}*)(@|%(?:25)*40)`,
      "gi",
    ),
    "$1[credentials]$2",
  ],
  // A header whose whole value is a credential (Authorization of any scheme, Cookie), quoted or bare.
  [
    new RegExp(
      String.raw`((?<![\w-])(?:proxy-authorization|authorization|set-cookie|cookie)${FIELD_END})(?:${QUOTED}|(${HEADER_VALUE}))`,
      "gi",
    ),
    (_match, field, quote, quoted, close, bare) =>
      `${field}${quote ?? ""}${credentials(quoted ?? bare!)}${close ?? ""}`,
  ],
  // A field named as a secret (`password=…`, `"x-api-key":"…"`, `refreshToken: '…'`, Clerk's
  // `__clerk_ticket=…`, `PHPSESSID=…`), in a query percent-encoded too (`%3Fpwd%3D…`).
  secretField(
    String.raw`(?<![\w-])[\w-]*?(?:token|secret|password|passwd|passphrase|pwd|ticket|(?:api|private)[_-]?key|sess(?:ion)?[_-]?id)(?:[_-]?key)?`,
    "gi",
  ),
  // `pass` and `auth` also end ordinary words (`bypass`, `requireAuth`): only a whole name, one
  // after `_` or `-` (`DB_PASS`, npm's `_auth`) or a camelCase `…Pass` counts, so case matters here.
  secretField(
    String.raw`(?:(?<![\w-])|(?<=%(?:25)*${HEX2}))(?:(?:[\w-]*?[_-])?(?:pass|Pass|PASS|auth|Auth|AUTH)|[\w-]*?[a-z\d]Pass)`,
    "g",
  ),
  // A JWT: Clerk's session token and its cousins.
  [new RegExp(String.raw`${START}eyJ[\w-]*\.[\w-]+\.[\w-]*`, "g"), "[token]"],
  // Clerk and Stripe-style keys, PostHog's (phc_ too: it names the project), Svix's signing secrets.
  [
    new RegExp(
      String.raw`${START}(?:(?:sk|pk|rk)_(?:live|test)_[\w$=-]+|ph[a-z]_[A-Za-z0-9]{10,}|whsec_[\w+/=]+)`,
      "g",
    ),
    "[key]",
  ],
  // A credential without its header's name (`token was Bearer abc123`), after the JWT and key rules name theirs.
  // The name comes before the look back at where it starts, so V8 skips to where a name is (10x faster).
  [
    new RegExp(
      String.raw`(${AUTH_SCHEME}(?<=${START}${AUTH_SCHEME})(?:[ \t]+|%(?:25)*20|\+))(?!${NOT_A_CREDENTIAL})${TOKEN68_CHAR}+=*`,
      "g",
    ),
    "$1[credentials]",
  ],
  // An email address, Unicode or encoded, whole.
  [new RegExp(`${LOCAL}${AT}${DOMAIN}`, "gu"), "[email]"],
  // A Clerk id keeps its type, which helps debugging; the rest says whose.
  [
    new RegExp(String.raw`${START}(user|sess|org|orginv|orgmem|client|inv|sia|sua|idn|img|ins)_[A-Za-z0-9_]{3,}`, "g"),
    "$1_[id]",
  ],
  // A fragment after a URL, a path or a file name (`/callback#access_token=…`); not `Foo.#private`.
  [/#(?<=(?:\/[^\s#?"'`()<>]*|(?<![\w-])[\w-]+\.[A-Za-z][A-Za-z0-9]*)#)[^\s"'`()<>]*/g, ""],
  // A query string after a path or URL (`/orgs/x?q=…`, `index.js?v=1`).
  [/([\w/.%-])\?[^\s)'"`]*/g, "$1"],
];

/** Text with emails, tokens, keys, credentials, Clerk ids, query strings and fragments replaced by placeholders. */
export function scrub(text: string): string {
  return PLACEHOLDERS.reduce(
    (out, [pattern, placeholder]) =>
      typeof placeholder === "string" ? out.replace(pattern, placeholder) : out.replace(pattern, placeholder),
    text,
  );
}

/**
 * A copy of a thrown value as an Error, its message and stack scrubbed: what
 * a report to PostHog carries, from the server or the browser. A thrown
 * string is its message; anything else that is not an Error is named by type.
 */
export function scrubbedError(thrown: unknown): Error {
  const original =
    thrown instanceof Error
      ? thrown
      : new Error(typeof thrown === "string" ? thrown : `Non-Error thrown: ${typeof thrown}`);
  const clean = new Error(scrub(original.message));
  clean.name = original.name;
  clean.stack = original.stack ? scrub(original.stack) : `${clean.name}: ${clean.message}`;
  return clean;
}
