"""Runs reads of a generated module's Board on a real server and prints their results as JSON,
for reads_test.go to compare with the Go board's.

usage: reads.py MODULE_DIR MODULE REQUEST.json
REQUEST: {"addr": "host:port", "db": n, "password": "", "key": ..., "id_uint": bool, "ops": [...]}
"""

import importlib
import json
import struct
import sys

import redis


def main():
    sys.path.insert(0, sys.argv[1])
    m = importlib.import_module(sys.argv[2])
    with open(sys.argv[3]) as f:
        req = json.load(f)
    host, _, port = req["addr"].rpartition(":")
    client = redis.Redis(host=host, port=int(port), db=req["db"], password=req["password"] or None)

    def ident(x):
        return x if req["id_uint"] else bytes.fromhex(x).decode("utf-8", "surrogateescape")

    def pair(e):
        score, member = m.encode(e)
        data = m.encode_data(e.data).hex() if hasattr(m, "encode_data") else ""
        return ["%016x" % struct.unpack("<Q", struct.pack("<d", score))[0], member.hex(), data]

    def ranked(rs):
        return [[r.rank] + pair(r.entry) for r in rs]

    board = m.Board(client, req["key"])
    out = []
    for op in req["ops"]:
        name = op["op"]
        try:
            if name == "top":
                res = ranked(board.top(op["n"]))
            elif name == "page":
                res = ranked(board.page(op["offset"], op["limit"]))
            elif name == "around":
                res = ranked(board.around(ident(op["id"]), op["before"], op["after"], op["fill"]))
            elif name == "rank":
                res = board.rank(ident(op["id"]))
            elif name == "get":
                res = pair(board.get(ident(op["id"])))
            elif name == "get_many":
                res = [None if e is None else pair(e) for e in board.get_many([ident(i) for i in op["ids"]])]
            elif name == "rank_many":
                res = board.rank_many([ident(i) for i in op["ids"]])
            elif name == "ranked_many":
                res = ranked(board.ranked_many([ident(i) for i in op["ids"]]))
            elif name == "count":
                res = board.count()
            elif name == "switch":  # another layout claims the board, as a migration's switch does
                if m._INDEXED:
                    client.hset(board._side, "", op["fp"])
                else:
                    client.set(board._side, op["fp"])
                res = None
            else:
                raise ValueError("unknown op " + name)
        except m.RankgenError as err:
            res = {"error": err.code}
        out.append(res)
    print(json.dumps({"results": out, "library": m.LIBRARY_NAME}))


main()
