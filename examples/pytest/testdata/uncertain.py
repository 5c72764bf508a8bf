"""A write whose reply never comes (the server holds it under CLIENT PAUSE WRITE, the client
times out) raises UncertainError with its token; resent with that token, it is applied once,
and resent again it answers the same without writing. Prints "ok" or what went wrong.

usage: uncertain.py MODULE_DIR ADDR KEY   (the racing module; a server of the test's own)
"""

import sys

import redis

sys.path.insert(0, sys.argv[1])
import racing_rankgen as racing  # noqa: E402

host, _, port = sys.argv[2].rpartition(":")
control = redis.Redis(host=host, port=int(port))
client = redis.Redis(host=host, port=int(port), socket_timeout=0.2)
board = racing.Board(client, sys.argv[3])
board.set(racing.Entry(car=7, laps=10, race_time=1000))

control.execute_command("CLIENT", "PAUSE", "60000", "WRITE")
try:
    board.add_laps(7, 5)
    print("add_laps returned under CLIENT PAUSE WRITE")
    sys.exit(1)
except racing.UncertainError as err:
    token = err.token
finally:
    control.execute_command("CLIENT", "UNPAUSE")

first = board.add_laps(7, 5, token=token)
again = board.add_laps(7, 5, token=token)
stored = board.get(7)
try:
    board.add_race_time(7, 1, token=token)
    print("another call under the token was not refused")
    sys.exit(1)
except racing.TokenReusedError:
    pass
if first != again or first.entry.laps != 15 or stored.laps != 15 or stored.race_time != 1000:
    print("applied other than once:", first, again, stored)
    sys.exit(1)
print("ok")
