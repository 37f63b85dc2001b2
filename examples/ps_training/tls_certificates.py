"""Certificates for the examples' `run.py --tls`: a throwaway CA and
certificates signed by it, made with the openssl tool as docs/security.md
shows, for a job whose processes all run on 127.0.0.1.

Every certificate names 127.0.0.1 and localhost in its subjectAltName, since
a client checks the server's certificate against the address it dials, and
serves both as a server's and as a client's (mutual TLS). Its common name,
also a DNS subjectAltName, is the name it was made for: the lighthouse
accepts a replica's heartbeats only for a replica id its certificate
carries there.
"""

import os
import re
import shutil
import subprocess
import sys

# A name lands in a file name and in openssl's -subj; these characters are
# safe in both and cover the replica ids dp_train makes (replica_<rank>).
NAME = re.compile(r"^[A-Za-z0-9_.-]+$")
CURVE = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes"]
# Long enough for any run of the examples: a process started after its
# certificate expired could connect to nobody.
DAYS = "30"


class Certificates:
    """The files make() wrote: the CA's certificate, and a certificate and
    key per name."""

    def __init__(self, directory, names):
        self.directory = directory
        self.names = list(names)
        self.ca = os.path.join(directory, "ca.pem")

    def cert(self, name):
        return os.path.join(self.directory, name + ".pem")

    def key(self, name):
        return os.path.join(self.directory, name + ".key")

    def environment(self, name):
        """The variables every Sluice tool reads its TLS setting from when
        no flag gives it, and passes on to the processes it starts."""
        return {"SLUICE_TLS_CERT": self.cert(name),
                "SLUICE_TLS_KEY": self.key(name),
                "SLUICE_TLS_CA": self.ca}


def openssl(directory, *args):
    """Runs openssl in DIRECTORY; exits run.py with what it said when it
    fails."""
    done = subprocess.run(["openssl"] + list(args), cwd=directory,
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        sys.exit("run.py --tls: 'openssl %s' in %s failed with %d: %s" %
                 (" ".join(args), directory, done.returncode,
                  done.stdout.strip()))


def make(directory, names):
    """Makes DIRECTORY (mode 0700) and in it a fresh P-256 CA (ca.pem) and,
    for each of NAMES, NAME.key (mode 0600) and NAME.pem signed by the CA,
    replacing what an earlier run left there. Returns the Certificates."""
    for name in names:
        if not NAME.match(name):
            raise ValueError("certificate name %r has characters other than "
                             "letters, digits, '_', '.' and '-'" % name)
    # The processes given these paths may run elsewhere than run.py.
    directory = os.path.abspath(directory)
    if shutil.which("openssl") is None:
        sys.exit("run.py --tls: openssl is not installed (Debian package "
                 "openssl); it makes the job's CA and certificates")
    os.makedirs(directory, mode=0o700, exist_ok=True)
    # The keys lie here: nobody else may even list them, whatever the
    # umask made of an earlier run's folder.
    os.chmod(directory, 0o700)
    certificates = Certificates(directory, names)
    openssl(directory, "req", "-x509", *CURVE, "-keyout", "ca.key",
            "-out", "ca.pem", "-days", DAYS,
            "-subj", "/CN=sluice run.py throwaway CA")
    for name in names:
        extensions = name + ".ext"
        with open(os.path.join(directory, extensions), "w") as ext:
            ext.write("subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:%s\n"
                      "extendedKeyUsage=serverAuth,clientAuth\n" % name)
        openssl(directory, "req", *CURVE, "-keyout", name + ".key",
                "-out", name + ".csr", "-subj", "/CN=" + name)
        openssl(directory, "x509", "-req", "-in", name + ".csr",
                "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", name + ".pem", "-days", DAYS, "-extfile", extensions)
        os.chmod(certificates.key(name), 0o600)
        for scratch in (name + ".csr", extensions):
            os.remove(os.path.join(directory, scratch))
    # Without the CA's key nobody can make another certificate the job's
    # processes would trust: only those made here can join it.
    for scratch in ("ca.key", "ca.srl"):
        try:
            os.remove(os.path.join(directory, scratch))
        except FileNotFoundError:
            pass  # no serial file when no certificate was signed
    return certificates
