// The test harness of examples/tstest: it runs a generated module on what the Go test gives it
// and prints what the module answered, for the Go test to compare with Go's answers.
//
//   node harness.js codec <vectors.json>   decode, re-encode and compare the vectors' entries
//   node harness.js reads <reads.json>     run reads on a live board
//   node harness.js writes <writes.json>   run writes (set, field updates) on a live board
//
// Values are printed as canonical JSON: whole numbers (number or bigint) as decimal strings,
// bytes as hex, errors as their RankgenError code.
import { readFileSync } from "node:fs";

/* eslint-disable @typescript-eslint/no-explicit-any */
type Module = any;

function canon(v: unknown): unknown {
  if (typeof v === "bigint" || typeof v === "number") return String(v);
  if (Buffer.isBuffer(v)) return v.toString("hex");
  if (Array.isArray(v)) return v.map(canon);
  if (v !== null && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== undefined) out[k] = canon(x);
    }
    return out;
  }
  return v;
}

function code(err: unknown): string {
  if (err instanceof Error && typeof (err as any).code === "string" && err.name === "RankgenError") return (err as any).code;
  throw err; // not a typed error: the harness fails loudly
}

function hexScore(score: number): string {
  const b = Buffer.alloc(8);
  b.writeDoubleBE(score);
  return b.toString("hex");
}

function scoreOfHex(hex: string): number {
  return Buffer.from(hex, "hex").readDoubleBE(0);
}

interface Vectors {
  module: string;
  cases: { score: string; member: string; data: string | null }[];
  pairs: [number, number][];
}

function codec(v: Vectors): unknown {
  const m: Module = require(v.module);
  const decoded: any[] = [];
  const cases = v.cases.map((c) => {
    const out: Record<string, unknown> = {};
    try {
      const e = m.decode(scoreOfHex(c.score), Buffer.from(c.member, "hex"));
      decoded.push(e);
      out.entry = canon(e);
      const again = m.encode(e);
      out.score = hexScore(again.score);
      out.member = again.member.toString("hex");
    } catch (err) {
      decoded.push(undefined);
      out.error = code(err);
    }
    if (c.data !== null) {
      try {
        const d = m.decodeData(Buffer.from(c.data, "hex"));
        const bytes = m.encodeData(d).toString("hex");
        out.data = canon(d);
        out.dataBytes = bytes;
      } catch (err) {
        out.dataError = code(err);
      }
    }
    return out;
  });
  const pairs = v.pairs.map(([i, j]) => Math.sign(m.compare(decoded[i], decoded[j])));
  // Every field refuses a value just past its range, on the first entry that decoded.
  const base = decoded.find((e) => e !== undefined);
  const ranges: Record<string, string> = {};
  for (const f of m.LayoutTable.fields) {
    if (f.kind === "bool") continue;
    const e = { ...base };
    e[f.prop] = f.kind === "enum" ? "no such value" : typeof f.max === "bigint" ? f.max + 1n : f.max + 1;
    try {
      m.encode(e);
      ranges[f.name] = "";
    } catch (err) {
      ranges[f.name] = code(err);
    }
  }
  return { cases, pairs, ranges };
}

interface Reads {
  module: string;
  addr: string; // host:port
  key: string;
  ops: { op: string; id?: string; ids?: string[]; n?: number; offset?: number; limit?: number; before?: number; after?: number; fill?: boolean; fp?: string }[];
}

async function reads(r: Reads): Promise<unknown> {
  const m: Module = require(r.module);
  const Redis = require("ioredis");
  const colon = r.addr.lastIndexOf(":");
  const client = new Redis({ host: r.addr.slice(0, colon), port: Number(r.addr.slice(colon + 1)), lazyConnect: true, maxRetriesPerRequest: 0 });
  await client.connect();
  const id = (s: string) => (m.LayoutTable.id.kind === "uint64" ? BigInt(s) : s);
  const board = new m.Board(client, r.key);
  const out: unknown[] = [];
  try {
    for (const o of r.ops) {
      try {
        switch (o.op) {
          case "top":
            out.push(canon(await board.top(o.n)));
            break;
          case "page":
            out.push(canon(await board.page(o.offset, o.limit)));
            break;
          case "around":
            out.push(canon(await board.around(id(o.id!), o.before, o.after, o.fill)));
            break;
          case "rank":
            out.push(canon(await board.rank(id(o.id!))));
            break;
          case "get":
            out.push(canon(await board.get(id(o.id!))));
            break;
          case "getMany": {
            const rs = await board.getMany(o.ids!.map(id));
            out.push(rs.map((x: any) => (x.error ? { error: code(x.error) } : { entry: canon(x.entry) })));
            break;
          }
          case "rankedMany":
            out.push(canon(await board.rankedMany(o.ids!.map(id))));
            break;
          case "switch": {
            // Another layout claims the board, as a migration's switch does.
            if ((await client.call("TYPE", board.keys[1])) === "hash") await client.call("HSET", board.keys[1], "", o.fp!);
            else await client.call("SET", board.keys[1], o.fp!);
            out.push(null);
            break;
          }
          case "functions": {
            // The board's library on the server: loaded by the reads themselves when missing.
            const libs = (await client.call("FUNCTION", "LIST", "LIBRARYNAME", m.LibraryName)) as unknown[];
            out.push(String(libs.length));
            break;
          }
          default:
            throw new Error("unknown op " + o.op);
        }
      } catch (err) {
        out.push({ error: code(err) });
      }
    }
  } finally {
    client.disconnect();
  }
  return out;
}

