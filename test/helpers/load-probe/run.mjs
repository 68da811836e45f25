// Runs the kervanc CLI's run() with the arguments given, then prints its exit code and every module URL this
// process resolved, as JSON: for tests of what a command loads (test/cli/lazy-loading.e2e.test.ts).
import { register } from "node:module";
import { MessageChannel } from "node:worker_threads";

const { port1, port2 } = new MessageChannel();
const urls = [];
port1.on("message", (url) => urls.push(url));
port1.unref();
register("./hooks.mjs", import.meta.url, { data: { port: port2 }, transferList: [port2] });
const { run } = await import(process.argv[2]);
const code = await run(process.argv.slice(3), { stdout: () => {}, stderr: () => {} });
// Messages from the hooks thread arrive asynchronously: give them a turn.
await new Promise((resolve) => setTimeout(resolve, 50));
console.log(JSON.stringify({ code, urls }));
