#!/usr/bin/env python3
"""Checks from outside that a job's gRPC port serves mutual TLS alone, for
the examples' --tls tests:

    tls_probe.py --ca=CA --cert=CERT --key=KEY [--name=NAME] HOST:PORT

Three connections, each sending the HTTP/2 client preface that opens every
gRPC connection: in plaintext, over TLS without a client certificate, and
over TLS with CERT. The port passes when only the last is served (answered
with an HTTP/2 SETTINGS frame), and with --name when the server's
certificate has NAME as its common name and as a DNS subjectAltName (the
process's own certificate). Prints a line per connection; exits with 0 when
the port passed, else 1.
"""

import argparse
import socket
import ssl
import sys

# The client preface, then an empty SETTINGS frame: a gRPC server answers
# with a SETTINGS frame of its own.
PREFACE = (b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" +
           b"\x00\x00\x00\x04\x00\x00\x00\x00\x00")
SETTINGS = 4
TLS_ALERT = 0x15
TIMEOUT_S = 10


def answer(sock):
    """Sends the preface on SOCK; returns 'served' when the first 9 bytes
    back are an HTTP/2 SETTINGS frame's header, else what came instead."""
    try:
        sock.sendall(PREFACE)
        header = b""
        while len(header) < 9:
            chunk = sock.recv(9 - len(header))
            if not chunk:
                return "closed after %d bytes" % len(header)
            header += chunk
    except socket.timeout:
        return "no answer within %d s" % TIMEOUT_S
    except ssl.SSLError as error:
        return "refused: %s" % (error.reason or error)
    except OSError as error:
        return "refused: %s" % (error.strerror or error)
    if header[3] == SETTINGS and header[4] == 0:
        return "served"
    if header[0] == TLS_ALERT:
        return "refused: a TLS alert"
    return "answered with bytes %s" % header.hex()


def tls_context(ca, cert=None, key=None):
    context = ssl.create_default_context(cafile=ca)
    context.set_alpn_protocols(["h2"])
    if cert:
        context.load_cert_chain(cert, key)
    return context


def names(certificate):
    """The common name and the DNS subjectAltNames of a certificate as
    getpeercert() gives it."""
    common = [value for rdn in certificate.get("subject", ())
              for key, value in rdn if key == "commonName"]
    dns = [value for key, value in certificate.get("subjectAltName", ())
           if key == "DNS"]
    return (common[0] if common else ""), dns


def connect(host, port, context=None):
    """What the port makes of a connection (plaintext without CONTEXT), and
    over TLS the names of the server's certificate, else None."""
    try:
        sock = socket.create_connection((host, port), timeout=TIMEOUT_S)
    except OSError as error:
        return "cannot connect: %s" % (error.strerror or error), None
    with sock:
        if context is None:
            return answer(sock), None
        try:
            # With TLS 1.3 a server that wants a certificate it did not get
            # says so after the client's handshake is done: on the first
            # read, in answer().
            with context.wrap_socket(sock, server_hostname=host) as tls:
                result = answer(tls)
                # A refused connection has no peer to name.
                return result, (names(tls.getpeercert())
                                if result == "served" else None)
        except ssl.SSLError as error:
            return ("refused in the handshake: %s" % (error.reason or error),
                    None)
        except OSError as error:
            return ("refused in the handshake: %s" %
                    (error.strerror or error), None)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ca", required=True, help="the job's CA (PEM)")
    parser.add_argument("--cert", required=True,
                        help="a certificate of the job's (PEM)")
    parser.add_argument("--key", required=True, help="its key (PEM)")
    parser.add_argument("--name",
                        help="the common name and DNS subjectAltName the "
                        "server's certificate must have")
    parser.add_argument("address", help="HOST:PORT")
    args = parser.parse_args()
    host, _, port = args.address.rpartition(":")
    if not host or not port.isdigit():
        parser.error("the address must be HOST:PORT, not %r" % args.address)
    port = int(port)
    probes = [
        ("plaintext", None, False),
        ("TLS without a client certificate", tls_context(args.ca), False),
        ("TLS with %s" % args.cert,
         tls_context(args.ca, args.cert, args.key), True),
    ]
    passed = True
    for what, context, want_served in probes:
        result, peer = connect(host, port, context)
        if want_served:
            ok = result == "served"
            if ok:
                common, dns = peer
                result += " by CN %s, DNS %s" % (common, ",".join(dns))
                if args.name and (common != args.name or
                                  args.name not in dns):
                    ok = False
                    result += ", not %s's own certificate" % args.name
        else:
            # Refused means refused: a port that is closed, or silent, says
            # nothing about TLS.
            ok = result.startswith(("refused", "closed after"))
        passed = passed and ok
        print("%s %s: %s: %s" % ("ok" if ok else "FAIL", args.address, what,
                                 result), flush=True)
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
