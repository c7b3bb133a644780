#!/usr/bin/python3
"""The hold model of bench/event_queue_bench.cpp in SimPy 3, for issue 24's engine comparison.

N processes each hold for Exp(1) time units, for ever. After a warm-up of one mean holding
time (as the C++ benchmark), the holds completed during HORIZON time units are counted and
divided by the process CPU time they took. Prints: events, CPU seconds, events per second.

Usage: simpy_hold.py N HORIZON [SEED]   (Debian: apt-get install python3-simpy3)
"""
import random
import sys
import time

import simpy


def main():
    n, horizon = int(sys.argv[1]), float(sys.argv[2])
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    env = simpy.Environment()
    holds = [0]

    def holder():
        while True:
            yield env.timeout(rng.expovariate(1.0))
            holds[0] += 1

    for _ in range(n):
        env.process(holder())
    env.run(until=1.0)
    before, start = holds[0], time.process_time()
    env.run(until=1.0 + horizon)
    cpu = time.process_time() - start
    events = holds[0] - before
    print(f"{events} {cpu:.6f} {events / cpu:.1f}")


if __name__ == "__main__":
    main()
