"""Runs reads of p2's Python Board (examples/boardtest/internal/compat/p2, a periodic layout that
replaces p1) on a season's board p1's code filled, and prints them as JSON for
clients_periodic_test.go to compare with p2's Go Board.

usage: previous_reads.py MODULE_DIR REQUEST.json; REQUEST: {"addr", "key", "calls": [[method, args...], ...]}
"""

import json
import sys

import redis


def main():
    sys.path.insert(0, sys.argv[1])
    import p2_rankgen as m

    with open(sys.argv[2]) as f:
        req = json.load(f)
    host, _, port = req["addr"].rpartition(":")
    board = m.Board(redis.Redis(host=host, port=int(port)), req["key"])

    def plain(e):
        return [e.player_id, e.points, e.tier, e.reached_at]

    out = []
    for name, *args in req["calls"]:
        try:
            if name == "get":
                res = plain(board.get(args[0]))
            elif name == "get_many":
                res = [plain(e) if e is not None else None for e in board.get_many(args[0])]
            elif name == "rank":
                res = board.rank(args[0])
            elif name == "top":
                res = [[r.rank, plain(r.entry)] for r in board.top(args[0])]
            elif name == "around":
                res = [[r.rank, plain(r.entry)] for r in board.around(args[0], args[1], args[2])]
            else:
                raise ValueError("unknown call " + name)
        except m.RankgenError as err:
            res = {"error": err.code}
        out.append(res)
    print(json.dumps(out))


main()
