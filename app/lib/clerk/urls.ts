/** Where Clerk's sign-in and sign-up screens live in this app; told to the server SDK and to clerk-js alike. */
export const SIGN_IN_URL = "/sign-in";
export const SIGN_UP_URL = "/sign-up";
