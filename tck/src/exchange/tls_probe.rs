//! Probes of a TLS endpoint's protocol versions, each over its own TCP connection and under a
//! deadline: whether it negotiates TLS 1.3 (rustls, certificate not judged: only the version
//! is asked here), and whether it accepts a legacy version (SSLv3, TLS 1.0, TLS 1.1).
//!
//! The legacy probe is hand-made on purpose: rustls (the kit's TLS stack) cannot offer those
//! versions at all, and a crate that can (OpenSSL bindings) would bring a C library to every
//! build for one question. The question needs only the first message of a handshake: the
//! probe sends a minimal ClientHello record whose highest version is the legacy one, and reads
//! the first record of the answer. A ServerHello of that version means accepted; an alert, a
//! closed or reset connection, or anything else means refused. No session is ever completed.

use std::sync::Arc;
use std::time::Duration;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// How long one probe may take, connection included.
pub const DEADLINE: Duration = Duration::from_secs(5);

/// A legacy protocol version and its wire number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Legacy {
    Ssl3,
    Tls10,
    Tls11,
}

impl Legacy {
    pub const ALL: [Legacy; 3] = [Legacy::Ssl3, Legacy::Tls10, Legacy::Tls11];

    fn wire(self) -> [u8; 2] {
        match self {
            Legacy::Ssl3 => [3, 0],
            Legacy::Tls10 => [3, 1],
            Legacy::Tls11 => [3, 2],
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Legacy::Ssl3 => "SSLv3",
            Legacy::Tls10 => "TLS 1.0",
            Legacy::Tls11 => "TLS 1.1",
        }
    }
}

/// What a legacy probe saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LegacyAnswer {
    /// A ServerHello of the offered version.
    Accepted,
    /// Refused, and how.
    Refused(String),
}

/// A minimal ClientHello record offering `version` as the highest, with common cipher suites
/// of that era (and, from TLS 1.0, SNI for a host name and the curves of ECDHE suites).
fn client_hello(version: Legacy, host: &str) -> Vec<u8> {
    let [major, minor] = version.wire();
    let mut body = vec![major, minor];
    body.extend((0u8..32).map(|i| i.wrapping_mul(7).wrapping_add(11))); // random
    body.push(0); // no session id
    let suites: [u16; 8] = [
        0xc013, 0xc014, 0x002f, 0x0035, 0x000a, 0x0033, 0x0039, 0x00ff,
    ];
    body.extend_from_slice(&((suites.len() * 2) as u16).to_be_bytes());
    suites
        .iter()
        .for_each(|s| body.extend_from_slice(&s.to_be_bytes()));
    body.extend_from_slice(&[1, 0]); // compression: null only
    if version != Legacy::Ssl3 {
        let mut extensions = Vec::new();
        if host.parse::<std::net::IpAddr>().is_err() && !host.is_empty() && host.len() < 256 {
            let name = host.as_bytes();
            let list_len = name.len() + 3;
            extensions.extend_from_slice(&[0, 0]); // server_name
            extensions.extend_from_slice(&((list_len + 2) as u16).to_be_bytes());
            extensions.extend_from_slice(&(list_len as u16).to_be_bytes());
            extensions.push(0); // host_name
            extensions.extend_from_slice(&(name.len() as u16).to_be_bytes());
            extensions.extend_from_slice(name);
        }
        // supported_groups: secp256r1, secp384r1; ec_point_formats: uncompressed.
        extensions.extend_from_slice(&[0, 10, 0, 6, 0, 4, 0, 23, 0, 24]);
        extensions.extend_from_slice(&[0, 11, 0, 2, 1, 0]);
        body.extend_from_slice(&(extensions.len() as u16).to_be_bytes());
        body.extend_from_slice(&extensions);
    }
    let mut handshake = vec![1]; // client_hello
    handshake.extend_from_slice(&(body.len() as u32).to_be_bytes()[1..]);
    handshake.extend_from_slice(&body);
    let mut record = vec![22, major, if version == Legacy::Ssl3 { 0 } else { 1 }];
    record.extend_from_slice(&(handshake.len() as u16).to_be_bytes());
    record.extend_from_slice(&handshake);
    record
}

