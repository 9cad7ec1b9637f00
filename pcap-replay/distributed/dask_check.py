#!/usr/bin/python3
"""pcap-replay check across a Dask cluster (python3-distributed).

One task per shard runs `pcap-replay check --json --shard K/N ARGS...` on a
worker and returns its document; `pcap-replay merge` then writes the document
one `pcap-replay check --json ARGS...` would have written, byte for byte, on
standard output, and exits with its status (0, 1 MUST findings, 2 input or
limit problems, or a shard that could not be run).

Dask does the scheduling and the retries: a worker that dies mid-shard loses
its task, and the scheduler runs it again on another worker (its
allowed-failures; a shard's result depends only on its input, so a rerun
gives the same document). Workers must see the capture files and the
pcap-replay binary at the same paths as this script (one machine, or a
shared file system).

    dask scheduler --port 8786 &
    dask worker tcp://HOST:8786 --nthreads 1 &     # on each machine, as many as wanted
    dask_check.py --scheduler tcp://HOST:8786 --shards 8 -- --profile linux big.pcap > report.json
"""

import argparse
import os
import subprocess
import sys
import tempfile


def run_shard(binary, k, n, args, marker_dir):
    """On a worker: shard k of n; (exit status, stdout, stderr).

    With marker_dir, each attempt leaves started-K-PID before it runs and
    done-K-PID after (PID: the worker's), for tests and monitoring.
    """
    tag = "{}-{}".format(k, os.getpid())
    if marker_dir:
        open(os.path.join(marker_dir, "started-" + tag), "w").close()
    p = subprocess.run([binary, "check", "--json", "--shard", "{}/{}".format(k, n)] + list(args),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    if marker_dir:
        open(os.path.join(marker_dir, "done-" + tag), "w").close()
    return p.returncode, p.stdout, p.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scheduler", required=True, help="the Dask scheduler's address, e.g. tcp://127.0.0.1:8786")
    ap.add_argument("--shards", type=int, required=True, help="N: the connections are split into N shards")
    ap.add_argument("--pcap-replay", default="pcap-replay", help="the pcap-replay binary the workers run")
    ap.add_argument("--workers", type=int, default=1, help="wait for this many workers before submitting")
    ap.add_argument("--marker-dir", help="each attempt of a shard leaves started-K-PID and done-K-PID here")
    ap.add_argument("args", nargs=argparse.REMAINDER, help="-- then check's options and the capture files")
    a = ap.parse_args()
    args = a.args[1:] if a.args[:1] == ["--"] else a.args
    if a.shards < 1 or not args:
        ap.error("give --shards N (N >= 1) and, after --, the capture files")
    binary = os.path.abspath(a.pcap_replay) if os.sep in a.pcap_replay else a.pcap_replay
    # Imported here: --help works without python3-distributed.
    from distributed import Client

    with Client(a.scheduler) as client:
        client.wait_for_workers(a.workers)
        futures = [client.submit(run_shard, binary, k, a.shards, args, a.marker_dir,
                                 key="pcap-replay-shard-{}-of-{}".format(k, a.shards), pure=False)
                   for k in range(1, a.shards + 1)]
        results = client.gather(futures)

    with tempfile.TemporaryDirectory() as tmp:
        docs = []
        for k, (rc, out, err) in enumerate(results, start=1):
            if rc not in (0, 1, 2) or not out.strip():
                sys.stderr.write(err.decode(errors="replace"))
                sys.stderr.write("dask_check: shard {}/{} failed (exit status {}): no document\n".format(k, a.shards, rc))
                return 2
            # What every shard says alike of the input (its problems), once;
            # the limits are merge's to say.
            if k == 1:
                for line in err.decode(errors="replace").splitlines(True):
                    if not line.startswith("pcap-replay: limit:"):
                        sys.stderr.write(line)
            path = os.path.join(tmp, "shard-{}.json".format(k))
            with open(path, "wb") as f:
                f.write(out)
            docs.append(path)
        sys.stdout.flush()
        return subprocess.run([binary, "merge"] + docs, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
