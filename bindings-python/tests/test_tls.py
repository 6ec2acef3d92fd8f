"""TLS to Redis from the wheel: the extension's own TLS (rustls, compiled in,
no OpenSSL) reaches a real TLS redis-server, verifies its certificate
against the trust store (``SSL_CERT_FILE``), refuses an unknown CA, and
works in a process where Python's ``ssl`` (OpenSSL) talks to the same
server."""

from __future__ import annotations

import os
import shutil
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import zlink
from zlink import ReadyRoute

from conftest import free_port

TESTS = Path(__file__).resolve().parent


@dataclass
class TlsServer:
    tls_port: int
    ca_file: Path

    @property
    def verified_url(self) -> str:
        return f"rediss://127.0.0.1:{self.tls_port}"

    @property
    def insecure_url(self) -> str:
        return f"rediss://127.0.0.1:{self.tls_port}/#insecure"


def _openssl(*args: str | Path) -> None:
    subprocess.run(["openssl", *map(str, args)], check=True, capture_output=True)


def _make_certificates(d: Path) -> None:
    """A throwaway CA and a leaf certificate for 127.0.0.1 that it signed."""
    key = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes")
    (d / "leaf.ext").write_text(
        "basicConstraints=critical,CA:FALSE\n"
        "keyUsage=critical,digitalSignature\n"
        "extendedKeyUsage=serverAuth\n"
        "subjectAltName=IP:127.0.0.1\n"
    )
    _openssl("req", "-x509", "-days", "2", "-subj", "/CN=zlink-python-test CA", *key,
             "-keyout", d / "ca.key", "-out", d / "ca.pem")
    _openssl("req", "-new", "-subj", "/CN=127.0.0.1", *key,
             "-keyout", d / "server.key", "-out", d / "server.csr")
    _openssl("x509", "-req", "-days", "2", "-set_serial", "1", "-in", d / "server.csr",
             "-CA", d / "ca.pem", "-CAkey", d / "ca.key", "-extfile", d / "leaf.ext",
             "-out", d / "server.pem")


@pytest.fixture(scope="module")
def tls_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TlsServer]:
    exe = shutil.which("redis-server")
    if exe is None or shutil.which("openssl") is None:
        pytest.skip("redis-server and openssl are needed (make deps installs them)")
    d = tmp_path_factory.mktemp("tls")
    _make_certificates(d)
    port, tls_port = free_port(), free_port()
    proc = subprocess.Popen(
        [exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
         "--tls-port", str(tls_port), "--tls-auth-clients", "no",
         "--tls-cert-file", str(d / "server.pem"), "--tls-key-file", str(d / "server.key"),
         "--tls-ca-cert-file", str(d / "ca.pem")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("redis-server with TLS did not start")
            time.sleep(0.02)
        yield TlsServer(tls_port, d / "ca.pem")
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _resolve_over(store: zlink.RedisStore) -> None:
    owner = zlink.Runtime(zlink.NodeIdentity("main", 1), store=store)
    sender = zlink.Runtime(zlink.NodeIdentity("main", 2), store=store)
    owner.activate("actor", "over-tls")
    route = sender.resolve("actor", "over-tls")
    assert isinstance(route, ReadyRoute), route
    assert route.node == 1


def test_insecure_url_reaches_the_tls_port(tls_server: TlsServer) -> None:
    store = zlink.RedisStore(tls_server.insecure_url, prefix="tls-insecure")
    _resolve_over(store)


def test_an_unknown_ca_is_refused(tls_server: TlsServer) -> None:
    with pytest.raises(zlink.StoreError) as caught:
        zlink.RedisStore(tls_server.verified_url, connect_timeout=500, response_timeout=500)
    assert "certificate" in str(caught.value), caught.value


def test_a_trusted_ca_verifies_in_a_fresh_process(tls_server: TlsServer) -> None:
    # The trust store is read from the environment: set it for a child only.
    env = dict(os.environ, SSL_CERT_FILE=str(tls_server.ca_file))
    env.pop("SSL_CERT_DIR", None)
    code = (
        "import sys, zlink\n"
        "store = zlink.RedisStore(sys.argv[1], prefix='tls-verified')\n"
        "rt = zlink.Runtime(zlink.NodeIdentity('main', 1), store=store)\n"
        "rt.activate('actor', 'verified')\n"
        "print(type(rt.resolve('actor', 'verified')).__name__)\n"
    )
    done = subprocess.run([sys.executable, "-c", code, tls_server.verified_url],
                          cwd=TESTS, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ReadyRoute"


def test_pythons_ssl_and_the_extension_share_a_process(tls_server: TlsServer) -> None:
    # Python's ssl module (OpenSSL) and zlink's rustls talk TLS to the same
    # server from one process: the extension brings no OpenSSL of its own.
    context = ssl.create_default_context(cafile=str(tls_server.ca_file))
    with socket.create_connection(("127.0.0.1", tls_server.tls_port), timeout=5) as raw:
        with context.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
            tls.sendall(b"PING\r\n")
            assert tls.recv(16).startswith(b"+PONG")
            store = zlink.RedisStore(tls_server.insecure_url, prefix="tls-shared")
            _resolve_over(store)
            tls.sendall(b"PING\r\n")
            assert tls.recv(16).startswith(b"+PONG")
