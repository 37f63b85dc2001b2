"""Network partitions for the examples' run.py: the failures a real network
makes and a kill does not. A host that vanishes or a cut link sends no
reset; packets just stop, and only liveness (SLUICE_LIVENESS_TIMEOUT_MS,
docs/faults.md) tells its peers. run.py makes that happen on 127.0.0.1:
with a --partition_* flag it runs itself again under `unshare -n`, in a
network namespace of its own whose only interface is loopback (nothing it
does touches the machine's network), and drops TCP segments there with
nftables, then heals. Needs root and nft (Debian's nftables).

Two kinds of cut, as test/util/network_faults.h makes them:
  - by port: every segment to or from a task's listening port (the task's
    server side: every connection to it);
  - by user: every connection of the processes run as FAULT_USER
    (run_as_fault_user), whatever their ports, as a host that vanished.
"""

import fcntl
import os
import shutil
import socket
import struct
import subprocess
import sys
import threading
import time

# Set in the environment of the run.py that runs inside the namespace.
IN_NAMESPACE = "SLUICE_RUN_PY_NETWORK_NAMESPACE"
TABLE = "inet sluice_run_partition"
# test/util/network_faults.h's first fault user.
FAULT_USER = 4242
TRAFFIC = {
    "both": "both ways",
    "to": "to it (it hears nothing; its answers still arrive)",
    "from": "from it (it hears everything; nothing it sends arrives)",
}
SIOCGIFFLAGS = 0x8913
SIOCSIFFLAGS = 0x8914
IFF_UP = 0x1


def add_arguments(parser, targets):
    """The --partition_* and --liveness_timeout_ms flags; TARGETS says what
    --partition_target may name."""
    parser.add_argument("--partition_after_s", type=float,
                        help="cut --partition_target off the network after "
                        "SECONDS (needs root and nft: run.py then runs in a "
                        "network namespace of its own)")
    parser.add_argument("--partition_for_s", type=float,
                        help="heal the partition after SECONDS (default: "
                        "never)")
    parser.add_argument("--partition_target", help=targets)
    parser.add_argument("--partition_traffic", choices=sorted(TRAFFIC),
                        default="both",
                        help="what is dropped: both ways, or only what is "
                        "sent to the target, or only what it sends")
    parser.add_argument("--liveness_timeout_ms", type=int,
                        help="every process's liveness timeout "
                        "(SLUICE_LIVENESS_TIMEOUT_MS; default 3000): how "
                        "long a silent connection may stay open")


def check_arguments(parser, args):
    if args.partition_after_s is None:
        if args.partition_target or args.partition_for_s is not None:
            parser.error("--partition_target and --partition_for_s need "
                         "--partition_after_s")
        return
    if not args.partition_target:
        parser.error("--partition_after_s needs --partition_target")
    if args.partition_after_s < 0 or (args.partition_for_s is not None and
                                      args.partition_for_s <= 0):
        parser.error("--partition_after_s must be at least 0 and "
                     "--partition_for_s above 0")


def export_liveness(args):
    """Every process run.py starts takes the liveness timeout from here."""
    if args.liveness_timeout_ms is not None:
        os.environ["SLUICE_LIVENESS_TIMEOUT_MS"] = str(args.liveness_timeout_ms)


def nft_path():
    for path in ("/usr/sbin/nft", "/sbin/nft"):
        if os.access(path, os.X_OK):
            return path
    return shutil.which("nft")


