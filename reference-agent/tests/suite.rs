//! The reference agent's tests: one test binary, each file a module named as it was
//! (`cargo test -p a2a-reference-agent --test suite streams::` runs one).

mod common;

mod acts_env;
mod agent;
mod durable_principals;
mod faults_streams;
mod faults_tasks;
mod faults_v03;
mod faults_wire;
mod rest;
mod streams;
mod v03;
