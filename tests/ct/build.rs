//! Compiles the memcheck client requests (shim.c); valgrind's header comes with Debian's
//! `valgrind` (scripts/setup.sh installs it).
fn main() {
    println!("cargo:rerun-if-changed=shim.c");
    cc::Build::new().file("shim.c").compile("ewk_ct_shim");
}
