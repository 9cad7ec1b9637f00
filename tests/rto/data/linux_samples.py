#!/usr/bin/env python3
"""Derives, from a Linux sender's capture, the RTT samples the kernel's
tcp_ack_update_rtt() would take, one line per sample:

    <ack time, epoch s> <R, us> <SND.UNA after the ACK> <SND.NXT>

Rules (Linux tcp_clean_rtx_queue / tcp_ack_update_rtt, as described in
../shared/traces/linux/README.md): one sample per ACK that advances SND.UNA;
R = ACK time - transmit time of the oldest newly acknowledged segment, unless
some newly acknowledged data was retransmitted (Karn); then, with timestamps,
R = (sender TS clock now - TSecr) ms, at least 1 ms. SACK-based samples are not
modelled. Uses tshark (the independent decoder) for the packet fields.

usage: linux_samples.py CAPTURE.pcap SENDER_ADDR [SERVER_PORT] > NAME.samples
"""
import subprocess
import sys

MOD = 1 << 32


def after(a, b):
    d = (a - b) % MOD
    return d != 0 and d < (1 << 31)


def main():
    pcap, sender = sys.argv[1], sys.argv[2]
    port = sys.argv[3] if len(sys.argv) > 3 else "5001"
    fields = ["frame.time_epoch", "ip.src", "ipv6.src", "tcp.srcport", "tcp.seq_raw", "tcp.len",
              "tcp.ack_raw", "tcp.flags.syn", "tcp.flags.fin", "tcp.flags.ack",
              "tcp.options.timestamp.tsecr", "tcp.options.timestamp.tsval"]
    cmd = ["tshark", "-r", pcap, "-T", "fields"] + [x for f in fields for x in ("-e", f)]
    text = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    flag = lambda v: v in ("1", "True")
    in_flight = []  # [seq, end, last transmit time, retransmitted]
    snd_una = snd_nxt = None
    last_tsval = None  # (time, TSval) of the sender's latest segment: its TS clock
    for line in text.splitlines():
        f = line.split("\t")
        t = float(f[0])
        src = f[1] or f[2]
        seq, length = int(f[4]), int(f[5])
        if src == sender and f[3] != port:
            if f[11]:
                last_tsval = (t, int(f[11]))
            span = length + flag(f[7]) + flag(f[8])
            if span == 0:
                continue
            end = (seq + span) % MOD
            if snd_una is None:
                snd_una = snd_nxt = seq
            if after(snd_nxt, seq):
                for s in in_flight:
                    if s[0] == seq:
                        s[2], s[3] = t, True
            else:
                in_flight.append([seq, end, t, False])
            if after(end, snd_nxt):
                snd_nxt = end
            continue
        if not flag(f[9]) or not f[6] or snd_una is None:
            continue
        ack = int(f[6])
        if not after(ack, snd_una) or after(ack, snd_nxt):
            continue
        acked = [s for s in in_flight if not after(s[1], ack)]
        in_flight = [s for s in in_flight if after(s[1], ack)]
        snd_una = ack
        if not acked:
            continue
        if not any(s[3] for s in acked):
            r_us = round((t - acked[0][2]) * 1e6)
        else:
            if not f[10] or int(f[10]) == 0 or last_tsval is None:
                continue
            now_ts = (last_tsval[1] + int((t - last_tsval[0]) * 1000)) % MOD
            ticks = (now_ts - int(f[10])) % MOD
            if ticks >= (1 << 31):
                continue
            r_us = max(ticks, 1) * 1000
        print(f"{t:.6f} {r_us} {snd_una} {snd_nxt}")


if __name__ == "__main__":
    main()
