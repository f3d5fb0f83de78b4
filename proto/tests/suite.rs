//! The wire types' tests: one test binary, each file a module named as it was.

mod peer_faults;
mod roundtrip;
mod v03;
