"""Runs writes of a generated module's Board on a real server and prints their results as JSON,
for writes_test.go to compare with the Go board's.

usage: writes.py MODULE_DIR MODULE REQUEST.json
REQUEST: {"addr", "db", "password", "key", "id_uint", "fields", "data", "id_attr", "ops": [...]}
"""

import dataclasses
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
    # The module's names of the id, fields and data fields, in the layout's order.
    req["id_attr"] = dataclasses.fields(m.Entry)[0].name
    req["fields"] = [{"attr": f.attr, "kind": f.kind} for f in m._FIELDS]
    req["data"] = [{"attr": f.attr, "kind": f.kind} for f in getattr(m, "_DATA", ())]
    host, _, port = req["addr"].rpartition(":")
    client = redis.Redis(host=host, port=int(port), db=req["db"], password=req["password"] or None)

    def text(v):
        return bytes.fromhex(v).decode("utf-8", "surrogateescape")

    def ident(x):
        return x if req["id_uint"] else text(x)

    def value(f, v):
        return text(v) if f["kind"] == "string" else v

    def entry_of(d):
        e = m.Entry()
        setattr(e, req["id_attr"], ident(d["id"]))
        for f, v in zip(req["fields"], d["values"]):
            setattr(e, f["attr"], value(f, v))
        if "data" in d:
            dd = m.Data()
            for f, v in zip(req["data"], d["data"]):
                setattr(dd, f["attr"], value(f, v))
            e.data = dd
        return e

    def pair(e):
        score, member = m.encode(e)
        data = m.encode_data(e.data).hex() if hasattr(m, "encode_data") else ""
        return ["%016x" % struct.unpack("<Q", struct.pack("<d", score))[0], member.hex(), data]

    def written(w):
        return {"entry": pair(w.entry), "before": pair(w.before) if w.existed else None,
                "existed": w.existed, "changed": w.changed}

    board = m.Board(client, req["key"])
    out = []
    for op in req["ops"]:
        name, token = op["op"], op.get("token")
        try:
            if name in ("set_many", "best_many", "insert_many"):
                res = [written(w) for w in getattr(board, name)([entry_of(d) for d in op["entries"]], token=token)]
            elif name == "update":
                rs = getattr(board, op["py"] + "_many")([(ident(i), v) for i, v in op["updates"]], token=token)
                res = [{"error": r.error.code} if r.error else written(r.written) for r in rs]
            elif name == "remove":
                res = board.remove([ident(i) for i in op["ids"]], token=token)
            else:
                raise ValueError("unknown op " + name)
        except m.RankgenError as err:
            res = {"error": err.code}
        out.append(res)
    print(json.dumps({"results": out}))


main()
