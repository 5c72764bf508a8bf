// Runs calls of v3's TypeScript Board (examples/boardtest/internal/compat/v3, which replaces
// v1) on a real server and prints their results as JSON, for ts_previous_test.go to compare with
// v3's Go Board on a board of the same contents.
//
// usage: node previous.js REQUEST.json; REQUEST: {"host", "port", "key", "calls": [[method, args...], ...]}

import { readFileSync } from "node:fs";
import Redis from "ioredis";
import * as m from "./v3.rankgen";

type Call = [string, ...unknown[]];

async function main(): Promise<void> {
  const req = JSON.parse(readFileSync(process.argv[2], "utf8")) as { host: string; port: number; key: string; calls: Call[] };
  const client = new Redis({ host: req.host, port: req.port, lazyConnect: true });
  await client.connect();
  const board = new m.Board(client, req.key);
  const plain = (e: m.Entry) => [e.playerID, Number(e.points), e.class, e.data?.nick ?? "", e.data?.level ?? 0];
  const written = (w: m.Written) => [plain(w.entry), w.existed && w.before ? plain(w.before) : null, w.existed, w.changed];
  const entry = (x: unknown[]): m.Entry => ({ playerID: x[0] as string, points: x[1] as number, class: x[2] as m.Class, data: { nick: x[3] as string, level: x[4] as number } });
  const out: unknown[] = [];
  for (const [name, ...args] of req.calls) {
    try {
      switch (name) {
        case "set": out.push(written(await board.set(entry(args[0] as unknown[])))); break;
        case "add_points": out.push(written(await board.addPoints(args[0] as string, args[1] as number))); break;
        case "set_points": out.push(written(await board.setPoints(args[0] as string, args[1] as number))); break;
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
