//! Compiles the A2A protos with protox (no protoc needed) into one
//! `FileDescriptorSet`, written to `$OUT_DIR/a2a_descriptor.bin`:
//! `proto/lf/a2a/v1/a2a.proto` (1.0, package `lf.a2a.v1`) and
//! `proto/a2a/v1/a2a.proto` (0.3, package `a2a.v1`).

use std::path::PathBuf;

use prost::Message;

fn main() {
    println!("cargo:rerun-if-changed=proto");
    let files = protox::compile(["lf/a2a/v1/a2a.proto", "a2a/v1/a2a.proto"], ["proto"])
        .unwrap_or_else(|e| panic!("compiling the A2A protos: {e}"));
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR is set by cargo"))
        .join("a2a_descriptor.bin");
    std::fs::write(&out, files.encode_to_vec())
        .unwrap_or_else(|e| panic!("writing {}: {e}", out.display()));
}
