"""A subprocess bot that plays random legal actions, then misbehaves on purpose.

    python misbehave.py MODE N [MARKER]

answers N decisions correctly, then does MODE at the next one (MODE "start" fails before
reading anything). MARKER is ignored: tests use it to find the process in /proc.
"""

import json
import random
import sys
import time

mode, after = sys.argv[1], int(sys.argv[2])
rng = random.Random(0)
if mode == "start":
    print("cannot start: missing model file", file=sys.stderr)
    sys.exit(3)

answered = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start" and mode == "reply_to_start":
        print(json.dumps({"ready": True}), flush=True)
    if message["type"] == "start" and mode == "chatty_stderr":
        sys.stderr.write("x" * 1_000_000 + "\nend of chatter\n")
        sys.stderr.flush()
    if message["type"] != "act":
        continue
    legal = message["view"]["legal_actions"]
    if answered == after:
        if mode == "crash":
            print("Traceback: boom", file=sys.stderr)
            sys.exit(1)
        elif mode == "sleep":
            time.sleep(30)
        elif mode == "garbage":
            print("I fold, I think?", flush=True)
            continue
        elif mode == "not_an_action":
            print(json.dumps({"action": 42}), flush=True)
            continue
        elif mode == "illegal":
            print(json.dumps({"action": {"type": "cheat", "amount": 1000}}), flush=True)
            continue
        elif mode == "huge":
            sys.stdout.write('{"action": "' + "A" * 10_000_000)
            sys.stdout.flush()
            time.sleep(30)
        elif mode == "memory":
            hog = bytearray(1 << 30)  # over the 256 MiB the tests allow
        elif mode == "slow_then_bank":
            time.sleep(0.3)
    print(json.dumps({"action": rng.choice(legal)}), flush=True)
    answered += 1