/// Offers only `version` to `addr` (`host:port`) and reads the first answer record.
pub async fn legacy(addr: &str, host: &str, version: Legacy) -> Result<LegacyAnswer, String> {
    let probe = async {
        let mut tcp = TcpStream::connect(addr)
            .await
            .map_err(|e| format!("cannot connect to {addr}: {e}"))?;
        if let Err(e) = tcp.write_all(&client_hello(version, host)).await {
            return Ok(LegacyAnswer::Refused(format!("the connection closed: {e}")));
        }
        let mut head = [0u8; 5];
        if let Err(e) = tcp.read_exact(&mut head).await {
            return Ok(LegacyAnswer::Refused(format!(
                "the connection closed without a ServerHello ({e})"
            )));
        }
        Ok(match head[0] {
            21 => LegacyAnswer::Refused("a TLS alert".into()),
            22 => {
                let mut first = [0u8; 6];
                match tcp.read_exact(&mut first).await {
                    Ok(_) if first[0] == 2 && first[4..6] == version.wire() => {
                        LegacyAnswer::Accepted
                    }
                    Ok(_) if first[0] == 2 => LegacyAnswer::Refused(format!(
                        "a ServerHello of another version ({}.{})",
                        first[4], first[5]
                    )),
                    _ => LegacyAnswer::Refused("a handshake record that is no ServerHello".into()),
                }
            }
            other => LegacyAnswer::Refused(format!("a record of type {other}, not TLS")),
        })
    };
    match tokio::time::timeout(DEADLINE, probe).await {
        Ok(answer) => answer,
        Err(_) => Ok(LegacyAnswer::Refused(format!(
            "no answer within {DEADLINE:?}, so no {} session",
            version.name()
        ))),
    }
}

/// Whether `addr` negotiates TLS 1.3 (the client offers only 1.3). `Ok(Err(why))`: it did
/// not; `Err`: the probe could not run (no connection).
pub async fn tls13(addr: &str, host: &str) -> Result<Result<(), String>, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(|e| e.to_string())?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(AnyCertificate(provider)))
        .with_no_client_auth();
    let name = ServerName::try_from(host.to_string()).map_err(|e| format!("{host}: {e}"))?;
    let probe = async {
        let tcp = TcpStream::connect(addr)
            .await
            .map_err(|e| format!("cannot connect to {addr}: {e}"))?;
        let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
        Ok(match connector.connect(name, tcp).await {
            Ok(_) => Ok(()),
            Err(e) => Err(format!("a handshake offering only TLS 1.3 failed: {e}")),
        })
    };
    tokio::time::timeout(DEADLINE, probe)
        .await
        .unwrap_or_else(|_| Ok(Err(format!("no TLS 1.3 handshake within {DEADLINE:?}"))))
}

/// Accepts any certificate: the version probe asks about versions only (the kit's requests
/// verify certificates as usual).
#[derive(Debug)]
struct AnyCertificate(Arc<rustls::crypto::CryptoProvider>);

impl ServerCertVerifier for AnyCertificate {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        let algorithms = &self.0.signature_verification_algorithms;
        rustls::crypto::verify_tls12_signature(message, cert, dss, algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        let algorithms = &self.0.signature_verification_algorithms;
        rustls::crypto::verify_tls13_signature(message, cert, dss, algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hello_lengths_agree() {
        for version in Legacy::ALL {
            for host in ["127.0.0.1", "agent.example"] {
                let record = client_hello(version, host);
                let record_len = u16::from_be_bytes([record[3], record[4]]) as usize;
                assert_eq!(record.len(), 5 + record_len);
                let body_len = u32::from_be_bytes([0, record[6], record[7], record[8]]) as usize;
                assert_eq!(record_len, 4 + body_len);
                assert_eq!(record[9..11], version.wire());
            }
        }
    }
}
