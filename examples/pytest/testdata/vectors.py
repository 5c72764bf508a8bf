"""Checks a generated module's codec against vectors written by Go (vectors_test.go).

usage: vectors.py MODULE_DIR MODULE VECTORS.json
Prints one line per disagreement and exits 1 if there is any; else prints "ok N".
"""

import dataclasses
import functools
import importlib
import json
import struct
import sys


def score_of_hex(h):
    return struct.unpack("<d", struct.pack("<Q", int(h, 16)))[0]


def hex_of_score(s):
    return "%016x" % struct.unpack("<Q", struct.pack("<d", s))[0]


def text(v):
    return bytes.fromhex(v).decode("utf-8", "surrogateescape")


def main():
    sys.path.insert(0, sys.argv[1])
    m = importlib.import_module(sys.argv[2])
    with open(sys.argv[3]) as f:
        vec = json.load(f)
    # The module's names of the id, fields and data fields, in the layout's order.
    vec["id_attr"] = dataclasses.fields(m.Entry)[0].name
    vec["fields"] = [{"attr": f.attr, "kind": f.kind} for f in m._FIELDS]
    vec["data"] = [{"attr": f.attr, "kind": f.kind} for f in getattr(m, "_DATA", ())]
    if len(vec["fields"]) != vec["num_fields"] or len(vec["data"]) != vec["num_data"]:
        print("the module has %d fields and %d data fields, the layout %d and %d" % (
            len(vec["fields"]), len(vec["data"]), vec["num_fields"], vec["num_data"]))
        sys.exit(1)
    bad = []
    n = 0

    def value(f, v):
        return text(v) if f["kind"] == "string" else v

    def entry_of(d):
        e = m.Entry()
        setattr(e, vec["id_attr"], text(d["id"]) if not vec["id_uint"] else d["id"])
        for f, v in zip(vec["fields"], d["values"]):
            setattr(e, f["attr"], value(f, v))
        if "data" in d:
            e.data = data_of(d["data"])
        return e

    def data_of(vals):
        dd = m.Data()
        for f, v in zip(vec["data"], vals):
            setattr(dd, f["attr"], value(f, v))
        return dd

    def same_entry(e, d):
        """Whether decode's e holds d's id and values (decode reads no data: that is
        decode_data's)."""
        want = entry_of(d)
        if hasattr(e, "data"):
            want.data = e.data
        return e == want

    for i, c in enumerate(vec["entries"]):
        n += 1
        score, member = score_of_hex(c["score"]), bytes.fromhex(c["member"])
        try:
            e = m.decode(score, member)
        except Exception as err:
            bad.append("entry %d: decode(%s, %r): %r" % (i, c["score"], member, err))
            continue
        if not same_entry(e, c):
            bad.append("entry %d: decode gave %r, Go's entry is %r" % (i, e, entry_of(c)))
        s2, m2 = m.encode(entry_of(c))
        if hex_of_score(s2) != c["score"] or m2 != member:
            bad.append("entry %d: encode gave (%s, %r), Go (%s, %r)" % (i, hex_of_score(s2), m2, c["score"], member))
        if hasattr(m, "_format_score") and m._format_score(score) != c["score_text"]:
            bad.append("entry %d: the score's text is %r, Go's %r" % (i, m._format_score(score), c["score_text"]))
        if "stored_data" in c:
            stored = bytes.fromhex(c["stored_data"])
            if m.encode_data(data_of(c["data"])) != stored:
                bad.append("entry %d: encode_data gave %r, Go %r" % (i, m.encode_data(data_of(c["data"])), stored))
            if m.decode_data(stored) != data_of(c["data"]):
                bad.append("entry %d: decode_data(%r) gave %r" % (i, stored, m.decode_data(stored)))

    entries = [entry_of(c) for c in vec["entries"]]
    for a, b, want in vec["compare"]:
        n += 1
        got = m.compare(entries[a], entries[b])
        if (got > 0) - (got < 0) != want:
            bad.append("compare(%d, %d) = %d, Go %d" % (a, b, got, want))
    order = sorted(range(len(entries)), key=functools.cmp_to_key(lambda a, b: m.compare(entries[a], entries[b])))
    if [hex_of_score(m.encode(entries[i])[0]) + m.encode(entries[i])[1].hex() for i in order] != vec["sorted"]:
        bad.append("sorting by compare differs from Go's order")

    for i, c in enumerate(vec["damaged"] or []):
        n += 1
        score, member = score_of_hex(c["score"]), bytes.fromhex(c["member"])
        try:
            e = m.decode(score, member)
            got = "ok"
        except m.RankgenError as err:
            got = err.code
        if got != c["result"]:
            bad.append("damaged %d: decode(%s, %r): %s, Go %s" % (i, c["score"], member, got, c["result"]))
        elif got == "ok" and not same_entry(e, c):
            bad.append("damaged %d: decode gave %r, Go %r" % (i, e, entry_of(c)))

    for i, c in enumerate(vec.get("damaged_data") or []):
        n += 1
        stored = bytes.fromhex(c["stored"])
        try:
            dd = m.decode_data(stored)
            got = "ok"
        except m.RankgenError as err:
            got = err.code
        if got != c["result"]:
            bad.append("damaged data %d: decode_data(%r): %s, Go %s" % (i, stored, got, c["result"]))
        elif got == "ok" and dd != data_of(c["data"]):
            bad.append("damaged data %d: decode_data(%r) gave %r, Go %r" % (i, stored, dd, data_of(c["data"])))

    for i, c in enumerate(vec["refused"] or []):
        n += 1
        try:
            m.encode(entry_of(c))
            got = "ok"
        except m.RankgenError as err:
            got = err.code
        if got != "OUT_OF_RANGE":
            bad.append("refused %d: encode(%r): %s, Go refuses it (%s)" % (i, entry_of(c), got, c["why"]))

    for unit, units, go_text in vec["times"] or []:
        n += 1
        t = m.to_datetime(units, unit)
        got = t.strftime("%Y-%m-%dT%H:%M:%S") + (("." + "%06d" % t.microsecond).rstrip("0") if t.microsecond else "") + "Z"
        if got != go_text or m.from_datetime(t, unit) != units:
            bad.append("time %d %s: to_datetime gives %s (back: %d), Go %s" % (units, unit, got, m.from_datetime(t, unit), go_text))

    for line in bad[:40]:
        print(line)
    if bad:
        print("%d of %d checks disagree with Go" % (len(bad), n))
        sys.exit(1)
    print("ok", n)


main()
