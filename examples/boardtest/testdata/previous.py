"""Runs calls of v3's Python Board (examples/boardtest/internal/compat/v3, which replaces v1) on
a real server and prints their results as JSON, for python_previous_test.go to compare with v3's
Go Board on a board of the same contents.

usage: previous.py MODULE_DIR REQUEST.json
REQUEST: {"addr", "key", "calls": [[method, args...], ...]}
"""

import json
import sys

import redis


def main():
    sys.path.insert(0, sys.argv[1])
    import v3_rankgen as m

    with open(sys.argv[2]) as f:
        req = json.load(f)
    host, _, port = req["addr"].rpartition(":")
    board = m.Board(redis.Redis(host=host, port=int(port)), req["key"])

    def entry(x):
        return m.Entry(player_id=x[0], points=x[1], class_=x[2], data=m.Data(nick=x[3], level=x[4]))

    def plain(e):
        return [e.player_id, e.points, e.class_, e.data.nick, e.data.level]

    def written(w):
        return [plain(w.entry), plain(w.before) if w.before is not None else None, w.existed, w.changed]

    out = []
    for call in req["calls"]:
        name, args = call[0], call[1:]
        try:
            if name in ("set", "best", "insert"):
                res = written(getattr(board, name)(entry(args[0])))
            elif name in ("add_points", "set_points"):
                res = written(getattr(board, name)(args[0], args[1]))
            elif name == "add_points_many":
                res = [written(r.written) if r.error is None else r.error.code for r in board.add_points_many([tuple(u) for u in args[0]])]
            elif name == "remove":
                res = board.remove(args[0])
            elif name == "get":
                res = plain(board.get(args[0]))
            elif name == "get_many":
                res = [plain(e) if e is not None else None for e in board.get_many(args[0])]
            elif name == "rank":
                res = board.rank(args[0])
            elif name == "count":
                res = board.count()
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
