// proxy-from-env 2.x ships no type declarations; this is the one function the runtime uses.
declare module "proxy-from-env" {
  /** The proxy URL for `url` from the *_PROXY and NO_PROXY variables, or "" to connect directly. */
  export function getProxyForUrl(url: string | URL): string;
}
