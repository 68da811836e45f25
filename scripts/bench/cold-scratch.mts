import { coldStart } from "./stdio.ts";
const flag = ["--disallow-code-generation-from-strings"];
const subjects: [string, string[]][] = JSON.parse(process.argv[2]!);
const rounds = Number(process.env.ROUNDS ?? 15);
const res = new Map<string, { ms: number[]; cpu: number[] }>();
for (let r = 0; r < rounds; r++) for (let i = 0; i < subjects.length; i++) {
  const [name, args] = subjects[(i + r) % subjects.length]!;
  const s = await coldStart({ command: process.execPath, args: [...flag, ...args] }, "modern");
  const e = res.get(name) ?? { ms: [], cpu: [] }; e.ms.push(s.ms); e.cpu.push(s.cpuMs); res.set(name, e);
}
const med = (a: number[]) => { const s = [...a].sort((x, y) => x - y); return s[s.length >> 1]!; };
const q = (a: number[], p: number) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor(p * (s.length - 1))]!; };
const base = res.get(subjects[0]![0])!;
for (const [k, v] of res) console.log(k.padEnd(16), "wall", med(v.ms).toFixed(1), `[${q(v.ms, .25).toFixed(0)}-${q(v.ms, .75).toFixed(0)}]`, "cpu", med(v.cpu).toFixed(1), `x${(med(v.ms) / med(base.ms)).toFixed(2)} cpu x${(med(v.cpu) / med(base.cpu)).toFixed(2)}`);