def run_nft(script):
    """Applies SCRIPT whole (nft -f reads it all or applies nothing);
    exits run.py with what nft said when it refuses."""
    done = subprocess.run([nft_path(), "-f", "-"], input=script, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        sys.exit("run.py: nft refused %r: %s" % (script, done.stdout.strip()))


def enter_namespace(args):
    """With a partition asked for, makes sure run.py runs in a network
    namespace of its own: runs itself again under `unshare -n` (this call
    then does not return), or, in the namespace, brings loopback up and
    makes the nftables table. Without root or nft it says why and exits
    with 1."""
    if args.partition_after_s is None:
        return
    if os.environ.get(IN_NAMESPACE) != "1":
        why = None
        if os.geteuid() != 0:
            why = "it needs root"
        elif nft_path() is None:
            why = "nft is not installed (Debian package nftables)"
        elif shutil.which("unshare") is None:
            why = "unshare is not installed (util-linux)"
        if why:
            sys.exit("run.py: cannot inject a partition (--partition_after_s): "
                     "%s; it cuts the network with nftables in a network "
                     "namespace of its own (unshare -n)" % why)
        sys.stdout.flush()
        env = dict(os.environ, **{IN_NAMESPACE: "1"})
        unshare = shutil.which("unshare")
        os.execve(unshare, [unshare, "--net", "--", sys.executable,
                            os.path.abspath(sys.argv[0])] + sys.argv[1:], env)
    bring_loopback_up()
    # The marks chain marks each connection a fault user's socket sends on
    # from its first segment, before any process of run.py's starts: a cut
    # by user then finds the segments others send to that user too.
    run_nft("add table %s\n"
            "add chain %s marks { type filter hook output priority -10; "
            "policy accept; }\n"
            "add chain %s output { type filter hook output priority 0; "
            "policy accept; }\n"
            "add rule %s marks meta skuid %d ct mark set %d\n" %
            (TABLE, TABLE, TABLE, TABLE, FAULT_USER, FAULT_USER))


def bring_loopback_up():
    """A new namespace's loopback is down: nothing could listen on
    127.0.0.1."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        request = struct.pack("16sH", b"lo", 0)
        flags = struct.unpack("16sH", fcntl.ioctl(s, SIOCGIFFLAGS,
                                                  request))[1]
        fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sH", b"lo",
                                                 flags | IFF_UP))


def run_as_fault_user(argv):
    """ARGV run as FAULT_USER, for a cut by user: its sockets are then that
    user's. It keeps the right to read and write what root may (the
    binaries and logs lie under root's home), and nothing else of root's."""
    return ["/usr/bin/setpriv", "--reuid=%d" % FAULT_USER,
            "--regid=%d" % FAULT_USER, "--clear-groups",
            "--inh-caps=+dac_override", "--ambient-caps=+dac_override",
            "--"] + list(argv)


class Partition:
    """One cut of a target, scheduled from a thread: cut() after the delay,
    heal() after the duration. Prints a line for each, which the tests
    read."""

    def __init__(self, args, target, ports=(), user=False):
        self.args = args
        self.target = target  # "ps 0 (127.0.0.1:4711)", ...
        self.ports = list(ports)
        self.user = user
        self.cut_at = None
        self.healed_at = None
        self.lock = threading.Lock()

    def rules(self):
        traffic = self.args.partition_traffic
        rules = []
        if self.user:
            if traffic != "from":
                rules.append("ct mark %d meta skuid != %d drop" %
                             (FAULT_USER, FAULT_USER))
            if traffic != "to":
                rules.append("meta skuid %d drop" % FAULT_USER)
        for port in self.ports:
            if traffic != "from":
                rules.append("tcp dport %d drop" % port)
            if traffic != "to":
                rules.append("tcp sport %d drop" % port)
        return "".join("add rule %s output %s\n" % (TABLE, rule)
                       for rule in rules)

    def cut(self):
        run_nft(self.rules())
        with self.lock:
            self.cut_at = time.time()
        print("run.py: partition: %s cut off %s at %.3f" %
              (self.target, TRAFFIC[self.args.partition_traffic],
               self.cut_at), flush=True)

    def heal(self):
        run_nft("flush chain %s output\n" % TABLE)
        with self.lock:
            self.healed_at = time.time()
            lasted = self.healed_at - self.cut_at
        print("run.py: partition healed after %.3f s at %.3f" %
              (lasted, self.healed_at), flush=True)

    def since_cut(self):
        """Seconds since the cut; None before it."""
        with self.lock:
            return None if self.cut_at is None else time.time() - self.cut_at

    def schedule(self, stop):
        """Cuts after --partition_after_s and heals --partition_for_s later,
        unless STOP is set first; returns the thread."""
        def run():
            if stop.wait(self.args.partition_after_s):
                return
            self.cut()
            if (self.args.partition_for_s is not None and
                    not stop.wait(self.args.partition_for_s)):
                self.heal()
        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        return thread
