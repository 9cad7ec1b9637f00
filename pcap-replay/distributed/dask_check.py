#!/usr/bin/python3
"""pcap-replay check across a Dask cluster (python3-distributed).

One task per shard runs `pcap-replay check --json --shard K/N ARGS...` on a
worker and returns its document (fetched one at a time into a temporary
file: this process holds at most one); `pcap-replay merge` then writes the document
one `pcap-replay check --json ARGS...` would have written, byte for byte, on
standard output, and exits with its status (0, 1 MUST findings, 2 input or
limit problems, or a shard that could not be run).

Dask does the scheduling and the retries: a worker that dies mid-shard loses
its task, and the scheduler runs it again on another worker (its
allowed-failures; a shard's result depends only on its input, so a rerun
gives the same document). Workers must see the capture files and the
pcap-replay binary at the same paths as this script (one machine, or a
shared file system); relative paths are taken from this script's working
directory. Exit status 2, with one line on standard error, when the run
cannot be made (no scheduler, no worker within --wait-s, a shard that
fails, --timeout-s passed).

    dask scheduler --port 8786 &
    dask worker tcp://HOST:8786 --nthreads 1 &     # on each machine, as many as wanted
    dask_check.py --scheduler tcp://HOST:8786 --shards 8 -- --profile linux big.pcap > report.json
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import uuid


def fail(message):
    sys.stderr.write("dask_check: {}\n".format(message))
    return 2


def run_shard(binary, k, n, args, cwd, marker_dir):
    """On a worker: shard k of n; (exit status, stdout, stderr).

    With marker_dir, each attempt leaves started-K-PID before it runs and
    done-K-PID after (PID: the worker's), for tests and monitoring.
    """
    tag = "{}-{}".format(k, os.getpid())
    if marker_dir:
        open(os.path.join(marker_dir, "started-" + tag), "w").close()
    p = subprocess.run([binary, "check", "--json", "--shard", "{}/{}".format(k, n)] + list(args),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd, check=False)
    if marker_dir:
        open(os.path.join(marker_dir, "done-" + tag), "w").close()
    return p.returncode, p.stdout, p.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scheduler", required=True, help="the Dask scheduler's address, e.g. tcp://127.0.0.1:8786")
    ap.add_argument("--shards", type=int, required=True, help="N: the connections are split into N shards")
    ap.add_argument("--pcap-replay", default="pcap-replay", help="the pcap-replay binary the workers run")
    ap.add_argument("--workers", type=int, default=1, help="wait for this many workers before submitting")
    ap.add_argument("--wait-s", type=float, default=60,
                    help="give up (exit 2) when --workers workers have not joined within this many seconds (60)")
    ap.add_argument("--timeout-s", type=float,
                    help="give up (exit 2) when the shards are not done within this many seconds (default: wait; "
                         "Dask waits for a worker to come back when every one died)")
    ap.add_argument("--marker-dir", help="each attempt of a shard leaves started-K-PID and done-K-PID here")
    ap.add_argument("args", nargs=argparse.REMAINDER, help="-- then check's options and the capture files")
    a = ap.parse_args()
    args = a.args[1:] if a.args[:1] == ["--"] else a.args
    if a.shards < 1 or not args:
        ap.error("give --shards N (N >= 1) and, after --, the capture files")
    binary = os.path.abspath(a.pcap_replay) if os.sep in a.pcap_replay else shutil.which(a.pcap_replay)
    if not binary or not os.access(binary, os.X_OK):
        return fail("--pcap-replay {}: no such program".format(a.pcap_replay))
    # Imported here: --help works without python3-distributed.
    try:
        from distributed import Client, wait
    except ImportError:
        return fail("python3-distributed is not installed")

    # The run's own task keys: another run on the same scheduler has others.
    run = uuid.uuid4().hex
    with tempfile.TemporaryDirectory() as tmp:
        docs = []
        try:
            with Client(a.scheduler, timeout=a.wait_s) as client:
                try:
                    client.wait_for_workers(a.workers, timeout=a.wait_s)
                except TimeoutError:
                    return fail("fewer than {} worker(s) joined {} within {} s".format(a.workers, a.scheduler, a.wait_s))
                futures = [client.submit(run_shard, binary, k, a.shards, args, os.getcwd(), a.marker_dir,
                                         key="pcap-replay-shard-{}-of-{}-{}".format(k, a.shards, run), pure=False)
                           for k in range(1, a.shards + 1)]
                try:
                    wait(futures, timeout=a.timeout_s)
                except TimeoutError:
                    return fail("the shards were not done within {} s".format(a.timeout_s))
                # One document at a time in this process (each is written to a
                # file and let go before the next is fetched; merge streams them).
                for k, future in enumerate(futures, start=1):
                    rc, out, err = future.result()
                    future.release()
                    if rc not in (0, 1, 2) or not out.strip():
                        sys.stderr.write(err.decode(errors="replace"))
                        sys.stderr.write("dask_check: shard {}/{} failed (exit status {}): no document\n".format(
                            k, a.shards, rc))
                        return 2
                    # What every shard says alike of the input (its problems), once;
                    # the limits are merge's to say.
                    if k == 1:
                        for line in err.decode(errors="replace").splitlines(True):
                            if not line.startswith("pcap-replay: limit:"):
                                sys.stderr.write(line)
                    path = os.path.join(tmp, "shard-{}.json".format(k))
                    try:
                        with open(path, "wb") as f:
                            f.write(out)
                    except OSError as e:  # not the scheduler's: the local disk
                        return fail("cannot keep shard {}/{}'s document in {}: {}".format(k, a.shards, tmp, e))
                    del out
                    docs.append(path)
        except (OSError, ValueError, TimeoutError) as e:
            return fail("scheduler {}: {}".format(a.scheduler, e))
        except Exception as e:  # a task that failed beyond Dask's retries
            return fail("a shard failed: {}: {}".format(type(e).__name__, e))
        sys.stdout.flush()
        return subprocess.run([binary, "merge"] + docs, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
