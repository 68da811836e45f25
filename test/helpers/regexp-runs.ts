/**
 * Which regular expressions ran, on what, while `run` ran: RegExp.prototype.exec is replaced for that time, and
 * test, match, replace, split and search all call it once it is not the built-in one (ECMA-262 RegExpExec).
 * For tests that a build never runs a spec's patterns, and that a validator does not run one where it must not.
 */
export interface RegExpRun {
  readonly source: string;
  readonly input: string;
}

export function regexpRuns(run: () => void): RegExpRun[] {
  const runs: RegExpRun[] = [];
  const exec = Reflect.get(RegExp.prototype, "exec") as RegExp["exec"];
  RegExp.prototype.exec = function (this: RegExp, input: string) {
    runs.push({ source: this.source, input: String(input) });
    return exec.call(this, input);
  };
  try {
    run();
  } finally {
    RegExp.prototype.exec = exec;
  }
  return runs;
}
