// Runs reads of p2's TypeScript Board (examples/boardtest/internal/compat/p2, a periodic layout
// that replaces p1) on a season's board p1's code filled, and prints them as JSON for
// clients_periodic_test.go to compare with p2's Go Board.
//
// usage: node previous_reads.js REQUEST.json; REQUEST: {"host", "port", "key", "calls": [[method, args...], ...]}

import { readFileSync } from "node:fs";
import Redis from "ioredis";
import * as m from "./p2.rankgen";

type Call = [string, ...unknown[]];

async function main(): Promise<void> {
  const req = JSON.parse(readFileSync(process.argv[2], "utf8")) as { host: string; port: number; key: string; calls: Call[] };
  const client = new Redis({ host: req.host, port: req.port, lazyConnect: true });
  await client.connect();
  const board = new m.Board(client, req.key);
  const plain = (e: m.Entry) => [e.playerID, Number(e.points), e.tier, Number(e.reachedAt)];
  const out: unknown[] = [];
  for (const [name, ...args] of req.calls) {
    try {
      switch (name) {
        case "get": out.push(plain(await board.get(args[0] as string))); break;
        case "get_many": out.push((await board.getMany(args[0] as string[])).map((r) => (r.entry ? plain(r.entry) : null))); break;
        case "rank": out.push(await board.rank(args[0] as string)); break;
        case "top": out.push((await board.top(args[0] as number)).map((r) => [r.rank, plain(r.entry)])); break;
        case "around": out.push((await board.around(args[0] as string, args[1] as number, args[2] as number)).map((r) => [r.rank, plain(r.entry)])); break;
        default: throw new Error("unknown call " + name);
      }
    } catch (err) {
      if (!(err instanceof m.RankgenError)) throw err;
      out.push({ error: err.code });
    }
  }
  console.log(JSON.stringify(out));
  client.disconnect();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
