// A module-resolution hook that reports every URL resolved in this process to the port it was given.
let port;
export function initialize(data) {
  port = data.port;
}
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  port.postMessage(resolved.url);
  return resolved;
}
