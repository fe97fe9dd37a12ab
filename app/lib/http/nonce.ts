import { createContext, useContext } from "react";

/**
 * This response's CSP nonce. The server renders it into inline and module
 * scripts; in the browser it is "" (browsers hide nonces from the DOM, and
 * scripts added after load are trusted through 'strict-dynamic').
 */
export const NonceContext = createContext("");

export const useNonce = () => useContext(NonceContext);