interface Writes {
  module: string;
  addr: string;
  key: string;
  ops: { op: string; entry?: Record<string, unknown>; method?: string; field?: number; id?: string; value?: unknown; key?: string }[];
}

// fromJSON is a value of field f (a LayoutTable row) as the module takes it.
function fromJSON(f: any, v: unknown): unknown {
  if (f.kind === "bool" || f.kind === "enum" || f.kind === "string") return v;
  return f.big ? BigInt(v as string) : Number(v);
}

function entryFromJSON(m: Module, j: Record<string, unknown>): unknown {
  const t = m.LayoutTable;
  const e: Record<string, unknown> = { [t.id.prop]: t.id.kind === "uint64" ? BigInt(j[t.id.prop] as string) : j[t.id.prop] };
  for (const f of t.fields) e[f.prop] = fromJSON(f, j[f.prop]);
  if (j.data) {
    const d: Record<string, unknown> = {};
    for (const f of t.data) d[f.prop] = fromJSON(f, (j.data as Record<string, unknown>)[f.prop]);
    e.data = d;
  }
  return e;
}

async function writes(w: Writes): Promise<unknown> {
  const m: Module = require(w.module);
  const Redis = require("ioredis");
  const colon = w.addr.lastIndexOf(":");
  const client = new Redis({ host: w.addr.slice(0, colon), port: Number(w.addr.slice(colon + 1)), lazyConnect: true, maxRetriesPerRequest: 0 });
  await client.connect();
  const id = (s: string) => (m.LayoutTable.id.kind === "uint64" ? BigInt(s) : s);
  const board = new m.Board(client, w.key);
  const out: unknown[] = [];
  try {
    for (const o of w.ops) {
      const opts = o.key ? { idempotencyKey: o.key } : undefined;
      try {
        switch (o.op) {
          case "set":
            out.push(canon(await board.set(entryFromJSON(m, o.entry!), opts)));
            break;
          case "update": {
            const value = o.method!.startsWith("add") ? BigInt(o.value as string) : fromJSON(m.LayoutTable.fields[o.field!], o.value);
            out.push(canon(await board[o.method!](id(o.id!), value, opts)));
            break;
          }
          case "top":
            out.push(canon(await board.top(100000)));
            break;
          case "uncertain": {
            // A client whose connection is lost after the write ran, before its reply: the
            // write fails without one, then is resent (twice) under the token the
            // UncertainError carries, and is applied once in all.
            const lost = {
              callBuffer: async (...args: any[]) => {
                await client.callBuffer(...args);
                throw new Error("connection lost");
              },
            };
            const e = entryFromJSON(m, o.entry!);
            let token = "";
            let first = "no error";
            try {
              await new m.Board(lost, w.key).set(e);
            } catch (err) {
              first = code(err);
              token = (err as any).token;
            }
            const again = canon(await board.set(e, { idempotencyKey: token }));
            out.push([first, again, canon(await board.set(e, { idempotencyKey: token }))]);
            break;
          }
          default:
            throw new Error("unknown op " + o.op);
        }
      } catch (err) {
        out.push({ error: code(err) });
      }
    }
  } finally {
    client.disconnect();
  }
  return out;
}

async function main(): Promise<void> {
  const [mode, file] = process.argv.slice(2);
  const input = JSON.parse(readFileSync(file, "utf8"));
  const result = mode === "codec" ? codec(input) : mode === "writes" ? await writes(input) : await reads(input);
  process.stdout.write(JSON.stringify(result));
}

main().catch((err) => {
  process.stderr.write(String(err && err.stack ? err.stack : err) + "\n");
  process.exit(1);
});
