//! Compiles `proto/lf/a2a/v1/a2a.proto` with protox (no protoc needed) and
//! writes the encoded `FileDescriptorSet` to `$OUT_DIR/a2a_descriptor.bin`.

use std::path::PathBuf;

use prost::Message;

fn main() {
    println!("cargo:rerun-if-changed=proto");
    let files = protox::compile(["lf/a2a/v1/a2a.proto"], ["proto"])
        .unwrap_or_else(|e| panic!("compiling a2a.proto: {e}"));
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR is set by cargo"))
        .join("a2a_descriptor.bin");
    std::fs::write(&out, files.encode_to_vec())
        .unwrap_or_else(|e| panic!("writing {}: {e}", out.display()));
}
