//! `--tls`: every binding over TLS on the one port. A private CA and a leaf certificate for
//! `localhost` and `127.0.0.1` are made at start (rcgen); the CA's PEM is what a client trusts
//! (`--tls-ca-out`). Handshakes run in their own tasks, each under a deadline, and finished
//! connections are handed to the HTTP server through [`TlsListener`]. HTTP responses carry
//! HSTS (spec 1.0 §13.4). The `tls-legacy-accepted` fault puts a small hand-made responder in
//! front of the handshake that answers a ClientHello offering only SSLv3, TLS 1.0 or 1.1 with
//! a ServerHello of that version (rustls cannot speak those versions at all).

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::Request;
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;
use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose,
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_rustls::server::TlsStream;
use tokio_rustls::TlsAcceptor;

use crate::policy::TlsPolicy;

/// How long a client may take to finish its handshake.
const HANDSHAKE_DEADLINE: Duration = Duration::from_secs(10);

/// The HSTS header value (one year).
pub const HSTS: &str = "max-age=31536000";

/// The server's TLS configuration and the PEM of the CA that signed its certificate.
#[derive(Clone)]
pub struct Material {
    pub server: Arc<rustls::ServerConfig>,
    pub ca_pem: String,
}

impl std::fmt::Debug for Material {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Material").finish_non_exhaustive()
    }
}

/// Makes a private CA and a leaf for `localhost` / `127.0.0.1` (and `host`, when it is
/// another name or address), and the server configuration (TLS 1.3 and 1.2; 1.2 only under
/// the `tls-no-tls13` fault; ALPN h2 and http/1.1, so gRPC and HTTP share the port).
pub fn material(policy: &TlsPolicy, host: &str) -> io::Result<Material> {
    let error = |e: rcgen::Error| io::Error::other(format!("certificate: {e}"));
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).map_err(error)?;
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    (ca_params.distinguished_name).push(DnType::CommonName, "a2a-tck reference agent CA");
    ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().map_err(error)?)
        .map_err(error)?;
    let mut names = vec!["localhost".to_string(), "127.0.0.1".to_string()];
    if !names.iter().any(|n| n == host) && !host.is_empty() {
        names.push(host.to_string());
    }
    let mut leaf_params = CertificateParams::new(names).map_err(error)?;
    (leaf_params.distinguished_name).push(DnType::CommonName, "a2a-tck reference agent");
    leaf_params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    leaf_params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    let leaf_key = KeyPair::generate().map_err(error)?;
    let leaf = leaf_params.signed_by(&leaf_key, &ca).map_err(error)?;
    let versions: &[&rustls::SupportedProtocolVersion] = if !policy.offers_1_3 {
        &[&rustls::version::TLS12]
    } else {
        &[&rustls::version::TLS13, &rustls::version::TLS12]
    };
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let chain: Vec<CertificateDer<'static>> = vec![leaf.der().clone(), ca.der().clone()];
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(leaf_key.serialize_der()));
    let mut server = rustls::ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(versions)
        .map_err(|e| io::Error::other(format!("TLS versions: {e}")))?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|e| io::Error::other(format!("TLS certificate: {e}")))?;
    server.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(Material {
        server: Arc::new(server),
        ca_pem: ca.pem(),
    })
}

/// The connections whose handshake finished, for `axum::serve`.
pub struct TlsListener {
    ready: mpsc::Receiver<(TlsStream<TcpStream>, SocketAddr)>,
    local: SocketAddr,
    /// Accepts TCP connections and runs their handshakes; stopped with the listener.
    acceptor: JoinHandle<()>,
}

impl Drop for TlsListener {
    fn drop(&mut self) {
        self.acceptor.abort();
    }
}

impl TlsListener {
    /// Accepts on `listener`, shaking hands with `material`'s configuration.
    pub fn new(listener: TcpListener, material: &Material, policy: &TlsPolicy) -> io::Result<Self> {
        let local = listener.local_addr()?;
        let acceptor = TlsAcceptor::from(Arc::clone(&material.server));
        let legacy = policy.accepts_legacy_hello;
        let (tx, ready) = mpsc::channel(64);
        let acceptor = tokio::spawn(async move {
            loop {
                let Ok((tcp, peer)) = listener.accept().await else {
                    continue;
                };
                let _ = tcp.set_nodelay(true);
                let (acceptor, tx) = (acceptor.clone(), tx.clone());
                tokio::spawn(async move {
                    let mut tcp = tcp;
                    if legacy && answered_legacy_hello(&mut tcp).await {
                        return;
                    }
                    let shaken = tokio::time::timeout(HANDSHAKE_DEADLINE, acceptor.accept(tcp));
                    if let Ok(Ok(stream)) = shaken.await {
                        let _ = tx.send((stream, peer)).await;
                    }
                });
            }
        });
        Ok(TlsListener {
            ready,
            local,
            acceptor,
        })
    }
}

impl axum::serve::Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.ready.recv().await {
            Some(connection) => connection,
            // The acceptor is gone (shutdown): accept nothing more.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        Ok(self.local)
    }
}

/// The `tls-legacy-accepted` fault: when the connection opens with a ClientHello whose
/// highest version is SSLv3, TLS 1.0 or 1.1, answers it with a ServerHello of that version
/// and closes (true); otherwise leaves the connection untouched (false).
async fn answered_legacy_hello(tcp: &mut TcpStream) -> bool {
    let mut head = [0u8; 11];
    let peeked = tokio::time::timeout(HANDSHAKE_DEADLINE, tcp.peek(&mut head)).await;
    if !matches!(peeked, Ok(Ok(11))) {
        return false;
    }
    // Record: handshake (22); handshake message: client_hello (1); then client_version.
    let version = [head[9], head[10]];
    if head[0] != 22 || head[5] != 1 || version[0] != 3 || version[1] > 2 {
        return false;
    }
    let mut hello = vec![2, 0, 0, 38, version[0], version[1]];
    hello.extend_from_slice(&[0x5a; 32]); // random
    hello.push(0); // empty session id
    hello.extend_from_slice(&[0x00, 0x2f]); // TLS_RSA_WITH_AES_128_CBC_SHA
    hello.push(0); // no compression
    let mut record = vec![22, version[0], version[1], 0, hello.len() as u8];
    record.extend_from_slice(&hello);
    let _ = tcp.write_all(&record).await;
    true
}

/// Middleware: HSTS on every response (unless the `tls-no-hsts` fault is on).
pub async fn hsts(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    response.headers_mut().insert(
        axum::http::header::STRICT_TRANSPORT_SECURITY,
        HeaderValue::from_static(HSTS),
    );
    response
}
